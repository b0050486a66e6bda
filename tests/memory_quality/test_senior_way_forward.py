"""Issue 32: a senior expert whose edit the re-audit keeps flagging is never stuck. The
stock demo classifier judges the text (a cue phrase of its criterion is a defect, and an
edit that removes it passes); the senior may re-audit the edit as it stands, and when
only the LLM classifier flags it, send it to the reviewing team, whose unanimous
false-positive agreement accepts it (App. B.6), after which the run finalizes. Every
step is recorded."""

import pytest
from django.test import Client
from django.urls import reverse

from audit.memory_quality.models import AuditError, AuditEvent, MemoryCase, OverrideAgreement
from audit.memory_quality.services.finalize import audit_run_finalize
from audit.memory_quality.services.review import (
    case_review_decide,
    case_senior_ask_team,
    case_senior_edit,
    case_senior_reaudit,
)
from core.roles import Role
from llm import ProviderConfig
from llm.testing.fake_server import DemoResponder

from .conftest import CLEAN, CLEAN_REWRITE, DRIFT, hand_written
from .test_repair_protocol import run_audit

pytestmark = pytest.mark.django_db

# In the moment (the bus came minutes later), yet the demo classifier's cue for
# criterion 1: a false positive the reviewing team can accept.
TURNED_OUT = CLEAN_REWRITE.replace(
    "I did not know where my mother was; maybe the bus was late.",
    "I watched the door. As it turned out, the bus was only ten minutes late.",
)


@pytest.fixture
def demo_classifier(settings, fake_server):
    """The fake server's stock answers (no script): the demo classifier, with no random
    flags, so only its cue phrases flag."""
    fake_server.responder = DemoResponder(seed=3, flag_share=0.0)
    settings.HEARTBENCH_AUDIT_CLASSIFIER_PROVIDER = ProviderConfig(
        kind="gemini",
        model="fake-classifier",
        base_url=fake_server.base_url("gemini"),
        timeout=5.0,
        max_retries=1,
    )
    return fake_server


@pytest.fixture
def team(person):
    return [person(Role.MEMORY_REVIEWER, username=f"wf-rev-{n}") for n in (1, 2, 3)]


@pytest.fixture
def senior(person):
    return person(Role.ARBITRATOR, username="wf-senior")


@pytest.fixture
def confirmed(admin_user, team, eager_celery, django_capture_on_commit_callbacks):
    """A memory the patterns flag (no repair model): a reviewer confirms the defect."""
    hand_written(content_full=DRIFT)
    run = run_audit(admin_user, django_capture_on_commit_callbacks)
    case = MemoryCase.objects.get(run=run)
    return case_review_decide(
        case_id=case.pk, reviewer=team[0], decision="confirmed", reason="Hindsight."
    )


def edit(case, senior, content_full):
    memory = case.memory
    return case_senior_edit(
        case_id=case.pk,
        editor=senior,
        context=memory.context,
        content_summary=memory.content_summary,
        content_full=content_full,
    )


def test_the_demo_classifier_judges_the_text_an_edit_without_the_cue_passes(
    confirmed, senior, demo_classifier
):
    case, findings = edit(confirmed, senior, TURNED_OUT)
    assert case.status == MemoryCase.Status.SENIOR
    [flag] = case.flags.filter(current=True)
    assert (flag.criterion, flag.source) == (1, "classifier")
    assert flag.spans[0]["text"] == "As it turned out, the bus was only ten minutes late."
    case, findings = edit(case, senior, CLEAN_REWRITE)
    assert findings == [] and case.status == MemoryCase.Status.REVISED


def test_a_flagged_edit_is_re_audited_then_accepted_by_the_teams_agreement(
    confirmed, senior, team, demo_classifier, admin_user
):
    case, _ = edit(confirmed, senior, TURNED_OUT)
    # Saving the same text again is refused, and the refusal names the ways forward.
    with pytest.raises(AuditError, match="re-audit it as it stands"):
        edit(case, senior, TURNED_OUT)
    # 1. Re-audit again: recorded as its own pass; the stock classifier reads it alike.
    case, findings = case_senior_reaudit(case_id=case.pk, editor=senior)
    assert case.status == MemoryCase.Status.SENIOR and [f.source for f in findings] == [
        "classifier"
    ]
    assert case.flags.get(current=True).audit_pass == "senior re-audit 1"
    # 2. The reviewing team: a new round, where round 1's decisions do not count.
    OverrideAgreement.objects.create(case=case, reviewer=team[1], reason="round 1")
    with pytest.raises(AuditError, match="reason is required"):
        case_senior_ask_team(case_id=case.pk, editor=senior, reason=" ")
    case = case_senior_ask_team(
        case_id=case.pk, editor=senior, reason="The bus came minutes later: in the moment."
    )
    assert (case.status, case.review_round, case.decision) == (MemoryCase.Status.REVIEW, 2, "")
    with pytest.raises(AuditError, match="still open"):
        audit_run_finalize(run_id=case.run_id, actor=admin_user)
    for n, reviewer in enumerate(team, start=1):
        case = case_review_decide(
            case_id=case.pk,
            reviewer=reviewer,
            decision="false_positive",
            reason="Minutes later, same scene: no hindsight.",
        )
        assert case.status == ("false_positive" if n == 3 else "review")
    assert case.memory.content_full == TURNED_OUT  # the edit stands as it is
    run = audit_run_finalize(run_id=case.run_id, actor=admin_user)
    assert run.finalized_at is not None
    actions = list(
        AuditEvent.objects.filter(case=case).order_by("created_at", "pk").values_list("action")
    )
    trail = [a for (a,) in actions]
    assert trail[-6:] == [
        "senior_reaudit",
        "senior_asked_team",
        "review_false_positive_agreed",
        "review_false_positive_agreed",
        "review_false_positive_agreed",
        "review_false_positive",
    ]
    done = AuditEvent.objects.get(case=case, action="review_false_positive")
    assert done.details["review_round"] == 2 and done.details["accepted_senior_edit"]
    assert case.history.filter(review_round=2, status="false_positive").exists()


