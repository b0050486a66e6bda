"""Parsers for the public release's JSON files: scenarios, ground truth (reference
responses), MCQs and memory activations (seed 000 App. C.1, D.1-D.3).

Each parser validates one document completely, reports every problem it finds, and adds
only the records without problems to the ParsedCorpus. Checks that need other files or
the database (does the scenario exist, does the stage agree) happen in ``resolve``.
"""

import re

from adjudication.mcq.models import McqItem
from annotation.corpus.models import Scenario
from annotation.corpus_import.corpus import FileKind, Origin, ParsedCorpus
from annotation.corpus_import.fields import Fields, max_length
from annotation.corpus_import.problems import Problems, describe
from annotation.corpus_import.vocabulary import (
    CHARACTER_KEY,
    DIAMONDS_DIMENSIONS,
    IMPORTED_MODEL_FAMILIES,
    MCQ_OPTION_LABELS,
    MEMORY_ID,
    MEMORY_ID_HINT,
    SCENARIO_ID,
    bin_age_problem,
    stage_problem,
)
from core.life_stages import FIRST_AGE, LAST_AGE, LIFE_STAGE_KEYS
from core.protocol import ACTIVATED_MEMORY_LIMIT

_AGE_RANGE = re.compile(r"(\d{1,3})\s*[-–]\s*(\d{1,3})")


def _label(rec, key, index: int, where: str = "") -> str:
    value = rec.get(key) if isinstance(rec, dict) else None
    if isinstance(value, str) and value.strip():
        return value
    return f"#{index + 1}{where}"


def _character_key(f: Fields, key: str) -> str | None:
    value = f.text(key)
    if value is not None and not CHARACTER_KEY.match(value):
        f.report(key, f"must look like CHAR_06, got {describe(value)}")
        return None
    return value


def _scenario_id(f: Fields, key: str) -> str | None:
    value = f.text(key, limit=max_length(Scenario, "scenario_id"))
    if value is not None and not SCENARIO_ID.match(value):
        f.report(key, f"must look like SCN_SCHOOL_AGE_3, got {describe(value)}")
        return None
    return value


def _stage(f: Fields, key: str) -> str | None:
    value = f.text(key)
    if value is None:
        return None
    problem = stage_problem(value)
    if problem:
        f.report(key, problem)
        return None
    return value


def _top_level(doc, problems: Problems, container: str, container_type: type):
    top = Fields(problems, "", doc)
    top.expect_keys([container], ["dataset_meta"])
    items = doc.get(container) if isinstance(doc, dict) else None
    if items is None:
        return None
    if not isinstance(items, container_type):
        wanted = "an array" if container_type is list else "an object"
        top.report(container, f"must be {wanted}, got {describe(items)}")
        return None
    if not items:
        top.report(container, "holds no records")
        return None
    return items


# --- scenarios.json --------------------------------------------------------------------


def parse_scenarios(name: str, doc, corpus: ParsedCorpus) -> int:
    p = corpus.problems_for(name)
    top = Fields(p, "", doc)
    top.expect_keys(["scenarios"], ["dataset_meta"])
    groups = doc.get("scenarios") if isinstance(doc, dict) else None
    entries = []
    if isinstance(groups, dict):
        for stage_key, scenarios in groups.items():
            if stage_key not in LIFE_STAGE_KEYS:
                top.report(f"scenarios.{stage_key}", stage_problem(stage_key))
                continue
            if not isinstance(scenarios, list):
                top.report(f"scenarios.{stage_key}", f"must be an array, got {describe(scenarios)}")
                continue
            entries.extend((stage_key, i, rec) for i, rec in enumerate(scenarios))
    elif isinstance(groups, list):
        entries = [(None, i, rec) for i, rec in enumerate(groups)]
    elif groups is not None:
        top.report(
            "scenarios",
            f"must be an object keyed by life stage or an array, got {describe(groups)}",
        )
    if groups is not None and not entries and not p.any:
        top.report("scenarios", "holds no records")
    for group, i, rec in entries:
        _parse_scenario(name, group, i, rec, p, corpus)
    return len(entries)


