"""Export of the final MCQ set (seed 000 §2.4 Stage 3, App. D.3, App. E; issue #8).

Three variants and a manifest, built in memory as ``{path: bytes}``:

``release/``
    The public release's layouts: ``mcq.json``, ``ground_truth.json``,
    ``scenarios.json`` and a ``characters.json`` in the dataset card's layout (the one
    :mod:`annotation.corpus_import.parse_characters` reads), each also as JSONL, plus CSVs
    for spreadsheets. Key order and formatting are the release's (two-space indent,
    UTF-8, no trailing newline), so importing the release and exporting it again gives
    the release's bytes back except for ``dataset_meta``.
``model_facing/``
    Only what an evaluated model may see (App. E field isolation): character id and
    occupation, the scenario as the evaluation prompt shows it (App. L.1), the options in
    their evaluated order, and memories projected to ``content_full`` under anonymized
    ids with their timeline labels. The keys are in ``answers.*``, a separate file.
``construction/``
    Every item with its key, option provenance, versions, the reference it keys and
    the adjudication chain each workflow registers in :mod:`adjudication.export.chain`.
``manifest.json``
    Counts, item and profile versions, the SHA-256 of every other file, the platform
    version.

Determinism: records come in a fixed order (primary key, i.e. the order they entered
the platform, which for an import is the source file's order), JSON outside the release
layouts has sorted keys, and no file holds the time of the export: every timestamp in
the files is one stored with the data. Exporting twice gives byte-identical files and
zip archives (entries carry a fixed date).
"""

import csv
import hashlib
import io
import json
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Prefetch

from adjudication.arbitration.models import (
    OPTION_LABELS,
    McqItem,
    McqItemVersion,
    McqOption,
    ReferenceResponse,
)
from adjudication.export import sections as export_sections  # noqa: F401  (registers the chain sections of this app)
from adjudication.export.chain import chain_sections
from adjudication.mcq.versions import option_dicts
from annotation.corpus.life_stages import LIFE_STAGE_KEYS
from annotation.corpus.models import Memory, ProfileVersion

EXPORT_FORMAT = "heartbench-final-set/1"
# Zip entries need a date; the epoch of the zip format keeps archives byte-identical.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
# Measured at the paper's scale (11 x 1,000 memories, 200 MB of files): level 3 zips in
# about 2 s to 37 MB, level 6 takes 8 s for 30 MB. The download waits on it.
ZIP_LEVEL = 3
MANIFEST = "manifest.json"
CSV_BOM = "\ufeff"  # spreadsheets read UTF-8 CSV correctly only with it

# App. L.1 / App. E: what the evaluation prompt shows of a scenario. The construction
# metadata (category, intensity, DIAMONDS dimension, age range) stays out.
MODEL_FACING_SCENARIO_FIELDS = ("scenario_id", "stage", "age", "name", "description_for_agent")


def platform_version() -> str:
    return str(settings.SPECTACULAR_SETTINGS.get("VERSION", "unknown"))


# --- serialization ---------------------------------------------------------------------


def release_json(doc) -> bytes:
    """The release's own formatting: indent 2, UTF-8 as is, keys in layout order."""
    return json.dumps(doc, ensure_ascii=False, indent=2).encode()


def sorted_json(doc) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode()


def jsonl(records, *, sort_keys: bool) -> bytes:
    lines = [json.dumps(r, ensure_ascii=False, sort_keys=sort_keys) for r in records]
    return ("".join(line + "\n" for line in lines)).encode()


def csv_bytes(header: list[str], rows) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return (CSV_BOM + out.getvalue()).encode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


# --- what goes in ------------------------------------------------------------------------


@dataclass
class FinalSet:
    """The rows of one export, read with a fixed number of queries."""

    items: list
    references: dict  # item pk -> ReferenceResponse or None
    scenarios: list
    profiles: dict  # character key -> ProfileVersion (latest frozen, else latest)
    memories: dict  # character key -> [Memory] in sequence order
    characters_without_profile: list
    excluded: dict  # status -> count of items left out
    section_names: list = field(default_factory=list)


def final_items():
    return (
        McqItem.objects.filter(status=McqItem.Status.FINAL)
        .select_related("character", "scenario", "reference__arbitrator")
        .prefetch_related(
            Prefetch("options", queryset=McqOption.objects.order_by("label")),
            Prefetch(
                "versions",
                queryset=McqItemVersion.objects.select_related("created_by").order_by("number"),
            ),
        )
        .order_by("pk")
    )


