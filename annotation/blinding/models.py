"""The optional family-guess question an annotator answers after their judgment is final
(issue 22, "Blinding integrity").

One ``FamilyGuess`` per assignment: ``guesses`` maps the letters the annotator saw to
the family they think wrote each ("unknown" for "no idea"). Whether a guess is right is
computed for the admin's blinding report only (the assignment's permutation names the
candidates); the annotator is never told.
"""

from django.db import models

from annotation.comparison.models import PairAssignment

__all__ = ["FamilyGuess"]


class FamilyGuess(models.Model):
    assignment = models.OneToOneField(
        PairAssignment, on_delete=models.PROTECT, related_name="family_guess"
    )
    guesses = models.JSONField()  # {"A": "claude" | "gpt" | "gemini" | "unknown", ...}
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"family guess of {self.assignment}"