def _parse_scenario(name, group, i, rec, p: Problems, corpus: ParsedCorpus) -> None:
    label = _label(rec, "id", i, f" in {group}" if group else "")
    before = p.count
    f = Fields(p, label, rec)
    if not f.expect_keys(
        [
            "id",
            "stage",
            "age_range",
            "age",
            "name",
            "category",
            "intensity",
            "description_for_agent",
            "setting",
            "context_text",
            "trigger_event",
        ],
        ["diamonds_dimension", "action_required"],
    ):
        return
    sid = _scenario_id(f, "id")
    if sid:
        corpus.mentioned_scenarios.add(sid)
    stage = _stage(f, "stage")
    if stage and group and stage != group:
        f.report("stage", f"is {stage}, but the scenario is listed under {group}")
    if sid and stage and not sid.startswith(f"SCN_{stage.upper()}_"):
        f.report("id", f"does not name its stage {stage} (expected SCN_{stage.upper()}_<n>)")
    age = f.integer("age", low=0, high=150)
    if age is not None and stage:
        problem = bin_age_problem(stage, age)
        if problem:
            f.report("age", problem)
    age_range = f.text("age_range", limit=max_length(Scenario, "age_range"))
    if age_range and age is not None:
        bounds = _AGE_RANGE.search(age_range)
        if bounds and not int(bounds.group(1)) <= age <= int(bounds.group(2)):
            f.report("age", f"age {age} is outside the scenario's own age_range {age_range!r}")
    fields = {
        "scenario_id": sid,
        "stage": stage,
        "age_range": age_range,
        "age": age,
        "name": f.text("name", limit=max_length(Scenario, "name")),
        "category": f.text("category", limit=max_length(Scenario, "category")),
        "intensity": f.text("intensity", limit=max_length(Scenario, "intensity")),
        "description_for_agent": f.text("description_for_agent"),
        "context_text": f.text("context_text"),
        "diamonds_dimension": "",
    }
    if f.has("diamonds_dimension"):
        dimension = f.text("diamonds_dimension")
        canonical = {d.lower(): d for d in DIAMONDS_DIMENSIONS}
        if dimension is not None and dimension.lower() not in canonical:
            f.report(
                "diamonds_dimension",
                f"must be one of the DIAMONDS dimensions ({', '.join(DIAMONDS_DIMENSIONS)}), "
                f"got {describe(dimension)}",
            )
        elif dimension is not None:
            fields["diamonds_dimension"] = canonical[dimension.lower()]
    setting = f.child("setting")
    if setting and setting.expect_keys(["location", "time", "atmosphere"]):
        fields["setting_location"] = setting.text("location")
        fields["setting_time"] = setting.text("time", limit=max_length(Scenario, "setting_time"))
        fields["setting_atmosphere"] = setting.text("atmosphere")
    trigger = f.child("trigger_event")
    action = f.text("action_required", allow_empty=True) if f.has("action_required") else None
    if trigger and trigger.expect_keys(["sender", "message_content"], ["action_required"]):
        fields["trigger_sender"] = trigger.text(
            "sender", limit=max_length(Scenario, "trigger_sender")
        )
        fields["trigger_message"] = trigger.text("message_content")
        if trigger.has("action_required"):
            nested = trigger.text("action_required", allow_empty=True)
            if action is not None and nested is not None and action != nested:
                f.report("action_required", "differs from trigger_event.action_required")
            action = nested if nested is not None else action
    fields["action_required"] = action or ""
    if p.count == before:
        corpus.add("scenarios", sid, fields, Origin(name, label), "id")


# --- ground_truth.json -----------------------------------------------------------------