def _current_references(items) -> dict:
    """The reference each item keys: its own link, else the pair's current reference."""
    missing = [i for i in items if i.reference_id is None]
    by_pair = {}
    if missing:
        for ref in ReferenceResponse.objects.filter(
            superseded_at__isnull=True,
            character_id__in={i.character_id for i in missing},
            scenario_id__in={i.scenario_id for i in missing},
        ).select_related("arbitrator"):
            by_pair[(ref.character_id, ref.scenario_id)] = ref
    return {
        i.pk: i.reference if i.reference_id else by_pair.get((i.character_id, i.scenario_id))
        for i in items
    }


def _chosen_profiles(keys: set[str]) -> dict:
    """Each character's latest frozen profile version, else its latest version."""
    chosen = {}
    for version in (
        ProfileVersion.objects.filter(character__key__in=keys)
        .select_related("character")
        .order_by("character__key", "number")
    ):
        key = version.character.key
        current = chosen.get(key)
        if current is None or version.is_frozen or not current.is_frozen:
            chosen[key] = version
    return chosen


def load_final_set() -> FinalSet:
    items = list(final_items())
    references = _current_references(items)
    scenarios = sorted(
        {i.scenario_id: i.scenario for i in items}.values(),
        key=lambda s: (LIFE_STAGE_KEYS.index(s.stage), s.pk),
    )
    keys = {i.character.key for i in items}
    keys |= {o.source_character for i in items for o in i.options.all()}
    profiles = _chosen_profiles(keys)
    memories = defaultdict(list)
    for memory in (
        Memory.objects.filter(character__key__in=list(profiles))
        .select_related("character")
        .order_by("character__key", "sequence")
    ):
        memories[memory.character.key].append(memory)
    excluded = dict(
        McqItem.objects.exclude(status=McqItem.Status.FINAL)
        .values_list("status")
        .annotate(n=Count("pk"))
        .order_by("status")
    )
    return FinalSet(
        items=items,
        references=references,
        scenarios=scenarios,
        profiles=profiles,
        memories=dict(memories),
        characters_without_profile=sorted(keys - set(profiles)),
        excluded=excluded,
        section_names=[name for name, _ in chain_sections()],
    )


# --- release layouts ---------------------------------------------------------------------


def release_question(item) -> dict:
    options = []
    for o in item.options.all():
        option = {
            "label": o.label,
            "content": o.content,
            "is_correct": o.is_correct,
            "source_character": o.source_character,
        }
        # The release states is_generated only on the 54 generated options, last.
        if o.is_generated:
            option["is_generated"] = True
        options.append(option)
    return {
        "question_id": item.question_id,
        "character_id": item.character.key,
        "scenario_id": item.scenario.scenario_id,
        "stage": item.stage,
        "correct_answer": item.correct_answer,
        "options": options,
    }


def release_pair(item, reference) -> dict:
    return {
        "character_id": item.character.key,
        "scenario_id": item.scenario.scenario_id,
        "inner_consciousness": reference.inner_consciousness,
        "final_decision": reference.final_decision,
        "stage": item.scenario.stage,
    }


def release_scenario(scenario) -> dict:
    record = {
        "id": scenario.scenario_id,
        "stage": scenario.stage,
        "age_range": scenario.age_range,
        "age": scenario.age,
        "name": scenario.name,
        "category": scenario.category,
        "intensity": scenario.intensity,
    }
    if scenario.diamonds_dimension:
        record["diamonds_dimension"] = scenario.diamonds_dimension
    record.update(
        {
            "description_for_agent": scenario.description_for_agent,
            "setting": {
                "location": scenario.setting_location,
                "time": scenario.setting_time,
                "atmosphere": scenario.setting_atmosphere,
            },
            "context_text": scenario.context_text,
            "trigger_event": _trigger_event(scenario),
        }
    )
    return record


def _trigger_event(scenario) -> dict:
    event = {"sender": scenario.trigger_sender, "message_content": scenario.trigger_message}
    # One release scenario has no action_required; it imports empty and exports absent.
    if scenario.action_required:
        event["action_required"] = scenario.action_required
    return event


