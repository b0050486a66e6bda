"""Writes of the family-guess question: only once the annotator's judgment is final."""

from django.db import transaction

from annotation.blinding.guess_rates import NO_IDEA
from annotation.blinding.models import FamilyGuess
from annotation.comparison.models import COMPARISON_LETTERS, ComparisonJudgment, PairAssignment
from annotation.comparison.services import ComparisonError
from annotation.generation.models import ModelFamily

GUESS_CHOICES = (*ModelFamily.values, NO_IDEA)


def judgment_final(assignment) -> bool:
    """Submitted and routed: the judgment can no longer be revised."""
    return (
        not assignment.pair.is_open
        and ComparisonJudgment.objects.filter(assignment=assignment).exists()
    )


@transaction.atomic
def family_guess_save(*, public_id, annotator, guesses: dict) -> FamilyGuess:
    """Record (or revise) the annotator's guess of which family wrote each letter."""
    assignment = (
        PairAssignment.objects.select_for_update(of=("self",))
        .select_related("pair")
        .filter(public_id=public_id, annotator=annotator)
        .first()
    )
    if assignment is None or not judgment_final(assignment):
        raise ComparisonError("The family question opens once your judgment is final.")
    clean = {}
    for letter in COMPARISON_LETTERS:
        value = guesses.get(letter) or NO_IDEA
        if value not in GUESS_CHOICES:
            raise ComparisonError(f"Choose a family or 'no idea' for candidate {letter}.")
        clean[letter] = value
    guess, _ = FamilyGuess.objects.update_or_create(
        assignment=assignment, defaults={"guesses": clean}
    )
    return guess
