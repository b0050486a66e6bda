"""Conflict of interest refused at every act, not once (issue #24 point 1), and the
login lockout's hour (issue #24): an arbitrator who judged any round of a pair, an
audit-team member who took part in construction after the audit was created, and five
wrong passwords."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from adjudication.arbitration import services as arbitration_services
from adjudication.arbitration.models import ArbitrationDecision
from annotation.comparison.models import ComparisonPair, PairAssignment
from annotation.scenario_review import services as scenario_review_services
from audit.reference_labels import services as label_services
from audit.reference_labels.models import LabelAdjudication, LabelAuditItem, LabelSelection
from core import conflicts
from core.roles import Role
from tests.api.conftest import token_client
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.factories import DEFAULT_PASSWORD, ScenarioFactory, UserFactory
from tests.reference_labels.conftest import ensure_groups, make_team, small_final_set

pytestmark = pytest.mark.django_db


# --- Arbitration: nobody arbitrates a pair they judged, in any round ---------------------


def next_round(pair, status=ComparisonPair.Status.ESCALATED):
    """The pair's next round (issue #22), same candidates, already routed as ``status``."""
    pair.status = ComparisonPair.Status.REGENERATING
    pair.save(update_fields=["status"])
    later = ComparisonPair.objects.create(
        character=pair.character,
        scenario=pair.scenario,
        profile_version=pair.profile_version,
        round=pair.round + 1,
        previous_round=pair,
        status=status,
        escalation_reasons=["split"],
    )
    later.candidates.set(pair.candidates.all())
    return later


@pytest.fixture
def two_rounds():
    who = people()
    first = make_pair(key="CHAR_91")
    judges = who["annotators"]
    a = assign(first, judges, who["admin"])
    judge(a[judges[0].pk], family="claude")
    judge(a[judges[1].pk], family="gpt")
    judge(a[judges[2].pk], family="gemini")
    first.refresh_from_db()
    assert first.status == ComparisonPair.Status.ESCALATED
    later = next_round(first)
    # An annotator of round 1 who has since been given the arbitrator role.
    both = judges[0]
    both.groups.add(Group.objects.get(name=Role.ARBITRATOR.value))
    return {**who, "first": first, "later": later, "both": both}


def test_a_judge_of_an_earlier_round_may_not_arbitrate_the_later_round(two_rounds):
    later, both = two_rounds["later"], two_rounds["both"]
    message = conflicts.arbitration_conflict(later, both)
    assert message.startswith("You judged Character 91 × ")
    assert "your comparison judgment (round 1, version 1, submitted " in message
    assert "in any round" in message
    for act in (
        lambda: arbitration_services.arbitration_discard(
            pair_id=later.pk, arbitrator=both, reason="Unfit."
        ),
        lambda: arbitration_services.arbitration_resolve(
            pair_id=later.pk,
            arbitrator=both,
            kind="adopted",
            candidate_id=later.candidates.first().pk,
        ),
        lambda: arbitration_services.arbitration_regenerate(
            pair_id=later.pk, arbitrator=both, guidance="Use the memories."
        ),
    ):
        with pytest.raises(arbitration_services.ArbitrationConflict, match="round 1, version 1"):
            act()
    assert not ArbitrationDecision.objects.exists()
    # Another arbitrator is not conflicted.
    assert conflicts.arbitration_conflict(later, two_rounds["arbitrator"]) is None


def test_an_assignment_alone_is_a_conflict_and_is_named(two_rounds):
    later = two_rounds["later"]
    assigned = UserFactory(username="cmp-assigned", roles=[Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR])
    third = next_round(later, status=ComparisonPair.Status.ESCALATED)
    # Assigned to round 2, never judged.
    PairAssignment.objects.create(
        pair=later,
        annotator=assigned,
        permutation=list(later.candidates.values_list("pk", flat=True)),
        assigned_by=two_rounds["admin"],
    )
    message = conflicts.arbitration_conflict(third, assigned)
    assert "your comparison assignment (round 2, batch 1, assigned " in message


