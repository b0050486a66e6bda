"""The screener-versus-reviewers report's part of `make demo`: records for the report.

The release's items arrive final, screened and reviewed by the paper's authors, so the
platform has no screening of them. The demo screens 24 of them again (the last in
question-id order with no screening, review or label audit yet) with the scripted offline
judge, which flags nine (six R2 concerns, three R1) and passes fifteen. A recall audit
then draws ten of the fifteen passed items (the minimum; 10% would be two) and sends them
back to item review, and the demo item reviewer decides the nineteen items in review by
script: five of the flagged ones and two of the drawn ones have a defect (a distractor is
revised, and the new version, screened again by the scripted judge, passes into the final
set), the others are retained. The final set keeps its size. The decisions are scripted;
the report computed from them is real. Idempotent: a second call changes nothing.
"""

from django.db.models import Q

from adjudication.mcq import recall_audit
from adjudication.mcq.demo import DEMO_LABEL, ScriptedDemoJudge, _output
from adjudication.mcq.models import McqItem, McqScreening
from adjudication.mcq.services import item_review, item_screening
from core.roles import Role

DEMO_NOTE = "Demo: release items screened again for the screener-against-reviewers report."
N_ITEMS = 24


def _concern(i: int) -> str | None:
    """The scripted judge's flag of the i-th demo item."""
    if i % 4 == 0:
        return "R2"
    if i % 8 == 6:
        return "R1"
    return None


def _experts_find_a_defect(i: int, concern: str | None, drawn_rank: int | None) -> bool:
    """The scripted reviewers' finding: half of the R2 flags and two of the three R1 flags
    are upheld; the first two drawn passed items have a defect the screener missed."""
    if concern == "R2":
        return i % 8 == 0
    if concern == "R1":
        return i != 22
    return drawn_rank is not None and drawn_rank < 2


def _targets() -> list[McqItem]:
    untouched = (
        McqItem.objects.filter(status=McqItem.Status.FINAL)
        .exclude(source="demo")
        .exclude(Q(screenings__isnull=False) | Q(review_decisions__isnull=False))
        .exclude(label_audits__isnull=False)
        .distinct()
        .order_by("-question_id")
    )
    return list(untouched[:N_ITEMS])


def _screen(item: McqItem, concern: str | None) -> None:
    McqItem.objects.filter(pk=item.pk).update(status=McqItem.Status.SCREENING)
    item.refresh_from_db()
    judge = ScriptedDemoJudge([_output(item, concern=concern)])
    item_screening.mcq_screening_run(item_id=item.pk, client=judge, note=DEMO_NOTE)


def demo_screener_agreement(*, users: dict) -> int:
    """Screen, draw and decide the demo's items (see the module docstring); the number of
    items decided (0 on a second call, or when the demo has no reviewer)."""
    if McqScreening.objects.filter(run__note=DEMO_NOTE).exists():
        return 0
    admin = users.get(Role.ADMIN.value)
    reviewer = users.get(Role.ARBITRATOR.value)
    targets = _targets()
    if admin is None or reviewer is None or len(targets) < N_ITEMS:
        return 0
    concerns = {}
    for i, item in enumerate(sorted(targets, key=lambda t: t.question_id)):
        concerns[item.pk] = (i, _concern(i))
        _screen(item, _concern(i))
    audit = recall_audit.draw_recall_audit(user=admin)
    drawn = list(McqItem.objects.filter(screenings__recall_audit=audit).order_by("question_id"))
    drawn_rank = {item.pk: rank for rank, item in enumerate(drawn)}
    in_review = McqItem.objects.filter(
        pk__in=[*concerns, *drawn_rank], status=McqItem.Status.FLAGGED
    ).order_by("question_id")
    decided = 0
    for item in in_review:
        i, concern = concerns.get(item.pk, (-1, None))
        if not _experts_find_a_defect(i, concern, drawn_rank.get(item.pk)):
            item_review.mcq_review_decide(
                item_id=item.pk,
                reviewer=reviewer,
                action="retain",
                version=item.version,
                note="Demo: the options are distinct and the key is the best supported.",
            )
        else:
            distractor = item.options.exclude(is_correct=True).order_by("label").first()
            item_review.mcq_review_decide(
                item_id=item.pk,
                reviewer=reviewer,
                action="revise_distractor",
                version=item.version,
                label=distractor.label,
                content=f"{distractor.content} {DEMO_LABEL.replace('judge', 'revision')}",
                note="Demo: this distractor is too close to the key.",
            )
            _screen(McqItem.objects.get(pk=item.pk), None)
        decided += 1
    return decided
