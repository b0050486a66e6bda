"""Submitting a comparison judgment, then routing the pair; assigning pairs so nobody
judges a pair they arbitrated (seed 000 App. D.2).

The comparison workflow records the judgment and says whether the pair is complete;
consensus-then-arbitration routes a complete pair. Both happen in one transaction with
the pair row locked, so the last of three concurrent submits routes the pair exactly once.
"""

from django.contrib.auth import get_user_model
from django.db import transaction

from adjudication.arbitration.selectors import arbitration_decisions_by
from adjudication.arbitration.services import consensus_route
from annotation.comparison.models import ComparisonJudgment, ComparisonPair, PairAssignment
from annotation.comparison.services import ComparisonError, comparison_assign, comparison_submit


@transaction.atomic
def judgment_submit(*, public_id, annotator, content: dict) -> ComparisonJudgment:
    """Submit (or revise, until the pair is routed) the annotator's judgment, and route
    the pair once its three annotators have submitted. Idempotent like
    ``comparison_submit``: a double click, a second tab or a retry yields one judgment and
    one routing."""
    submission = comparison_submit(public_id=public_id, annotator=annotator, content=content)
    if submission.complete:
        consensus_route(pair=submission.pair)
    return submission.judgment


@transaction.atomic
def pairs_assign(
    *, user, pair_ids: list[int], annotator_ids: list[int], batch_size: int = 0
) -> int:
    """Assign pairs to three distinct primary annotators each
    (``annotation.comparison.services.comparison_assign``), refusing the whole assignment
    when a chosen annotator has arbitrated one of the pairs still open for judging:
    nobody judges a pair they arbitrate (App. D.2). Returns the number of new
    assignments."""
    inactive = list(
        get_user_model()
        .objects.filter(pk__in=annotator_ids, is_active=False)
        .values_list("username", flat=True)
    )
    if inactive:
        raise ComparisonError(
            [
                f"{name} is deactivated (team page) and takes no new work: leave them out."
                for name in sorted(inactive)
            ]
        )
    open_pairs = list(
        ComparisonPair.objects.select_for_update(of=("self",))
        .filter(pk__in=pair_ids, status=ComparisonPair.Status.ANNOTATING)
        .values_list("pk", flat=True)
    )
    already = set(
        PairAssignment.objects.filter(pair__in=open_pairs).values_list("pair_id", "annotator_id")
    )
    conflicts = [
        d
        for d in arbitration_decisions_by(pair_ids=open_pairs, arbitrator_ids=annotator_ids)
        if (d.pair_id, d.arbitrator_id) not in already
    ]
    if conflicts:
        raise ComparisonError(
            [
                f"{d.arbitrator.get_username()} arbitrated {d.pair} (arbitration decision "
                f"{d.pk}: {d.get_kind_display().lower()}, {d.decided_at:%Y-%m-%d %H:%M}); "
                "nobody judges a pair they arbitrate (seed 000 App. D.2): leave them out "
                "or assign that pair separately."
                for d in conflicts
            ]
        )
    return comparison_assign(
        user=user, pair_ids=pair_ids, annotator_ids=annotator_ids, batch_size=batch_size
    )
