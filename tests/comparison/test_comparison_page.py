"""The comparison page's autosave label says something true from the start (issue 21):
nothing saved yet, the time of the draft, or that a closed (routed) pair saves nothing."""

import re

import pytest
from django.urls import reverse

from annotation.comparison.models import ComparisonDraft
from tests.comparison.helpers import assign, judge, make_pair, people

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
    assert label(client, assignment) == "Off: this pair is closed."


def test_the_page_has_tabs_for_narrow_screens_and_every_panel_without_them(client, assignment):
    """The tab list (shown by comparison.js below 1440 px) controls the panels; in the
    markup every panel is labelled by its own heading, so without the tabs (from 1440 px,
    or without JavaScript) each reads on its own."""
    client.force_login(assignment.annotator)
    url = reverse("comparison:pair", kwargs={"assignment": assignment.public_id})
    body = client.get(url).content.decode()
    assert 'role="tablist"' in body
    for letter in "ABC":
        assert f'id="tab-{letter}" aria-controls="panel-{letter}"' in body
        assert f'id="panel-{letter}" aria-labelledby="cand-{letter}"' in body
    assert 'aria-controls="panel-profile"' in body and 'aria-controls="panel-scenario"' in body
    assert 'id="panel-profile" aria-labelledby="profile-h"' in body


def test_the_page_names_the_pair_in_words_and_documents_the_shortcuts(client, assignment):
    client.force_login(assignment.annotator)
    url = reverse("comparison:pair", kwargs={"assignment": assignment.public_id})
    body = client.get(url).content.decode()
    pair = assignment.pair
    text = re.sub(r"<[^>]+>", " ", body)  # what a person reads, not the markup
    assert pair.title in text and pair.character.key not in text
    assert pair.scenario.scenario_id not in text
    assert "seed 000" not in text
    help_text = body[body.index('data-testid="shortcut-help"') :]
    help_text = help_text[: help_text.index("</p>")]
    assert "with the focus on the candidates or in this form" in help_text
    for key in "ABC12":
        assert f"<kbd>{key}</kbd>" in help_text


def judgment(letter="A"):
    return {
        "suitability": "suitable",
        "selected_letter": letter,
        "rating": "as_is",
        "selection_rationale": "Best grounded.",
    }


def test_a_submit_opens_the_next_pair_of_the_queue(client):
    """After a submit the annotator lands on the next pair that awaits them, told what
    was saved; after the last one, on their queue."""
    who = people()
    pairs = [make_pair(key=f"CHAR_5{i}") for i in (1, 2, 3)]
    mine = [assign(p, who["annotators"], who["admin"])[who["annotators"][0].pk] for p in pairs]
    client.force_login(who["annotators"][0])
    url = [reverse("comparison:pair", kwargs={"assignment": a.public_id}) for a in mine]
    # The second pair is already submitted: from the first, the third is next.
    assert client.post(url[1], judgment()).status_code == 302
    answer = client.post(url[0], judgment(), follow=True)
    assert answer.redirect_chain == [(url[2], 302)]
    text = answer.content.decode()
    assert f"Submitted your judgment of {pairs[0].title}. Next: {pairs[2].title}." in text
    # The last one waiting: back to the queue, which says so.
    answer = client.post(url[2], judgment(), follow=True)
    assert answer.redirect_chain == [(reverse("comparison:queue"), 302)]
    assert "No other pair awaits your judgment." in answer.content.decode()
    # A revision of an open pair moves on as well, and says it was a revision.
    answer = client.post(url[0], judgment("B"), follow=True)
    assert "Submitted your revised judgment of " in answer.content.decode()


def test_the_queue_names_pairs_and_states_in_words(client):
    who = people()
    first, second, third = (make_pair(key=f"CHAR_6{i}") for i in (1, 2, 3))
    a = [assign(p, who["annotators"], who["admin"]) for p in (first, second, third)]
    me = who["annotators"][0]
    judge(a[0][me.pk], family="claude")
    for other in who["annotators"][1:]:  # the third pair is routed once all have judged
        judge(a[2][other.pk], family="gpt")
    judge(a[2][me.pk], family="gpt")
    client.force_login(me)
    body = client.get(reverse("comparison:queue")).content.decode()
    states = [s.strip() for s in re.findall(r'data-testid="queue-state">([^<]*)<', body)]
    assert states == [
        "Submitted — waiting for the other annotators",
        "Not started",
        "Submitted — closed: all annotators have judged it",
    ]
    for pair in (first, second, third):
        assert pair.character.key not in body and pair.scenario.scenario_id not in body
    assert f'Compare<span class="visually-hidden"> {second.title}</span>' in body
    assert "seed 000" not in body and "routed" not in body


def test_the_annotators_home_card_counts_in_plain_english(client, assignment):
    client.force_login(assignment.annotator)
    body = client.get("/").content.decode()
    assert "1 pair awaiting your comparison" in body and "(s)" not in body
