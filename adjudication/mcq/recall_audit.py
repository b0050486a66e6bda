"""The screener's recall made measurable (issue 37, "Judges checked against experts").

In the workflow an item the screener passes goes straight to the final set, so the item
reviewers only ever decide flagged items and the screener's recall cannot be seen. A
recall audit draws a seeded simple random sample of the passed items in the final set and
sends them back to item review, where they stand among the flagged items. While any drawn
item awaits its decision, the review pages show no screener verdict for any item in
review (:func:`blind`): a reviewer cannot tell a drawn item from a flagged one.

The draw: the pool is every item in the final set whose latest screening, of its current
version, passed and was never drawn; ``k = min(N, max(min_items, ceil(rate·N)))`` of
the ``N`` are drawn with ``random.Random(seed)``. Every passed item of the pool had the
chance ``k/N``, so in the recall estimate a drawn item stands for ``N/k`` passed items
(:attr:`McqRecallAudit.weight`; see :mod:`adjudication.mcq.screener_agreement`).
Guide: docs/lab-admin/validity-judges.md#recall-audit.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import F

from adjudication.mcq.models import McqError, McqItem, McqRecallAudit, McqScreening
from core.protocol import PROTOCOL_SEED

#: The share of the pool drawn, and the fewest items drawn (the whole pool when smaller).
DEFAULT_RATE = 0.10
DEFAULT_MIN_ITEMS = 10
#: The outcomes that are a verdict of the screener (a technical failure is none).
VERDICTS = (McqScreening.Outcome.PASSED, McqScreening.Outcome.FLAGGED)


def audit_rate() -> float:
    return float(getattr(settings, "HEARTBENCH_MCQ_RECALL_AUDIT_RATE", DEFAULT_RATE))


def audit_min_items() -> int:
    return int(getattr(settings, "HEARTBENCH_MCQ_RECALL_AUDIT_MIN", DEFAULT_MIN_ITEMS))


def sample_size(pool: int, *, rate: float, min_items: int) -> int:
    """How many of ``pool`` passed items a draw takes."""
    return min(pool, max(min_items, math.ceil(round(rate * pool, 9))))


def _pool() -> list[int]:
    """The screenings a draw chooses from (one per item, ordered by id): the latest
    screening of an item in the final set, of its current version, that passed and was
    never drawn."""
    latest: dict[int, tuple] = {}
    rows = (
        McqScreening.objects.filter(
            item__status=McqItem.Status.FINAL,
            item_version__number=F("item__version"),
            outcome__in=[*VERDICTS, McqScreening.Outcome.TECHNICAL_FAILURE],
        )
        .order_by("item_id", "-created_at", "-pk")
        .values_list("item_id", "pk", "outcome", "recall_audit_id")
    )
    for item_id, pk, outcome, drawn in rows:
        latest.setdefault(item_id, (pk, outcome, drawn))
    return sorted(
        pk
        for pk, outcome, drawn in latest.values()
        if outcome == McqScreening.Outcome.PASSED and drawn is None
    )


@dataclass(frozen=True)
class DrawPlan:
    pool: int
    sample: int
    rate: float
    min_items: int
    open_items: int  # drawn items still awaiting their decision


def draw_plan() -> DrawPlan:
    """What a draw would take now (the confirmation page shows it)."""
    rate, min_items = audit_rate(), audit_min_items()
    pool = len(_pool())
    return DrawPlan(
        pool, sample_size(pool, rate=rate, min_items=min_items), rate, min_items, open_items()
    )


@transaction.atomic
def draw_recall_audit(*, user=None, seed: int | None = None) -> McqRecallAudit:
    """Draw a recall audit now and send the drawn items back to item review."""
    list(McqItem.objects.select_for_update().filter(status=McqItem.Status.FINAL).values("pk"))
    pool = _pool()
    if not pool:
        raise McqError(
            "No item in the final set has a passing screening of its current version that "
            "was not drawn before: there is nothing to draw."
        )
    rate, min_items = audit_rate(), audit_min_items()
    if seed is None:
        seed = PROTOCOL_SEED + McqRecallAudit.objects.count()
    k = sample_size(len(pool), rate=rate, min_items=min_items)
    chosen = sorted(random.Random(seed).sample(pool, k))
    audit = McqRecallAudit.objects.create(
        created_by=user if getattr(user, "is_authenticated", False) else None,
        seed=seed,
        rate=rate,
        min_items=min_items,
        pool_size=len(pool),
        sample_size=k,
    )
    McqScreening.objects.filter(pk__in=chosen).update(recall_audit=audit)
    McqItem.objects.filter(screenings__pk__in=chosen).update(status=McqItem.Status.FLAGGED)
    return audit


def open_items() -> int:
    """Drawn items awaiting their decision: still in review at the version drawn."""
    return (
        McqItem.objects.filter(
            status=McqItem.Status.FLAGGED,
            screenings__recall_audit__isnull=False,
            screenings__item_version__number=F("version"),
        )
        .distinct()
        .count()
    )


def blind() -> bool:
    """Whether the review pages hide the screener's verdicts now: while a drawn item
    awaits its decision."""
    return open_items() > 0


def hides(item: McqItem, screening: McqScreening | None, *, blind_now: bool) -> bool:
    """Whether ``screening`` is hidden from the review pages of ``item``: a verdict
    (passed or flagged) of an item in review, while a recall audit is open."""
    return (
        blind_now
        and screening is not None
        and item.status == McqItem.Status.FLAGGED
        and screening.outcome in VERDICTS
    )
