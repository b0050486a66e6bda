"""Reads of the blinding check: the annotator's family-guess page (reachable only once
their judgment is final) and the admin's blinding report, whose position-bias figures
are the same count the comparison outcomes page shows (:func:`selected_letter_counts`,
which ``adjudication.arbitration.selectors.comparison_outcomes`` reuses)."""

from dataclasses import dataclass

from annotation.blinding.guess_rates import NO_IDEA, GuessTally, letter_counts, tally
from annotation.blinding.models import FamilyGuess
from annotation.blinding.services import judgment_final
from annotation.comparison.models import COMPARISON_LETTERS, ComparisonJudgment, PairAssignment
from annotation.generation.models import Candidate, ModelFamily


@dataclass
class GuessPage:
    public_id: str
    character_key: str
    scenario_id: str
    letters: tuple
    guesses: dict
    scenario_title: str = ""


def guess_page(*, public_id, user) -> GuessPage | None:
    """None unless the assignment is the user's and their judgment is final."""
    assignment = (
        PairAssignment.objects.filter(public_id=public_id, annotator=user)
        .select_related("pair__character", "pair__scenario")
        .first()
    )
    if assignment is None or not judgment_final(assignment):
        return None
    guess = FamilyGuess.objects.filter(assignment=assignment).first()
    return GuessPage(
        public_id=str(assignment.public_id),
        character_key=assignment.pair.character.key,
        scenario_id=assignment.pair.scenario.scenario_id,
        letters=COMPARISON_LETTERS,
        guesses=guess.guesses if guess else {},
        scenario_title=assignment.pair.scenario.name,
    )


def selected_letter_counts(judgments=None) -> dict[str, int]:
    """How often each displayed letter was selected over the submitted judgments."""
    rows = judgments if judgments is not None else ComparisonJudgment.objects.all()
    return letter_counts(rows.values_list("selected_letter", flat=True), COMPARISON_LETTERS)


def guess_rows() -> list[tuple[str, str, str, str, int]]:
    """(annotator, letter, true family, guessed family, assignment pk) for every recorded
    guess."""
    guesses = list(
        FamilyGuess.objects.select_related("assignment__annotator").order_by(
            "assignment__annotator__username", "pk"
        )
    )
    ids = {pk for g in guesses for pk in g.assignment.permutation}
    family = dict(Candidate.objects.filter(pk__in=ids).values_list("pk", "family"))
    rows = []
    for g in guesses:
        a = g.assignment
        for letter, candidate_id in zip(COMPARISON_LETTERS, a.permutation, strict=True):
            rows.append(
                (
                    a.annotator.get_username(),
                    letter,
                    family[candidate_id],
                    g.guesses.get(letter, NO_IDEA),
                    a.pk,
                )
            )
    return rows


@dataclass
class BlindingReport:
    overall: GuessTally
    by_family: list[GuessTally]
    by_annotator: list[GuessTally]
    assignments: int
    position_counts: dict
    position_total: int

    def csv_rows(self):
        rows = [("assignments_with_a_guess", "", self.assignments)]
        for group, tallies in (
            ("all", [self.overall]),
            ("family", self.by_family),
            ("annotator", self.by_annotator),
        ):
            for t in tallies:
                prefix = t.label if group != "all" else "all"
                ci_c = t.clustered_ci
                rows += [
                    (group, f"{prefix}_right", t.right),
                    (group, f"{prefix}_named_a_family", t.named),
                    (group, f"{prefix}_no_idea", t.no_idea),
                    (group, f"{prefix}_success_rate", t.rate),
                    (group, f"{prefix}_wilson_ci_low", t.ci[0] if t.ci else None),
                    (group, f"{prefix}_wilson_ci_high", t.ci[1] if t.ci else None),
                    (group, f"{prefix}_binomial_p_greater_than_chance", t.p_value),
                    (group, f"{prefix}_clustered_ci_low", ci_c[0] if ci_c else None),
                    (group, f"{prefix}_clustered_ci_high", ci_c[1] if ci_c else None),
                    (group, f"{prefix}_clustered_p_greater_than_chance", t.clustered_p_value),
                ]
        rows += [("position", f"selected_letter_{k}", v) for k, v in self.position_counts.items()]
        return rows


def blinding_report() -> BlindingReport:
    rows = guess_rows()
    by_family = [
        tally(label, [(t, g, pk) for _, _, t, g, pk in rows if t == value])
        for value, label in ModelFamily.choices
    ]
    annotators = sorted({a for a, *_ in rows})
    by_annotator = [
        tally(a, [(t, g, pk) for who, _, t, g, pk in rows if who == a]) for a in annotators
    ]
    positions = selected_letter_counts()
    return BlindingReport(
        overall=tally("All guesses", [(t, g, pk) for _, _, t, g, pk in rows]),
        by_family=by_family,
        by_annotator=by_annotator,
        assignments=FamilyGuess.objects.count(),
        position_counts=positions,
        position_total=sum(positions.values()),
    )
