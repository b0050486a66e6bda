"""The model-facing variant of the final-set export (``model_facing/``, App. E, App. L.1).

Only what an evaluated model may see (App. E field isolation): character id and
occupation, the scenario as the evaluation prompt shows it, the options in their
evaluated order, and memories projected to ``content_full`` under anonymized ids with
their timeline labels. The keys are in ``answers.*``, a separate file.
"""

from adjudication.export.encoding import EXPORT_FORMAT, csv_bytes, jsonl, sorted_json
from adjudication.export.release import trigger_event
from adjudication.export.selectors import FinalSet
from adjudication.mcq.models import OPTION_LABELS

# App. L.1 / App. E: what the evaluation prompt shows of a scenario. The construction
# metadata (category, intensity, DIAMONDS dimension, age range) stays out.
MODEL_FACING_SCENARIO_FIELDS = ("scenario_id", "stage", "age", "name", "description_for_agent")


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
            "trigger_event": trigger_event(scenario),
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


def model_facing_files(data: FinalSet) -> dict[str, bytes]:
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
        "model_facing/items.csv": csv_bytes(*model_facing_table(questions)),
        "model_facing/memories.json": sorted_json({"memories": memories}),
        "model_facing/memories.jsonl": jsonl(memories, sort_keys=True),
        "model_facing/answers.json": sorted_json({"answers": answers}),
        "model_facing/answers.jsonl": jsonl(answers, sort_keys=True),
        "model_facing/answers.csv": csv_bytes(
            ["question_id", "correct_answer"],
            [[a["question_id"], a["correct_answer"]] for a in answers],
        ),
    }


def model_facing_table(questions) -> tuple[list[str], list[list]]:
    """The items as one flat table (header, rows): the CSV's and the Parquet file's."""
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
    return header, rows