def parse_references(name: str, doc, corpus: ParsedCorpus) -> int:
    p = corpus.problems_for(name)
    pairs = _top_level(doc, p, "pairs", list)
    if pairs is None:
        return 0
    analysed = 0
    empty: list[str] = []
    for i, rec in enumerate(pairs):
        label = f"#{i + 1}"
        if isinstance(rec, dict) and isinstance(rec.get("character_id"), str):
            label = f"{rec.get('character_id')} / {rec.get('scenario_id')}"
        before = p.count
        f = Fields(p, label, rec)
        # pairwise_analysis: the first release's three-model record (history/d81be18);
        # its decisions_by_model import as candidates, its agreement flags are derived.
        if not f.expect_keys(
            ["character_id", "scenario_id", "inner_consciousness", "final_decision", "stage"],
            ["pairwise_analysis"],
        ):
            continue
        fields = {
            "character_key": _character_key(f, "character_id"),
            "scenario_key": _scenario_id(f, "scenario_id"),
            "stage": _stage(f, "stage"),
            "final_decision": f.text("final_decision"),
        }
        inner = f.child("inner_consciousness")
        if inner and inner.expect_keys(
            ["summary", "emotional_tone", "core_reasoning", "value_orientation"]
        ):
            fields["summary"] = inner.text("summary")
            for key in ("emotional_tone", "core_reasoning", "value_orientation"):
                fields[key] = inner.text(key, allow_empty=True)
        decisions = _model_decisions(f, empty)
        if p.count == before:
            key = (fields["character_key"], fields["scenario_key"])
            corpus.add("references", key, fields, Origin(name, label), "scenario_id")
            for family, (model_name, decision) in (decisions or {}).items():
                corpus.add(
                    "candidates",
                    (*key, family),
                    {
                        "character_key": key[0],
                        "scenario_key": key[1],
                        "family": family,
                        "model_name": model_name,
                        "final_decision": decision,
                    },
                    Origin(name, label),
                    "pairwise_analysis.decisions_by_model",
                )
            analysed += decisions is not None
    if analysed:
        corpus.notices.append(
            f"{name}: pairwise_analysis of {analysed} pairs: the three families' decisions "
            "stored as imported candidates (final decision only); the agreement flags are "
            "not stored, they follow from the candidates"
        )
    if empty:
        corpus.notices.append(
            f"{name}: {len(empty)} empty model decisions not imported as candidates: "
            + ", ".join(empty)
        )
    return len(pairs)


def _model_decisions(f: Fields, empty: list) -> dict | None:
    """{family: (model name, final decision)} from a record's pairwise_analysis; empty
    decisions are appended to ``empty`` and left out."""
    analysis = f.child("pairwise_analysis")
    if analysis is None:
        return None
    if not analysis.expect_keys(
        ["decisions_by_model"],
        ignored=[
            "pairwise_agreements",
            "agreeing_pairs_count",
            "has_majority",
            "majority_models",
            "minority_model",
        ],
    ):
        return None
    by_model = analysis.child("decisions_by_model")
    if by_model is None:
        return None
    if not isinstance(by_model.obj, dict) or not by_model.obj:
        by_model.report(
            None, f"must be an object of model name to decision, got {describe(by_model.obj)}"
        )
        return None
    out = {}
    for model_name in by_model.obj:
        family = IMPORTED_MODEL_FAMILIES.get(model_name)
        if family is None:
            by_model.report(
                model_name,
                f"unknown model; expected one of {', '.join(sorted(IMPORTED_MODEL_FAMILIES))}",
            )
            continue
        if family in out:
            by_model.report(model_name, f"a second decision for the {family} family")
            continue
        value = by_model.obj[model_name]
        if isinstance(value, str) and not value.strip():
            # The first release has a few pairs where a model gave no decision: there is
            # no candidate to compare, which is not an error in the file.
            empty.append(f"{f.record} ({model_name})")
            continue
        decision = by_model.text(model_name)
        if decision is not None:
            out[family] = (model_name, decision)
    return out


# --- mcq.json ---------------------------------------------------------------------------


