"""The section index of the long statistics pages (issue 32): built from the page's own
section headings, so every link lands on a heading that is there, in page order."""

from django.template import Context, Template

TEMPLATE = Template(
    "{% load sections %}<h1>Report</h1>{% section_index %}"
    "{% for key, title in sections %}"
    '<section><h2 class="h5" id="{{ key }}-h">{{ title }}</h2><p>…</p></section>'
    "{% endfor %}<h2>No anchor, no entry</h2>{% endsection_index %}"
)


def _render(sections):
    return TEMPLATE.render(Context({"sections": sections}))


def test_the_index_links_every_section_heading_in_order():
    sections = [
        ("acc", "Accuracy"),
        ("k1", "Accuracy by reference source (App. K.1)"),
        ("cmp", "Paired comparisons <between> settings & models"),
        ("diag", "Profile-disclosure diagnostic"),
    ]
    html = _render(sections)
    index, body = html.split("</nav>")
    assert 'data-testid="section-index"' in index and "On this page" in index
    assert (
        index.index('href="#acc-h"') < index.index('href="#k1-h"') < index.index('href="#diag-h"')
    )
    # The heading's text once, escaped once.
    assert "Paired comparisons &lt;between&gt; settings &amp; models</a>" in index
    assert "No anchor" not in index
    for key, _ in sections:
        assert f'id="{key}-h"' in body


def test_a_short_page_has_no_index():
    html = _render([("acc", "Accuracy"), ("k1", "K.1"), ("cmp", "Comparisons")])
    assert "section-index" not in html and 'id="cmp-h"' in html
