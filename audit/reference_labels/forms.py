"""Forms of the reference-label audit (crispy). They parse input; the rules live in
``audit.reference_labels.services``."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Field, Fieldset, Layout, Submit
from django import forms
from django.contrib.auth import get_user_model
from django.urls import reverse

from adjudication.mcq.models import OPTION_LABELS
from audit.reference_labels.models import LabelAdjudication
from audit.reference_labels.services import AUDIT_NOTE_MAX, NOTE_MAX
from core.protocol import AUDIT_ITEMS_PER_STRATUM
from core.roles import Role
from core.text_rules import TEXT, TextRules


def _holders(role: Role):
    return (
        get_user_model()
        .objects.filter(groups__name=role.value, is_active=True)
        .distinct()
        .order_by("username")
    )


class LabelAuditCreateForm(TextRules, forms.Form):
    experts = forms.ModelMultipleChoiceField(
        queryset=None,
        widget=forms.CheckboxSelectMultiple,
        label="Audit experts (three)",
        help_text="Each selects blind to the key.",
    )
    adjudicator = forms.ModelChoiceField(queryset=None, label="Audit adjudicator")
    items_per_stratum = forms.IntegerField(
        min_value=1,
        max_value=50,
        initial=AUDIT_ITEMS_PER_STRATUM,
        label="Items per character × life-stage stratum (k)",
        help_text="The paper draws two per stratum: 176 items for 11 characters × 8 life stages.",
    )
    seed = forms.IntegerField(
        min_value=0,
        required=False,
        label="Sampling seed",
        help_text="Recorded with the audit; the same seed on the same final set draws the "
        "same sample. Leave empty for a fresh random seed.",
    )
    note = forms.CharField(max_length=AUDIT_NOTE_MAX, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, role in (("experts", Role.AUDIT_EXPERT), ("adjudicator", Role.AUDIT_ADJUDICATOR)):
            self.fields[name].queryset = _holders(role)
            self.fields[name].label_from_instance = lambda u: u.get_username()
        self.helper = FormHelper()
        self.helper.form_action = reverse("audit:labels:create")
        self.helper.form_method = "post"
        self.helper.add_input(Submit("submit", "Check the team and draw the sample"))


class LabelSelectionForm(TextRules, forms.Form):
    choice = forms.ChoiceField(
        label="The response most likely and most reasonable for the target character",
        choices=[(x, f"Option {x}") for x in OPTION_LABELS],
        widget=forms.RadioSelect,
        required=False,
        help_text="Keys A, B, C, D select; Ctrl+Enter submits (you confirm first).",
    )
    note = forms.CharField(
        label="Note (optional)",
        required=False,
        max_length=NOTE_MAX,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, audit_item_id: int, readonly: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_action = reverse("audit:labels:select", args=[audit_item_id])
        self.helper.form_method = "post"
        self.helper.form_id = "selection-form"
        # An explicit layout: without one, crispy-bootstrap5 repeats the form's attributes
        # (its id, its htmx autosave, its confirmation) on the radio group's <div>.
        self.helper.layout = Layout(
            Field("choice", template="audit/labels/option_choices.html"), Field("note")
        )
        if readonly:
            for f in self.fields.values():
                f.disabled = True
            return
        self.helper.attrs = {
            "hx-post": reverse("audit:labels:draft", args=[audit_item_id]),
            "hx-trigger": "change, input delay:1000ms",
            "hx-target": "#autosave-status",
            "hx-swap": "innerHTML",
            "data-label-selection-form": "",
            "data-confirm": "Submit your selection for this item? Selections are compared "
            "as first given: once submitted, yours cannot be changed. This cannot be undone.",
            "data-confirm-label": "Submit selection",
        }
        self.helper.add_input(Submit("submit", "Submit my selection", css_class="btn-primary"))


class LabelAdjudicationForm(TextRules, forms.Form):
    decision = forms.ChoiceField(
        choices=LabelAdjudication.Decision.choices, widget=forms.RadioSelect, required=False
    )
    new_key = forms.ChoiceField(
        label="New key (key change only)",
        choices=[("", "—")] + [(x, f"Option {x}") for x in OPTION_LABELS],
        required=False,
    )
    option_A = forms.CharField(
        label="Option A", widget=forms.Textarea(attrs={"rows": 3}), max_length=TEXT
    )
    option_B = forms.CharField(
        label="Option B", widget=forms.Textarea(attrs={"rows": 3}), max_length=TEXT
    )
    option_C = forms.CharField(
        label="Option C", widget=forms.Textarea(attrs={"rows": 3}), max_length=TEXT
    )
    option_D = forms.CharField(
        label="Option D", widget=forms.Textarea(attrs={"rows": 3}), max_length=TEXT
    )
    note = forms.CharField(
        label="Note",
        required=False,
        max_length=NOTE_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Required for an edit, a key change or a removal.",
    )

    def __init__(self, *args, audit_item_id: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_action = reverse("audit:labels:adjudicate", args=[audit_item_id])
        self.helper.form_method = "post"
        self.helper.form_id = "adjudication-form"
        self.helper.layout = Layout(
            Field("decision"),
            Field("new_key"),
            Fieldset(
                "Option texts (edited only for a wording edit or a key change)",
                *[f"option_{x}" for x in OPTION_LABELS],
            ),
            Field("note"),
        )
        self.helper.add_input(
            Submit(
                "submit",
                "Record the decision",
                css_class="btn-primary",
                **{
                    "data-confirm": "Record this decision on the item? It is the item's one "
                    "adjudication: an edit or a key change makes a new item version that is "
                    "screened again, a removal takes the item out of the final set. This "
                    "cannot be undone.",
                    "data-confirm-label": "Record decision",
                },
            )
        )

    def option_texts(self) -> list[dict]:
        return [
            {"label": x, "content": self.cleaned_data[f"option_{x}"].strip()} for x in OPTION_LABELS
        ]

    def changed_options(self, current: list[dict]) -> list[dict] | None:
        """The four option texts when they differ from ``current`` (the audited
        version's ``[{"label", "content"}]``), else None: only an edit is sent on."""
        edited = self.option_texts()
        if [o["content"] for o in edited] != [o["content"] for o in current]:
            return edited
        return None
