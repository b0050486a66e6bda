"""The budget field of every LLM-backed run's launch form, and the form that resumes a run
stopped at a spending limit (issue #36, ``core.llm_runs.spending``)."""

from decimal import Decimal

from django import forms

__all__ = ["RunResumeForm", "budget_field"]


def budget_field(*, label: str = "Budget (USD)", help_text: str = "") -> forms.DecimalField:
    """An optional amount in USD above 0; blank means no budget."""
    return forms.DecimalField(
        label=label,
        required=False,
        min_value=Decimal("0.01"),  # a float 0.01 is above the typed 0.01
        max_digits=12,
        decimal_places=2,
        help_text=help_text
        or "Optional. The run stops taking up units once its recorded cost reaches this; "
        "you can resume it with a higher budget. Blank: no budget.",
    )


class RunResumeForm(forms.Form):
    """Resume a run stopped at its budget or at a monthly cap."""

    budget_usd = budget_field(
        label="New budget (USD)",
        help_text="Above what the run has cost so far; blank to resume with no budget.",
    )
