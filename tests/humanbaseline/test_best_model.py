"""App. J's "best model" is fixed before the report, never picked on the subset itself
(which would favour whichever model happens to do well on those items): by the admin's
evaluation runs' accuracy on the full final set, or named by the admin in advance; who
fixed it and when is recorded, and a change once participants have answered needs a
reason and is recorded."""

import numpy as np
import pytest
from django.urls import reverse

from adjudication.mcq.models import McqItem
from core.deviations import ProtocolDeviation
from evaluation.models import EvaluationPrediction, EvaluationRun, Setting
from humanbaseline import services
from humanbaseline.models import BaselineError, BestModelChoice, ItemResponse, StudyItem

from .conftest import enrol, make_study

pytestmark = pytest.mark.django_db
SEED = 20261012


def wrong(letter):
    return "ABCD"[("ABCD".index(letter) + 1) % 4]


def run(label, answers, *, admin, setting=Setting.NAIVE_RAG):
    """A finished evaluation run answering ``{item: letter}``."""
    r = EvaluationRun.objects.create(
        label=label, setting=setting, status="finished", created_by=admin
    )
    for item, letter in answers.items():
        EvaluationPrediction.objects.create(run=r, item=item, status="answered", choice=letter)
    return r


@pytest.fixture
def world(role_groups, admin_user):
    """12 final items, 8 in the subset. 'wide' is right on the 4 items outside the subset
    and on 5 of the subset's 8 (9 of 12); 'narrow' is right on the subset's 8 only (8 of
    12): best on the subset, not on the benchmark."""
    study, subset, practice = make_study(n_items=8, n_practice=4, n_characters=4)
    final = list(McqItem.objects.filter(status=McqItem.Status.FINAL))
    assert len(final) == 12
    in_subset = {i.pk for i in subset}
    wide = {
        i: (
            i.correct_answer
            if i.pk not in in_subset or i in subset[:5]
            else wrong(i.correct_answer)
        )
        for i in final
    }
    narrow = {
        i: (i.correct_answer if i.pk in in_subset else wrong(i.correct_answer)) for i in final
    }
    runs = {
        "wide": run("wide", wide, admin=admin_user),
        "narrow": run("narrow", narrow, admin=admin_user),
    }
    accuracy = {
        label: float(np.mean([answers[i] == i.correct_answer for i in final]))
        for label, answers in (("wide", wide), ("narrow", narrow))
    }
    return study, subset, runs, accuracy


def finish_two(study):
    rng = np.random.default_rng(4)
    for n in range(2):
        p = enrol(study, f"b{n}")
        for response in ItemResponse.objects.filter(participation=p).select_related(
            "study_item__item"
        ):
            key = response.study_item.item.correct_answer
            response.choice = key if rng.random() < 0.8 else wrong(key)
            response.save(update_fields=["choice"])
        services.baseline_finalize(participation=p)


def human_mean(study):
    rows = ItemResponse.objects.filter(
        participation__study=study, participation__status="finalized"
    )
    return np.mean([r.choice == r.study_item.item.correct_answer for r in rows])


def compute(study, admin):
    report = services.report_request(
        study=study, user=admin, seed=SEED, n_boot=200, n_permutations=200
    )
    return services.report_compute(report_id=report.pk).results


def test_the_best_model_is_the_runs_best_on_the_full_final_set(world, admin_user, client):
    study, subset, runs, accuracy = world
    assert accuracy == {"wide": 0.75, "narrow": pytest.approx(8 / 12)}
    choice = services.best_model_fix(
        study=study, user=admin_user, run_ids=[runs["narrow"].pk, runs["wide"].pk]
    )
    assert choice.model_label == "wide" and choice.method == BestModelChoice.Method.FULL_BENCHMARK
    assert choice.chosen_by == admin_user and choice.chosen_at is not None
    recorded = {row["label"]: row["accuracy"] for row in choice.runs}
    assert recorded == pytest.approx(accuracy)
    assert {row["n_items"] for row in choice.runs} == {12}

    finish_two(study)
    r = compute(study, admin_user)
    assert r["models"]["narrow"]["accuracy"] == 1.0  # best on the subset …
    assert r["best_model"] == "wide"  # … but not the best model
    subset_items = StudyItem.objects.filter(study=study, is_practice=False).select_related("item")
    wide_on_subset = np.mean([si.item in subset[:5] for si in subset_items])
    assert r["models"]["wide"]["accuracy"] == pytest.approx(wide_on_subset)
    assert r["best_model_difference"]["estimate"] == pytest.approx(
        human_mean(study) - wide_on_subset
    )
    basis = r["best_model_basis"]
    assert basis["method"] == "full_benchmark" and basis["chosen_by"] == admin_user.username
    assert {row["label"]: row["accuracy"] for row in basis["runs"]} == pytest.approx(accuracy)
    assert "Best model: wide" in [row["name"] for row in r["table19"]][1]

    client.force_login(admin_user)
    page = client.get(reverse("baseline:report", args=[study.pk])).content.decode()
    assert 'data-testid="best-model-basis"' in page
    assert "highest accuracy on the full final set (12 items)" in page
    assert "wide 75.0%" in page and "narrow 66.7%" in page


