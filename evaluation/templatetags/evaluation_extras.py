from django import template

register = template.Library()


@register.filter
def get_item(mapping, key):
    """``mapping|get_item:key``: a dict lookup with a variable key."""
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def points(proportion):
    """A difference of proportions in percentage points."""
    return None if proportion is None else 100 * proportion
