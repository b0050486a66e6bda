"""Participants' rights (issue #36): a participant can withdraw (status ``withdrawn``
and its time), the admin's erasure is recorded, and stored reports name participants by
their number in the study instead of their username.

The decision history stays append-only, with one exception for erasure: its trigger lets
an UPDATE or DELETE through in a transaction that set ``heartbench.erasure`` to ``on``
(``humanbaseline.services.rights``); every other write is refused as before."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

APPEND_ONLY = """
CREATE OR REPLACE FUNCTION heartbench_history_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the decision history is append-only: %% on %% refused', TG_OP, TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql;
"""

APPEND_ONLY_BUT_ERASURE = """
CREATE OR REPLACE FUNCTION heartbench_history_append_only() RETURNS trigger AS $$
BEGIN
    IF coalesce(current_setting('heartbench.erasure', true), '') = 'on' THEN
        IF TG_OP = 'DELETE' THEN
            RETURN OLD;
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'the decision history is append-only: %% on %% refused', TG_OP, TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql;
"""


def _trigger(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


def _relabel(apps, *, to_numbers: bool):
    """Rename the keys of each stored report's ``per_annotator``: username → the
    participant's number in the study (forwards), or back (backwards)."""
    Participation = apps.get_model("humanbaseline", "Participation")
    BaselineReport = apps.get_model("humanbaseline", "BaselineReport")
    for report in BaselineReport.objects.exclude(results={}):
        per = (report.results or {}).get("per_annotator")
        if not per:
            continue
        rows = Participation.objects.filter(study_id=report.study_id).order_by("created_at", "pk")
        names = [u for u in rows.values_list("user__username", flat=True)]
        numbers = {name: str(n) for n, name in enumerate(names, start=1)}
        if not to_numbers:
            numbers = {number: name for name, number in numbers.items()}
        report.results["per_annotator"] = {numbers.get(k, k): v for k, v in per.items()}
        report.save(update_fields=["results"])


def forwards(apps, schema_editor):
    _relabel(apps, to_numbers=True)


def backwards(apps, schema_editor):
    _relabel(apps, to_numbers=False)


class Migration(migrations.Migration):
    dependencies = [
        ("heartbench_site", "0016_history_state_moved"),
        ("humanbaseline", "0007_history_state_here"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="historicalparticipation",
            name="withdrawn_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="participation",
            name="withdrawn_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="historicalparticipation",
            name="status",
            field=models.CharField(
                choices=[
                    ("invited", "Invited"),
                    ("declined", "Declined consent"),
                    ("consented", "Consented"),
                    ("started", "Answering"),
                    ("finalized", "Finalized"),
                    ("withdrawn", "Withdrew"),
                ],
                default="invited",
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="participation",
            name="status",
            field=models.CharField(
                choices=[
                    ("invited", "Invited"),
                    ("declined", "Declined consent"),
                    ("consented", "Consented"),
                    ("started", "Answering"),
                    ("finalized", "Finalized"),
                    ("withdrawn", "Withdrew"),
                ],
                default="invited",
                max_length=16,
            ),
        ),
        migrations.CreateModel(
            name="ParticipantErasure",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "scope",
                    models.CharField(
                        choices=[
                            ("personal", "Personal data (name, pool ids, sessions); answers kept"),
                            ("all", "All their data, answers included"),
                        ],
                        max_length=16,
                    ),
                ),
                ("placeholder", models.CharField(max_length=150)),
                ("counts", models.JSONField(blank=True, default=dict)),
                ("erased_at", models.DateTimeField(auto_now_add=True)),
                (
                    "erased_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "study",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="erasures",
                        to="humanbaseline.baselinestudy",
                    ),
                ),
            ],
            options={
                "ordering": ["study", "erased_at", "pk"],
            },
        ),
        migrations.RunPython(forwards, backwards),
        migrations.RunPython(_trigger(APPEND_ONLY_BUT_ERASURE), _trigger(APPEND_ONLY)),
    ]
