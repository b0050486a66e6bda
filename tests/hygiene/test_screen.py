"""A screen over the published corpus: the planted spans are flagged with their rule and
span, a clean text is not, a reviewer's decision is recorded and carries over, and the
summary the dataset card records equals a count from the records."""

from collections import Counter

import pytest

from audit.hygiene import card, selectors, services
from audit.hygiene.models import HygieneDecision, HygieneError, HygieneFlag
from audit.hygiene.rules import Rule
from core.llm_runs.models import RunStatus
from core.roles import Role

from .conftest import EMAIL, NAME, PHONE, PLANTED, screen_now

pytestmark = pytest.mark.django_db


def test_planted_personal_data_in_a_memory_is_flagged_with_the_right_rule_and_span(
    corpus, admin_user
):
    run = screen_now(admin_user)
    assert run.status == RunStatus.FINISHED
    planted = corpus["planted"]
    flags = list(HygieneFlag.objects.filter(run=run, memory=planted).order_by("start"))
    assert [(f.rule, f.field, f.matched) for f in flags] == [
        (Rule.NAME, "content_full", NAME),
        (Rule.EMAIL, "content_full", EMAIL),
        (Rule.PHONE, "content_full", PHONE),
    ]
    for flag in flags:
        assert PLANTED[flag.start : flag.end] == flag.matched
        assert flag.status == HygieneFlag.Status.OPEN
        assert flag.text_kind == HygieneFlag.TextKind.MEMORY


def test_a_clean_memory_and_a_name_from_the_profile_are_not_flagged(corpus, admin_user):
    run = screen_now(admin_user)
    assert not HygieneFlag.objects.filter(run=run, memory=corpus["clean"]).exists()
    # The reference names the character's cousin, whom its profile names too.
    assert not HygieneFlag.objects.filter(run=run, reference=corpus["reference"]).exists()
    # Two memories, one reference, four options.
    assert run.text_done == run.text_total == 7


def test_a_reviewers_decision_is_recorded_and_carries_over_to_the_next_screen(
    corpus, admin_user, reviewer
):
    run = screen_now(admin_user)
    name_flag = HygieneFlag.objects.get(run=run, rule=Rule.NAME)
    email_flag = HygieneFlag.objects.get(run=run, rule=Rule.EMAIL)
    services.hygiene_flag_decide(
        flag_id=name_flag.pk, reviewer=reviewer, decision="dismiss", reason="A made-up friend."
    )
    services.hygiene_flag_decide(flag_id=email_flag.pk, reviewer=reviewer, decision="confirm")
    decisions = HygieneDecision.objects.order_by("pk")
    assert [(d.flag_id, d.decision, d.reviewer_id) for d in decisions] == [
        (name_flag.pk, "dismiss", reviewer.pk),
        (email_flag.pk, "confirm", reviewer.pk),
    ]
    name_flag.refresh_from_db()
    assert name_flag.status == HygieneFlag.Status.DISMISSED

    second = screen_now(admin_user)
    again = {f.rule: f for f in HygieneFlag.objects.filter(run=second)}
    assert again[Rule.NAME].status == HygieneFlag.Status.DISMISSED
    assert again[Rule.NAME].carried_from_id == name_flag.pk
    assert again[Rule.EMAIL].status == HygieneFlag.Status.CONFIRMED  # not repaired yet
    assert again[Rule.PHONE].status == HygieneFlag.Status.OPEN


def test_only_a_memory_reviewer_decides_and_a_dismissal_needs_a_reason(
    corpus, admin_user, reviewer, person
):
    run = screen_now(admin_user)
    flag = HygieneFlag.objects.filter(run=run).first()
    with pytest.raises(HygieneError, match="Only a memory reviewer"):
        services.hygiene_flag_decide(
            flag_id=flag.pk, reviewer=person(Role.PRIMARY_ANNOTATOR), decision="confirm"
        )
    with pytest.raises(HygieneError, match="Say why the flagged text is fine"):
        services.hygiene_flag_decide(flag_id=flag.pk, reviewer=reviewer, decision="dismiss")
    assert not HygieneDecision.objects.exists()


