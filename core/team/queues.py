"""The work queues a person can hold, counted from the workflows' own records.

Each queue names the model that records the work (by label, as ``core.conflicts`` reads
its sources, so the base imports no workflow), the field naming the person, and which
rows are open (assigned and waiting for them) and which are finished. A queue whose work
is not assigned to anyone in advance (arbitration, item review, scenario review: whoever
holds the role takes the next case) has no open count; only what the person finished.

``queue_counts`` makes one query per queue for any number of people.
"""

from dataclasses import dataclass

from django.apps import apps
from django.db.models import Count, Exists, OuterRef, Q


@dataclass(frozen=True)
class WorkQueue:
    label: str
    model: str
    user_field: str
    done: Q
    open: Q | None = None  # None: nothing in this queue is assigned ahead of time
    # Where an admin sees (and can hand on) a person's open work of this queue.
    open_url_name: str = ""

    def rows(self, user_ids):
        model = apps.get_model(self.model)
        counts = {"done": Count("pk", filter=self.done)}
        if self.open is not None:
            counts["open"] = Count("pk", filter=self.open)
        rows = (
            model.objects.filter(**{f"{self.user_field}__in": user_ids})
            .order_by()
            .values(self.user_field)
            .annotate(**counts)
        )
        return [(r[self.user_field], r.get("open"), r["done"]) for r in rows]

    def open_records(self, user_id):
        """The person's open rows of this queue, for the deactivation page."""
        if self.open is None:
            return []
        model = apps.get_model(self.model)
        return list(model.objects.filter(self.open, **{self.user_field: user_id}).order_by("pk"))


@dataclass(frozen=True)
class LabelSelectionQueue(WorkQueue):
    """A label audit expert's items: open while the item waits for the experts and has no
    submitted selection of theirs; finished once they submitted one."""

    def _items(self, **experts):
        """The audits' items, one row per item and expert of its audit matching
        ``experts`` (audit__experts__expert...), with whether that expert submitted a
        selection. Filtered before the annotation, so both use the same join."""
        selection = apps.get_model("audit", "LabelSelection")
        return (
            apps.get_model("audit", "LabelAuditItem")
            .objects.filter(**experts)
            .annotate(
                selected=Exists(
                    selection.objects.filter(
                        audit_item=OuterRef("pk"),
                        expert=OuterRef("audit__experts__expert"),
                        submitted_at__isnull=False,
                    )
                )
            )
        )

    def rows(self, user_ids):
        rows = (
            self._items(audit__experts__expert__in=user_ids)
            .order_by()
            .values("audit__experts__expert")
            .annotate(
                open=Count("pk", filter=Q(selected=False, status="selecting")),
                done=Count("pk", filter=Q(selected=True)),
            )
        )
        return [(r["audit__experts__expert"], r["open"], r["done"]) for r in rows]

    def open_records(self, user_id):
        return list(
            self._items(audit__experts__expert=user_id)
            .filter(selected=False, status="selecting")
            .select_related("audit")
            .order_by("audit_id", "position")
        )


EVERYTHING = Q(pk__isnull=False)

# In the pipeline's order (DESIGN.md).
WORK_QUEUES: tuple[WorkQueue, ...] = (
    WorkQueue(
        "Profile reviews",
        "annotation.ProfileReview",
        "reviewer",
        done=Q(submitted_at__isnull=False),
        open=Q(submitted_at__isnull=True),
        open_url_name="review:profile-list",
    ),
    WorkQueue(
        "Scenario screening decisions", "annotation.ScreeningDecision", "reviewer", EVERYTHING
    ),
    WorkQueue("Scenario DIAMONDS ratings", "annotation.DiamondsRating", "reviewer", EVERYTHING),
    WorkQueue(
        "Memory audit decisions", "audit.MemoryCase", "reviewer", Q(decided_at__isnull=False)
    ),
    WorkQueue(
        "Comparison judgments",
        "annotation.PairAssignment",
        "annotator",
        done=Q(judgment__isnull=False),
        # Waiting for them while the pair is still with the annotators.
        open=Q(judgment__isnull=True, pair__status="annotating"),
        open_url_name="comparison:assign",
    ),
    WorkQueue(
        "Arbitration decisions", "adjudication.ArbitrationDecision", "arbitrator", EVERYTHING
    ),
    WorkQueue("Item review decisions", "adjudication.McqReviewDecision", "reviewer", EVERYTHING),
    LabelSelectionQueue(
        "Label audit selections",
        "audit.LabelAuditItem",
        "audit__experts__expert",
        done=EVERYTHING,
        open=EVERYTHING,
        open_url_name="audit:labels:home",
    ),
    WorkQueue("Label audit adjudications", "audit.LabelAdjudication", "adjudicator", EVERYTHING),
    WorkQueue(
        "Baseline study",
        "humanbaseline.Participation",
        "user",
        done=Q(status="finalized"),
        open=Q(status__in=("invited", "consented", "started")),
    ),
)


@dataclass(frozen=True)
class QueueCount:
    label: str
    open: int | None  # None: the queue assigns nothing ahead of time
    done: int


def queue_counts(user_ids) -> dict[int, list[QueueCount]]:
    """{user id: a QueueCount per queue, in WORK_QUEUES order}. One query per queue."""
    user_ids = list(user_ids)
    found = {uid: {} for uid in user_ids}
    if not user_ids:
        return {}
    for queue in WORK_QUEUES:
        for user_id, open_count, done in queue.rows(user_ids):
            found[user_id][queue.label] = (open_count, done)
    counts = {}
    for uid, per_queue in found.items():
        counts[uid] = []
        for q in WORK_QUEUES:
            open_count, done = per_queue.get(q.label, (0, 0))
            counts[uid].append(QueueCount(q.label, None if q.open is None else open_count, done))
    return counts
