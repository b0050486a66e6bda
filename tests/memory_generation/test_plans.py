"""Weight versions and plans (App. B.4) on the database: an initial plan per character
from its audited corpus, the refusals that leave the database unchanged, and the top-up
after a real memory audit left a duplicate out."""

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from annotation.memory_generation import quota
from annotation.memory_generation.models import (
    MemoryPlan,
    MemoryPromptVersion,
    MemoryRun,
    QuotaWeights,
)
from annotation.memory_generation.services.plans import (
    PlanError,
    plan_create,
    plan_top_up,
    weights_create,
    weights_current,
)
from core.roles import Role
from tests.factories import CharacterFactory, MemoryFactory, ProfileVersionFactory, UserFactory
from tests.pipeline_ready import audit_leaving_out_a_copy, memories_audited

from .test_quota import independent_allocation

pytestmark = pytest.mark.django_db

AGES = quota.SEGMENT_AGES


@pytest.fixture
def plan_roles(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture
def plan_admin(plan_roles):
    return UserFactory(username="plan-admin", roles=[Role.ADMIN])


def frozen_character(key: str, *, ages=()):
    """A character whose latest profile version is frozen, with a memory per age given."""
    character = CharacterFactory(key=key)
    ProfileVersionFactory(character=character, number=1, frozen_at=timezone.now())
    for sequence, age in enumerate(ages, start=1):
        MemoryFactory(character=character, sequence=sequence, event_age=age)
    return character


def generate(plan: MemoryPlan, *, skip_age=None, skip=1, start=1000):
    """Stand in for a generation run: one stored memory per slot the plan asks for
    (``skip`` slots at ``skip_age`` left out)."""
    sequence = start
    for age, q in zip(AGES, plan.quotas, strict=True):
        for i in range(q):
            if age == skip_age and i < skip:
                continue
            sequence += 1
            MemoryFactory(character=plan.character, sequence=sequence, event_age=age)


def snapshot():
    return (QuotaWeights.objects.count(), MemoryPlan.objects.count())


# --- Weights ------------------------------------------------------------------------------


def test_the_first_weights_are_the_platform_default_labelled_as_such():
    current = weights_current()
    assert current.number == 1
    assert current.weights == quota.default_weights()
    assert "platform default" in current.note
    assert weights_current().pk == current.pk  # not made twice


def test_a_weight_change_is_a_new_version_and_bad_vectors_are_refused(plan_admin):
    weights_current()
    changed = [2.0] * 45
    v2 = weights_create(user=plan_admin, weights=changed, note="flat, doubled")
    assert (v2.number, v2.weights, v2.created_by) == (2, changed, plan_admin)
    assert weights_current().pk == v2.pk
    before = snapshot()
    with pytest.raises(PlanError) as refused:
        weights_create(user=plan_admin, weights=[1.0] * 30 + [-0.5] + [1.0] * 14, note="x")
    assert "age 36 must be a finite number ≥ 0" in " ".join(refused.value.messages)
    with pytest.raises(PlanError, match="45 entries"):
        weights_create(user=plan_admin, weights=[1.0] * 12, note="x")
    assert snapshot() == before


def test_only_an_admin_plans_or_changes_weights(plan_roles):
    frozen_character("CHAR_01")
    reviewer = UserFactory(roles=[Role.MEMORY_REVIEWER])
    with pytest.raises(PlanError, match="Only an admin"):
        weights_create(user=reviewer, weights=[1.0] * 45)
    with pytest.raises(PlanError, match="Only an admin"):
        plan_create(user=reviewer, character_keys=["CHAR_01"])
    assert snapshot() == (0, 0)


def test_a_used_weight_version_cannot_change(plan_admin):
    frozen_character("CHAR_01")
    (plan,) = plan_create(user=plan_admin, character_keys=["CHAR_01"])
    plan.weights.weights = [1.0] * 45
    with pytest.raises(Exception, match="create the next version"):
        plan.weights.save()


# --- Initial plans ------------------------------------------------------------------------


def test_an_initial_plan_spreads_the_deficit_over_the_segments(plan_admin):
    ages = [6] * 5 + [14] * 3 + [30]
    char = frozen_character("CHAR_01", ages=ages)
    empty = frozen_character("CHAR_02")
    plans = plan_create(user=plan_admin, character_keys=["CHAR_01", "CHAR_02"], note="first")
    assert [p.character.key for p in plans] == ["CHAR_01", "CHAR_02"]
    first, second = plans
    assert first.accepted == 9 and first.deficit == 991
    assert first.existing[0] == 5 and first.existing[14 - 6] == 3 and sum(first.existing) == 9
    assert first.quotas == quota.allocate(991, quota.default_weights())
    assert first.kind == MemoryPlan.Kind.INITIAL and first.weights.number == 1
    assert first.audit_run_id is None  # no finalized audit covered it
    assert first.profile_version == char.versions.get()
    assert second.accepted == 0 and second.deficit == 1000
    assert second.character == empty and second.note == "first"


def test_k_is_the_audited_corpus_not_every_stored_memory(plan_admin):
    char = frozen_character("CHAR_01", ages=[10] * 4)
    run = memories_audited(char)
    MemoryFactory(character=char, sequence=50, event_age=10)  # stored after the audit
    (plan,) = plan_create(user=plan_admin, character_keys=["CHAR_01"], target=20)
    assert plan.accepted == 4 and plan.existing[10 - 6] == 4
    assert plan.audit_run_id == run.pk
    assert plan.deficit == 16


def test_a_chosen_weight_version_and_target_are_used(plan_admin):
    frozen_character("CHAR_01")
    uniform = weights_create(user=plan_admin, weights=[1] * 45, note="uniform")
    (plan,) = plan_create(
        user=plan_admin, character_keys=["CHAR_01"], weights_id=uniform.pk, target=100
    )
    assert plan.weights == uniform
    assert plan.quotas == [3] * 10 + [2] * 35


def test_refusals_name_each_character_and_leave_the_database_unchanged(plan_admin):
    frozen_character("CHAR_01")
    draft = CharacterFactory(key="CHAR_02")
    ProfileVersionFactory(character=draft, number=1, frozen_at=timezone.now())
    ProfileVersionFactory(character=draft, number=2)  # the latest is a draft
    frozen_character("CHAR_03", ages=[20] * 5)
    CharacterFactory(key="CHAR_04")  # no profile yet
    weights_current()
    before = snapshot()
    with pytest.raises(PlanError) as refused:
        plan_create(
            user=plan_admin,
            character_keys=["CHAR_01", "CHAR_02", "CHAR_03", "CHAR_04", "CHAR_99"],
            target=5,
        )
    messages = refused.value.messages
    assert messages[0] == "No plan was made."
    text = " ".join(messages)
    assert "CHAR_02: profile version 2 is not frozen" in text
    assert "CHAR_03: already has 5 accepted memories (target 5)" in text
    assert "CHAR_04: has no profile version yet" in text
    assert "CHAR_99: no such character" in text
    assert "CHAR_01" not in text
    assert snapshot() == before  # CHAR_01 was fine, yet nothing was made


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"character_keys": []}, "Choose at least one character"),
        ({"character_keys": ["CHAR_01"], "target": 0}, "target must be a whole number"),
        ({"character_keys": ["CHAR_01"], "weights_id": 999}, "no quota weight version"),
        (
            {"character_keys": ["CHAR_01"], "note": "x" * 301},
            "Note is limited to 300 characters; this one has 301",
        ),
    ],
)
def test_bad_plan_requests_are_refused(plan_admin, kwargs, fragment):
    frozen_character("CHAR_01")
    with pytest.raises(PlanError, match=fragment):
        plan_create(user=plan_admin, **kwargs)
    assert MemoryPlan.objects.count() == 0