def test_the_page_shows_why_instead_of_the_form_and_a_post_is_403(two_rounds):
    later, both = two_rounds["later"], two_rounds["both"]
    client = Client()
    client.force_login(both)
    url = reverse("adjudication:pair", kwargs={"pair_id": later.pk})
    page = client.get(url)
    body = page.content.decode()
    assert page.status_code == 200
    assert 'data-testid="own-pair"' in body and "round 1, version 1" in body
    assert 'id="arbitration-form"' not in body
    posted = client.post(url, {"kind": "discarded", "reason": "Unfit.", "decide": "1"})
    assert posted.status_code == 403
    assert "round 1, version 1" in posted.content.decode()
    assert not ArbitrationDecision.objects.exists()
    # The queue says so too, instead of "Arbitrate".
    queue = client.get(reverse("adjudication:queue")).content.decode()
    assert 'data-testid="queue-conflict"' in queue and "round 1, version 1" in queue
    assert f'Arbitrate<span class="visually-hidden"> {later.title}' not in queue
    assert f'Open<span class="visually-hidden"> {later.title}' in queue
    # The uninvolved arbitrator gets the form.
    client.force_login(two_rounds["arbitrator"])
    assert 'id="arbitration-form"' in client.get(url).content.decode()
    queue = client.get(reverse("adjudication:queue")).content.decode()
    assert 'data-testid="queue-conflict"' not in queue
    assert f'Arbitrate<span class="visually-hidden"> {later.title}' in queue


def test_the_api_answers_403_with_the_message(two_rounds):
    later, both = two_rounds["later"], two_rounds["both"]
    api = token_client(both)
    read = api.get(reverse("adjudication-api:pair", args=[later.pk]))
    assert read.json()["can_decide"] is False
    url = reverse("adjudication-api:decide", args=[later.pk])
    refused = api.post(url, {"kind": "discarded", "reason": "Unfit."}, format="json")
    assert refused.status_code == 403
    assert "round 1, version 1" in refused.json()["detail"]
    assert not ArbitrationDecision.objects.exists()
    ok = token_client(two_rounds["arbitrator"])
    assert ok.get(reverse("adjudication-api:pair", args=[later.pk])).json()["can_decide"]


# --- The reference-label audit: checked at every act ------------------------------------


@pytest.fixture
def audit_team():
    ensure_groups()
    team = make_team("coi")
    small_final_set(characters=1, stages=("school_age",), per_stratum=4)
    audit = label_services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=3,
        seed=5,
    )
    rows = list(
        LabelAuditItem.objects.filter(audit=audit).select_related("item_version").order_by("pk")
    )
    return {**team, "audit": audit, "rows": rows}


def screen_a_scenario(person, scenario_id="SCN_SCHOOL_AGE_97100"):
    """A construction record made after the audit was created (the issue's case)."""
    person.groups.add(Group.objects.get(name=Role.SCENARIO_REVIEWER.value))
    ScenarioFactory(scenario_id=scenario_id)
    scenario_review_services.scenario_screen(
        scenario_id=scenario_id,
        reviewer=get_user_model().objects.get(pk=person.pk),
        decision="flag",
        note="Ambiguous.",
    )
    return f"scenario screening decision (scenario review pass 1) ({scenario_id})"


def test_an_expert_with_a_later_construction_record_is_refused_at_each_act(audit_team):
    expert, row = audit_team["experts"][0], audit_team["rows"][0]
    label_services.label_selection_draft_save(audit_item_id=row.pk, expert=expert, choice="A")
    record = screen_a_scenario(expert)
    with pytest.raises(label_services.LabelAuditConflict) as refused:
        label_services.label_selection_draft_save(
            audit_item_id=row.pk, expert=expert, choice="B", note="changed"
        )
    assert (
        "Refused (conflict of interest): coi-expert-1 took part in construction"
        in (refused.value.messages[0])
    )
    assert record in refused.value.messages[0]
    with pytest.raises(label_services.LabelAuditConflict, match="SCN_SCHOOL_AGE_97100"):
        label_services.label_selection_submit(audit_item_id=row.pk, expert=expert, choice="B")
    selection = LabelSelection.objects.get(audit_item=row, expert=expert)
    assert selection.choice == "A" and selection.note == "" and selection.submitted_at is None
    # The others still select.
    label_services.label_selection_submit(
        audit_item_id=row.pk, expert=audit_team["experts"][1], choice="A"
    )