def release_memory(memory) -> dict:
    return {
        "id": memory.memory_id,
        "timeline": memory.timeline,
        "context": memory.context,
        "content_summary": memory.content_summary,
        "content_full": memory.content_full,
        "triggers": memory.triggers,
        "psych_conclusion": memory.psych_conclusion,
        "behavior_policy": memory.behavior_policy,
        "emotion_signature": memory.emotion_signature,
        "relevance_tags": memory.relevance_tags,
    }


def release_character(profile, memories) -> dict:
    return {
        "id": profile.character.key,
        "name": profile.construction_label,
        "occupation": profile.occupation,
        "big_five": profile.big_five,
        "description": profile.description,
        "self_value_logic": profile.self_value_logic,
        "core_patterns": profile.core_patterns,
        "is_demo_standin": profile.is_demo_standin,
        "episodic_memory_set": [release_memory(m) for m in memories],
    }


def _release_files(data: FinalSet) -> dict[str, bytes]:
    questions = [release_question(i) for i in data.items]
    # In reference order (for an import, ground_truth.json's own order), one per reference.
    keyed = {data.references[i.pk].pk: i for i in data.items if data.references[i.pk]}
    pairs = [release_pair(keyed[pk], data.references[keyed[pk].pk]) for pk in sorted(keyed)]
    grouped = {stage: [] for stage in LIFE_STAGE_KEYS}
    for scenario in data.scenarios:
        grouped[scenario.stage].append(release_scenario(scenario))
    grouped = {stage: records for stage, records in grouped.items() if records}
    characters = [
        release_character(data.profiles[key], data.memories.get(key, []))
        for key in sorted(data.profiles)
    ]
    mcq_doc = {
        "dataset_meta": {
            "version": EXPORT_FORMAT,
            "description": "The final MCQ set: every item in status final",
            "source_gt": "ground_truth.json",
            "total_questions": len(questions),
        },
        "questions": questions,
    }
    characters_doc = {
        "dataset_meta": {
            "version": EXPORT_FORMAT,
            "description": "Character profiles (the exported profile version of each) "
            "with their episodic memories",
            "total_characters": len(characters),
        },
        "characters": characters,
    }
    flat_scenarios = [s for records in grouped.values() for s in records]
    return {
        "release/mcq.json": release_json(mcq_doc),
        "release/mcq.jsonl": jsonl(questions, sort_keys=False),
        "release/mcq.csv": _mcq_csv(data.items),
        "release/ground_truth.json": release_json({"pairs": pairs}),
        "release/ground_truth.jsonl": jsonl(pairs, sort_keys=False),
        "release/ground_truth.csv": _pairs_csv(pairs),
        "release/scenarios.json": release_json({"scenarios": grouped}),
        "release/scenarios.jsonl": jsonl(flat_scenarios, sort_keys=False),
        "release/scenarios.csv": _scenarios_csv(data.scenarios),
        "release/characters.json": release_json(characters_doc),
        "release/characters.jsonl": jsonl(characters, sort_keys=False),
        "release/characters.csv": _characters_csv(data.profiles, data.memories),
    }


def _mcq_csv(items) -> bytes:
    header = ["question_id", "character_id", "scenario_id", "stage", "correct_answer"]
    for label in OPTION_LABELS:
        header += [
            f"option_{label}",
            f"option_{label}_is_correct",
            f"option_{label}_is_generated",
            f"option_{label}_source_character",
        ]
    rows = []
    for item in items:
        row = [
            item.question_id,
            item.character.key,
            item.scenario.scenario_id,
            item.stage,
            item.correct_answer,
        ]
        for o in item.options.all():
            row += [o.content, _flag(o.is_correct), _flag(o.is_generated), o.source_character]
        rows.append(row)
    return csv_bytes(header, rows)


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _pairs_csv(pairs) -> bytes:
    header = [
        "character_id",
        "scenario_id",
        "stage",
        "summary",
        "emotional_tone",
        "core_reasoning",
        "value_orientation",
        "final_decision",
    ]
    rows = [
        [
            p["character_id"],
            p["scenario_id"],
            p["stage"],
            *(p["inner_consciousness"][k] for k in header[3:7]),
            p["final_decision"],
        ]
        for p in pairs
    ]
    return csv_bytes(header, rows)