def parse_mcq(name: str, doc, corpus: ParsedCorpus) -> int:
    p = corpus.problems_for(name)
    questions = _top_level(doc, p, "questions", list)
    if questions is None:
        return 0
    for i, rec in enumerate(questions):
        label = _label(rec, "question_id", i)
        before = p.count
        f = Fields(p, label, rec)
        if not f.expect_keys(
            ["question_id", "character_id", "scenario_id", "stage", "correct_answer", "options"]
        ):
            continue
        character = _character_key(f, "character_id")
        fields = {
            "question_id": f.text("question_id", limit=max_length(McqItem, "question_id")),
            "character_key": character,
            "scenario_key": _scenario_id(f, "scenario_id"),
            "stage": _stage(f, "stage"),
        }
        answer = f.text("correct_answer")
        if answer is not None and answer not in MCQ_OPTION_LABELS:
            f.report("correct_answer", f"must be one of A, B, C, D, got {describe(answer)}")
            answer = None
        fields["correct_answer"] = answer
        fields["options"] = _parse_options(f, character, answer)
        if p.count == before:
            corpus.add(
                "mcq_items", fields["question_id"], fields, Origin(name, label), "question_id"
            )
    return len(questions)


def _parse_options(f: Fields, character: str | None, answer: str | None) -> list | None:
    options = f.array("options")
    if options is None:
        return None
    if len(options) != len(MCQ_OPTION_LABELS):
        f.report("options", f"must hold exactly four options (A-D), got {len(options)}")
        return None
    parsed = []
    for i, option in enumerate(options):
        o = Fields(f.problems, f.record, option, f.path("options") + f"[{i}]")
        if not o.expect_keys(
            ["label", "content", "is_correct", "source_character"], ["is_generated"]
        ):
            continue
        label = o.text("label")
        if label is not None and label not in MCQ_OPTION_LABELS:
            o.report("label", f"must be one of A, B, C, D, got {describe(label)}")
            label = None
        source = _character_key(o, "source_character")
        is_correct = o.boolean("is_correct")
        parsed.append(
            {
                "index": i,
                "label": label,
                "content": o.text("content"),
                "is_correct": is_correct,
                "is_generated": bool(o.boolean("is_generated")),
                "source_character": source,
            }
        )
    if len(parsed) != len(options) or any(v is None for o in parsed for v in o.values()):
        return None
    labels = [o["label"] for o in parsed]
    if sorted(labels) != list(MCQ_OPTION_LABELS):
        f.report("options", f"labels must be A, B, C and D once each, got {', '.join(labels)}")
        return None
    correct = [o for o in parsed if o["is_correct"]]
    if len(correct) != 1:
        f.report("options", f"exactly one option must be correct, got {len(correct)}")
        return None
    key = correct[0]
    if answer is not None and key["label"] != answer:
        f.report(
            "correct_answer",
            f"is {answer}, but the option marked is_correct is {key['label']}",
        )
    if character is not None and key["source_character"] != character:
        f.report(
            f"options[{key['index']}].source_character",
            f"the keyed option must come from the target character {character}, "
            f"got {key['source_character']}",
        )
    sources = [o["source_character"] for o in parsed]
    for o in parsed:
        if o is not key and o["source_character"] == character:
            f.report(
                f"options[{o['index']}].source_character",
                f"a distractor must come from another character than {character}",
            )
        elif sources.count(o["source_character"]) > 1 and o is not key:
            f.report(
                f"options[{o['index']}].source_character",
                f"{o['source_character']} supplies more than one option",
            )
            break
    contents = [o["content"] for o in parsed]
    if len(set(contents)) != len(contents):
        f.report("options", "two options have the same content")
    return [
        {k: v for k, v in o.items() if k != "index"}
        for o in sorted(parsed, key=lambda o: o["label"])
    ]


# --- activated_memories_step*.json -----------------------------------------------------