def test_the_adjudicator_with_a_later_record_is_refused(audit_team):
    row = audit_team["rows"][0]
    key = row.item_version.correct_answer
    off_key = next(x for x in "ABCD" if x != key)
    for expert, choice in zip(audit_team["experts"], [key, off_key, key], strict=True):
        label_services.label_selection_submit(audit_item_id=row.pk, expert=expert, choice=choice)
    row.refresh_from_db()
    assert row.status == LabelAuditItem.Status.ADJUDICATING
    adjudicator = audit_team["adjudicator"]
    screen_a_scenario(adjudicator)
    with pytest.raises(label_services.LabelAuditConflict, match="coi-adjudicator took part"):
        label_services.label_item_adjudicate(
            audit_item_id=row.pk, adjudicator=adjudicator, decision="usable_as_is"
        )
    row.refresh_from_db()
    assert row.status == LabelAuditItem.Status.ADJUDICATING
    assert not LabelAdjudication.objects.exists()
    # Over the page: 403 with the record named.
    client = Client()
    client.force_login(adjudicator)
    url = reverse("audit:labels:adjudicate", args=[row.pk])
    shown = client.get(url).content.decode()
    assert 'data-testid="conflict"' in shown and "SCN_SCHOOL_AGE_97100" in shown
    assert 'name="decision"' not in shown
    posted = client.post(url, {"decision": "usable_as_is", "note": ""})
    assert posted.status_code == 403
    assert "SCN_SCHOOL_AGE_97100" in posted.content.decode()
    # Over the API: 403 {"detail": ...}.
    api = token_client(adjudicator)
    refused = api.post(
        reverse("audit-api:labels-api:adjudication", args=[row.pk]),
        {"decision": "usable_as_is"},
        format="json",
    )
    assert refused.status_code == 403
    assert "SCN_SCHOOL_AGE_97100" in refused.json()["detail"]
    assert not LabelAdjudication.objects.exists()


def test_pages_and_api_refuse_a_conflicted_expert_with_403(audit_team):
    expert, row = audit_team["experts"][0], audit_team["rows"][0]
    screen_a_scenario(expert)
    client = Client()
    client.force_login(expert)
    page = client.post(reverse("audit:labels:select", args=[row.pk]), {"choice": "A"})
    assert page.status_code == 403
    assert "SCN_SCHOOL_AGE_97100" in page.content.decode()
    draft = client.post(reverse("audit:labels:draft", args=[row.pk]), {"choice": "A"})
    assert draft.status_code == 403
    htmx = client.post(
        reverse("audit:labels:draft", args=[row.pk]), {"choice": "A"}, HTTP_HX_REQUEST="true"
    )
    assert htmx.status_code == 403 and "SCN_SCHOOL_AGE_97100" in htmx.content.decode()
    api = token_client(expert)
    for method, name in (("put", "draft"), ("post", "selection")):
        answer = getattr(api, method)(
            reverse(f"audit-api:labels-api:{name}", args=[row.pk]), {"choice": "A"}, format="json"
        )
        assert answer.status_code == 403, (name, answer.content)
        assert "SCN_SCHOOL_AGE_97100" in answer.json()["detail"]
    assert not LabelSelection.objects.filter(expert=expert).exists()


# --- The login lockout: the hour counts from the lock -----------------------------------


def login(client, password):
    return client.post(reverse("login"), {"username": "nadia", "password": password})


