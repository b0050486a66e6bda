"""The evaluation part of `make demo`: offline-demo-provider runs on the demo's items,
so the run, item and analysis pages have data (seed 000 §3.1, App. I, K.2).

The items are the final items of the characters whose stand-in profile is frozen (the
generation demo freezes two), up to ``DEMO_ITEMS``, so the disclosed-profile settings
can run too. Five runs: the offline demo model in all four settings (BM25 retrieval),
and a second label with TF-IDF retrieval under Naive-RAG, so the model-model
comparisons and the agreement matrix have two models. Every answer comes from the
offline demo provider (deterministic per prompt), not from a model: the accuracies mean
nothing and the pages say which provider produced them. Idempotent.
"""

from adjudication.mcq.models import McqItem
from annotation.corpus.models import ProfileVersion

from . import services
from .models import EvaluationRun, RetrievalSet, Setting

DEMO_ITEMS = 40
DEMO_LABEL = "offline demo"
DEMO_LABEL_TFIDF = "offline demo (TF-IDF)"
DEMO_NOTE = "Demo: offline demo provider, not a model; the numbers mean nothing"


def demo_items():
    frozen = ProfileVersion.objects.filter(frozen_at__isnull=False).values("character")
    items = McqItem.objects.filter(status=McqItem.Status.FINAL, character__in=frozen)
    if not items.exists():
        items = McqItem.objects.filter(status=McqItem.Status.FINAL)
    return items.order_by("scenario__scenario_id", "question_id")[:DEMO_ITEMS]


def seed_evaluation_demo(*, user) -> list[EvaluationRun]:
    """Create and run (Celery eager in the demo) the demo runs; returns them."""
    existing = list(EvaluationRun.objects.filter(note=DEMO_NOTE).order_by("pk"))
    if existing:
        return existing
    items = list(demo_items())
    if not items:
        return []
    plans = [(DEMO_LABEL, s, RetrievalSet.Method.BM25) for s in Setting.values]
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
