"""The App. J report equals ``agreement`` computed independently from the raw answer
matrix of 4 participants × 150 items; it runs on a real Celery worker; its CSV and page
show the same numbers."""

import re
from collections import Counter

import numpy as np
import pytest
from django.urls import reverse

import agreement
from adjudication.mcq.models import McqItem
from agreement.constants import FULL_BENCHMARK_SOURCE_COUNTS
from humanbaseline import services
from humanbaseline.models import BaselineReport, ItemResponse, SelectionItem, StudyItem
from humanbaseline.report import build_report
from tests.web.plot_checks import assert_downloads, assert_readable_plot

from .conftest import enrol, make_study

N_BOOT = 2000
SEED = 20261012


def answer_all(p, keys_by_study_item, rng, accuracy):
    for response in ItemResponse.objects.filter(participation=p):
        key = keys_by_study_item[response.study_item_id]
        if rng.random() < accuracy:
            choice = key
        else:
            choice = rng.choice([x for x in "ABCD" if x != key])
        response.choice = choice
        response.save(update_fields=["choice"])
    return services.baseline_finalize(participation=p)


def build_world():
    study, subset, _ = make_study(n_items=150, n_practice=1, n_characters=10)
    # The admin names the best model before anyone answers (App. J: fixed in advance).
    services.best_model_fix(study=study, user=study.created_by, model_label="model-good")
    study_items = list(
        StudyItem.objects.filter(study=study, is_practice=False)
        .select_related("item")
        .order_by("position")
    )
    keys = {si.pk: si.item.correct_answer for si in study_items}
    rng = np.random.default_rng(5)
    participants = [enrol(study, f"u{n}") for n in range(1, 5)]
    for p, accuracy in zip(participants, (0.86, 0.8, 0.78, 0.76), strict=True):
        answer_all(p, keys, rng, accuracy)
    enrol(study, "unfinished")  # not finalized: left out of the report
    # Two models' predictions as an uploaded CSV (one invalid cell).
    lines = ["question_id,model-good,model-weak"]
    for n, si in enumerate(study_items):
        good = (
            si.item.correct_answer
            if n % 3
            else "ABCD"[("ABCD".index(si.item.correct_answer) + 1) % 4]
        )
        weak = si.item.correct_answer if n % 4 == 0 else ("" if n == 1 else "ABCD"[(n + 1) % 4])
        lines.append(f"{si.item.question_id},{good},{weak}")
    services.predictions_import_csv(content="\n".join(lines), origin="test.csv")
    return study, study_items, participants


def raw_matrix(study_items, participants):
    answers = np.array(
        [
            [ItemResponse.objects.get(participation=p, study_item=si).choice for p in participants]
            for si in study_items
        ]
    )
    keys = np.array([si.item.correct_answer for si in study_items])
    families = dict(SelectionItem.objects.values_list("item_id", "family"))
    sources = np.array([families[si.item_id] for si in study_items])
    return answers, keys, sources


