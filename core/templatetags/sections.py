"""The section index of a long page: ``{% section_index %}…{% endsection_index %}`` renders
its body and puts before it a list of links to the body's ``<h2 id="…">`` headings, so the
index always names the sections the page shows, in their order, and never links to an
anchor that is not there. Fewer than :data:`MIN_SECTIONS` headings: no index."""

import re
from html import unescape

from django import template
from django.template.loader import render_to_string
from django.utils.html import strip_tags

register = template.Library()

MIN_SECTIONS = 4
HEADING = re.compile(r'<h2\b[^>]*?\bid="([^"]+)"[^>]*>(.*?)</h2>', re.S)
#: A ``{% protocol_ref %}`` inside a heading (templates/partials/protocol_ref.html): its "?"
#: and its hidden citation are no part of the heading's name in the index.
PROTOCOL_REF = re.compile(r'<span class="protocol-ref">.*?</span></span>', re.S)


def section_headings(html: str) -> list[tuple[str, str]]:
    """(anchor, heading text) of every ``<h2>`` with an id, in order."""
    return [
        (anchor, " ".join(unescape(strip_tags(PROTOCOL_REF.sub("", text))).split()))
        for anchor, text in HEADING.findall(html)
    ]


class SectionIndexNode(template.Node):
    def __init__(self, nodelist):
        self.nodelist = nodelist

    def render(self, context):
        body = self.nodelist.render(context)
        sections = section_headings(body)
        if len(sections) < MIN_SECTIONS:
            return body
        index = render_to_string("partials/section_index.html", {"sections": sections})
        return index + body


@register.tag
def section_index(parser, token):
    nodelist = parser.parse(("endsection_index",))
    parser.delete_first_token()
    return SectionIndexNode(nodelist)
