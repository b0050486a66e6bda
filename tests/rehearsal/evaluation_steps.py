"""The rehearsal's evaluation settings beyond Naive-RAG (issue #35): one run of the App. H
memory-content ablation (C2: another character's memories for the item's scenario) on a
few items, through the worker and the fake provider like the Naive-RAG run, and the
Mem0 predictions a lab ran on its own backend, imported through the import page (§3.1,
App. E: Mem0 and PersonaDB are imported, never run here). The analysis then shows
both: the C2 run among the accuracies, Mem0 in the Memory-Augmented Avg. (Table 2)."""

import csv
import io
import json
import re

import pytest

from adjudication.mcq.models import McqItem
from evaluation.models import EvaluationPrediction, RetrievalSet

from .steps import Lab, wait_for, wait_json

MODEL = "rehearsal model"  # the Naive-RAG run's label (steps.evaluate)
ABLATION = "ablation_c2"
ABLATION_ITEMS = 2
MEM0 = "mem0"


def ablation_items() -> list[McqItem]:
    """Two final items of one scenario, of two characters: each is the other's donor."""
    final = McqItem.objects.filter(status="final").select_related("character", "scenario")
    by_scenario: dict[int, list[McqItem]] = {}
    for item in final.order_by("scenario_id", "character__key"):
        by_scenario.setdefault(item.scenario_id, []).append(item)
    chosen = next(items for items in by_scenario.values() if len(items) >= ABLATION_ITEMS)
    return chosen[:ABLATION_ITEMS]


def run_ablation(lab: Lab, worker) -> int:
    """App. H: the admin launches C2 on two items; the worker asks the fake provider."""
    admin = lab["admin"]
    items = ablation_items()
    answer = admin.fill(
        "/evaluation/",
        {
            "provider": "fake",
            "label": MODEL,
            "setting": ABLATION,
            "item_set": "ids",
            "question_ids": "\n".join(i.question_id for i in items),
            "retrieval_method": "bm25",
        },
        id="run-form",
    )
    run_id = int(re.search(r"/evaluation/runs/(\d+)/", answer.url).group(1))
    body = wait_json(
        admin,
        f"/api/evaluation/runs/{run_id}/",
        lambda b: b["status"] not in ("pending", "running"),
        "the C2 ablation run",
        worker,
    )
    assert body["status"] == "finished", body
    return run_id


def c2_shows_another_characters_memories(run_id: int) -> None:
    """App. H, C2: each prediction's memories are the other character's, retrieved for
    the item's own scenario, and the model answered every item."""
    predictions = EvaluationPrediction.objects.filter(run_id=run_id).select_related(
        "item__character"
    )
    assert predictions.count() == ABLATION_ITEMS
    assert {p.status for p in predictions} == {"answered"}
    for prediction in predictions:
        item = prediction.item
        rset = RetrievalSet.objects.get(
            item=item, method="bm25", origin__startswith="ablation C2: "
        )
        donor = rset.origin.removeprefix("ablation C2: ")
        assert donor != item.character.key
        owners = set(rset.entries.values_list("memory__character__key", flat=True))
        assert owners == {donor}, (item.question_id, owners)


def import_mem0(lab: Lab) -> dict[str, str]:
    """§3.1, App. E: the admin uploads the Mem0 backend's answers for every final item
    on the import page. They are all right, unless the Naive-RAG run already was (then
    every third is wrong), so that the two accuracies differ and the Memory-Augmented
    Avg. shows whether Mem0 is in it. Returns the answers."""
    admin = lab["admin"]
    all_right = accuracy_of("naive_rag") < 1
    final = McqItem.objects.filter(status="final").order_by("pk")
    answers = {}
    for n, (qid, key) in enumerate(final.values_list("question_id", "correct_answer")):
        wrong = "ABCD"[("ABCD".index(key) + 1) % 4]
        answers[qid] = key if all_right or n % 3 else wrong
    content = json.dumps({"model": MODEL, "setting": MEM0, "predictions": answers}).encode()
    page = admin.get("/evaluation/import/")
    form = admin.form(page, action="/evaluation/import/")
    done = admin.submit(
        form,
        {"setting": ""},
        page_url=page.url,
        files={"file": ("mem0-predictions.json", content, "application/json")},
    )
    assert re.search(r"/evaluation/runs/\d+/", done.url), done.text[-2000:]
    assert "Mem0" in done.text
    return answers


def accuracy_of(run_setting: str) -> float:
    """The share of correct answers of the model's run under ``run_setting`` (failed or
    unanswered calls count as wrong), from the stored predictions."""
    predictions = EvaluationPrediction.objects.filter(
        run__label=MODEL, run__setting=run_setting
    ).select_related("item")
    marks = [p.choice == p.item.correct_answer for p in predictions]
    return sum(marks) / len(marks)


def analysis_shows_them(lab: Lab, worker, ablation_run: int) -> None:
    """The analysis page (figures the worker stores) and its CSV: the C2 run is among
    the accuracies over its two items, and the Memory-Augmented Avg. of the model is the
    mean of its Naive-RAG and Mem0 accuracies (§3.1, Table 2)."""
    admin = lab["admin"]
    page = wait_for(
        lambda: admin.get("/evaluation/analysis/").text,
        lambda html: 'data-state="fresh"' in html,
        "the stored evaluation analysis",
        worker,
    )
    assert "Mem0" in page and f"/evaluation/runs/{ablation_run}/" in page
    rows = list(csv.DictReader(io.StringIO(admin.get("/evaluation/analysis.csv").text)))
    accuracy = {(r["model"], r["setting"]): r for r in rows if r["section"] == "accuracy"}
    c2 = next(r for (model, setting), r in accuracy.items() if setting.startswith("C2"))
    assert c2["model"] == MODEL and int(c2["n_items"]) == ABLATION_ITEMS
    assert float(c2["accuracy"]) == pytest.approx(accuracy_of(ABLATION))
    (average,) = [r for r in rows if r["section"] == "memory_augmented_avg" and r["model"] == MODEL]
    expected = (accuracy_of("naive_rag") + accuracy_of(MEM0)) / 2
    assert accuracy_of(MEM0) != accuracy_of("naive_rag")  # (import_mem0)
    assert float(average["accuracy"]) == pytest.approx(expected)
