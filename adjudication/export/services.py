"""Export of the final MCQ set (seed 000 §2.4 Stage 3, App. D.3, App. E; issue #8).

Three variants and a manifest, built in memory as ``{path: bytes}``:

``release/``
    The public release's layouts (:mod:`adjudication.export.release`).
``model_facing/``
    What an evaluated model may see, keys apart (:mod:`adjudication.export.model_facing`).
``construction/``
    Every item with its adjudication chain (:mod:`adjudication.export.construction`).
``manifest.json``
    Counts, the answer keys per option label, item and profile versions, the protocol
    deviations recorded on the way (gate overrides, unaudited memories, settings away
    from the paper), the characters no finalized memory audit covered, the SHA-256 of
    every other file, the platform version.

Determinism: records come in a fixed order (primary key, i.e. the order they entered
the platform, which for an import is the source file's order), JSON outside the release
layouts has sorted keys, and no file holds the time of the export: every timestamp in
the files is one stored with the data. Exporting twice gives byte-identical files and
zip archives (entries carry a fixed date).
"""

import io
import json
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from adjudication.export.construction import construction_files
from adjudication.export.datasets import dataset_files
from adjudication.export.encoding import EXPORT_FORMAT, sha256, sorted_json
from adjudication.export.model_facing import model_facing_files
from adjudication.export.release import release_files
from adjudication.export.selectors import FinalSet, load_final_set
from adjudication.mcq.selectors import key_distribution
from audit.hygiene.card import card_fields
from core.deviations import deviations_for_manifest

# Zip entries need a date; the epoch of the zip format keeps archives byte-identical.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
# Measured at the paper's scale (11 x 1,000 memories, 200 MB of files): level 3 zips in
# about 2 s to 37 MB, level 6 takes 8 s for 30 MB. The download waits on it.
ZIP_LEVEL = 3
MANIFEST = "manifest.json"
FOLDER = "heartbench-final-set"


def zip_files(files: dict[str, bytes], folder: str) -> bytes:
    """A zip of ``{path: bytes}`` under ``folder/``, entries sorted and dated ZIP_DATE:
    the same files give the same bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(
        out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL
    ) as archive:
        for path in sorted(files):
            info = zipfile.ZipInfo(f"{folder}/{path}", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[path], compresslevel=ZIP_LEVEL)
    return out.getvalue()


def platform_version() -> str:
    return str(settings.SPECTACULAR_SETTINGS.get("VERSION", "unknown"))


@dataclass(frozen=True)
class ExportBundle:
    files: dict  # path -> bytes, manifest.json included
    manifest: dict

    def zip_bytes(self) -> bytes:
        return zip_files(self.files, FOLDER)

    def write_to(self, directory: Path) -> list[Path]:
        written = []
        for path in sorted(self.files):
            target = Path(directory) / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.files[path])
            written.append(target)
        return written


def export_counts(data: FinalSet) -> dict:
    options = [o for i in data.items for o in i.options.all()]
    targets = {i.character.key for i in data.items} & set(data.profiles)
    return {
        "final_items": len(data.items),
        "excluded_items": data.excluded,
        "options": len(options),
        "generated_options": sum(o.is_generated for o in options),
        "keys": dict(sorted(Counter(i.correct_answer for i in data.items).items())),
        "references": sum(r is not None for r in data.references.values()),
        "items_without_reference": [
            i.question_id for i in data.items if data.references[i.pk] is None
        ],
        "scenarios": len(data.scenarios),
        "characters": len(data.profiles),
        "characters_without_profile": data.characters_without_profile,
        "demo_standin_characters": sorted(k for k, p in data.profiles.items() if p.is_demo_standin),
        "hand_written_options": sum(not o.source_character for o in options),
        "memories": sum(len(v) for v in data.memories.values()),
        "model_facing_memories": sum(len(data.memories.get(k, [])) for k in targets),
    }


# The steps ``build_export`` reports to its ``progress(done, total, step)`` callback.
BUILD_STEPS = (
    "Reading the final set",
    "Writing the release layouts",
    "Writing the model-facing files",
    "Writing the construction record",
    "Writing the Parquet files and the dataset card",
    "Writing the manifest",
)


def build_export(progress=None, *, total: int | None = None) -> ExportBundle:
    """The bundle; ``progress(done, total, step)`` hears each step before it starts
    (``total`` defaults to the build's own steps; a caller with more steps after the
    build, such as zipping, passes its own)."""
    total = total or len(BUILD_STEPS)

    def step(n: int) -> None:
        if progress is not None:
            progress(n, total, BUILD_STEPS[n])

    step(0)
    data = load_final_set()
    step(1)
    files = dict(release_files(data))
    step(2)
    files.update(model_facing_files(data))
    step(3)
    files.update(construction_files(data))
    step(4)
    files.update(dataset_files(files, card_fields()))
    step(5)
    manifest = {
        "format": EXPORT_FORMAT,
        "platform_version": platform_version(),
        "counts": export_counts(data),
        "item_versions": {i.question_id: i.version for i in data.items},
        "profile_versions": {k: data.profiles[k].number for k in sorted(data.profiles)},
        "chain_sections": data.section_names,
        "key_distribution": key_distribution(data.items),
        "protocol_deviations": deviations_for_manifest(),
        "characters_without_finalized_audit": data.characters_without_audit,
        "files": {
            path: {"bytes": len(body), "sha256": sha256(body)}
            for path, body in sorted(files.items())
        },
    }
    files[MANIFEST] = sorted_json(manifest)
    return ExportBundle(files=files, manifest=manifest)


def verify_manifest(files: dict) -> list[str]:
    """Paths whose bytes disagree with the manifest (or are missing from either side)."""
    manifest = json.loads(files[MANIFEST])
    listed = manifest["files"]
    problems = [p for p in listed if p not in files or sha256(files[p]) != listed[p]["sha256"]]
    problems += [p for p in files if p != MANIFEST and p not in listed]
    return sorted(problems)
