"""MCQ screening onto the one LLM-run framework (issue #33): screening runs, the unit
state of each screening, its token and cost totals, and a record of every judge call.
0013 puts the screenings stored before into one run; 0014 makes the one-waiting-
screening-per-version rule read the unit state. Three migrations: PostgreSQL builds no
index on a table whose row updates of the same transaction are still to be checked.
"""

import django.db.models.deletion
from decimal import Decimal
from django.conf import settings
from django.db import migrations, models
class Migration(migrations.Migration):

    dependencies = [
        ('adjudication', '0011_history_state_here'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='McqScreeningCall',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('provider', models.CharField(max_length=40)),
                ('model', models.CharField(max_length=200)),
                ('raw_response', models.TextField(blank=True)),
                ('parsed', models.JSONField(blank=True, null=True)),
                ('ok', models.BooleanField()),
                ('tokens_in', models.PositiveIntegerField(default=0)),
                ('tokens_out', models.PositiveIntegerField(default=0)),
                ('latency_s', models.FloatField(default=0.0)),
                ('error_kind', models.CharField(blank=True, max_length=40)),
                ('error_message', models.TextField(blank=True)),
                ('details', models.JSONField(blank=True, default=dict)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('prompt_hash', models.CharField(max_length=64)),
                ('request', models.JSONField(default=dict)),
                ('attempt_count', models.PositiveIntegerField(default=0)),
                ('attempt', models.PositiveSmallIntegerField()),
                ('problems', models.JSONField(blank=True, default=list)),
            ],
            options={
                'ordering': ['screening', 'created_at', 'pk'],
            },
        ),
        migrations.CreateModel(
            name='McqScreeningRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('pending', 'Not started'), ('running', 'Running'), ('cancelling', 'Cancelling'), ('cancelled', 'Cancelled'), ('finished', 'Finished'), ('finished_with_failures', 'Finished with failures')], default='pending', max_length=32)),
                ('note', models.TextField(blank=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
            ],
            options={
                'ordering': ['-created_at', '-pk'],
                'abstract': False,
            },
        ),
        migrations.RemoveConstraint(
            model_name='mcqscreening',
            name='one_pending_screening_per_version',
        ),
        migrations.AddField(
            model_name='mcqscreening',
            name='cost_usd',
            field=models.DecimalField(decimal_places=6, default=Decimal('0'), max_digits=12),
        ),
        migrations.AddField(
            model_name='mcqscreening',
            name='error_kind',
            field=models.CharField(blank=True, max_length=40),
        ),
        migrations.AddField(
            model_name='mcqscreening',
            name='error_message',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='mcqscreening',
            name='status',
            field=models.CharField(choices=[('pending', 'Waiting'), ('running', 'Screening'), ('done', 'Screened'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], db_index=True, default='pending', max_length=16),
        ),
        migrations.AddField(
            model_name='mcqscreening',
            name='tokens_in',
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='mcqscreening',
            name='tokens_out',
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='mcqscreening',
            name='updated_at',
            field=models.DateTimeField(auto_now=True),
        ),
        migrations.AddField(
            model_name='mcqscreeningcall',
            name='screening',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='calls', to='adjudication.mcqscreening'),
        ),
        migrations.AddField(
            model_name='mcqscreeningrun',
            name='assembly_run',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='screening_runs', to='adjudication.mcqassemblyrun'),
        ),
        migrations.AddField(
            model_name='mcqscreeningrun',
            name='created_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='mcqscreening',
            name='run',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='screenings', to='adjudication.mcqscreeningrun'),
        ),
    ]
