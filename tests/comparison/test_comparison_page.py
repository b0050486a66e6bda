"""The comparison page's autosave label says something true from the start (issue 21):
nothing saved yet, the time of the draft, or that a routed pair saves nothing."""

import pytest
from django.urls import reverse

from annotation.comparison.models import ComparisonDraft
from tests.comparison.helpers import assign, make_pair, people

pytestmark = pytest.mark.django_db


@pytest.fixture
def assignment():
    who = people()
    pair = make_pair()
    return next(iter(assign(pair, who["annotators"], who["admin"]).values()))


def label(client, assignment):
    url = reverse("comparison:pair", kwargs={"assignment": assignment.public_id})
    body = client.get(url).content.decode()
    start = body.index('data-testid="autosave-status">') + len('data-testid="autosave-status">')
    return body[start : body.index("</span>", start)].strip()


def test_the_autosave_label_is_never_empty(client, assignment):
    client.force_login(assignment.annotator)
    assert label(client, assignment) == "Not saved yet. Changes save automatically as a draft."
    draft = reverse("comparison:draft", kwargs={"assignment": assignment.public_id})
    saved = client.post(draft, {"selection_rationale": "half"}, HTTP_HX_REQUEST="true")
    assert ComparisonDraft.objects.filter(assignment=assignment).exists()
    assert saved.content.decode().strip().startswith("Draft saved at ")
    # On reload the label tells the same: the draft's time, not an empty label.
    assert label(client, assignment) == saved.content.decode().strip()


def test_a_routed_pair_says_that_nothing_is_saved(client, assignment):
    pair = assignment.pair
    pair.status = pair.Status.ESCALATED
    pair.save(update_fields=["status"])
    client.force_login(assignment.annotator)
    assert label(client, assignment) == "Off: this pair has been routed."


def test_the_page_shows_candidate_tabs_with_aria_roles(client, assignment):
    client.force_login(assignment.annotator)
    url = reverse("comparison:pair", kwargs={"assignment": assignment.public_id})
    body = client.get(url).content.decode()
    assert 'role="tablist"' in body
    for letter in "ABC":
        assert f'id="tab-{letter}" aria-controls="panel-{letter}"' in body
        assert f'id="panel-{letter}" aria-labelledby="tab-{letter}"' in body
    assert 'aria-controls="panel-profile"' in body and 'aria-controls="panel-scenario"' in body


def test_the_annotators_home_card_counts_in_plain_english(client, assignment):
    client.force_login(assignment.annotator)
    body = client.get("/").content.decode()
    assert "1 pair awaiting your comparison" in body and "(s)" not in body
