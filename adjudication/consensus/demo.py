"""Demo data for the blinded comparison and its consensus routing, at telling stages
(seed 000 §2.4 Stage 2).

``demo_comparisons(users=...)`` makes pairs of the demo generation run, assigns each to
the three demo annotators ("annotator", "annotator2", "annotator3") and walks them
through the services (submit, then route, as the comparison page does): one pair awaits
the demo "annotator" (the other two submitted), one is escalated to the arbitrator, one
was adopted unanimously, and the rest are fresh.
Idempotent: a second run finds the pairs assigned and changes nothing.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from adjudication.consensus.services import judgment_submit, pairs_assign
from annotation.comparison import services
from annotation.comparison.models import COMPARISON_LETTERS, ComparisonPair, PairAssignment
from annotation.generation.demo import DEMO_RUN_NOTE
from annotation.generation.models import Candidate, GenerationRun
from core.roles import Role

EXTRA_ANNOTATORS = ("annotator2", "annotator3")


def _annotators(users) -> tuple[list, list[tuple[str, Role, str]]]:
    created = []
    people = [users[Role.PRIMARY_ANNOTATOR.value]]
    for username in EXTRA_ANNOTATORS:
        user, new = get_user_model().objects.get_or_create(username=username)
        if new:
            password = f"{username}-demo-pass"
            user.set_password(password)
            user.save()
            created.append((username, Role.PRIMARY_ANNOTATOR, password))
        user.groups.add(Group.objects.get(name=Role.PRIMARY_ANNOTATOR.value))
        people.append(user)
    return people, created


def _judge(assignment, family: str, *, rating="as_is", guidance="") -> None:
    families = dict(
        Candidate.objects.filter(pk__in=assignment.permutation).values_list("pk", "family")
    )
    letter = COMPARISON_LETTERS[[families[pk] for pk in assignment.permutation].index(family)]
    judgment_submit(
        public_id=assignment.public_id,
        annotator=assignment.annotator,
        content={
            "suitability": "suitable",
            "selected_letter": letter,
            "rating": rating,
            "selection_rationale": "Demo: the decision follows from the character's "
            "core patterns and the activated memories.",
            "revision_guidance": guidance,
        },
    )


# Times the staging waits for another commit while the demo run's tasks still run.
STAGING_ATTEMPTS = 10


def demo_comparisons(*, users: dict) -> list[tuple[str, Role, str]]:
    """Create the extra annotators now (returned for printing) and stage the pairs once
    the demo generation run's candidates exist: its tasks run when their transaction
    commits (Celery eager), so the staging waits for commit too."""
    annotators, created = _annotators(users)
    _stage_when_ready(users=users, annotators=annotators, attempts=STAGING_ATTEMPTS)
    return created


def _stage_when_ready(*, users, annotators, attempts: int) -> None:
    def stage():
        run = GenerationRun.objects.filter(note=DEMO_RUN_NOTE).first()
        if run is None:
            return
        if run.status == GenerationRun.Status.PENDING or run.is_active:
            if attempts > 1:
                _stage_when_ready(users=users, annotators=annotators, attempts=attempts - 1)
            return
        _stage(run=run, users=users, annotators=annotators)

    transaction.on_commit(stage)


def _stage(*, run, users, annotators) -> None:
    admin = users[Role.ADMIN.value]
    services.comparison_pairs_create(user=admin, run_id=run.pk)
    pairs = list(
        ComparisonPair.objects.filter(candidates__run=run)
        .distinct()
        .order_by("character__key", "scenario__scenario_id")
    )
    if not pairs or PairAssignment.objects.filter(pair__in=pairs).exists():
        return
    pairs_assign(
        user=admin, pair_ids=[p.pk for p in pairs], annotator_ids=[a.pk for a in annotators]
    )
    families = sorted(pairs[0].candidates.values_list("family", flat=True))

    def assignments(pair):
        return {a.annotator_id: a for a in pair.assignments.all()}

    stages = iter(pairs)
    waiting = next(stages, None)  # awaits the demo "annotator"
    if waiting is not None:
        a = assignments(waiting)
        for other in annotators[1:]:
            _judge(a[other.pk], families[0])
    escalated = next(stages, None)  # the annotators disagree, one asks for revisions
    if escalated is not None:
        a = assignments(escalated)
        _judge(a[annotators[0].pk], families[0])
        _judge(
            a[annotators[1].pk],
            families[0],
            rating="partial",
            guidance="Name the person the character turns to, as memory 3 suggests.",
        )
        _judge(a[annotators[2].pk], families[-1])
    adopted = next(stages, None)  # unanimous, as-is
    if adopted is not None:
        a = assignments(adopted)
        for annotator in annotators:
            _judge(a[annotator.pk], families[-1])