def _scenarios_csv(scenarios) -> bytes:
    header = [
        "id",
        "stage",
        "age_range",
        "age",
        "name",
        "category",
        "intensity",
        "diamonds_dimension",
        "description_for_agent",
        "setting_location",
        "setting_time",
        "setting_atmosphere",
        "context_text",
        "trigger_sender",
        "trigger_message_content",
        "trigger_action_required",
    ]
    rows = [
        [
            s.scenario_id,
            s.stage,
            s.age_range,
            s.age,
            s.name,
            s.category,
            s.intensity,
            s.diamonds_dimension,
            s.description_for_agent,
            s.setting_location,
            s.setting_time,
            s.setting_atmosphere,
            s.context_text,
            s.trigger_sender,
            s.trigger_message,
            s.action_required,
        ]
        for s in scenarios
    ]
    return csv_bytes(header, rows)


def _characters_csv(profiles, memories) -> bytes:
    header = [
        "id",
        "profile_version",
        "name",
        "occupation",
        "O",
        "C",
        "E",
        "A",
        "N",
        "description",
        "self_value_logic",
        *(f"core_pattern_{n}" for n in range(1, 9)),
        "memories",
        "is_demo_standin",
    ]
    rows = []
    for key in sorted(profiles):
        p = profiles[key]
        rows.append(
            [
                key,
                p.number,
                p.construction_label,
                p.occupation,
                *(p.big_five[d] for d in "OCEAN"),
                p.description,
                p.self_value_logic,
                *p.core_patterns,
                len(memories.get(key, [])),
                _flag(p.is_demo_standin),
            ]
        )
    return csv_bytes(header, rows)


# --- model-facing variant ------------------------------------------------------------------


def model_facing_question(item, profile) -> dict:
    scenario = item.scenario
    record = {f: getattr(scenario, f) for f in MODEL_FACING_SCENARIO_FIELDS}
    record.update(
        {
            "setting": {
                "location": scenario.setting_location,
                "time": scenario.setting_time,
                "atmosphere": scenario.setting_atmosphere,
            },
            "context_text": scenario.context_text,
            "trigger_event": _trigger_event(scenario),
        }
    )
    return {
        "question_id": item.question_id,
        "character": {
            "character_id": item.character.key,
            "occupation": profile.occupation if profile else "",
        },
        "scenario": record,
        "options": [{"label": o.label, "content": o.content} for o in item.options.all()],
    }


def model_facing_memory(memory) -> dict:
    """App. E: f(m) = m[content_full], prefixed by the anonymized id and timeline label."""
    return {
        "memory_id": memory.anonymized_id,
        "character_id": memory.character.key,
        "timeline": memory.timeline,
        "event_age": memory.event_age,
        "content_full": memory.content_full,
    }


def _model_facing_files(data: FinalSet) -> dict[str, bytes]:
    questions = [model_facing_question(i, data.profiles.get(i.character.key)) for i in data.items]
    targets = sorted({i.character.key for i in data.items} & set(data.profiles))
    memories = [model_facing_memory(m) for key in targets for m in data.memories.get(key, [])]
    answers = [
        {"question_id": i.question_id, "correct_answer": i.correct_answer} for i in data.items
    ]
    meta = {
        "description": "Items as evaluated models see them: basic character information, "
        "scenario and options in the evaluated order. Keys are in answers.json.",
        "format": EXPORT_FORMAT,
        "total_questions": len(questions),
    }
    return {
        "model_facing/items.json": sorted_json({"dataset_meta": meta, "questions": questions}),
        "model_facing/items.jsonl": jsonl(questions, sort_keys=True),
        "model_facing/items.csv": _model_facing_csv(questions),
        "model_facing/memories.json": sorted_json({"memories": memories}),
        "model_facing/memories.jsonl": jsonl(memories, sort_keys=True),
        "model_facing/answers.json": sorted_json({"answers": answers}),
        "model_facing/answers.jsonl": jsonl(answers, sort_keys=True),
        "model_facing/answers.csv": csv_bytes(
            ["question_id", "correct_answer"],
            [[a["question_id"], a["correct_answer"]] for a in answers],
        ),
    }


