"""The release layouts of the final-set export (``release/``, seed 000 App. D.3, issue #8).

``mcq.json``, ``ground_truth.json``, ``scenarios.json`` and a ``characters.json`` in the
dataset card's layout (the one :mod:`annotation.corpus_import.parse_characters` reads),
each also as JSONL, plus CSVs for spreadsheets. Key order and formatting are the
release's (two-space indent, UTF-8, no trailing newline), so importing the release and
exporting it again gives the release's bytes back except for ``dataset_meta``.

Memory text is the bulk of an export at the paper's scale (11 x 1,000 memories), so the
release writes each memory once: in ``characters.json`` (the file the import reads).
``characters.jsonl`` names each character's memories by id (``memory_ids``, in the
same order) instead of repeating them.
"""

from adjudication.export.encoding import EXPORT_FORMAT, csv_bytes, jsonl, release_json
from adjudication.export.selectors import FinalSet
from adjudication.mcq.models import OPTION_LABELS
from core.life_stages import LIFE_STAGE_KEYS


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
            "trigger_event": trigger_event(scenario),
        }
    )
    return record


def trigger_event(scenario) -> dict:
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


def release_character(profile, memories, *, memories_by_id: bool = False) -> dict:
    """The dataset card's character record; ``memories_by_id`` lists the memories by
    their ids (``memory_ids``, resolved in ``characters.json``) instead of in full."""
    record = {
        "id": profile.character.key,
        "name": profile.construction_label,
        "occupation": profile.occupation,
        "big_five": profile.big_five,
        "description": profile.description,
        "self_value_logic": profile.self_value_logic,
        "core_patterns": profile.core_patterns,
        "is_demo_standin": profile.is_demo_standin,
    }
    if memories_by_id:
        record["memory_ids"] = [m.memory_id for m in memories]
    else:
        record["episodic_memory_set"] = [release_memory(m) for m in memories]
    return record


def release_files(data: FinalSet) -> dict[str, bytes]:
    questions = [release_question(i) for i in data.items]
    # The pairs' current references (adjudicated ones replace imported ones), one per
    # reference, in reference order (for an import, ground_truth.json's own order).
    current = {ref.pk: (i, ref) for i in data.items if (ref := data.ground_truth[i.pk])}
    pairs = [release_pair(*current[pk]) for pk in sorted(current)]
    grouped = {stage: [] for stage in LIFE_STAGE_KEYS}
    for scenario in data.scenarios:
        grouped[scenario.stage].append(release_scenario(scenario))
    grouped = {stage: records for stage, records in grouped.items() if records}
    characters = [
        release_character(data.profiles[key], data.memories.get(key, []))
        for key in sorted(data.profiles)
    ]
    # One line per character, its memories by id: their text is in characters.json.
    character_lines = [
        release_character(data.profiles[key], data.memories.get(key, []), memories_by_id=True)
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
        "release/characters.jsonl": jsonl(character_lines, sort_keys=False),
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