def test_one_screen_at_a_time(corpus, admin_user):
    services.hygiene_run_start(created_by=admin_user)
    with pytest.raises(HygieneError, match="wait for it to finish"):
        services.hygiene_run_start(created_by=admin_user)


def test_a_unit_screened_twice_writes_its_flags_once(corpus, admin_user):
    run = screen_now(admin_user)
    count = HygieneFlag.objects.filter(run=run).count()
    for unit in services.FLOW.units(run.pk):
        services.hygiene_unit_screen(unit_id=unit.pk)
    assert HygieneFlag.objects.filter(run=run).count() == count == 3


def test_the_card_summary_equals_a_count_from_the_records(corpus, admin_user, reviewer):
    run = screen_now(admin_user)
    flags = list(HygieneFlag.objects.filter(run=run))
    services.hygiene_flag_decide(
        flag_id=flags[0].pk, reviewer=reviewer, decision="dismiss", reason="fine"
    )
    services.hygiene_flag_decide(flag_id=flags[1].pk, reviewer=reviewer, decision="confirm")
    fields = card.card_fields()
    summary = fields["screening"]
    statuses = Counter(HygieneFlag.objects.filter(run=run).values_list("status", flat=True))
    rules = Counter(HygieneFlag.objects.filter(run=run).values_list("rule", flat=True))
    assert summary["texts_screened"] == sum(u.texts for u in services.FLOW.units(run.pk)) == 7
    assert summary["flags"] == len(flags)
    assert summary["flags_by_rule"] == {rule.value: rules.get(rule.value, 0) for rule in Rule}
    assert summary["flags_by_kind"] == {
        "personal_data": len(flags) - rules.get("lexicon", 0),
        "offensive": rules.get("lexicon", 0),
    }
    assert summary["unresolved"] == statuses["open"] + statuses["confirmed"] == len(flags) - 1
    assert summary["dismissed"] == 1
    assert summary["run_date"] == run.finished_at.date().isoformat()
    assert fields["license"] == card.DEFAULT_LICENSE
    assert fields["out_of_scope_uses"] == list(card.DEFAULT_OUT_OF_SCOPE)
    assert selectors.latest_completed_screen() == run


def test_the_card_statement_follows_the_settings(settings):
    settings.HEARTBENCH_RELEASE_LICENSE = "cc-by-4.0"
    settings.HEARTBENCH_RELEASE_OUT_OF_SCOPE = ["Anything commercial."]
    statement = card.release_statement()
    assert statement["license"] == "cc-by-4.0"
    assert statement["out_of_scope_uses"] == ["Anything commercial."]
    assert statement["intended_use"] == card.DEFAULT_INTENDED_USE


def test_a_lexicon_changed_mid_screen_fails_the_unit_and_a_retry_finishes_it(
    corpus, admin_user, settings, tmp_path
):
    run = services.hygiene_run_start(created_by=admin_user)
    other = tmp_path / "other.json"
    other.write_text('{"name": "another list", "entries": []}')
    settings.HEARTBENCH_HYGIENE_LEXICON = str(other)
    (unit,) = services.FLOW.units(run.pk)
    assert services.hygiene_unit_screen(unit_id=unit.pk) == "failed"
    run.refresh_from_db()
    unit.refresh_from_db()
    assert run.status == RunStatus.FINISHED_WITH_FAILURES
    assert "lexicon file changed" in unit.error_message
    assert not HygieneFlag.objects.filter(run=run).exists()

    settings.HEARTBENCH_HYGIENE_LEXICON = None  # the file the screen started with
    services.hygiene_run_retry(run_id=run.pk)
    assert services.hygiene_unit_screen(unit_id=unit.pk) == "done"
    run.refresh_from_db()
    assert run.status == RunStatus.FINISHED
    assert HygieneFlag.objects.filter(run=run).count() == 3