# --- Top-up after the audit ---------------------------------------------------------------


def test_top_up_after_the_audit_dropped_a_duplicate_refills_that_segment(plan_admin):
    char = frozen_character("CHAR_01", ages=[9, 9, 40])
    memories_audited(char)
    (plan,) = plan_create(user=plan_admin, character_keys=["CHAR_01"], target=30)
    assert plan.accepted == 3
    original = char.memories.get(sequence=1)  # age 9
    # Generation wrote every slot but one at age 9, and a copy of an earlier memory
    # there instead; the real audit then leaves the copy out.
    generate(plan, skip_age=9)
    audit_leaving_out_a_copy(char, original=original)

    top_up = plan_top_up(user=plan_admin, plan_id=plan.pk, note="after audit")
    assert top_up.kind == MemoryPlan.Kind.TOP_UP and top_up.previous == plan
    # B.4: the one missing memory goes where the weights put it (the youngest of the
    # heaviest years, 12), not back to age 9.
    assert top_up.quotas == [1 if age == 12 else 0 for age in AGES]
    assert top_up.deficit == 1 and top_up.accepted == 29
    assert top_up.weights == plan.weights and top_up.target == 30
    latest_run = top_up.audit_run_id
    assert latest_run is not None and latest_run != plan.audit_run_id
    assert top_up.note == "after audit" and top_up.created_by == plan_admin

    # Only the latest plan of a character is topped up.
    with pytest.raises(PlanError, match=f"plan {top_up.pk} is"):
        plan_top_up(user=plan_admin, plan_id=plan.pk)


