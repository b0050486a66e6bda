"""Forms of arbitration (seed 000 App. D.2, arbitration guideline), crispy. They parse
input; the rules live in ``adjudication.arbitration.services``."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Div, Layout, Submit
from django import forms
from django.urls import reverse

from adjudication.arbitration.models import ArbitrationDecision
from adjudication.arbitration.services import REGENERATION_GUIDANCE_MAX_CHARS
from core.text_rules import NOTE, TEXT, TextRules

DECISION_CHOICES = [
    ("adopted", "Adopt a candidate as-is"),
    ("edited", "Edit a candidate (using the annotators' guidance)"),
    ("rewritten", "Rewrite the response from scratch"),
    ("discarded", "Discard the pair (fundamentally unfit)"),
    ("regenerate", "Ask for regeneration (all three unusable, the pair suitable)"),
]


#: The fields each decision uses (seed 000 App. D.2 and issue #22): adopt names a
#: candidate; edit names one and revises its text, following the annotators' guidance;
#: rewrite writes the text from scratch; discard needs the reason; regeneration, the
#: guidance for the new candidates.
FIELD_KINDS = {
    "candidate": ("adopted", "edited"),
    "summary": ("edited", "rewritten"),
    "emotional_tone": ("edited", "rewritten"),
    "core_reasoning": ("edited", "rewritten"),
    "final_decision": ("edited", "rewritten"),
    "guidance_followed": ("edited",),
    "reason": ("adopted", "edited", "rewritten", "discarded"),
    "guidance": ("regenerate",),
}


def _rows(n):
    return forms.Textarea(attrs={"rows": n})


def confirmations(pair_label: str) -> dict[str, tuple[str, str]]:
    """What the confirmation dialog says for each decision (static/adjudication/
    arbitration.js picks one as the decision changes; "{candidate}" is filled in there):
    (message, confirm button label). Each says what cannot be undone."""
    closed = (
        " The pair leaves the arbitration queue. This cannot be undone here: only an admin "
        "can reopen the decision."
    )
    return {
        "": (
            f"Record this decision for {pair_label}?{closed}",
            "Record decision",
        ),
        "adopted": (
            f"Adopt Candidate {{candidate}} as-is as the reference response of {pair_label}."
            + closed,
            "Adopt",
        ),
        "edited": (
            f"Record your edit of Candidate {{candidate}} as the reference response of "
            f"{pair_label}.{closed}",
            "Record edit",
        ),
        "rewritten": (
            f"Record your rewritten response as the reference response of {pair_label}." + closed,
            "Record rewrite",
        ),
        "discarded": (
            f"Discard {pair_label}: it gets no reference response and no MCQ item.{closed}",
            "Discard",
        ),
        "regenerate": (
            f"Send {pair_label} back for regeneration: three new candidates are generated "
            "with your guidance and go to a new blind round. This round ends with no "
            "reference response. This cannot be undone: only the new round decides the pair.",
            "Ask for regeneration",
        ),
    }


class ArbitrationForm(TextRules, forms.Form):
    kind = forms.ChoiceField(label="Decision", choices=DECISION_CHOICES, widget=forms.RadioSelect)
    candidate = forms.TypedChoiceField(
        label="Candidate",
        coerce=int,
        required=False,
        choices=[("", "—")] + [(n, f"Candidate {n}") for n in (1, 2, 3)],
        help_text="The candidate to adopt or edit.",
    )
    summary = forms.CharField(
        label="Rationale (summary)", widget=_rows(4), required=False, max_length=TEXT
    )
    emotional_tone = forms.CharField(
        label="Emotional tone", widget=_rows(2), required=False, max_length=TEXT
    )
    core_reasoning = forms.CharField(
        label="Core reasoning", widget=_rows(3), required=False, max_length=TEXT
    )
    final_decision = forms.CharField(
        label="Final decision",
        widget=_rows(3),
        required=False,
        max_length=TEXT,
        help_text="Must state a concrete behavioral decision.",
    )
    reason = forms.CharField(
        label="Reason / note",
        widget=_rows(2),
        required=False,
        max_length=NOTE,
        help_text="Required to discard: why the pair is fundamentally unfit.",
    )
    guidance_followed = forms.TypedMultipleChoiceField(
        label="Guidance this edit follows",
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="On an edit: tick each annotator whose revision guidance the edit follows.",
    )
    guidance = forms.CharField(
        label="Guidance for regeneration",
        widget=_rows(3),
        required=False,
        max_length=REGENERATION_GUIDANCE_MAX_CHARS,
        help_text=f"Required to ask for regeneration, at most "
        f"{REGENERATION_GUIDANCE_MAX_CHARS:,} characters: what all three candidates got "
        "wrong and what a usable response needs. It is added to the new candidates' prompt.",
    )

    def __init__(self, *args, pair_id: int, pair_label: str = "this pair", guidance=(), **kwargs):
        super().__init__(*args, **kwargs)
        # (judgment id, "annotator: guidance") for each judgment with revision guidance.
        self.fields["guidance_followed"].choices = list(guidance)
        if not guidance:
            del self.fields["guidance_followed"]
        action = reverse("adjudication:pair", kwargs={"pair_id": pair_id})
        self.helper = FormHelper()
        self.helper.form_action = action
        self.helper.form_method = "post"
        self.helper.form_id = "arbitration-form"
        asks = confirmations(pair_label)
        self.helper.attrs = {
            f"data-confirm-{kind or 'default'}": message for kind, (message, _) in asks.items()
        } | {f"data-confirm-label-{kind or 'default'}": label for kind, (_, label) in asks.items()}
        # Each field says which decisions use it: static/adjudication/arbitration.js shows
        # only the chosen decision's; without JavaScript every field shows, and the server
        # reads only those of the decision posted (services.arbitration_decide).
        self.helper.layout = Layout(
            "kind",
            *[
                Div(name, data_decision_kinds=" ".join(kinds))
                for name, kinds in FIELD_KINDS.items()
                if name in self.fields
            ],
        )
        message, label = asks[""]
        self.helper.add_input(
            Submit(
                "preview",
                "Preview diff",
                css_class="btn-outline-secondary",
                data_decision_kinds="edited",
                # In place with htmx; without it the page comes back scrolled to the diff.
                formaction=f"{action}#diff-preview",
                hx_post=action,
                hx_target="#diff-preview",
                hx_swap="outerHTML",
                hx_vals='{"preview": "1"}',
            )
        )
        self.helper.add_input(
            Submit(
                "decide",
                "Record decision",
                data_confirm=message,
                data_confirm_label=label,
                data_decide="",
            )
        )

    def clean_kind(self):
        kind = self.cleaned_data["kind"]
        if kind not in ArbitrationDecision.Kind.values:
            raise forms.ValidationError("Choose a decision.")
        return kind


class ReopenForm(TextRules, forms.Form):
    reason = forms.CharField(
        label="Reason for reopening",
        widget=_rows(2),
        max_length=NOTE,
        error_messages={"required": "Give the reason for reopening the decision."},
    )

    def __init__(self, *args, pair_id: int, pair_label: str = "this pair", **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_action = reverse("adjudication:reopen", kwargs={"pair_id": pair_id})
        self.helper.form_method = "post"
        self.helper.form_id = "reopen-form"
        self.helper.add_input(
            Submit(
                "reopen",
                "Reopen decision",
                css_class="btn-outline-danger",
                data_confirm=f"Reopen the decision on {pair_label}: its reference response is "
                "withdrawn at once and the pair returns to the arbitration queue. This cannot "
                "be undone: only a new arbitration decision sets a reference again.",
                data_confirm_label="Reopen",
            )
        )
