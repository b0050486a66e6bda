"""Memory generation views for prompts: the versions of the memory prompt (App. L.3), and
the form that saves the next one. Admin only."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import path, reverse_lazy
from django.views.decorators.http import require_http_methods

from annotation.memory_generation import prompts
from annotation.memory_generation.models import MemoryPromptVersion
from annotation.memory_generation.services.prompts import memory_prompt_create
from annotation.memory_generation.services.runs import MemoryGenerationError
from core.roles import CORPUS_ADMINS, role_required
from core.text_rules import NOTE, TEXT, TextRules

corpus_admin_required = role_required(*CORPUS_ADMINS)


class MemoryPromptForm(TextRules, forms.Form):
    """The next version of the memory prompt, prefilled from the current one."""

    system_template = forms.CharField(
        max_length=TEXT,
        label="System prompt",
        widget=forms.Textarea(attrs={"rows": 18, "class": "font-monospace"}),
    )
    user_template = forms.CharField(
        max_length=TEXT,
        label="User prompt template",
        widget=forms.Textarea(attrs={"rows": 12, "class": "font-monospace"}),
        help_text="Placeholders in {braces} are filled per batch and per slot.",
    )
    note = forms.CharField(
        max_length=NOTE,
        label="What changed",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_action = reverse_lazy("memory_generation:prompt-new")
        self.helper.form_method = "post"
        self.helper.add_input(Submit("save", "Save as the next version"))


def _placeholders() -> dict:
    return {
        part: [(name, name in prompts.REQUIRED_PLACEHOLDERS[part]) for name in sorted(names)]
        for part, names in prompts.PLACEHOLDERS.items()
    }


@corpus_admin_required
def prompt_list(request):
    prompts.latest_prompt()  # version 1 exists from the first look
    versions = list(MemoryPromptVersion.objects.select_related("created_by").order_by("-number"))
    return render(
        request,
        "memory_generation/prompt_list.html",
        {"versions": versions, "current": versions[0], "placeholders": _placeholders()},
    )


@corpus_admin_required
@require_http_methods(["GET", "POST"])
def prompt_new(request):
    latest = prompts.latest_prompt()
    if request.method == "POST":
        form = MemoryPromptForm(request.POST)
    else:
        form = MemoryPromptForm(
            initial={
                "system_template": latest.system_template,
                "user_template": latest.user_template,
            }
        )
    if request.method == "POST" and form.is_valid():
        try:
            version = memory_prompt_create(user=request.user, **form.cleaned_data)
        except MemoryGenerationError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Saved {version}.")
            return redirect("memory_generation:prompt-list")
    return render(
        request,
        "memory_generation/prompt_new.html",
        {"form": form, "latest": latest, "placeholders": _placeholders()},
    )


urlpatterns = [
    path("prompts/", prompt_list, name="prompt-list"),
    path("prompts/new/", prompt_new, name="prompt-new"),
]