def test_the_lockout_hour_counts_from_the_lock_and_attempts_during_it_do_not_extend_it():
    UserFactory(username="nadia", roles=[Role.PRIMARY_ANNOTATOR])
    client = Client()
    limit = settings.AXES_FAILURE_LIMIT
    answers = [login(client, f"wrong-{i}").status_code for i in range(limit)]
    assert answers == [200] * (limit - 1) + [429]
    attempt = AccessAttempt.objects.get(username="nadia")
    locked_at = attempt.attempt_time
    assert attempt.failures_since_start == limit

    # During the lockout: the right password and more wrong ones are refused, and the
    # lock's start does not move.
    assert login(client, DEFAULT_PASSWORD).status_code == 429
    assert login(client, "wrong-again").status_code == 429
    assert "_auth_user_id" not in client.session
    attempt.refresh_from_db()
    assert attempt.attempt_time == locked_at
    assert attempt.failures_since_start == limit

    # Just before the hour is up (counted from the lock), still locked.
    cool_off = settings.AXES_COOLOFF_TIME
    AccessAttempt.objects.filter(pk=attempt.pk).update(
        attempt_time=locked_at - cool_off + timedelta(minutes=1)
    )
    assert login(client, DEFAULT_PASSWORD).status_code == 429
    assert AccessAttempt.objects.get(pk=attempt.pk).failures_since_start == limit

    # An hour after the lock: the right password works.
    AccessAttempt.objects.filter(pk=attempt.pk).update(
        attempt_time=locked_at - cool_off - timedelta(seconds=1)
    )
    back = login(client, DEFAULT_PASSWORD)
    assert back.status_code == 302 and back["Location"] == reverse("home")


# --- The admin's page of current conflicts ------------------------------------------------


def test_the_conflicts_page_lists_current_conflicts_in_a_fixed_number_of_queries(
    two_rounds, django_assert_num_queries
):
    ensure_groups()
    team = make_team("page")
    small_final_set(characters=1, stages=("school_age",), per_stratum=4)
    audit = label_services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=3,
        seed=5,
    )
    record = screen_a_scenario(team["experts"][1])
    client = Client()
    client.force_login(team["admin"])
    url = reverse("conflicts")
    assert 'data-testid="conflicts-link"' in client.get(reverse("home")).content.decode()
    client.get(url)  # warm the session, then count
    with CaptureQueriesContext(connection) as first:
        page = client.get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert f'data-testid="audit-conflicts-{audit.pk}"' in body
    assert "page-expert-2</strong> (expert)" in body and "SCN_SCHOOL_AGE_97100" in body
    assert "page-expert-1</strong>" not in body and "page-adjudicator</strong>" not in body
    assert body.count('data-testid="pair-conflict"') == 1
    assert "cmp-annotator-1" in body and "round 1, version 1" in body
    assert record.startswith("scenario screening decision")

    # More conflicted people, audits and pairs: the same number of queries.
    screen_a_scenario(team["experts"][2], "SCN_SCHOOL_AGE_97200")
    screen_a_scenario(team["adjudicator"], "SCN_SCHOOL_AGE_97300")
    second = two_rounds["annotators"][1]
    second.groups.add(Group.objects.get(name=Role.ARBITRATOR.value))
    other = make_pair(key="CHAR_92")
    judges = two_rounds["annotators"]
    a = assign(other, judges, two_rounds["admin"])
    judge(a[judges[0].pk], family="claude")
    judge(a[judges[1].pk], family="gpt")
    judge(a[judges[2].pk], family="gemini")
    with django_assert_num_queries(len(first)):
        page = client.get(url)
    body = page.content.decode()
    assert body.count('data-testid="member-conflict"') == 3
    assert body.count('data-testid="pair-conflict"') == 4


def test_the_conflicts_page_is_the_admins(two_rounds):
    client = Client()
    client.force_login(two_rounds["arbitrator"])
    assert client.get(reverse("conflicts")).status_code == 403
