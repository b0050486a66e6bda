"""`python manage.py write_final_set DIRECTORY [--zip]`: write the final MCQ set
(release layouts, model-facing and construction variants, manifest) to a directory."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from adjudication.export.encoding import sha256
from adjudication.export.services import MANIFEST, build_export
from core.plurals import counted


class Command(BaseCommand):
    help = (
        "Export the final MCQ set (items in status final) to DIRECTORY: release/, "
        "model_facing/, construction/ and manifest.json. Exporting the same data twice "
        "writes byte-identical files."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path)
        parser.add_argument(
            "--zip", action="store_true", help="also write heartbench-final-set.zip there"
        )

    def handle(self, *args, directory: Path, **options):
        if directory.exists() and not directory.is_dir():
            raise CommandError(f"{directory} exists and is not a directory.")
        bundle = build_export()
        counts = bundle.manifest["counts"]
        if not counts["final_items"]:
            self.stderr.write("No item is in status final: the export holds no questions.")
        written = bundle.write_to(directory)
        if options["zip"]:
            archive = directory / "heartbench-final-set.zip"
            archive.write_bytes(bundle.zip_bytes())
            written.append(archive)
        excluded = ", ".join(f"{n} {s}" for s, n in counts["excluded_items"].items()) or "none"
        self.stdout.write(
            f"{counted(counts['final_items'], 'final item')}, "
            f"{counted(counts['references'], 'reference')}, "
            f"{counted(counts['scenarios'], 'scenario')}, "
            f"{counted(counts['characters'], 'character')}; "
            f"left out: {excluded}."
        )
        if counts["characters_without_profile"]:
            self.stdout.write(
                "No profile (not in characters.json, no occupation in model_facing/): "
                + ", ".join(counts["characters_without_profile"])
            )
        self.stdout.write(
            f"manifest.json sha256 {sha256(bundle.files[MANIFEST])}; "
            f"{counted(len(written), 'file')}."
        )
        self.stdout.write(self.style.SUCCESS(f"Exported to {directory}."))