def test_without_a_fixed_best_model_the_report_picks_none(world, admin_user, client):
    study, _, _, _ = world
    finish_two(study)
    r = compute(study, admin_user)
    assert set(r["models"]) == {"wide", "narrow"}
    assert r["best_model"] is None and r["best_model_difference"] is None
    assert not any(row["name"].startswith("Best model") for row in r["table19"])
    client.force_login(admin_user)
    page = client.get(reverse("baseline:report", args=[study.pk])).content.decode()
    assert "No best model was fixed for this study" in page


def test_runs_must_cover_the_final_set_under_naive_rag(world, admin_user):
    study, subset, runs, _ = world
    partial = run("partial", {i: i.correct_answer for i in subset}, admin=admin_user)
    other = run(
        "no-memory",
        {i: i.correct_answer for i in McqItem.objects.filter(status="final")},
        admin=admin_user,
        setting=Setting.NO_RETRIEVAL,
    )
    with pytest.raises(BaselineError) as error:
        services.best_model_fix(
            study=study, user=admin_user, run_ids=[runs["wide"].pk, partial.pk, other.pk]
        )
    text = " ".join(error.value.messages)
    assert f"Run {partial.pk} (partial) covers 8 of the 12 final items" in text
    assert f"Run {other.pk} (no-memory) is a No-Retrieval run" in text
    assert BestModelChoice.objects.count() == 0
    with pytest.raises(BaselineError, match="Choose at least one evaluation run or name"):
        services.best_model_fix(study=study, user=admin_user, run_ids=[])


def test_an_admins_choice_is_recorded_and_a_later_change_needs_a_reason(world, admin_user):
    study, _, _, _ = world
    first = services.best_model_fix(study=study, user=admin_user, model_label="narrow")
    assert first.method == BestModelChoice.Method.ADMIN and not first.after_answers
    p = enrol(study, "early")
    services.answer_save(participation=p, position=1, choice="A")

    with pytest.raises(BaselineError, match="participants have answered"):
        services.best_model_fix(study=study, user=admin_user, model_label="wide")
    assert list(BestModelChoice.objects.values_list("model_label", flat=True)) == ["narrow"]
    assert ProtocolDeviation.objects.count() == 0

    changed = services.best_model_fix(
        study=study, user=admin_user, model_label="wide", reason="The wrong label was typed."
    )
    assert changed.after_answers and changed.reason == "The wrong label was typed."
    deviation = ProtocolDeviation.objects.get()
    assert "narrow → wide" in deviation.subject and deviation.reason == changed.reason

    finish_two(study)
    r = compute(study, admin_user)
    basis = r["best_model_basis"]
    assert r["best_model"] == "wide" and basis["method"] == "admin"
    assert [(c["from"], c["to"], c["reason"]) for c in basis["changes_after_answers"]] == [
        ("narrow", "wide", "The wrong label was typed.")
    ]


def test_the_study_page_fixes_the_best_model_from_runs(world, admin_user, client):
    study, _, runs, _ = world
    client.force_login(admin_user)
    page = client.get(reverse("baseline:study-detail", args=[study.pk])).content.decode()
    assert 'data-testid="best-model"' in page and "not fixed yet" in page
    response = client.post(
        reverse("baseline:best-model", args=[study.pk]),
        {"runs": [runs["wide"].pk, runs["narrow"].pk], "model_label": "", "reason": ""},
    )
    assert response.status_code == 302
    page = client.get(reverse("baseline:study-detail", args=[study.pk])).content.decode()
    assert "wide" in page.split('data-testid="best-model"')[1].split("</section>")[0]
    assert BestModelChoice.objects.get().chosen_by == admin_user
    both = client.post(
        reverse("baseline:best-model", args=[study.pk]),
        {"runs": [runs["wide"].pk], "model_label": "narrow", "reason": ""},
    )
    assert "either evaluation runs or a model label, not both" in both.content.decode()
    assert BestModelChoice.objects.count() == 1
