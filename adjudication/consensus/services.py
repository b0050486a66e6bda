"""Submitting a comparison judgment, then routing the pair (seed 000 App. D.2).

The comparison workflow records the judgment and says whether the pair is complete;
consensus-then-arbitration routes a complete pair. Both happen in one transaction with
the pair row locked, so the last of three concurrent submits routes the pair exactly once.
"""

from django.db import transaction

from adjudication.arbitration.services import consensus_route
from annotation.comparison.models import ComparisonJudgment
from annotation.comparison.services import comparison_submit


@transaction.atomic
def judgment_submit(*, public_id, annotator, content: dict) -> ComparisonJudgment:
    """Submit (or revise, until the pair is routed) the annotator's judgment, and route
    the pair when every assignee has submitted. Idempotent like ``comparison_submit``:
    a double click, a second tab or a retry yields one judgment and one routing."""
    submission = comparison_submit(public_id=public_id, annotator=annotator, content=content)
    if submission.complete:
        consensus_route(pair=submission.pair)
    return submission.judgment
