"""The screenings stored before screening runs (issue #33) keep their rows, outcomes,
outputs and attempt errors; they become the units of one run, "Screenings made before
screening runs", whose status follows them (a waiting screening keeps it running, so
the message already queued for it still finishes it)."""

from django.db import migrations
from django.db.models import Max, Min

LEGACY_NOTE = "Screenings made before screening runs (issue #33)."


def screenings_into_one_run(apps, schema_editor):
    Screening = apps.get_model("adjudication", "McqScreening")
    Run = apps.get_model("adjudication", "McqScreeningRun")
    rows = Screening.objects.all()
    if not rows.exists():
        return
    rows.filter(outcome__in=["passed", "flagged"]).update(status="done")
    rows.filter(outcome="technical_failure").update(
        status="failed",
        error_kind="technical_failure",
        error_message="The judge gave no valid, consistent answer within the retry bound.",
    )
    rows.filter(outcome="pending").update(status="pending")
    times = rows.aggregate(first=Min("created_at"), last=Max("finished_at"))
    if rows.filter(status="pending").exists():
        status, finished = "running", None
    elif rows.filter(status="failed").exists():
        status, finished = "finished_with_failures", times["last"]
    else:
        status, finished = "finished", times["last"]
    run = Run.objects.create(status=status, note=LEGACY_NOTE, finished_at=finished)
    Run.objects.filter(pk=run.pk).update(created_at=times["first"], started_at=times["first"])
    rows.update(run=run)


def screenings_out_of_runs(apps, schema_editor):
    apps.get_model("adjudication", "McqScreening").objects.update(run=None)


class Migration(migrations.Migration):

    dependencies = [
        ('adjudication', '0012_mcq_screening_runs'),
    ]

    operations = [
        migrations.RunPython(screenings_into_one_run, screenings_out_of_runs),
    ]