def _model_facing_csv(questions) -> bytes:
    header = [
        "question_id",
        "character_id",
        "occupation",
        "scenario_id",
        "stage",
        "age",
        "name",
        "description_for_agent",
        "setting_location",
        "setting_time",
        "setting_atmosphere",
        "context_text",
        "trigger_sender",
        "trigger_message_content",
        "trigger_action_required",
        *(f"option_{label}" for label in OPTION_LABELS),
    ]
    rows = []
    for q in questions:
        s = q["scenario"]
        rows.append(
            [
                q["question_id"],
                q["character"]["character_id"],
                q["character"]["occupation"],
                *(s[f] for f in MODEL_FACING_SCENARIO_FIELDS),
                s["setting"]["location"],
                s["setting"]["time"],
                s["setting"]["atmosphere"],
                s["context_text"],
                s["trigger_event"]["sender"],
                s["trigger_event"]["message_content"],
                s["trigger_event"].get("action_required", ""),
                *(o["content"] for o in q["options"]),
            ]
        )
    return csv_bytes(header, rows)


# --- construction variant ------------------------------------------------------------------


def _username(user) -> str | None:
    return user.get_username() if user is not None else None


def construction_reference(reference) -> dict | None:
    if reference is None:
        return None
    return {
        "id": reference.pk,
        "decision_type": reference.decision_type,
        "source": reference.source,
        "source_candidate": reference.source_candidate_id,
        "source_family": reference.source_family,
        "arbitrator": _username(reference.arbitrator),
        "word_edit_rate": reference.word_edit_rate,
        "supersedes": reference.supersedes_id,
        "superseded_at": _iso(reference.superseded_at),
        "created_at": _iso(reference.created_at),
        "inner_consciousness": reference.inner_consciousness,
        "final_decision": reference.final_decision,
    }


def construction_version(version) -> dict:
    return {
        "number": version.number,
        "origin": version.origin,
        "correct_answer": version.correct_answer,
        "options": version.options,
        "seed": version.seed,
        "assembly_params": version.assembly_params,
        "note": version.note,
        "created_by": _username(version.created_by),
        "created_at": _iso(version.created_at),
    }


def construction_question(item, reference, profile, chain: dict) -> dict:
    return {
        "question_id": item.question_id,
        "character_id": item.character.key,
        "scenario_id": item.scenario.scenario_id,
        "stage": item.stage,
        "status": item.status,
        "version": item.version,
        "correct_answer": item.correct_answer,
        "seed": item.seed,
        "assembly_params": item.assembly_params,
        "source": item.source,
        "created_at": _iso(item.created_at),
        "options": option_dicts(item),
        "reference": construction_reference(reference),
        "profile_version": (
            {
                "number": profile.number,
                "frozen_at": _iso(profile.frozen_at),
                "is_demo_standin": profile.is_demo_standin,
            }
            if profile
            else None
        ),
        "versions": [construction_version(v) for v in item.versions.all()],
        "chain": chain,
    }


def _construction_files(data: FinalSet) -> dict[str, bytes]:
    by_section = {name: fn(data.items) for name, fn in chain_sections()}
    questions = [
        construction_question(
            item,
            data.references[item.pk],
            data.profiles.get(item.character.key),
            {name: found.get(item.pk) for name, found in by_section.items()},
        )
        for item in data.items
    ]
    meta = {
        "chain_sections": sorted(by_section),
        "description": "Every final item with its key, option provenance, versions, "
        "reference and adjudication chain. Construction team only.",
        "format": EXPORT_FORMAT,
        "total_questions": len(questions),
    }
    return {
        "construction/items.json": sorted_json({"dataset_meta": meta, "questions": questions}),
        "construction/items.jsonl": jsonl(questions, sort_keys=True),
    }


# --- the bundle ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ExportBundle:
    files: dict  # path -> bytes, manifest.json included
    manifest: dict

    def zip_bytes(self) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(
            out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL
        ) as archive:
            for path in sorted(self.files):
                info = zipfile.ZipInfo(f"heartbench-final-set/{path}", date_time=ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, self.files[path], compresslevel=ZIP_LEVEL)
        return out.getvalue()

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
        "memories": sum(len(v) for v in data.memories.values()),
        "model_facing_memories": sum(len(data.memories.get(k, [])) for k in targets),
    }


def build_export() -> ExportBundle:
    data = load_final_set()
    files = {
        **_release_files(data),
        **_model_facing_files(data),
        **_construction_files(data),
    }
    manifest = {
        "format": EXPORT_FORMAT,
        "platform_version": platform_version(),
        "counts": export_counts(data),
        "item_versions": {i.question_id: i.version for i in data.items},
        "profile_versions": {k: data.profiles[k].number for k in sorted(data.profiles)},
        "chain_sections": data.section_names,
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
