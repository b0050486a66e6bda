"""Demo data of the blinding checks (issue 22, "Blinding integrity").

``demo_blinding(users=...)`` runs after the comparison demo has staged its pairs
(``adjudication.consensus.demo``) and adds:

- one more pair, of three demo candidates for a frozen demo character and a scenario the
  generation run did not use, two of which carry a planted identity leak: the admin has
  cleaned one (a recorded edit, a closed flag) and the other's flag is open, so the pair
  waits on the assignment page and in the leak-flag list;
- family guesses of the two extra demo annotators on the routed pairs, so the blinding
  report shows numbers (the demo "annotator" has not answered: they can try the question).

Idempotent: a second run finds the demo pair and changes nothing.
"""

from django.db import transaction

from annotation.blinding.guess_rates import NO_IDEA
from annotation.blinding.services import family_guess_save
from annotation.candidate_screening.models import LeakFlag
from annotation.candidate_screening.services import flag_clean, screen_pair_candidates
from annotation.comparison.models import COMPARISON_LETTERS, ComparisonPair, PairAssignment
from annotation.corpus.models import ProfileVersion, Scenario
from annotation.generation.models import Candidate, ModelFamily
from core.roles import Role

DEMO_SOURCE = "demo: blinding integrity (planted identity leaks)"
GUESSING_ANNOTATORS = ("annotator2", "annotator3")
# Times the demo waits for another commit while the comparison demo still stages.
ATTEMPTS = 10

TEXTS = {
    ModelFamily.CLAUDE: (
        "I feel pulled between the promise and the people waiting for me.",
        "I keep the promise first, then call to say I will be late.",
    ),
    ModelFamily.GPT: (
        "As an AI model by OpenAI, I would weigh the promise against the wait.",
        "I keep the promise and explain myself afterwards.",
    ),
    ModelFamily.GEMINI: (
        "I remember how it felt to be let down, and I do not want to do that.",
        "## Decision\nI go to the people waiting and ask for a little patience.",
    ),
}
CLEANED_SUMMARY = "I would weigh the promise against the wait."


def demo_blinding(*, users: dict) -> None:
    """Stage the blinding demo once the comparison demo's pairs are routed (both run
    when their transaction commits; see ``adjudication.consensus.demo``)."""
    _when_ready(users=users, attempts=ATTEMPTS)


def _when_ready(*, users, attempts: int) -> None:
    def stage():
        routed = ComparisonPair.objects.exclude(status=ComparisonPair.Status.ANNOTATING)
        if not routed.exists():
            if attempts > 1:
                _when_ready(users=users, attempts=attempts - 1)
            return
        _stage(users=users)

    transaction.on_commit(stage)


@transaction.atomic
def _stage(*, users) -> None:
    if Candidate.objects.filter(source=DEMO_SOURCE).exists():
        return
    admin = users[Role.ADMIN.value]
    _leak_pair(admin)
    _guesses()


def _leak_pair(admin) -> None:
    paired = ComparisonPair.objects.values_list("character_id", "scenario_id")
    version = (
        ProfileVersion.objects.filter(frozen_at__isnull=False, character__memories__isnull=False)
        .order_by("character__key", "-number")
        .first()
    )
    if version is None:
        return
    used = {s for c, s in paired if c == version.character_id}
    taken = set(
        Candidate.objects.filter(character=version.character, run__isnull=True).values_list(
            "scenario_id", flat=True
        )
    )
    scenario = Scenario.objects.exclude(pk__in=used | taken).order_by("-age", "scenario_id").first()
    if scenario is None:
        return
    memories = list(
        version.character.memories.order_by("sequence").values_list("memory_id", flat=True)[:3]
    )
    candidates = [
        Candidate.objects.create(
            character=version.character,
            scenario=scenario,
            family=family,
            model_name=f"demo-{family}",
            profile_version=version,
            summary=summary,
            final_decision=decision,
            activated_memory_ids=memories,
            origin=Candidate.Origin.IMPORTED,
            source=DEMO_SOURCE,
        )
        for family, (summary, decision) in TEXTS.items()
    ]
    pair = ComparisonPair.objects.create(
        character=version.character, scenario=scenario, profile_version=version, created_by=admin
    )
    pair.candidates.set(candidates)
    screen_pair_candidates(pair, user=admin)
    # The admin cleaned the self-reference; the markdown header still waits for them.
    leaky = LeakFlag.objects.get(
        candidate__family=ModelFamily.GPT, candidate__source=DEMO_SOURCE, status="open"
    )
    flag_clean(
        flag_id=leaky.pk,
        user=admin,
        fields={"summary": CLEANED_SUMMARY},
        reason="Demo: removed the self-reference and the provider name.",
    )


def _guesses() -> None:
    """Every third letter right, every third wrong, every third "no idea", turning with
    each assignment, so the report has a little of each."""
    assignments = PairAssignment.objects.filter(
        annotator__username__in=GUESSING_ANNOTATORS,
        judgment__isnull=False,
    ).exclude(pair__status=ComparisonPair.Status.ANNOTATING)
    families = list(ModelFamily.values)
    for i, assignment in enumerate(assignments.order_by("annotator__username", "pair_id")):
        truth = dict(
            Candidate.objects.filter(pk__in=assignment.permutation).values_list("pk", "family")
        )
        guesses = {}
        letters = zip(COMPARISON_LETTERS, assignment.permutation, strict=True)
        for j, (letter, pk) in enumerate(letters):
            kind = (i + j) % 3
            if kind == 0:
                guesses[letter] = truth[pk]
            elif kind == 1:
                guesses[letter] = families[(families.index(truth[pk]) + 1) % len(families)]
            else:
                guesses[letter] = NO_IDEA
        family_guess_save(
            public_id=assignment.public_id, annotator=assignment.annotator, guesses=guesses
        )
