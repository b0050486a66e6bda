"""The observer report's figures equal an independent recomputation from the stored
ratings (issue 37): the means, the bootstrap CIs from the stated resampling, the
convergent correlations and the design × observed matrix, and the anchor flags by the
stated rule."""

import itertools

import numpy as np
import pytest
from scipy import stats

from audit.observers.models import ObserverRating, ObserverRun, ObserverUnit
from audit.observers.stored_reports import KIND, key_for
from core.reports.models import StoredReport
from core.reports.services import compute_report

from .helpers import TRAITS, character_written_for, inventory, vector

pytestmark = pytest.mark.django_db

SEED = 4242
FAMILIES = ("claude", "gemini", "gpt")
DESIGNS = {
    "CHAR_01": vector(N=0.95, O=0.6, C=0.3),
    "CHAR_02": vector(C=0.10, E=0.7, A=0.4),
    "CHAR_03": vector(E=0.95, N=0.3, O=0.35),
    "CHAR_04": vector(A=0.10, O=0.8, C=0.65),
    "CHAR_05": vector(),  # the neutral reference: no anchor
}


@pytest.fixture
def rated_run():
    """A finished run over five characters, three observers each, whose ratings lean
    towards the design with noise (drawn here; the report only reads them)."""
    form = inventory()
    run = ObserverRun.objects.create(
        inventory=form, seed=SEED, families=list(FAMILIES), prompt_version="observer-1"
    )
    rng = np.random.default_rng(7)
    for key, design in DESIGNS.items():
        character, profile = character_written_for(key, design, audit=False)
        for family in FAMILIES:
            unit = ObserverUnit.objects.create(
                run=run,
                character=character,
                profile_version=profile,
                observer=family,
                material=["x"],
                status=ObserverUnit.Status.SUCCEEDED,
            )
            rows = []
            for item in form.items:
                lean = design[item["trait"]] if item["keying"] == "+" else 1 - design[item["trait"]]
                value = int(np.clip(round(1 + 4 * lean + rng.normal(0, 1.2)), 1, 5))
                rows.append(
                    ObserverRating(
                        unit=unit,
                        item_id=item["id"],
                        trait=item["trait"],
                        keying=item["keying"],
                        value=value,
                    )
                )
            ObserverRating.objects.bulk_create(rows)
    # One failed observer: its (absent) ratings are not in the report.
    ObserverUnit.objects.create(
        run=run,
        character=character,
        profile_version=profile,
        observer="extra",
        status=ObserverUnit.Status.FAILED,
    )
    run.status = ObserverRun.Status.FINISHED_WITH_FAILURES
    run.save()
    return run


def scores_from_records(run):
    """character key → trait → observers × items array of 0-1 item scores, from the rows."""
    out = {}
    for unit in run.units.filter(status="succeeded").select_related("character"):
        for rating in unit.ratings.all():
            value = rating.value if rating.keying == "+" else 6 - rating.value
            by_trait = out.setdefault(unit.character.key, {}).setdefault(rating.trait, {})
            by_trait.setdefault(f"llm:{unit.observer}", []).append((value - 1) / 4)
    return {
        key: {t: np.array([traits[t][o] for o in sorted(traits[t])]) for t in TRAITS}
        for key, traits in out.items()
    }


