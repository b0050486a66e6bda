"""The observer pages' forms: loading an inventory file and launching a run.

!!! BLINDING !!!  Admin pages only.
"""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.urls import reverse

from annotation.corpus.models import Character
from annotation.generation.models import ModelFamily
from audit.observers.models import (
    DEFAULT_SAMPLE_SIZE,
    MAX_SAMPLE_SIZE,
    ObserverInventory,
    ObserverRun,
)
from core.display import character_name
from core.llm_runs.forms import budget_field
from core.protocol import PROTOCOL_SEED
from core.text_rules import NOTE, TextRules

#: The largest inventory file accepted.
MAX_FILE_BYTES = 200_000
LAUNCH_CONFIRM = (
    "Launch this observer run? Every chosen character is sent to every chosen observer "
    "family once; the calls are billed by the provider and cannot be taken back. You can "
    "cancel the run while it runs."
)


class InventoryUploadForm(forms.Form):
    file = forms.FileField(
        label="Inventory file (JSON)",
        help_text="Items with id, text, trait (O, C, E, A, N) and keying (+ or -), and the "
        "rating scale; see the guide for the format.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_action = reverse("audit:observers:inventories")
        self.helper.form_method = "post"
        self.helper.form_id = "inventory-form"
        self.helper.add_input(Submit("load", "Load inventory", css_class="btn-primary"))

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_FILE_BYTES:
            raise forms.ValidationError(
                f"The file has {upload.size:,} bytes; an inventory file has at most "
                f"{MAX_FILE_BYTES:,}."
            )
        return upload


class ObserverRunForm(TextRules, forms.Form):
    inventory = forms.ModelChoiceField(
        label="Inventory", queryset=ObserverInventory.objects.none(), empty_label=None
    )
    characters = forms.ModelMultipleChoiceField(
        label="Characters",
        queryset=Character.objects.none(),
        widget=forms.SelectMultiple(attrs={"size": 8}),
        help_text="Characters with a frozen profile. Their design vectors are compared "
        "with what the observers report; the observers never see them.",
    )
    families = forms.MultipleChoiceField(
        label="Observer families",
        widget=forms.CheckboxSelectMultiple,
        help_text="Each configured generation family answers as one observer.",
    )
    target = forms.ChoiceField(
        label="What the observers read",
        choices=ObserverRun.Target.choices,
        initial=ObserverRun.Target.MEMORIES,
        widget=forms.RadioSelect,
    )
    sample_size = forms.IntegerField(
        label="Passages per character",
        min_value=1,
        max_value=MAX_SAMPLE_SIZE,
        initial=DEFAULT_SAMPLE_SIZE,
        help_text=f"1 to {MAX_SAMPLE_SIZE}, spread over life stages and tiers.",
    )
    seed = forms.IntegerField(
        label="Seed", initial=PROTOCOL_SEED, help_text="Draws the sample and the bootstrap."
    )
    note = forms.CharField(
        label="Note", required=False, max_length=NOTE, widget=forms.Textarea(attrs={"rows": 2})
    )
    budget_usd = budget_field()

    def __init__(self, *args, configured, characters, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["inventory"].queryset = ObserverInventory.objects.order_by("-loaded_at")
        self.fields["characters"].queryset = characters
        self.fields["characters"].label_from_instance = character_name
        self.fields["families"].choices = [
            (f.value, f.label) for f in ModelFamily if f.value in configured
        ]
        self.fields["families"].initial = list(configured)
        self.helper = FormHelper()
        self.helper.form_action = reverse("audit:observers:launch")
        self.helper.form_method = "post"
        self.helper.form_id = "observer-run-form"
        # The confirmation sits on the launch button: "Estimate cost" launches nothing.
        self.helper.add_input(
            Submit(
                "launch",
                "Launch observer run",
                css_class="btn-primary",
                data_confirm=LAUNCH_CONFIRM,
                data_confirm_label="Launch",
            )
        )
        self.helper.add_input(
            Submit("estimate", "Estimate cost", css_class="btn-outline-secondary ms-2")
        )
