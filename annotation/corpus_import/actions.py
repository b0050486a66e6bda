"""The corpus import's one write, one door (issue #33): the upload page and
``POST /api/corpus/imports/`` validate the files with the same form and create the job
through this function, so both refuse with the same words (``core.actions``)."""

from annotation.corpus_import import services
from core.actions import ActionRefused, form_action
from core.tasks import enqueue_on_commit

__all__ = ["ActionRefused", "import_job_create"]


def import_job_create(form, *, user, on_unavailable=None):
    """An import job from a bound ``CorpusImportForm``, queued for a worker once its row
    is committed (so the worker can read it)."""
    job = form_action(
        form,
        lambda data: services.import_job_create(
            files=[(f.name, f.read()) for f in data["files"]],
            user=user,
            as_new_versions=data["as_new_versions"],
        ),
        refusals=(services.ImportJobError,),
    )
    enqueue_on_commit(
        "annotation.run_import_job",
        job.pk,
        what=f"Import job {job.pk}",
        on_unavailable=on_unavailable,
    )
    return job
