from django import forms
from django.contrib import admin

from adjudication.arbitration.models import (
    AdjudicationSettings,
    ArbitrationDecision,
    ReferenceResponse,
)
from adjudication.arbitration.services import (
    SETTING_RULES,
    adjudication_settings_save,
    settings_deviations,
)
from core.admin import ReadOnlyAdmin


@admin.register(ReferenceResponse)
class ReferenceResponseAdmin(ReadOnlyAdmin):
    """References change only through arbitration (a new row supersedes the old)."""

    list_display = ["__str__", "decision_type", "final_decision_start", "created_at"]
    list_filter = ["decision_type", "scenario__stage", "character"]
    search_fields = ["character__key", "scenario__scenario_id", "final_decision", "summary"]
    list_select_related = ["character", "scenario"]
    autocomplete_fields = ["character", "scenario"]
    readonly_fields = ["created_at"]

    @admin.display(description="final decision")
    def final_decision_start(self, obj):
        return obj.final_decision[:80] + ("…" if len(obj.final_decision) > 80 else "")


class AdjudicationSettingsForm(forms.ModelForm):
    deviation_reason = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Reason for departing from the protocol",
        help_text="Required when a setting leaves the paper's protocol (showing the model "
        "family): recorded as a protocol deviation and listed in the export manifest.",
    )

    class Meta:
        model = AdjudicationSettings
        fields = ["show_family_to_arbitrator"]

    def clean(self):
        data = super().clean()
        before = {name: getattr(self.instance, name) for name in SETTING_RULES}
        rules = settings_deviations(before=before, after=data)
        if rules and not (data.get("deviation_reason") or "").strip():
            self.add_error(
                "deviation_reason",
                f"Give the reason for departing from the protocol: {'; '.join(rules)}.",
            )
        return data


@admin.register(AdjudicationSettings)
class AdjudicationSettingsAdmin(admin.ModelAdmin):
    """Saved through ``adjudication_settings_save``, which records any deviation."""

    form = AdjudicationSettingsForm
    list_display = ["__str__", "show_family_to_arbitrator"]

    def save_model(self, request, obj, form, change):
        saved = adjudication_settings_save(
            admin=request.user,
            show_family_to_arbitrator=form.cleaned_data["show_family_to_arbitrator"],
            reason=form.cleaned_data.get("deviation_reason", ""),
        )
        obj.pk = saved.pk


@admin.register(ArbitrationDecision)
class ArbitrationDecisionAdmin(ReadOnlyAdmin):
    list_display = ["pair", "kind", "arbitrator", "decided_at", "reopened_at"]
    list_filter = ["kind"]
    readonly_fields = [f.name for f in ArbitrationDecision._meta.fields]
