"""Forms of the memory quality audit (crispy, Bootstrap 5). They parse input; the rules
live in ``audit.memory_quality.services``."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Div, Layout, Submit
from django import forms
from django.urls import reverse

from audit.memory_quality import criteria
from audit.memory_quality.models import NOTE_MAX_CHARS, MemoryCase
from core.display import character_name, memory_field_label
from core.drafts import autosave_attrs
from core.llm_runs.forms import budget_field
from core.text_rules import NOTE, TEXT, TextRules, field_label, text_problem


def _helper(action: str, *buttons, form_id: str | None = None, attrs=None) -> FormHelper:
    helper = FormHelper()
    helper.form_action = action
    helper.form_method = "post"
    if form_id:
        helper.form_id = form_id
    if attrs:
        helper.attrs = attrs
    for button in buttons:
        helper.add_input(button)
    return helper


def _rows(n: int) -> forms.Textarea:
    return forms.Textarea(attrs={"rows": n})


class ReviewDecisionForm(TextRules, forms.Form):
    decision = forms.ChoiceField(
        label="Decision", choices=MemoryCase.Decision.choices, widget=forms.RadioSelect
    )
    reason = forms.CharField(
        label="Reason",
        widget=_rows(3),
        required=False,
        max_length=NOTE,
        help_text="Required when you mark the flag a false positive.",
    )

    def __init__(self, *args, case_id: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("audit:case-decide", args=[case_id]),
            Submit("submit", "Record my decision"),
            form_id="decision-form",
            attrs={
                "data-confirm": "Record your decision on this memory? Confirming the defect "
                "sends the memory to the senior expert; agreeing that the flags are false "
                "positives counts toward the team's override. A recorded decision cannot be "
                "withdrawn: this cannot be undone.",
                "data-confirm-label": "Record decision",
            },
        )
        # An explicit layout: without one, crispy-bootstrap5 repeats the form's attributes
        # on the radio group's <div>.
        self.helper.layout = Layout("decision", "reason")

    def clean(self):
        data = super().clean()
        if (
            data.get("decision") == MemoryCase.Decision.FALSE_POSITIVE
            and not (data.get("reason") or "").strip()
        ):
            self.add_error("reason", "Say why the flag is a false positive.")
        return data


# What the senior's edit form posts; its autosave keeps exactly these.
SENIOR_EDIT_FIELDS = ("context", "content_summary", "content_full", "note")


class SeniorEditForm(TextRules, forms.Form):
    context = forms.CharField(label=memory_field_label("context"), widget=_rows(2), max_length=TEXT)
    content_summary = forms.CharField(
        label=memory_field_label("content_summary"), widget=_rows(3), max_length=TEXT
    )
    content_full = forms.CharField(
        label=memory_field_label("content_full"), widget=_rows(16), max_length=TEXT
    )
    note = forms.CharField(
        label="Note on the edit", required=False, widget=_rows(2), max_length=NOTE
    )

    def __init__(self, *args, case_id: int, **kwargs):
        super().__init__(*args, **kwargs)
        url = reverse("audit:case-edit", args=[case_id])
        self.helper = _helper(
            url,
            Submit(
                "save",
                "Save and re-audit",
                **{
                    "data-confirm": "Save this edit as a new version of the memory and "
                    "re-audit it? If the re-audit flags nothing, the edit is accepted and "
                    "the case closes. A saved version cannot be undone.",
                    "data-confirm-label": "Save and re-audit",
                },
            ),
            form_id="edit-form",
        )
        draft = reverse("audit:case-edit-draft", args=[case_id])
        self.helper.layout = Layout(Div(*SENIOR_EDIT_FIELDS, **autosave_attrs(draft)))
        self.helper.add_input(
            Submit(
                "preview",
                "Preview the diff",
                css_class="btn-outline-secondary",
                **{
                    "hx-post": url,
                    "hx-target": "#diff-preview",
                    "hx-swap": "innerHTML",
                    "hx-vals": '{"preview": "1"}',
                },
            )
        )


def edit_draft_problem(data, fields) -> str | None:
    """Why the senior's edit draft cannot be saved (issue #24: over a field's limit or
    with a control character, a draft is refused, never cut or stripped), or None."""
    for name in fields:
        field = SeniorEditForm.base_fields.get(name)
        if isinstance(field, forms.CharField):
            label = field_label(name, field)
            problem = text_problem(data.get(name) or "", label=label, limit=field.max_length)
            if problem:
                return problem
    return None


class AuditRunForm(TextRules, forms.Form):
    characters = forms.MultipleChoiceField(
        label="Characters",
        required=False,
        help_text="None selected: every character.",
        widget=forms.CheckboxSelectMultiple,
    )
    note = forms.CharField(label="Note", required=False, max_length=NOTE_MAX_CHARS)
    budget_usd = budget_field(
        help_text="Optional. The run's repair and classifier calls stop once their recorded "
        "cost reaches this; you can resume the run with a higher budget. Blank: no budget."
    )

    def __init__(self, *args, character_keys=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["characters"].choices = [(k, character_name(k)) for k in character_keys]
        self.helper = _helper(
            reverse("audit:run-list"), Submit("start", "Run the audit"), form_id="run-form"
        )

    def estimate_keys(self) -> list[str]:
        """The characters the cost estimate is for: the valid choice submitted, else every
        character (an empty list)."""
        if not self.is_bound or not self.is_valid():
            return []
        return list(self.cleaned_data["characters"])


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


class AuditSettingsForm(TextRules, forms.Form):
    """A new settings version. Lists are one entry a line; ``...`` in a phrase is a
    short gap within a sentence ("it took...to realize")."""

    note = forms.CharField(label="What changed and why", max_length=NOTE_MAX_CHARS)
    omniscient_patterns = forms.CharField(
        label="1. Omniscient-narrator markers", widget=_rows(8), max_length=TEXT
    )
    adult_evaluation_patterns = forms.CharField(
        label="2. Adult-evaluation phrases", widget=_rows(6), max_length=TEXT
    )
    adult_evaluation_max_age = forms.IntegerField(label="2. Child-age limit (≤)", min_value=6)
    context_words_min = forms.IntegerField(label="3. Context words, minimum", min_value=1)
    context_words_max = forms.IntegerField(label="3. Context words, maximum", min_value=1)
    summary_words_min = forms.IntegerField(label="3. Summary words, minimum", min_value=1)
    summary_words_max = forms.IntegerField(label="3. Summary words, maximum", min_value=1)
    duplicate_threshold = forms.FloatField(
        label="4. TF-IDF cosine threshold (>)", min_value=0.01, max_value=0.99
    )
    age_windows = forms.CharField(
        label="4. Age windows",
        widget=_rows(8),
        max_length=TEXT,
        help_text="One a line: key first_age-last_age",
    )
    length_max_chars = forms.IntegerField(label="5. Narrative limit (characters)", min_value=1)
    guided_min_chars = forms.IntegerField(label="5. Guided range, from", min_value=0)
    guided_max_chars = forms.IntegerField(label="5. Guided range, to", min_value=1)
    psychoanalytic_terms = forms.CharField(
        label="6. Psychoanalytic terms", widget=_rows(8), max_length=TEXT
    )
    low_intensity_threshold = forms.FloatField(
        label="6. Low intensity below", min_value=0.0, max_value=1.0
    )
    max_repair_attempts = forms.IntegerField(
        label="Automated repair attempts", min_value=0, max_value=10
    )
    enabled_criteria = forms.TypedMultipleChoiceField(
        label="Criteria in use",
        choices=list(criteria.CRITERIA.items()),
        coerce=int,
        widget=forms.CheckboxSelectMultiple,
    )
    narrator_labels = forms.CharField(
        label="Sanitation: narrator labels",
        widget=_rows(6),
        required=False,
        max_length=TEXT,
        help_text="One a line: gendered label => gender-neutral label",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("audit:settings"),
            Submit("save", "Save as a new version"),
            form_id="settings-form",
        )

    @staticmethod
    def initial_from(values: dict) -> dict:
        return {
            **values,
            "omniscient_patterns": "\n".join(values["omniscient_patterns"]),
            "adult_evaluation_patterns": "\n".join(values["adult_evaluation_patterns"]),
            "psychoanalytic_terms": "\n".join(values["psychoanalytic_terms"]),
            "age_windows": "\n".join(
                f"{w['key']} {w['first_age']}-{w['last_age']}" for w in values["age_windows"]
            ),
            "narrator_labels": "\n".join(
                f"{k} => {v}" for k, v in values["narrator_labels"].items()
            ),
            "note": "",
        }

    def clean_omniscient_patterns(self):
        return _lines(self.cleaned_data["omniscient_patterns"])

    def clean_adult_evaluation_patterns(self):
        return _lines(self.cleaned_data["adult_evaluation_patterns"])

    def clean_psychoanalytic_terms(self):
        return _lines(self.cleaned_data["psychoanalytic_terms"])

    def clean_age_windows(self):
        windows = []
        for line in _lines(self.cleaned_data["age_windows"]):
            try:
                key, ages = line.split()
                first, last = (int(a) for a in ages.split("-"))
            except ValueError:
                raise forms.ValidationError(f"“{line}” is not “key first-last”.") from None
            if first > last:
                raise forms.ValidationError(f"“{line}”: the first age is after the last.")
            windows.append({"key": key, "first_age": first, "last_age": last})
        if not windows:
            raise forms.ValidationError("Give at least one age window.")
        return windows

    def clean_narrator_labels(self):
        labels = {}
        for line in _lines(self.cleaned_data["narrator_labels"]):
            if "=>" not in line:
                raise forms.ValidationError(f"“{line}” is not “label => neutral label”.")
            old, new = (part.strip() for part in line.split("=>", 1))
            labels[old] = new
        return labels

    def settings_values(self) -> dict:
        return {k: v for k, v in self.cleaned_data.items() if k != "note"}


# --- the senior's ways forward when the re-audit keeps flagging the edit (issue 32) -------


class SeniorReauditForm(forms.Form):
    """Re-audit the senior's last edit as it stands: no field, one button."""

    def __init__(self, *args, case_id: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("audit:case-reaudit", args=[case_id]),
            Submit("submit", "Re-audit again", css_class="btn-outline-primary"),
            form_id="reaudit-form",
        )


class SeniorAskTeamForm(TextRules, forms.Form):
    reason = forms.CharField(
        label="Why the LLM flag is a false positive",
        widget=_rows(3),
        max_length=NOTE,
        help_text="The reviewing team reads it beside the edit and the flag.",
    )

    def __init__(self, *args, case_id: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("audit:case-ask-team", args=[case_id]),
            Submit("submit", "Ask the reviewing team", css_class="btn-outline-primary"),
            form_id="ask-team-form",
            attrs={
                "data-confirm": "Send your edit, as it stands, to the reviewing team? The "
                "memory waits for their decision: their agreement that the LLM flag is a "
                "false positive accepts the edit; a confirmation returns it to you.",
                "data-confirm-label": "Ask the team",
            },
        )
