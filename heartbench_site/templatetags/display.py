"""``{% load display %}``: the statistics pages' names and number formats
(:mod:`heartbench_site.base.display`)."""

from django import template

from heartbench_site.base import display

register = template.Library()

register.filter("human", display.human_label)
register.filter("family", display.family_label)
register.filter("percent", display.format_percent)
register.filter("signed_points", display.format_points)
register.filter("count", display.format_count)


@register.filter
def coefficient(value, digits=3):
    """κ, α, ρ: ``{{ kappa|coefficient }}`` (three decimals) or ``|coefficient:2``."""
    return display.format_coefficient(value, int(digits))


@register.filter
def small_n(n, unit="unit"):
    """``{{ n|small_n:"pair" }}``: the note that an interval over so few units says little."""
    return display.small_n_note(n, unit)
