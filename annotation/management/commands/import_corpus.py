"""`python manage.py import_corpus PATH...`: import release files, characters files and
memory storage files (directories contribute their importable files)."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus_import.importing import import_paths
from annotation.corpus_import.problems import ImportRejected
from core.plurals import counted


class Command(BaseCommand):
    help = (
        "Import corpus files: the HEART-Bench release (scenarios, ground truth, MCQs, "
        "activations), characters JSON and memory storage text. Nothing is written if "
        "any file has a problem."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", type=Path, help="files or directories")
        parser.add_argument("--json", action="store_true", help="print the summary as JSON")
        parser.add_argument(
            "--as-new-versions",
            action="store_true",
            help=(
                "add a changed profile whose current version is frozen as its next version, "
                "a draft for profile review, instead of refusing the import"
            ),
        )

    def handle(self, *args, paths, **options):
        try:
            summary = import_paths(
                paths, source="import_corpus", as_new_versions=options["as_new_versions"]
            )
        except ImportRejected as rejected:
            for problem in rejected.errors:
                self.stderr.write(str(problem))
            raise CommandError(
                f"{counted(len(rejected.errors), 'problem')} found; nothing was imported."
            ) from None
        if options["json"]:
            self.stdout.write(json.dumps(summary.as_dict(), indent=2))
        else:
            for line in summary.lines():
                self.stdout.write(line)
            self.stdout.write(self.style.SUCCESS("Import complete."))
