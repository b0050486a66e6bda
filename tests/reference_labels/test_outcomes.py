"""The outcome table (seed 000 Table 14) against a hand-computed fixture, and Fleiss' κ
of the three experts against statsmodels on the same selections."""

import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from agreement import bootstrap_unit_indices
from audit.reference_labels import services
from audit.reference_labels.models import LabelAdjudication, LabelAuditItem
from audit.reference_labels.outcomes import label_audit_outcomes

from .conftest import small_final_set

pytestmark = pytest.mark.django_db
Decision = LabelAdjudication.Decision
N_BOOT = 400

# Per item: the three experts' selections relative to the key ("K" the key, "x"/"y"/"z"
# three different distractors; None: not submitted) and the adjudicator's decision.
PLAN = [
    (("K", "K", "K"), None),
    (("K", "K", "K"), None),
    (("K", "K", "K"), None),
    (("K", "K", "x"), Decision.USABLE_AS_IS),
    (("K", "x", "x"), Decision.KEY_CHANGE),
    (("x", "y", "z"), Decision.REMOVAL),
    (("K", "x", "K"), Decision.WORDING_EDIT),
    (("K", "K", "y"), None),  # left with the adjudicator
    (("K", "x", None), None),  # the third expert has not submitted
    ((None, None, None), None),
]
# Worked out by hand from PLAN, over the 10 sampled items.
EXPECTED = {
    "sampled": (10, 100.0),
    "agree_3": (3, 30.0),
    "agree_2": (3, 30.0),
    "agree_1": (1, 10.0),
    "agree_0": (1, 10.0),
    "awaiting_selection": (2, 20.0),
    "adjudicated_entered": (5, 50.0),
    "usable_as_is": (1, 10.0),
    "edited": (1, 10.0),
    "key_changed": (1, 10.0),
    "removed": (1, 10.0),
    "awaiting_adjudication": (1, 10.0),
    "approved": (4, 40.0),
}


def letter(key, symbol):
    distractors = [x for x in "ABCD" if x != key]
    return key if symbol == "K" else distractors["xyz".index(symbol)]


@pytest.fixture
def played(team):
    small_final_set(characters=1, stages=("school_age", "adolescence"), per_stratum=5)
    audit = services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=5,
        seed=2026,
    )
    rows = list(
        LabelAuditItem.objects.filter(audit=audit)
        .select_related("item_version")
        .order_by("position")
    )
    assert len(rows) == len(PLAN)
    letters = []
    for row, (symbols, decision) in zip(rows, PLAN, strict=True):
        key = row.item_version.correct_answer
        chosen = [None if s is None else letter(key, s) for s in symbols]
        letters.append(chosen)
        for expert, choice in zip(team["experts"], chosen, strict=True):
            if choice is not None:
                services.label_selection_submit(audit_item_id=row.pk, expert=expert, choice=choice)
        if decision is None:
            continue
        kwargs = {"note": "Decided on the profile."}
        if decision == Decision.KEY_CHANGE:
            kwargs["new_key"] = letter(key, "x")
        if decision == Decision.WORDING_EDIT:
            kwargs["options"] = [
                {"label": o["label"], "content": o["content"] + " (reworded)"}
                for o in row.item_version.options
            ]
        services.label_item_adjudicate(
            audit_item_id=row.pk, adjudicator=team["adjudicator"], decision=decision, **kwargs
        )
    return audit, letters


def test_the_table_matches_the_hand_computed_fixture(played):
    audit, _ = played
    result = label_audit_outcomes(audit=audit, n_boot=N_BOOT)
    got = {row["key"]: (row["n"], round(row["percent"], 6)) for row in result.rows}
    assert got == EXPECTED


def test_kappa_equals_statsmodels_and_its_interval_a_reference_loop(played):
    audit, letters = played
    result = label_audit_outcomes(audit=audit, n_boot=N_BOOT)
    complete = [["ABCD".index(c) for c in row] for row in letters if None not in row]
    assert result.kappa_items == len(complete) == 8
    table, _ = aggregate_raters(np.array(complete), n_cat=4)
    expected = sm_fleiss_kappa(table, method="fleiss")
    assert result.kappa == pytest.approx(expected, abs=1e-12)

    # The interval: the same item resamples (seeded with the audit's seed) through
    # statsmodels, one resample at a time.
    indices = bootstrap_unit_indices(table, N_BOOT, audit.seed)
    replicates = []
    for b in range(N_BOOT):
        resample = table[indices[b]]
        with np.errstate(divide="ignore", invalid="ignore"):
            replicates.append(sm_fleiss_kappa(resample, method="fleiss"))
    replicates = np.array(replicates)
    replicates = replicates[np.isfinite(replicates)]
    low, high = np.quantile(replicates, [0.025, 0.975])
    assert result.kappa_ci == pytest.approx((low, high), abs=1e-9)
    assert result.kappa_ci[0] <= result.kappa <= result.kappa_ci[1]
