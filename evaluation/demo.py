"""The evaluation part of `make demo`: offline-demo-provider runs on the demo's items,
so the run, item and analysis pages have data (seed 000 §3.1, App. I, K.2).

The items are the final items of the characters whose stand-in profile is frozen (the
generation demo freezes two), up to ``DEMO_ITEMS``, so the disclosed-profile settings
can run too. Five runs: the offline demo model in all four settings (BM25 retrieval),
and a second label with TF-IDF retrieval under Naive-RAG, so the model-model
comparisons and the agreement matrix have two models. Every answer comes from the
offline demo provider (deterministic per prompt), not from a model: the accuracies mean
nothing and the pages say which provider produced them.

The App. K.1 tables need models of the three source families and items of each source:
the release records no answer-key provenance, so the demo copies the stand-in source
families it is given (the human-baseline demo's) onto references that have none, and
imports **simulated** runs (``demo-sim …`` labels naming a family, seeded draws with a
small home-source lean, no model involved) under No-Retrieval and Naive-RAG over every
final item of a known source. Idempotent.
"""

import json

import numpy as np

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem
from annotation.corpus.models import ProfileVersion
from core.reports.services import report_for

from . import services, stored_reports
from .analysis import SOURCE_FAMILIES
from .models import EvaluationRun, RetrievalSet, Setting
from .prediction_import import evaluation_run_import

DEMO_ITEMS = 40
DEMO_LABEL = "offline demo"
DEMO_LABEL_TFIDF = "offline demo (TF-IDF)"
DEMO_NOTE = "Demo: offline demo provider, not a model; the numbers mean nothing"
SIMULATED_NOTE = "Demo: simulated predictions (seeded draws), not a model; the numbers mean nothing"
#: (label, Naive-RAG accuracy elsewhere, extra on its own family's items); No-Retrieval
#: answers are drawn at the 25% chance level.
SIMULATED_MODELS = (
    ("demo-sim gemini A", 0.60, 0.04),
    ("demo-sim gemini B", 0.55, 0.04),
    ("demo-sim claude A", 0.47, 0.0),
    ("demo-sim claude B", 0.42, 0.0),
    ("demo-sim gpt A", 0.45, 0.0),
    ("demo-sim gpt B", 0.38, 0.0),
)
SIMULATION_SEED = 20261008


def demo_items():
    frozen = ProfileVersion.objects.filter(frozen_at__isnull=False).values("character")
    items = McqItem.objects.filter(status=McqItem.Status.FINAL, character__in=frozen)
    if not items.exists():
        items = McqItem.objects.filter(status=McqItem.Status.FINAL)
    return items.order_by("scenario__scenario_id", "question_id")[:DEMO_ITEMS]


def demo_source_families(families: dict[int, str]) -> int:
    """Copy stand-in source families ({item pk: family}) onto the current references of
    those items' (character, scenario) pairs that record none; returns how many changed."""
    pairs = {
        (c, s): pk
        for pk, c, s in ReferenceResponse.objects.filter(
            superseded_at__isnull=True, source_family=""
        ).values_list("pk", "character_id", "scenario_id")
    }
    by_family: dict[str, list[int]] = {}
    items = McqItem.objects.filter(pk__in=list(families)).values_list(
        "pk", "character_id", "scenario_id"
    )
    for item_id, character_id, scenario_id in items:
        family = families[item_id]
        reference = pairs.get((character_id, scenario_id))
        if family in SOURCE_FAMILIES and reference is not None:
            by_family.setdefault(family, []).append(reference)
    return sum(
        ReferenceResponse.objects.filter(pk__in=pks).update(source_family=family)
        for family, pks in by_family.items()
    )


def seed_simulated_runs(*, user) -> list[EvaluationRun]:
    """Import the simulated runs (see the module docstring); returns them."""
    existing = list(EvaluationRun.objects.filter(note=SIMULATED_NOTE).order_by("pk"))
    if existing:
        return existing
    source = {
        (c, s): family
        for c, s, family in ReferenceResponse.objects.filter(
            superseded_at__isnull=True, source_family__in=SOURCE_FAMILIES
        ).values_list("character_id", "scenario_id", "source_family")
    }
    family_of = {}
    for item in (
        McqItem.objects.filter(status=McqItem.Status.FINAL)
        .select_related("reference")
        .order_by("question_id")
    ):
        linked = item.reference.source_family if item.reference_id else ""
        family = linked or source.get((item.character_id, item.scenario_id), "")
        if family in SOURCE_FAMILIES:
            family_of[item] = family
    items = list(family_of)
    if not items:
        return []
    rng = np.random.default_rng(SIMULATION_SEED)
    runs = []
    for label, accuracy, lean in SIMULATED_MODELS:
        family = label.split()[1]
        for setting in (Setting.NO_RETRIEVAL, Setting.NAIVE_RAG):
            predictions = {}
            for item in items:
                p = 0.25
                if setting == Setting.NAIVE_RAG:
                    p = accuracy + (lean if family_of[item] == family else 0.0)
                if rng.random() < p:
                    predictions[item.question_id] = item.correct_answer
                else:
                    wrong = [x for x in "ABCD" if x != item.correct_answer]
                    predictions[item.question_id] = wrong[int(rng.integers(len(wrong)))]
            payload = {"model": label, "setting": setting, "predictions": predictions}
            runs.append(
                evaluation_run_import(
                    created_by=user,
                    filename=f"{label}.json",
                    content=json.dumps(payload).encode(),
                    note=SIMULATED_NOTE,
                )
            )
    return runs


def seed_evaluation_demo(*, user, source_families: dict[int, str] | None = None):
    """Create and run (Celery eager in the demo) the offline demo runs, returned; then
    the simulated runs for App. K.1 on the given stand-in ``source_families``."""
    if source_families:
        demo_source_families(source_families)
    seed_simulated_runs(user=user)
    existing = list(EvaluationRun.objects.filter(note=DEMO_NOTE).order_by("pk"))
    if existing:
        return existing
    items = list(demo_items())
    if not items:
        return []
    runs = _start_demo_runs(user, items)
    # A new user opening the analysis finds its figures computed (eager) or computing.
    report_for(stored_reports.ANALYSIS_KIND)
    return runs


def _start_demo_runs(user, items) -> list:
    settings = (
        Setting.NO_RETRIEVAL,
        Setting.NAIVE_RAG,
        Setting.DISCLOSED_PROFILE,
        Setting.DISCLOSED_PROFILE_MEMORY,
    )
    plans = [(DEMO_LABEL, s, RetrievalSet.Method.BM25) for s in settings]
    plans.append((DEMO_LABEL_TFIDF, Setting.NAIVE_RAG, RetrievalSet.Method.TFIDF))
    runs = []
    for label, setting, method in plans:
        run = services.evaluation_run_create(
            created_by=user,
            provider_key="offline_demo",
            setting=setting,
            items=items,
            item_set=f"demo: {len(items)} items",
            label=label,
            retrieval_method=method,
            note=DEMO_NOTE,
        )
        services.evaluation_run_start(run_id=run.pk)
        runs.append(run)
    return runs