@pytest.mark.django_db
def test_report_numbers_equal_agreement_on_the_raw_matrix(role_groups, admin_user, client):
    study, study_items, participants = build_world()
    report = services.report_request(
        study=study, user=admin_user, seed=SEED, n_boot=N_BOOT, n_permutations=N_BOOT
    )
    report = services.report_compute(report_id=report.pk)
    assert report.status == BaselineReport.Status.DONE, report.error
    r = report.results

    answers, keys, sources = raw_matrix(study_items, participants)
    assert answers.shape == (150, 4)
    correct = answers == keys[:, None]
    assert r["n_items"] == 150 and r["n_annotators"] == 4

    mean = agreement.mean_annotator_accuracy(correct, n_boot=N_BOOT, seed=SEED)
    assert r["mean_accuracy"]["estimate"] == pytest.approx(correct.mean())
    assert (r["mean_accuracy"]["ci_low"], r["mean_accuracy"]["ci_high"]) == pytest.approx(
        (mean.ci_low, mean.ci_high)
    )
    assert list(r["per_annotator"].values()) == pytest.approx(list(correct.mean(axis=0)))
    # By their number in the study (the fifth enrolled but did not finalize), not by name.
    assert list(r["per_annotator"]) == ["1", "2", "3", "4"]
    assert r["share_correct_by_min"] == pytest.approx((correct.sum(axis=1) >= 3).mean())

    # Plurality vote by hand: the key must get strictly more votes than any other option.
    wins = ties = 0
    for row, key in zip(answers, keys, strict=True):
        votes = {x: int((row == x).sum()) for x in "ABCD"}
        best_other = max(v for x, v in votes.items() if x != key)
        wins += votes[key] > best_other
        ties += votes[key] == best_other
    assert r["plurality"]["n_correct"] == wins and r["plurality"]["n_tied"] == ties
    assert r["plurality"]["accuracy"] == pytest.approx(wins / 150)

    codes = agreement.encode_categories(answers, "ABCD")
    kappa = agreement.fleiss_kappa(codes, n_categories=4, n_boot=N_BOOT, seed=SEED)
    assert r["fleiss_kappa"]["estimate"] == pytest.approx(kappa.estimate)
    assert (r["fleiss_kappa"]["ci_low"], r["fleiss_kappa"]["ci_high"]) == pytest.approx(
        (kappa.ci_low, kappa.ci_high)
    )
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    assert kappa.estimate == pytest.approx(fleiss_kappa(aggregate_raters(codes)[0]))

    per_source = {s: correct[sources == s].mean() for s in set(sources)}
    assert r["per_source"] == pytest.approx(per_source)
    test = agreement.source_permutation_test(
        correct, list(sources), n_permutations=N_BOOT, seed=SEED
    )
    assert r["source_test"]["p_value"] == pytest.approx(test.p_value)
    assert r["source_test"]["observed_range"] == pytest.approx(
        max(per_source.values()) - min(per_source.values())
    )
    # Reweighted to this benchmark's final set (160 items: the subset's 15 scenarios and
    # the practice scenario, 10 characters each), counted here from the references.
    final = Counter(
        McqItem.objects.filter(status="final").values_list("reference__source_family", flat=True)
    )
    assert sum(final.values()) == 160 and r["target_counts"] == dict(final)
    total = sum(final.values())
    by_hand = sum(final[s] / total * per_source[s] for s in per_source)
    assert r["reweighted"]["estimate"] == pytest.approx(by_hand)

    good = np.array([i % 3 != 0 for i in range(150)], dtype=float)
    weak_letters = [
        keys[n] if n % 4 == 0 else ("" if n == 1 else "ABCD"[(n + 1) % 4]) for n in range(150)
    ]
    weak = np.array([w == k for w, k in zip(weak_letters, keys, strict=True)], dtype=float)
    assert r["models"]["model-good"]["accuracy"] == pytest.approx(good.mean())
    assert r["models"]["model-weak"]["accuracy"] == pytest.approx(weak.mean())
    assert r["best_model"] == "model-good"
    best = agreement.human_model_difference(correct, good, n_boot=N_BOOT, seed=SEED)
    assert r["best_model_difference"]["estimate"] == pytest.approx(correct.mean() - good.mean())
    assert (
        r["best_model_difference"]["ci_low"],
        r["best_model_difference"]["ci_high"],
    ) == pytest.approx((best.ci_low, best.ci_high))
    both = np.column_stack([good, weak])
    mean_models = agreement.human_model_difference(correct, both, n_boot=N_BOOT, seed=SEED)
    assert r["mean_of_models"]["accuracy"] == pytest.approx(both.mean())
    assert r["mean_of_models"]["difference"]["estimate"] == pytest.approx(
        correct.mean() - both.mean()
    )
    assert r["mean_of_models"]["difference"]["ci_low"] == pytest.approx(mean_models.ci_low)
    assert r["mean_of_models"]["difference"]["ci_high"] == pytest.approx(mean_models.ci_high)

    # The page and the CSV show the same numbers.
    client.force_login(admin_user)
    response = client.get(reverse("baseline:report", args=[study.pk]))
    page = response.content.decode()
    assert f"{100 * correct.mean():.1f}" in page and 'data-testid="report-plot"' in page
    # The plots: readable, families by name and in order, downloadable (issue 21).
    for svg in re.findall(r"<svg .*?</svg>", page, re.S):
        assert_readable_plot(svg, legend=True)
    sources = re.findall(r'data-kind="category">(\w+)-origin items<', page)
    assert sources and sources == [s for s in ("Claude", "GPT", "Gemini") if s in sources]
    for plot in response.context["plots"]:
        assert_downloads(client, plot)
    assert 'data-testid="table19"' in page
    assert f"{100 * per_source['gpt']:.1f}" in page
    csv_text = client.get(reverse("baseline:report-csv", args=[study.pk])).content.decode()
    assert (
        f"humans,mean annotator accuracy,{correct.mean():.6f},{mean.ci_low:.6f},{mean.ci_high:.6f}"
        in csv_text
    )


def test_build_report_takes_a_plain_prediction_mapping():
    """The engine's contract with the evaluation app: {label: one letter or None per item}."""
    answers = [["A", "A", "B", "A"], ["C", "C", "C", "D"], ["B", "D", "D", "D"]] * 10
    keys = ["A", "C", "D"] * 10
    sources = ["gemini", "claude", "gpt"] * 10
    result = build_report(
        answers=answers,
        keys=keys,
        sources=sources,
        annotators=list("wxyz"),
        model_predictions={"m": ["A", None, "B"] * 10},
        seed=1,
        n_boot=200,
        n_permutations=200,
        target_counts={"gemini": 10, "claude": 10, "gpt": 10},
    )
    assert result["models"]["m"]["accuracy"] == pytest.approx(1 / 3)
    assert result["plurality"]["n_correct"] == 30
    assert result["per_source"] == pytest.approx({"gemini": 0.75, "claude": 0.75, "gpt": 0.75})


