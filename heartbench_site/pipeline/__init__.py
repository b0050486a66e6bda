"""The pipeline page: the benchmark as seed 000's Figure 2, one stage per row.

Each stage says how far the benchmark got (counts), what holds it up and whom it waits
for (blockers), and where its queue is (links). Everything is read with a fixed number
of queries, however many characters, pairs or items there are: each stage groups its
rows in SQL and names at most ``rows.NAMED_AT_MOST`` subjects per blocker.

This package sits at the site top, so it reads every workflow's models; it writes nothing.
"""

from django.db.models import Count

from adjudication.mcq.models import McqItem
from annotation.comparison.models import ComparisonPair
from annotation.corpus.models import Character
from core.deviations import ProtocolDeviation

from .construction import (
    characters_stage,
    memories_stage,
    memory_generation_stage,
    profiles_stage,
    scenarios_stage,
)
from .evaluation import baseline_stage, evaluation_stage, export_stage
from .instances import (
    adjudication_stage,
    generation_stage,
    items_stage,
    judging_stage,
    label_audit_stage,
    references_stage,
)
from .observers import observers_stage
from .rows import Blocker, Pipeline, Stage, Tally

__all__ = ["Blocker", "Pipeline", "Stage", "Tally", "pipeline_overview"]


def pipeline_overview() -> Pipeline:
    """Every stage of Figure 2, top to bottom, read with a fixed number of queries."""
    characters = list(Character.objects.order_by("key").values_list("pk", "key"))
    # A pair is counted at its latest round: a pair sent back for regeneration is decided
    # by the round that followed it (its first round's status stays "regenerating").
    pair_status = dict(
        ComparisonPair.objects.filter(next_round__isnull=True)
        .values_list("status")
        .annotate(n=Count("pk"))
        .order_by()
    )
    item_status = dict(McqItem.objects.values_list("status").annotate(n=Count("pk")).order_by())
    deviations = ProtocolDeviation.objects.count()
    stages = []
    for group, built in (
        (
            "Character construction",
            [
                characters_stage(characters),
                profiles_stage(characters),
                memory_generation_stage(characters),
                memories_stage(characters),
                observers_stage(),
            ],
        ),
        ("Scenario construction", [scenarios_stage()]),
        (
            "Creating evaluation instances",
            [
                generation_stage(),
                judging_stage(pair_status),
                adjudication_stage(pair_status),
                references_stage(),
                items_stage(item_status),
                label_audit_stage(),
            ],
        ),
        (
            "Evaluation",
            [baseline_stage(), evaluation_stage(), export_stage(item_status, deviations)],
        ),
    ):
        for stage in built:
            stage.group = group
            stages.append(stage)
    return Pipeline(stages=stages, deviations=deviations)
