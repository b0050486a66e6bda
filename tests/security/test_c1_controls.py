"""C1 control characters (U+0080 to U+009F, NEL U+0085 among them) are control characters
too: typed text holding one is refused with the same message as NUL or DEL and nothing is
stored (docs/lab-admin/security.md: every control character but tab and line breaks is
refused). Beyond seed 000: an input rule of the platform."""

import html

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from annotation.comparison import services as comparison_services
from annotation.comparison.models import ComparisonDraft, ComparisonJudgment
from core.text_rules import check_text
from tests.api.conftest import token_client
from tests.comparison.helpers import assign, make_pair, people

HTMX = {"HTTP_HX_REQUEST": "true"}
NEL = "\x85"
MESSAGE = (
    "Selection rationale contains a control character (U+0085) at character 4; "
    "remove it (only tabs and line breaks are allowed)."
)


@pytest.mark.parametrize("char", ["\x80", NEL, "\x9b", "\x9f"])
def test_every_c1_control_is_refused_like_nul(char):
    """The same message as for NUL or DEL, naming the character and its position."""
    with pytest.raises(ValidationError) as refused:
        check_text(f"a{char}b", label="Note", limit=10)
    assert refused.value.messages == [
        f"Note contains a control character (U+{ord(char):04X}) at character 2; "
        "remove it (only tabs and line breaks are allowed)."
    ]


def test_text_around_the_c1_block_is_kept():
    """DEL's neighbours outside the block are ordinary text: no-break space, é, ÿ, emoji."""
    text = "caf\u00e9\u00a0\u00ff \u2028 tab\there\r\nline \U0001f600 \x7e"
    assert check_text(text, label="Note", limit=100) == text


@pytest.fixture
def assignment(db):
    who = people()
    pair = make_pair()
    return next(iter(assign(pair, who["annotators"], who["admin"]).values()))


@pytest.mark.django_db
def test_a_comparison_rationale_with_nel_is_refused_and_stores_nothing(client, assignment):
    """The comparison page, the service and the API refuse a selection rationale holding
    U+0085; no judgment is stored."""
    client.force_login(assignment.annotator)
    url = reverse("comparison:pair", kwargs={"assignment": assignment.public_id})
    content = {
        "suitability": "suitable",
        "selected_letter": "B",
        "rating": "as_is",
        "selection_rationale": f"Fit{NEL}s the memories.",
    }
    page = client.post(url, content)
    assert page.status_code == 200
    assert MESSAGE in html.unescape(page.content.decode())
    with pytest.raises(comparison_services.ComparisonError, match=r"control character \(U\+0085"):
        comparison_services.comparison_submit(
            public_id=assignment.public_id, annotator=assignment.annotator, content=content
        )
    assert not ComparisonJudgment.objects.exists()


@pytest.mark.django_db
def test_a_draft_with_nel_is_not_saved_and_the_earlier_draft_stays(client, assignment):
    """The autosaved draft: the page says "Not saved: ..." and the API answers 400 naming
    the field; the draft saved before is unchanged."""
    client.force_login(assignment.annotator)
    url = reverse("comparison:draft", kwargs={"assignment": assignment.public_id})
    client.post(url, {"selection_rationale": "kept"}, **HTMX)
    refused = client.post(url, {"selection_rationale": f"Fit{NEL}s"}, **HTMX)
    assert f"Not saved: {MESSAGE}" in html.unescape(refused.content.decode())
    api = token_client(assignment.annotator)
    api_url = reverse("comparison-api:draft", args=[assignment.public_id])
    answer = api.put(api_url, {"selection_rationale": f"Fit{NEL}s"}, format="json")
    assert answer.status_code == 400
    assert MESSAGE in answer.json()["fields"]["selection_rationale"]
    with pytest.raises(comparison_services.ComparisonError, match=r"control character \(U\+0085"):
        comparison_services.comparison_draft_save(
            public_id=assignment.public_id,
            annotator=assignment.annotator,
            data={"selection_rationale": f"Fit{NEL}s"},
        )
    assert ComparisonDraft.objects.get(assignment=assignment).data == {
        "selection_rationale": "kept"
    }