def test_a_re_audit_that_passes_closes_the_case(confirmed, senior, demo_classifier):
    case, _ = edit(confirmed, senior, TURNED_OUT)
    verdicts = iter([True] * 6)

    def changed_its_mind(req):  # the classifier flags on the first reading only
        defect = next(verdicts, False)
        return {"defect": defect, "evidence": "", "rationale": "second reading"}

    demo_classifier.responder = changed_its_mind
    case, findings = case_senior_reaudit(case_id=case.pk, editor=senior)
    assert findings and case.status == MemoryCase.Status.SENIOR
    case, findings = case_senior_reaudit(case_id=case.pk, editor=senior)
    assert findings == [] and case.status == MemoryCase.Status.REVISED
    event = AuditEvent.objects.filter(case=case, action="senior_reaudit").latest("pk")
    assert event.details["passed"] and event.details["audit_pass"] == "senior re-audit 2"


def test_the_ways_forward_are_refused_where_b6_does_not_allow_them(
    confirmed, senior, team, demo_classifier
):
    # Before any edit: the reviewer's confirmation stands; only an edit clears it.
    with pytest.raises(AuditError, match="edit the memory first"):
        case_senior_reaudit(case_id=confirmed.pk, editor=senior)
    # A pattern flag is not the team's to override: the senior edits it away.
    case, findings = edit(confirmed, senior, DRIFT + " Little change.")
    assert any(f.source == "pattern" for f in findings)
    with pytest.raises(AuditError, match="Only a flag of the LLM classifier"):
        case_senior_ask_team(case_id=case.pk, editor=senior, reason="x")
    # Once the team confirmed the defect in an edit, only a new edit goes forward.
    case, _ = edit(case, senior, TURNED_OUT)
    case = case_senior_ask_team(case_id=case.pk, editor=senior, reason="In the moment.")
    case = case_review_decide(
        case_id=case.pk, reviewer=team[1], decision="confirmed", reason="It is hindsight."
    )
    assert case.status == MemoryCase.Status.SENIOR
    for step in (
        lambda: case_senior_reaudit(case_id=case.pk, editor=senior),
        lambda: case_senior_ask_team(case_id=case.pk, editor=senior, reason="again"),
    ):
        with pytest.raises(AuditError, match="confirmed the defect in this edit"):
            step()
    case, findings = edit(case, senior, CLEAN)
    assert findings == [] and case.status == MemoryCase.Status.REVISED


def test_a_senior_who_is_also_a_reviewer_does_not_judge_their_own_edit(
    confirmed, person, demo_classifier
):
    both = person(Role.ARBITRATOR, Role.MEMORY_REVIEWER, username="wf-both")
    case, _ = edit(confirmed, both, TURNED_OUT)
    case = case_senior_ask_team(case_id=case.pk, editor=both, reason="In the moment.")
    with pytest.raises(AuditError, match="judges your edit, not you"):
        case_review_decide(case_id=case.pk, reviewer=both, decision="false_positive", reason="x")


def test_the_case_page_offers_the_ways_forward_and_takes_them(
    confirmed, senior, team, demo_classifier
):
    case, _ = edit(confirmed, senior, TURNED_OUT)
    client = Client()
    client.force_login(senior)
    url = reverse("audit:case-detail", args=[case.pk])
    page = client.get(url).content.decode()
    block = page.split('data-testid="way-forward"', 1)[1].split("</section>", 1)[0]
    assert 'id="reaudit-form"' in block and 'id="ask-team-form"' in block
    answer = client.post(reverse("audit:case-reaudit", args=[case.pk]), follow=True)
    assert "Re-audited: still flagged (1 defect)" in answer.content.decode()
    answer = client.post(
        reverse("audit:case-ask-team", args=[case.pk]),
        {"reason": "Minutes later, same scene."},
        follow=True,
    )
    body = answer.content.decode()
    assert "Sent to the reviewing team" in body
    steps = body.split('data-testid="way-forward-steps"', 1)[1].split("</ol>", 1)[0]
    assert "re-audited v" in steps and "(senior re-audit 1)" in steps
    assert "sent v" in steps and "Minutes later, same scene." in steps
    reviewer = Client()
    reviewer.force_login(team[1])
    page = reviewer.get(url).content.decode()
    assert 'id="decision-form"' in page and "review round 2" in page