def test_the_report_equals_a_recomputation_from_the_stored_ratings(rated_run):
    compute_report(KIND, key_for(rated_run.pk))
    stored = StoredReport.objects.get(kind=KIND, key=key_for(rated_run.pk))
    assert stored.status == "done", stored.error
    result = stored.result
    scores = scores_from_records(rated_run)
    rows = {row["key"]: row for row in result["characters"]}
    assert sorted(rows) == sorted(DESIGNS)
    for key, row in rows.items():
        profile_id = row["profile_version_id"]
        assert len(row["observers"]) == 3
        for index, trait in enumerate(TRAITS):
            matrix = scores[key][trait]
            assert row["observed"][trait] == pytest.approx(matrix.mean(), abs=1e-12)
            # The stated resampling, written out: 2,000 resamples, observers and items
            # drawn with replacement from numpy's generator seeded [seed, version, trait].
            rng = np.random.default_rng([SEED, profile_id, index])
            n_obs, n_items = matrix.shape
            observers = rng.integers(0, n_obs, size=(2000, n_obs))
            items = rng.integers(0, n_items, size=(2000, n_items))
            means = [matrix[np.ix_(observers[b], items[b])].mean() for b in range(2000)]
            low, high = np.percentile(means, [2.5, 97.5])
            assert row["ci"][trait] == pytest.approx([low, high], abs=1e-12)
            assert row["design"][trait] == DESIGNS[key][trait]

    keys = sorted(DESIGNS)
    observed = {t: [rows[k]["observed"][t] for k in keys] for t in TRAITS}
    design = {t: [DESIGNS[k][t] for k in keys] for t in TRAITS}
    for i, d in enumerate(TRAITS):
        for j, o in enumerate(TRAITS):
            r = np.corrcoef(design[d], observed[o])[0, 1]
            assert result["matrix"][i][j] == pytest.approx(r, abs=1e-9), (d, o)
        expected = stats.pearsonr(design[d], observed[d])
        assert result["convergent"][d]["r"] == pytest.approx(expected.statistic, abs=1e-9)
        assert result["convergent"][d]["p"] == pytest.approx(expected.pvalue, abs=1e-9)
    off = [abs(result["matrix"][i][j]) for i in range(5) for j in range(5) if i != j]
    assert result["discriminant_mean_abs"] == pytest.approx(np.mean(off))

    # Flags by the stated rule: a high anchor needs mean and CI above 0.5, a low one
    # below; the neutral character has none.
    expected_flags = 0
    for key, row in rows.items():
        anchor = row["anchor"]
        flagged = {flag["trait"] for flag in row["flags"]}
        if key == "CHAR_05":
            assert anchor.startswith("neutral") and not flagged
            continue
        trait, pole = anchor.split()
        mean, (low, high) = row["observed"][trait], row["ci"][trait]
        recovered = (mean > 0.5 and low > 0.5) if pole == "high" else (mean < 0.5 and high < 0.5)
        assert (trait in flagged) == (not recovered), (key, mean, low, high)
        expected_flags += not recovered
    assert result["flagged"] == expected_flags


def ordering_distance(x, y) -> float:
    """The share of the ten trait pairs two vectors order differently, a pair tied in one
    and not the other counting a half (written out here, independently of the library)."""
    total = 0.0
    for i in range(5):
        for j in range(i + 1, 5):
            a, b = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
            total += 0 if a == b else (1.0 if a * b < 0 else 0.5)
    return total / 10


def test_the_observed_distinctness_equals_a_recomputation(rated_run):
    compute_report(KIND, key_for(rated_run.pk))
    result = StoredReport.objects.get(kind=KIND, key=key_for(rated_run.pk)).result
    observed = {row["key"]: [row["observed"][t] for t in TRAITS] for row in result["characters"]}
    design = {key: [DESIGNS[key][t] for t in TRAITS] for key in DESIGNS}
    distinct = result["distinctness"]
    assert distinct["pairs_total"] == 10 and len(distinct["pairs"]) == 10
    # Closest first: by L1, then by the ordering distance, then by the names.
    expected = sorted(
        (
            round(float(np.abs(np.subtract(observed[a], observed[b])).sum()), 10),
            round(ordering_distance(observed[a], observed[b]), 10),
            a,
            b,
        )
        for a, b in itertools.combinations(sorted(DESIGNS), 2)
    )
    shown = [(p["first"], p["second"]) for p in distinct["pairs"]]
    assert shown == [(a, b) for _l1, _kendall, a, b in expected]
    for pair in distinct["pairs"]:
        a, b = pair["first"], pair["second"]
        assert pair["l1"] == pytest.approx(np.abs(np.subtract(observed[a], observed[b])).sum())
        assert pair["kendall"] == pytest.approx(ordering_distance(observed[a], observed[b]))
        assert pair["design_l1"] == pytest.approx(np.abs(np.subtract(design[a], design[b])).sum())
        assert pair["design_kendall"] == pytest.approx(ordering_distance(design[a], design[b]))
        near = round(pair["l1"], 10) < 0.35 and round(pair["kendall"], 10) <= 0.5
        assert pair["near_duplicate"] == near
    assert distinct["near_duplicates"] == sum(p["near_duplicate"] for p in distinct["pairs"])


def test_too_few_characters_leave_the_correlations_empty(rated_run):
    rated_run.units.exclude(character__key__in=("CHAR_01", "CHAR_02")).delete()
    compute_report(KIND, key_for(rated_run.pk))
    result = StoredReport.objects.get(kind=KIND, key=key_for(rated_run.pk)).result
    assert len(result["characters"]) == 2
    assert all(value is None for row in result["matrix"] for value in row)
    assert all(result["convergent"][t]["r"] is None for t in TRAITS)