def test_the_report_needs_two_finalized_participants(role_groups, admin_user, db):
    from humanbaseline.models import BaselineError

    study, _, _ = make_study(n_items=4)
    enrol(study, "only-one")
    with pytest.raises(BaselineError, match="0 participant"):
        services.report_request(study=study, user=admin_user, seed=1, n_boot=10, n_permutations=10)


def test_the_report_is_computed_by_a_celery_worker(
    celery_worker_process, role_groups, admin_user, client
):
    import time

    study, subset, _ = make_study(n_items=12, n_characters=4)
    keys = {
        si.pk: si.item.correct_answer
        for si in StudyItem.objects.filter(study=study, is_practice=False).select_related("item")
    }
    rng = np.random.default_rng(1)
    for n in range(3):
        answer_all(enrol(study, f"w{n}"), keys, rng, 0.8)
    client.force_login(admin_user)
    response = client.post(
        reverse("baseline:report", args=[study.pk]),
        {"seed": SEED, "n_boot": 500, "n_permutations": 500},
    )
    assert response.status_code == 302
    report = BaselineReport.objects.get(study=study)
    for _ in range(300):
        report.refresh_from_db()
        if report.status in ("done", "failed"):
            break
        time.sleep(0.2)
    assert report.status == "done", report.error
    assert report.results["n_annotators"] == 3
    # Redelivery changes nothing.
    before = dict(report.results)
    services.report_compute(report_id=report.pk)
    report.refresh_from_db()
    assert report.results == before


@pytest.mark.django_db
def test_evaluation_runs_feed_the_comparison_and_partial_ones_are_named(role_groups, admin_user):
    """The evaluation app's Naive-RAG predictions are the models' side (App. J); a model
    graded on only part of the subset is left out rather than scored wrong."""
    from evaluation.models import EvaluationPrediction, EvaluationRun, Setting

    study, subset, _ = make_study(n_items=8, n_characters=4)
    keys = {
        si.pk: si.item.correct_answer
        for si in StudyItem.objects.filter(study=study, is_practice=False).select_related("item")
    }
    rng = np.random.default_rng(2)
    for n in range(2):
        answer_all(enrol(study, f"e{n}"), keys, rng, 0.9)

    def run(label, items, *, right):
        r = EvaluationRun.objects.create(
            label=label, setting=Setting.NAIVE_RAG, status="finished", created_by=admin_user
        )
        for n, item in enumerate(items):
            wrong = "ABCD"[("ABCD".index(item.correct_answer) + 1) % 4]
            EvaluationPrediction.objects.create(
                run=r,
                item=item,
                status="answered" if n != 1 else "invalid",
                choice=(item.correct_answer if n < right else wrong) if n != 1 else "",
            )

    run("eval-full", subset, right=6)  # 5 right (item 1 is invalid), 3 wrong
    run("eval-partial", subset[:5], right=5)
    report = services.report_request(
        study=study, user=admin_user, seed=SEED, n_boot=200, n_permutations=200
    )
    r = services.report_compute(report_id=report.pk).results
    assert set(r["models"]) == {"eval-full"}
    assert r["models"]["eval-full"]["accuracy"] == pytest.approx(5 / 8)
    assert r["excluded_models"] == {"eval-partial": 5}


def test_table_19_rows_reweight_humans_and_models_alike():
    answers = [["A", "A", "B", "A"], ["C", "D", "C", "D"], ["B", "D", "D", "D"]] * 10
    keys = ["A", "C", "D"] * 10
    sources = ["gemini", "claude", "gpt"] * 10
    m1, m2 = ["A", None, "B"] * 10, ["A", "C", "D"] * 10
    r = build_report(
        answers=answers,
        keys=keys,
        sources=sources,
        annotators=list("wxyz"),
        model_predictions={"m1": m1, "m2": m2},
        seed=1,
        n_boot=100,
        n_permutations=100,
        target_counts=FULL_BENCHMARK_SOURCE_COUNTS,  # the paper's counts, as a fixture
        best_model="m2",
    )
    rows = {row["name"]: row for row in r["table19"]}
    humans = rows["Humans (mean of annotators)"]
    assert humans["per_source"] == pytest.approx({"gemini": 0.75, "claude": 0.5, "gpt": 0.75})
    weights = {s: n / 673 for s, n in FULL_BENCHMARK_SOURCE_COUNTS.items()}
    assert humans["reweighted"] == pytest.approx(
        0.75 * weights["gemini"] + 0.5 * weights["claude"] + 0.75 * weights["gpt"]
    )
    assert rows["Best model: m2"]["overall"] == 1.0
    mean = rows["Mean of 2 models"]
    # m1 is right on the gemini items only; m2 on all: the mean is 1, 0.5, 0.5 by source.
    assert mean["per_source"] == pytest.approx({"gemini": 1.0, "claude": 0.5, "gpt": 0.5})
    assert mean["reweighted"] == pytest.approx(
        weights["gemini"] + 0.5 * weights["claude"] + 0.5 * weights["gpt"]
    )
    assert rows["m1"]["overall"] == pytest.approx(1 / 3)
