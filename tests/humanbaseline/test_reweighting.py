"""App. J's reweighted accuracy weights the sources by their counts in *this* benchmark's
final set (the paper's 497/126/50 are its own final set's counts, kept as a fixture): the
report takes the counts from the final items, shows them, and names a source of the
final set that the subset has no item of."""

from collections import Counter

import numpy as np
import pytest
from django.urls import reverse

from adjudication.mcq.models import McqItem
from agreement.constants import FULL_BENCHMARK_SOURCE_COUNTS
from humanbaseline import services
from humanbaseline.models import ItemResponse, ItemSourceFamily, StudyItem
from humanbaseline.report import build_report
from tests.agreement import app_j

from .conftest import enrol, make_study

SEED = 20261012


def answer_all(p, rng, accuracy):
    for response in ItemResponse.objects.filter(participation=p).select_related("study_item__item"):
        key = response.study_item.item.correct_answer
        wrong = [x for x in "ABCD" if x != key]
        response.choice = key if rng.random() < accuracy else wrong[rng.integers(3)]
        response.save(update_fields=["choice"])
    return services.baseline_finalize(participation=p)


def final_set_counts() -> Counter:
    """Final items by answer-key source, counted here from the rows: an admin's source
    row wins over the reference's family."""
    overrides = dict(ItemSourceFamily.objects.values_list("item_id", "family"))
    return Counter(
        overrides.get(pk) or family
        for pk, family in McqItem.objects.filter(status=McqItem.Status.FINAL).values_list(
            "pk", "reference__source_family"
        )
    )


PAPER_ORDER = (("gemini", "Gemini"), ("claude", "Claude"), ("gpt", "GPT"))


@pytest.mark.django_db
def test_the_report_reweights_to_the_final_sets_own_source_counts(role_groups, admin_user, client):
    study, subset, practice = make_study(n_items=12, n_practice=4, n_characters=4)
    # Items outside the subset change the final set's shares: the practice scenario's
    # four items are GPT-origin, one of them an expert rewrite the subset has none of.
    for n, item in enumerate(practice):
        ItemSourceFamily.objects.create(
            item=item, family="expert_rewrite" if n == 0 else "gpt", origin="test"
        )
    rng = np.random.default_rng(3)
    participants = [enrol(study, f"r{n}") for n in range(3)]
    for p, accuracy in zip(participants, (0.9, 0.6, 0.4), strict=True):
        answer_all(p, rng, accuracy)

    report = services.report_request(
        study=study, user=admin_user, seed=SEED, n_boot=200, n_permutations=200
    )
    r = services.report_compute(report_id=report.pk).results

    counts = final_set_counts()
    assert counts["expert_rewrite"] == 1 and sum(counts.values()) == 16
    study_items = list(
        StudyItem.objects.filter(study=study, is_practice=False)
        .select_related("item__reference")
        .order_by("position")
    )
    sources = np.array([si.item.reference.source_family for si in study_items])
    correct = np.array(
        [
            [
                ItemResponse.objects.get(participation=p, study_item=si).choice
                == si.item.correct_answer
                for p in participants
            ]
            for si in study_items
        ]
    )
    present = sorted(set(sources))
    weights = np.array([counts[s] for s in present], dtype=float)
    per_source = np.array([correct[sources == s].mean() for s in present])
    expected = float(weights @ per_source / weights.sum())

    assert r["target_counts"] == {s: counts[s] for s in present}
    assert r["final_set"]["counts"] == dict(counts)
    assert r["final_set"]["unweighted"] == {"expert_rewrite": 1}
    assert r["reweighted"]["estimate"] == pytest.approx(expected)
    paper = sum(FULL_BENCHMARK_SOURCE_COUNTS[s] * per_source[n] for n, s in enumerate(present))
    assert expected != pytest.approx(paper / sum(FULL_BENCHMARK_SOURCE_COUNTS.values()))

    client.force_login(admin_user)
    page = client.get(reverse("baseline:report", args=[study.pk])).content.decode()
    # Sources in the paper's order (Gemini, Claude, GPT), as the page lists them.
    shown = ", ".join(f"{label} {counts[s]}" for s, label in PAPER_ORDER)
    assert f"Reweighted to this benchmark's final set: {shown}" in page
    assert "Expert rewrite (1 final item) has no item in the subset" in page
    assert f"{100 * expected:.1f}" in page


def test_the_papers_counts_reproduce_its_reweighted_figure():
    """The paper's own final set (497/126/50) is a fixture: given App. J's per-source
    accuracies, the report's computation reproduces its 82.0%."""
    answers, key, sources = app_j.build()
    result = build_report(
        answers=[["ABCD"[c] for c in row] for row in answers],
        keys=["ABCD"[k] for k in key],
        sources=list(sources),
        annotators=list("wxyz"),
        model_predictions={},
        seed=SEED,
        n_boot=10,
        n_permutations=10,
        target_counts=FULL_BENCHMARK_SOURCE_COUNTS,
    )
    assert round(100 * result["reweighted"]["estimate"], 1) == 82.0
    assert result["target_counts"] == dict(FULL_BENCHMARK_SOURCE_COUNTS)


def test_build_report_needs_the_counts_it_reweights_to():
    with pytest.raises(TypeError, match="target_counts"):
        build_report(
            answers=[["A", "A"]],
            keys=["A"],
            sources=["gpt"],
            annotators=["x", "y"],
            model_predictions={},
            seed=1,
            n_boot=10,
            n_permutations=10,
        )
