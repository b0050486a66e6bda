"""A candidate that annotators have already judged is not cleaned in place: their
judgment is about the text they saw. A re-screening can flag such a pair (it was
assigned before a rule matched); the admin then accepts the flag with a reason, and
the refusal says so, on the service and on the flag's page."""

import pytest
from django.urls import reverse

from annotation.candidate_screening import services as screening
from annotation.candidate_screening.models import CandidateCleaning, LeakFlag
from annotation.comparison import selectors, services
from annotation.comparison.models import PairAssignment
from annotation.generation.models import Candidate
from tests.candidate_screening.test_screening import assign, make_run
from tests.comparison.helpers import judge, people

pytestmark = pytest.mark.django_db

LATE_LEAK = "I'm an assistant, but I would stay behind and water the plants."


@pytest.fixture
def world():
    who = people()
    run = make_run(who["admin"])
    (pair,) = services.comparison_pairs_create(user=who["admin"], run_id=run.pk)
    world = {**who, "pair": pair, "leaky": pair.candidates.get(family="gpt")}
    first = LeakFlag.objects.get()
    screening.flag_accept(flag_id=first.pk, user=who["admin"], reason="Quoted on purpose.")
    assign(world)
    return world


def flag_late(world):
    """A new rule (here: an edited text) matches after assignment; re-screen."""
    Candidate.objects.filter(pk=world["leaky"].pk).update(final_decision=LATE_LEAK)
    assert services.comparison_pairs_screen(user=world["admin"]) == 1
    return LeakFlag.objects.get(status="open")


def first_judgment(world):
    annotator = world["annotators"][0]
    judge(PairAssignment.objects.get(pair=world["pair"], annotator=annotator), family="claude")


def test_a_judged_candidate_is_not_cleaned_in_place(world):
    first_judgment(world)
    flag = flag_late(world)
    with pytest.raises(screening.ScreeningError) as error:
        screening.flag_clean(
            flag_id=flag.pk,
            user=world["admin"],
            fields={"final_decision": "I would stay behind."},
            reason="Removed the self-reference.",
        )
    message = error.value.messages[0]
    assert "CHAR_77 × " in message and "1 submitted judgment)" in message
    assert "accept the flag with a reason instead" in message
    world["leaky"].refresh_from_db()
    assert world["leaky"].final_decision == LATE_LEAK
    assert not CandidateCleaning.objects.exists()
    flag.refresh_from_db()
    assert flag.status == "open"
    # Accepting keeps the text the annotator judged and frees the pair again.
    screening.flag_accept(flag_id=flag.pk, user=world["admin"], reason="Already judged as is.")
    assert len(selectors.comparison_queue(user=world["annotators"][1]).rows) == 1


def test_a_pair_assigned_but_not_yet_judged_can_still_be_cleaned(world):
    flag = flag_late(world)
    screening.flag_clean(
        flag_id=flag.pk,
        user=world["admin"],
        fields={"final_decision": "I would stay behind."},
        reason="Removed the self-reference.",
    )
    world["leaky"].refresh_from_db()
    assert world["leaky"].final_decision == "I would stay behind."


def test_the_flag_page_offers_only_accepting_and_a_posted_clean_is_refused(client, world):
    first_judgment(world)
    judge(
        PairAssignment.objects.get(pair=world["pair"], annotator=world["annotators"][1]),
        family="gpt",
    )
    flag = flag_late(world)
    client.force_login(world["admin"])
    page = client.get(reverse("screening:flag", args=[flag.pk])).content.decode()
    assert 'data-testid="clean-refused"' in page and "2 submitted judgments" in page
    assert reverse("screening:clean", args=[flag.pk]) not in page
    assert reverse("screening:accept", args=[flag.pk]) in page
    response = client.post(
        reverse("screening:clean", args=[flag.pk]),
        {"final_decision": "I would stay.", "reason": "Removed it."},
    )
    assert response.status_code == 200
    assert "Annotators have already judged this text" in response.content.decode()
    flag.refresh_from_db()
    assert flag.status == "open" and not CandidateCleaning.objects.exists()
