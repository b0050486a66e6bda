"""``{% help_link_url as href %}``: the guide section of the page being rendered
(heartbench_site/help.py), for the Help link of templates/base.html."""

from django import template

from heartbench_site.help import help_url

register = template.Library()


@register.simple_tag(takes_context=True)
def help_link_url(context):
    request = context.get("request")
    return help_url(request) if request is not None else None