def parse_activations(name: str, doc, corpus: ParsedCorpus, kind: FileKind) -> int:
    p = corpus.problems_for(name)
    step = 1 if kind == FileKind.ACTIVATIONS_STEP1 else 2
    annotations = _top_level(doc, p, "annotations", dict)
    if annotations is None:
        return 0
    count_key = "activated_count" if step == 1 else "final_activated_count"
    count = repeated = 0
    for character, per_scenario in annotations.items():
        if not CHARACTER_KEY.match(str(character)):
            p.add(
                str(character),
                "annotations",
                f"keys must be character ids like CHAR_06, got {character!r}",
            )
            continue
        if not isinstance(per_scenario, dict):
            p.add(
                character,
                f"annotations.{character}",
                f"must be an object keyed by scenario id, got {describe(per_scenario)}",
            )
            continue
        for scenario, rec in per_scenario.items():
            count += 1
            label = f"{character} / {scenario}"
            before = p.count
            f = Fields(p, label, rec)
            if not SCENARIO_ID.match(str(scenario)):
                p.add(
                    label,
                    f"annotations.{character}",
                    f"keys must be scenario ids like SCN_SCHOOL_AGE_3, got {scenario!r}",
                )
                continue
            if not f.expect_keys(
                ["character_id", "scenario_id", "scenario_age", "activated_memories"],
                ignored=[
                    k
                    for k in (rec if isinstance(rec, dict) else {})
                    if k not in _CORE_ACTIVATION_KEYS
                ],
            ):
                continue
            if f.text("character_id") not in (None, character):
                f.report(
                    "character_id",
                    f"is {rec['character_id']}, but the record is filed under {character}",
                )
            if f.text("scenario_id") not in (None, scenario):
                f.report(
                    "scenario_id",
                    f"is {rec['scenario_id']}, but the record is filed under {scenario}",
                )
            scenario_age = f.integer("scenario_age", low=FIRST_AGE, high=LAST_AGE)
            memory_ids, memory_types = _parse_activated(f, character, step)
            details = {k: v for k, v in rec.items() if k not in _CORE_ACTIVATION_KEYS}
            if memory_ids is not None and count_key in rec:
                stated = rec[count_key]
                if (
                    not isinstance(stated, int)
                    or isinstance(stated, bool)
                    or stated != len(memory_ids)
                ):
                    f.report(
                        count_key,
                        f"says {describe(stated)}, but {len(memory_ids)} memories are listed",
                    )
            if p.count == before:
                repeated += len(set(memory_ids)) != len(memory_ids)
                fields = {
                    "character_key": character,
                    "scenario_key": scenario,
                    "step": step,
                    "scenario_age": scenario_age,
                    "memory_ids": memory_ids,
                    "memory_types": memory_types,
                    "details": details,
                }
                corpus.add(
                    "activations",
                    (character, scenario, step),
                    fields,
                    Origin(name, label),
                    "scenario_id",
                )
    if repeated:
        corpus.notices.append(
            f"{name}: {repeated} activation lists name a memory more than once; kept as listed"
        )
    return count


_CORE_ACTIVATION_KEYS = {"character_id", "scenario_id", "scenario_age", "activated_memories"}


def _parse_activated(f: Fields, character: str, step: int):
    items = f.array("activated_memories")
    if items is None:
        return None, None
    # App. D.1: stage-2 refinement retains at most 50 memories.
    if step == 2 and len(items) > ACTIVATED_MEMORY_LIMIT:
        f.report(
            "activated_memories",
            f"step-2 refinement keeps at most {ACTIVATED_MEMORY_LIMIT} memories, got {len(items)}",
        )
    ids, types, ok = [], [], True
    has_types = False
    for i, item in enumerate(items):
        m = Fields(f.problems, f.record, item, f.path("activated_memories") + f"[{i}]")
        if not m.expect_keys(["memory_id"], ["type"]):
            ok = False
            continue
        memory_id = m.text("memory_id")
        match = MEMORY_ID.match(memory_id) if memory_id else None
        if memory_id is None:
            ok = False
        elif not match:
            m.report("memory_id", f"{MEMORY_ID_HINT}, got {describe(memory_id)}")
            ok = False
        elif match and match["char"] != character:
            m.report(
                "memory_id", f"names {match['char']}, but the activation set belongs to {character}"
            )
            ok = False
        ids.append(memory_id)
        if "type" in item:
            has_types = True
            kind = m.text("type", allow_empty=True)
            types.append(kind or "")
        else:
            types.append("")
    if not ok:
        return None, None
    return ids, (types if has_types else [])
