"""The admin's corpus upload form."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.urls import reverse_lazy


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A file field whose cleaned value is the list of every file the person chose."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, list | tuple):
            if not data:
                single(None, initial)  # raises "This field is required." when required
                return []
            return [single(item, initial) for item in data]
        return [single(data, initial)]


class CorpusImportForm(forms.Form):
    files = MultipleFileField(
        label="Corpus files",
        help_text=(
            "Choose or drop one or more files: the release's scenarios.json, "
            "ground_truth.json, mcq.json, activated_memories_step*.json, a characters "
            "file, or memory files in the storage serialization. A file with any error "
            "imports nothing."
        ),
    )
    as_new_versions = forms.BooleanField(
        label="Import as new versions",
        required=False,
        help_text=(
            "A changed profile whose current version is frozen becomes its next version, "
            "a draft that goes through profile review; the frozen one stays in use until "
            "then. Without this, a file that changes a reviewed, edited, audited or frozen "
            "record is refused. Memories and scenarios are never replaced this way."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # No ``accept`` filter: the importer recognises a file by its content and names
        # the problem when it cannot, which is more useful than a greyed-out file.
        self.helper = FormHelper()
        self.helper.form_action = reverse_lazy("corpus:import")
        self.helper.form_method = "post"
        self.helper.add_input(Submit("submit", "Import"))

    def clean_files(self):
        files = self.cleaned_data["files"]
        names = [f.name for f in files]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise forms.ValidationError(
                "Each file may be chosen once; chosen twice: %(names)s",
                params={"names": ", ".join(duplicates)},
            )
        return files