def test_top_up_spreads_the_new_deficit_by_weight_not_the_old_per_segment_gaps(plan_admin):
    """seed 000 App. B.4: for a character with k memories the deficit d = 1,000 − k is
    spread over the segments in proportion to w. After an audit whose losses all fall at
    age 9, the top-up is that weighted spread of d (computed here independently), not the
    old quota of age 9 refilled."""
    weights = weights_create(
        user=plan_admin, weights=[10.0 if age == 9 else 1.0 for age in AGES], note="age 9"
    )
    char = frozen_character("CHAR_01", ages=[9])
    memories_audited(char)
    (plan,) = plan_create(
        user=plan_admin, character_keys=["CHAR_01"], target=60, weights_id=weights.pk
    )
    assert plan.quotas[9 - 6] == 11
    original = char.memories.get(sequence=1)
    # Six age-9 slots are not written; the audit then leaves out a copy written at 9.
    generate(plan, skip_age=9, skip=6)
    audit_leaving_out_a_copy(char, original=original)

    top_up = plan_top_up(user=plan_admin, plan_id=plan.pk)
    assert top_up.accepted == 54 and top_up.deficit == 6
    expected = independent_allocation(60 - 54, weights.weights)
    assert top_up.quotas == expected
    # Shares 6 × 10/54 = 1.11 at age 9 and 0.11 a year elsewhere: the remainders tie,
    # so the five left over go to the five youngest years.
    assert expected == [1, 1, 1, 2, 1] + [0] * 40
    levels = zip(plan.existing, plan.quotas, top_up.existing, strict=True)
    old_gaps = [max(0, e + q - a) for e, q, a in levels]
    assert old_gaps == [6 if age == 9 else 0 for age in AGES]
    assert top_up.quotas != old_gaps


def test_top_up_needs_an_audit_finalized_after_the_plan(plan_admin):
    char = frozen_character("CHAR_01", ages=[9])
    memories_audited(char)
    (plan,) = plan_create(user=plan_admin, character_keys=["CHAR_01"], target=10)
    generate(plan)
    before = snapshot()
    with pytest.raises(PlanError, match="No memory audit of CHAR_01 was finalized after plan"):
        plan_top_up(user=plan_admin, plan_id=plan.pk)
    assert snapshot() == before


def test_top_up_waits_for_a_run_still_generating_the_plan(plan_admin):
    char = frozen_character("CHAR_01")
    (plan,) = plan_create(user=plan_admin, character_keys=["CHAR_01"], target=10)
    prompt = MemoryPromptVersion.objects.create(number=1, system_template="s", user_template="u")
    run = MemoryRun.objects.create(prompt=prompt, status=MemoryRun.Status.RUNNING)
    run.plans.add(plan)
    memories_audited(char)
    with pytest.raises(PlanError, match=f"Memory run {run.pk} is still generating plan"):
        plan_top_up(user=plan_admin, plan_id=plan.pk)
    MemoryRun.objects.filter(pk=run.pk).update(status=MemoryRun.Status.CANCELLED)
    assert plan_top_up(user=plan_admin, plan_id=plan.pk).deficit == 10


def test_top_up_with_nothing_missing_is_refused(plan_admin):
    char = frozen_character("CHAR_01", ages=[30])
    (plan,) = plan_create(user=plan_admin, character_keys=["CHAR_01"], target=12)
    generate(plan)
    memories_audited(char)
    before = snapshot()
    with pytest.raises(PlanError, match="Nothing is missing: CHAR_01 holds 12 accepted memories"):
        plan_top_up(user=plan_admin, plan_id=plan.pk)
    assert snapshot() == before
    with pytest.raises(PlanError, match="no memory plan 999"):
        plan_top_up(user=plan_admin, plan_id=999)


def test_the_decision_history_records_who_made_weights_and_plans(plan_admin):
    frozen_character("CHAR_01")
    weights_create(user=plan_admin, weights=[1.0] * 45, note="flat")
    (plan,) = plan_create(user=plan_admin, character_keys=["CHAR_01"])
    assert plan.history.get().history_user == plan_admin
    assert QuotaWeights.history.filter(history_user=plan_admin).count() == 1
