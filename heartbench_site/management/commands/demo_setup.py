"""Loads the one-command demo: release data, stand-in profiles/memories, one account per role.

Idempotent: run it again and nothing changes (the importer is idempotent and the accounts
are reset to their printed passwords).
"""

import json
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from adjudication.consensus.demo import demo_comparisons
from adjudication.export.demo import demo_export
from adjudication.judging.demo import demo_judge_run
from adjudication.mcq.demo import seed_mcq_demo
from adjudication.mcq.screener_agreement_demo import demo_screener_agreement
from annotation.blinding.demo import demo_blinding
from annotation.character_drafting.demo import demo_drafting
from annotation.corpus.distinctness_report import demo_distinctness
from annotation.corpus.models import Memory, ProfileVersion
from annotation.corpus_import.importing import import_files
from annotation.corpus_import.problems import ImportRejected
from annotation.generation.demo import demo_generation
from annotation.memory_generation.demo import demo_memory_generation
from annotation.profile_review.demo import demo_profile_reviews
from annotation.scenario_review.demo import demo_scenario_reviews
from audit.hygiene.demo import demo_release_hygiene
from audit.memory_quality.classifier_agreement_demo import demo_classifier_agreement
from audit.memory_quality.demo import (
    demo_fact_check_case,
    demo_memory_audit,
    demo_memory_reviewers,
)
from audit.observers.demo import demo_human_observer, demo_observer_run
from audit.reference_labels.demo import seed_label_audit_demo
from core.release import find_release_dir
from core.roles import ROLE_LABELS, Role
from core.team.demo import seed_team_demo
from evaluation.demo import seed_evaluation_demo
from heartbench_site.demo import ARCHETYPES, standin_characters
from heartbench_site.demo_reports import compute_demo_reports
from humanbaseline.demo import seed_baseline_demo
from humanbaseline.models import ItemSourceFamily

RELEASE_FILES = (
    "scenarios.json",
    "ground_truth.json",
    "mcq.json",
    "activated_memories_step1.json",
    "activated_memories_step2.json",
)

# username, role, password: printed at the end of `make demo`.
DEMO_ACCOUNTS = (
    ("annotator", Role.PRIMARY_ANNOTATOR, "annotator-demo-pass"),
    ("arbitrator", Role.ARBITRATOR, "arbitrator-demo-pass"),
    ("scenario", Role.SCENARIO_REVIEWER, "scenario-demo-pass"),
    ("memory", Role.MEMORY_REVIEWER, "memory-demo-pass"),
    ("auditor", Role.AUDIT_EXPERT, "auditor-demo-pass"),
    ("adjudicator", Role.AUDIT_ADJUDICATOR, "adjudicator-demo-pass"),
    ("participant", Role.BASELINE_PARTICIPANT, "participant-demo-pass"),
    ("observer", Role.OBSERVER, "observer-demo-pass"),
    ("admin", Role.ADMIN, "admin-demo-pass"),
)


