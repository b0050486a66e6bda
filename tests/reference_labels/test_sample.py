"""The stratified sample (App. D.4: two items from each of the 11 character × 8
life-stage-bin strata, 176 items): drawn with a recorded seed on the release's 673
final MCQs, reproducible from the record, short strata reported and not filled."""

from collections import Counter

import pytest

from adjudication.mcq.models import McqItem
from annotation.corpus_import.importing import import_paths
from audit.reference_labels import services
from audit.reference_labels.models import LabelAuditError, LabelAuditItem
from core.life_stages import LIFE_STAGE_KEYS

from .conftest import make_team, small_final_set

pytestmark = pytest.mark.django_db


def create(team, **kwargs):
    return services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        **kwargs,
    )


def sample(audit):
    return list(
        LabelAuditItem.objects.filter(audit=audit)
        .order_by("position")
        .values_list("item__question_id", flat=True)
    )


def test_176_items_two_per_stratum_on_the_release_reproducible_by_seed(release_dir, team):
    import_paths([release_dir])
    assert McqItem.objects.filter(status=McqItem.Status.FINAL).count() == 673

    audit = create(team, seed=20261101)
    drawn = sample(audit)
    assert len(drawn) == 176
    strata = Counter(
        LabelAuditItem.objects.filter(audit=audit).values_list("character_key", "stage")
    )
    assert len(strata) == 88
    assert set(strata.values()) == {2}
    assert {c for c, _ in strata} == {f"CHAR_{n:02d}" for n in range(1, 12)}
    assert {s for _, s in strata} == set(LIFE_STAGE_KEYS)
    # Each sampled item really belongs to its stratum.
    for character, stage in LabelAuditItem.objects.filter(audit=audit).values_list(
        "item__character__key", "item__stage"
    ):
        assert (character, stage) in strata
    assert audit.sample_report["short"] == []
    assert audit.sample_report["final_items"] == 673
    assert audit.seed == 20261101
    assert services.label_audit_reproduce(audit=audit)

    other = make_team("second")
    same = create(other, seed=20261101)
    assert sample(same) == drawn

    third = make_team("third")
    different = create(third, seed=20261102)
    assert sample(different) != drawn
    assert len(sample(different)) == 176


def test_the_draw_is_a_pure_function_of_frame_k_and_seed():
    frame = {"CHAR_02|school_age": ["q3", "q1", "q2"], "CHAR_01|adolescence": ["q5", "q4"]}
    first = services.draw_stratified_sample(frame, k=2, seed=7)
    assert first == services.draw_stratified_sample(dict(reversed(frame.items())), k=2, seed=7)
    assert len(first) == 4
    assert set(first[:2]) == {"q4", "q5"}  # strata in sorted order
    assert set(first[2:]) <= {"q1", "q2", "q3"}
    seeds = {tuple(services.draw_stratified_sample(frame, k=2, seed=s)) for s in range(20)}
    assert len(seeds) > 1


def test_strata_with_fewer_than_k_items_are_reported_not_filled(team):
    items = small_final_set(characters=2, stages=("school_age", "adolescence"), per_stratum=3)
    # One stratum is left with a single item: two of its three leave the final set.
    thin = [i for i in items if i.character.key == "CHAR_41" and i.stage == "adolescence"]
    McqItem.objects.filter(pk__in=[i.pk for i in thin[1:]]).update(status=McqItem.Status.REMOVED)

    audit = create(team, items_per_stratum=2, seed=5)
    strata = Counter(
        LabelAuditItem.objects.filter(audit=audit).values_list("character_key", "stage")
    )
    assert strata[("CHAR_41", "adolescence")] == 1
    assert strata[("CHAR_41", "school_age")] == 2
    assert sum(strata.values()) == 2 + 1 + 2 + 2
    short = {(s["character"], s["stage"]): s["available"] for s in audit.sample_report["short"]}
    assert short[("CHAR_41", "adolescence")] == 1
    # The six empty life-stage bins of each character are reported too.
    assert short[("CHAR_42", "entering_midlife")] == 0
    assert len(short) == 1 + 2 * 6
    assert services.label_audit_reproduce(audit=audit)
    # The record reproduces the draw even after the final set changes.
    McqItem.objects.filter(pk=thin[0].pk).update(status=McqItem.Status.REMOVED)
    assert services.label_audit_reproduce(audit=audit)


def test_no_final_items_is_refused_and_nothing_is_written(team):
    with pytest.raises(LabelAuditError, match="no items to audit"):
        create(team, seed=1)
    assert not LabelAuditItem.objects.exists()
