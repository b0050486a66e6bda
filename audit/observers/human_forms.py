"""The admin's form asking people to rate a finished observer run's characters.

!!! BLINDING !!!  Admin pages only.
"""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.corpus.models import Character
from audit.observers.models import ObserverUnit
from core.display import character_name
from core.roles import Role

ASSIGN_CONFIRM = (
    "Ask these people to rate? Each gets one task per character chosen, with the passages "
    "the model observers read; their submitted ratings join this run's report."
)


class HumanObserverForm(forms.Form):
    people = forms.ModelMultipleChoiceField(
        label="People",
        queryset=get_user_model().objects.none(),
        widget=forms.CheckboxSelectMultiple,
        help_text="Only people holding the observer role can be asked; give the role on the "
        "team page first.",
    )
    characters = forms.ModelMultipleChoiceField(
        label="Characters",
        queryset=Character.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: every character of the run.",
    )

    def __init__(self, *args, run, **kwargs):
        super().__init__(*args, **kwargs)
        people = self.fields["people"]
        people.queryset = (
            get_user_model()
            .objects.filter(is_active=True)
            .prefetch_related("groups")
            .order_by("username")
        )
        people.label_from_instance = _person_label
        rated = ObserverUnit.objects.filter(
            run=run, observer_kind=ObserverUnit.Kind.LLM
        ).values_list("character_id", flat=True)
        self.fields["characters"].queryset = Character.objects.filter(pk__in=rated).order_by("key")
        self.fields["characters"].label_from_instance = character_name
        self.helper = FormHelper()
        self.helper.form_action = reverse(
            "audit:observers:people", kwargs={"observer_run_id": run.pk}
        )
        self.helper.form_method = "post"
        self.helper.form_id = "human-observer-form"
        self.helper.attrs = {"data-confirm": ASSIGN_CONFIRM, "data-confirm-label": "Ask them"}
        self.helper.add_input(Submit("assign", "Ask them to rate", css_class="btn-primary"))


def _person_label(user) -> str:
    held = Role.OBSERVER.value in {g.name for g in user.groups.all()}
    return f"{user.get_username()}{'' if held else ' (not an observer)'}"
