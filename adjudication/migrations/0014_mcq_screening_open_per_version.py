"""A screening is open while it waits or runs, and a version has at most one open; the
units of a run are found by run and state. A migration of its own, after 0013 moved the
stored screenings into their run: PostgreSQL changes no table whose row updates of the
same transaction are still to be checked."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('adjudication', '0013_mcq_screenings_into_one_run'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='mcqscreening',
            index=models.Index(fields=['run', 'status'], name='mcq_screening_run_status'),
        ),
        migrations.AddConstraint(
            model_name='mcqscreening',
            constraint=models.UniqueConstraint(condition=models.Q(('status__in', ['pending', 'running'])), fields=('item_version',), name='one_open_screening_per_version'),
        ),
    ]