class Command(BaseCommand):
    help = "Load the demo corpus and create one demo account per role."

    def add_arguments(self, parser):
        parser.add_argument(
            "--release",
            type=Path,
            default=None,
            help="HEART-Bench public release folder (default: ../shared/heartbench-release).",
        )

    def handle(self, *args, release=None, **options):
        release = release or find_release_dir()
        missing = [name for name in RELEASE_FILES if not (release / name).is_file()]
        if missing:
            raise CommandError(f"Release folder {release} lacks: {', '.join(missing)}")

        files = [(name, (release / name).read_bytes()) for name in RELEASE_FILES]
        standins = json.dumps(standin_characters(release), ensure_ascii=False, indent=1)
        files.append(("demo_standin_characters.json", standins.encode()))
        try:
            summary = import_files(files, source="demo")
        except ImportRejected as rejected:
            raise CommandError("\n".join(str(problem) for problem in rejected.errors)) from None

        with transaction.atomic():
            keys = list(ARCHETYPES)
            ProfileVersion.objects.filter(character__key__in=keys).update(is_demo_standin=True)
            Memory.objects.filter(character__key__in=keys).update(is_demo_standin=True)
            users = self._accounts()
        accounts = list(DEMO_ACCOUNTS)
        # Each workflow puts its demo data at a stage a new user can try at once. The
        # generation run comes first: it freezes the first two stand-in profiles (a demo
        # shortcut past profile review), so the review demo works on the next ones.
        run = demo_generation(user=users[Role.ADMIN.value])
        accounts += demo_profile_reviews(users=users)
        accounts += demo_scenario_reviews(users=users)
        accounts += demo_comparisons(users=users)
        demo_blinding(users=users)  # leak flags (one open, one cleaned), family guesses
        demo_judge_run(user=users[Role.ADMIN.value])  # on the pairs judged, after commit
        demo_memory_audit(users=users)
        demo_fact_check_case(users=users)  # a rewrite that lost facts (issue 37)
        accounts += demo_memory_reviewers()
        demo_observer_run(user=users[Role.ADMIN.value])  # observer reports (issue 37)
        demo_human_observer(observer=users[Role.OBSERVER.value])  # one open task, after it
        # Corpus construction on the platform: a finished drafting job (two drafted
        # stand-ins in profile review) and a generated stand-in whose memories wait for
        # the next audit run.
        drafting = demo_drafting(user=users[Role.ADMIN.value])
        memory_run = demo_memory_generation(user=users[Role.ADMIN.value])
        # Downstream of the references: item review, the blind label audit, the baseline
        # study and evaluation runs (which need the profiles the generation demo froze).
        seed_mcq_demo(users=users)
        accounts += seed_label_audit_demo(users=users)
        study = seed_baseline_demo(users=users)
        evaluation_runs = seed_evaluation_demo(
            user=users[Role.ADMIN.value],
            source_families=dict(ItemSourceFamily.objects.values_list("item_id", "family")),
        )
        demo_release_hygiene(users=users)  # a finished screen; the planted flags wait
        export_job = demo_export(user=users[Role.ADMIN.value])  # the export page's first build
        invitation = seed_team_demo(admin=users[Role.ADMIN.value])  # the team page (#36)
        # The memory classifier against the memory reviewers (issue 37): its records.
        demo_classifier_agreement(users=users)
        demo_screener_agreement(users=users)  # the screener against the item reviewers
        # The statistics pages' stored figures, once the work queued above has run (on
        # commit: at once outside a transaction).
        transaction.on_commit(compute_demo_reports)
        transaction.on_commit(demo_distinctness)  # the stored distinctness table (issue 37)

        self.stdout.write(self.style.SUCCESS("Demo corpus loaded:"))
        for line in summary.lines():
            self.stdout.write(f"  {line}")
        self.stdout.write(f"  drafting job #{drafting.pk}: {drafting.note} ({drafting.status})")
        self.stdout.write(
            f"  memory generation run #{memory_run.pk}: {memory_run.note} ({memory_run.status})"
        )
        if run is not None:
            self.stdout.write(f"  generation run #{run.pk}: {run.note} ({run.status})")
        if study is not None:
            self.stdout.write(f"  baseline study #{study.pk}: {study}")
        self.stdout.write(f"  evaluation runs: {len(evaluation_runs)} on the offline demo model")
        self.stdout.write(
            f"  export job #{export_job.pk}: the final set ({export_job.status}, "
            f"sha256 {export_job.sha256[:12]}…)"
        )
        self.stdout.write(f"  team: one pending invitation of {invitation.email} (/team/)")
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS("Demo accounts (one per role, and extra reviewers):"))
        width = max(len(name) for name, _, _ in accounts)
        for username, role, password in accounts:
            self.stdout.write(
                f"  {username.ljust(width)}  password {password:<24} {ROLE_LABELS[role]}"
            )

    def _accounts(self):
        users = {}
        for username, role, password in DEMO_ACCOUNTS:
            user, _ = get_user_model().objects.get_or_create(username=username)
            user.set_password(password)
            user.is_staff = role is Role.ADMIN
            user.is_superuser = role is Role.ADMIN
            user.save()
            user.groups.set([Group.objects.get(name=role.value)])
            users[role.value] = user
        return users
