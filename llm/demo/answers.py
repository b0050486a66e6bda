"""What the offline demo provider and the fake server's demo answers say, per prompt kind.

A dry run is only worth something when the demo answers look like the answers the
platform expects: three model families giving three different candidates, a screening
judge whose verdicts pass the App. D.3.1 contract, evaluation answers in the App. L.1
format. The kind of prompt is read from the JSON Schema the caller sends (its property
names), never from the caller's module: `llm/` knows no app. Each answer is drawn from a
random generator seeded by the demo seed, the model name and the prompt, so

- the same seed, model and prompt always give the same answer;
- another model name (another family), persona or scenario gives another answer;
- a schema this module does not recognise, or an answer the schema rejects, falls back
  to the generic schema filler (`offline_demo._Generator`).

Settings, read from the environment at each call unless given:

    HEARTBENCH_DEMO_SEED        integer, default 0: another seed, another dry run
    HEARTBENCH_DEMO_FLAG_SHARE  0-1, default 0.10: the share of D.3.1 screening verdicts
                                that flag a problem, and of memory texts the demo
                                classifier flags on some criterion (it judges the text:
                                a rewrite is judged afresh, and a cue phrase of the
                                criterion, ``demo_audit.CLASSIFIER_CUES``, is always flagged)
    HEARTBENCH_DEMO_MEMORY_FAIL_SHARE
                                0-1, default 0: the share of memory generation answers
                                that break the memory schema on purpose (a missing field,
                                a too-short narrative, an intensity above 1), so a dry
                                run shows retries and failed batches
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .audit import audit_classifier, fact_extract, fact_verdicts, memory_repair
from .judge import comparison_judgment
from .material import (
    DEMO_LABEL,
    NARRATIVE,
    OPENINGS,
    REASONS,
    STANCES,
    TONES,
    content_words,
    decision_options,
    evidence_words,
    excerpt,
    item_data,
    labelled,
    labelled_line,
    matching_ids,
    memory_line,
    pick_words,
    unit_draw,
)
from .memories import memory_answer, spoiled
from .profiles import character_profile

SEED_VARIABLE = "HEARTBENCH_DEMO_SEED"
FLAG_SHARE_VARIABLE = "HEARTBENCH_DEMO_FLAG_SHARE"
MEMORY_FAIL_SHARE_VARIABLE = "HEARTBENCH_DEMO_MEMORY_FAIL_SHARE"
DEFAULT_SEED = 0
DEFAULT_FLAG_SHARE = 0.10
DEFAULT_MEMORY_FAIL_SHARE = 0.0


@dataclass(frozen=True)
class DemoSettings:
    seed: int = DEFAULT_SEED
    flag_share: float = DEFAULT_FLAG_SHARE
    memory_fail_share: float = DEFAULT_MEMORY_FAIL_SHARE

    def __post_init__(self) -> None:
        if not 0.0 <= self.flag_share <= 1.0:
            raise ValueError(f"the demo flag share must be between 0 and 1, not {self.flag_share}")
        if not 0.0 <= self.memory_fail_share <= 1.0:
            raise ValueError(
                f"the demo memory fail share must be between 0 and 1, not {self.memory_fail_share}"
            )

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        seed: int | None = None,
        flag_share: float | None = None,
        memory_fail_share: float | None = None,
    ) -> DemoSettings:
        """Explicit values win; then HEARTBENCH_DEMO_SEED / _FLAG_SHARE /
        _MEMORY_FAIL_SHARE; then the defaults."""
        env = os.environ if environ is None else environ
        if seed is None:
            raw = env.get(SEED_VARIABLE) or str(DEFAULT_SEED)
            try:
                seed = int(raw)
            except ValueError:
                raise ValueError(f"{SEED_VARIABLE} must be an integer, not {raw!r}") from None
        if flag_share is None:
            raw = env.get(FLAG_SHARE_VARIABLE) or str(DEFAULT_FLAG_SHARE)
            try:
                flag_share = float(raw)
            except ValueError:
                raise ValueError(f"{FLAG_SHARE_VARIABLE} must be a number, not {raw!r}") from None
        if memory_fail_share is None:
            raw = env.get(MEMORY_FAIL_SHARE_VARIABLE) or str(DEFAULT_MEMORY_FAIL_SHARE)
            try:
                memory_fail_share = float(raw)
            except ValueError:
                raise ValueError(
                    f"{MEMORY_FAIL_SHARE_VARIABLE} must be a number, not {raw!r}"
                ) from None
        return cls(seed=seed, flag_share=flag_share, memory_fail_share=memory_fail_share)


def seed_material(settings: DemoSettings, model: str, prompt_key: str) -> str:
    """What seeds one answer: the demo seed, the model name and the prompt."""
    return f"{settings.seed}\x00{model}\x00{prompt_key}"


# --- which prompt is this -------------------------------------------------------------


def _props(schema: Any) -> set[str]:
    if not isinstance(schema, dict):
        return set()
    return set(schema.get("properties") or {})


def prompt_kind(schema: Any) -> str:
    """The platform prompt a schema belongs to, by its property names; "generic" else."""
    if isinstance(schema, dict) and schema.get("type") == "array":
        if {"memory_id", "reason"} <= _props(schema.get("items")):
            return "activation_screening"
        return "generic"
    props = _props(schema)
    if "activated_memories" in props:
        return "rerank"
    if {"option_assessments", "checks", "needs_human_review", "selection"} <= props:
        return "mcq_screening"
    if {"suitability", "selected_letter", "selection_rationale"} <= props:
        return "comparison_judgment"
    if "decision_choice" in props:
        return "evaluation_answer"
    if {"inner_consciousness", "final_decision"} <= props:
        return "candidate_response"
    if {"context_text", "trigger_event", "setting"} <= props:
        return "scenario_expansion"
    if {"content_full", "psych_conclusion", "behavior_policy", "emotion_signature"} <= props:
        return "memory_generation"
    if props and props <= {"context", "content_summary", "content_full"}:
        return "memory_repair"
    if props == {"facts"}:
        return "fact_extract"
    if {"verdicts", "invented"} <= props:
        return "fact_check"
    if {"defect", "rationale"} <= props:
        return "audit_classifier"
    if {"selected", "justification"} <= props:
        return "distractor_selection"
    if {"char_key", "big_five", "core_patterns"} <= props:
        return "character_profile"
    return "generic"


# --- one builder per prompt kind ------------------------------------------------------


@dataclass
class Prompt:
    system: str
    user: str
    schema: Any
    model: str
    settings: DemoSettings
    rng: random.Random

    @property
    def text(self) -> str:
        return f"{self.system}\n{self.user}"


def _activation_screening(p: Prompt) -> Any:
    item = p.schema.get("items") or {}
    pattern = ((item.get("properties") or {}).get("memory_id") or {}).get("pattern")
    offered = matching_ids(p.user, pattern)
    if not offered:
        return []
    count = max(1, round(len(offered) * p.rng.uniform(0.35, 0.75)))
    chosen = sorted(p.rng.sample(offered, count), key=offered.index)
    return [
        {
            "memory_id": memory_id,
            "reason": labelled(
                f"{memory_id} bears on this moment: "
                + " ".join(pick_words(p.rng, content_words(memory_line(p.user, memory_id)), 4))
                + "."
            ),
        }
        for memory_id in chosen
    ]


def _rerank(p: Prompt) -> Any:
    field = (p.schema.get("properties") or {}).get("activated_memories") or {}
    item_props = (field.get("items") or {}).get("properties") or {}
    pattern = (item_props.get("memory_id") or {}).get("pattern")
    types = (item_props.get("type") or {}).get("enum")
    offered = matching_ids(p.user, pattern)
    if not offered:
        return None
    high = min(len(offered), int(field.get("maxItems") or len(offered)))
    low = min(high, max(1, int(field.get("minItems") or 1)))
    count = p.rng.randint(max(low, (2 * high) // 3), high)
    chosen = sorted(p.rng.sample(offered, count), key=offered.index)
    out = []
    for memory_id in chosen:
        entry = {"memory_id": memory_id, "reason": labelled(f"{memory_id} shapes the decision.")}
        if types:
            entry["type"] = p.rng.choice(types)
        out.append(entry)
    return {"activated_memories": out}


def _persona(p: Prompt) -> str:
    """Who answers, as the prompt's character block names them: the occupation where a
    block gives one, else the character's label (App. B.2 gives a candidate response no
    occupation)."""
    occupation = labelled_line(p.text, "Occupation:")
    if occupation:
        return f"a {occupation.lower()}"
    return labelled_line(p.text, "Name:") or "myself"


def _scenario_words(p: Prompt) -> list[str]:
    parts = [
        labelled_line(p.text, "Decision required:"),
        labelled_line(p.text, "Required decision:"),
        re.sub(r"^Trigger \([^)]*\):", "", labelled_line(p.text, "Trigger")),
        labelled_line(p.text, "Background:"),
        labelled_line(p.text, "Setting:"),
    ]
    return content_words(" ".join(parts))


_VERBS = ("stay", "act", "speak", "wait", "leave", "help")
_WHEN = ("today", "right now", "before dinner", "without delay", "in person")


def _candidate_response(p: Prompt) -> Any:
    persona = _persona(p)
    sender = re.search(r"Trigger \(([^)]*)\)", p.text)
    who = sender.group(1) if sender else "them"
    words = _scenario_words(p)
    about = ", ".join(pick_words(p.rng, words, 3))
    topic = " and the ".join(pick_words(p.rng, words, 2))
    decision = (
        f"{p.rng.choice(STANCES)}. I answer {who} about the {topic} and "
        f"{p.rng.choice(_VERBS)} {p.rng.choice(_WHEN)}."
    )
    value: dict[str, Any] = {
        "inner_consciousness": {
            "summary": labelled(f"{p.rng.choice(OPENINGS)} As {persona}, I weigh {about}."),
            "emotional_tone": labelled(p.rng.choice(TONES)),
            "core_reasoning": labelled(p.rng.choice(REASONS)),
        },
        "final_decision": labelled(decision),
    }
    character = re.search(r"ID: (\S+)\s*\nName:", p.text)
    scenario = re.search(r"ID: (\S+)\s*\nAge:", p.text)
    if character:
        value["character_id"] = character.group(1)
    if scenario:
        value["scenario_id"] = scenario.group(1)
    return value


def _evaluation_answer(p: Prompt) -> Any:
    options = decision_options(p.user)
    enum = ((p.schema.get("properties") or {}).get("decision_choice") or {}).get("enum")
    labels = [label for label, _ in options if not enum or label in enum] or list(enum or "ABCD")
    texts = dict(options)
    # A persona-minded demo: with profile or memories shown, it leans to the option that
    # shares the most words with them, so the evaluation settings can differ.
    evidence = evidence_words(p.user)
    choice = p.rng.choice(labels)
    if evidence and p.rng.random() < 0.6:
        scores = {
            label: len(evidence & set(content_words(texts.get(label, ""), 400))) for label in labels
        }
        choice = max(labels, key=lambda label: (scores[label], label == choice))
    words = content_words(texts.get(choice, ""))
    return {
        "system_1_impulse": {
            "thought": labelled(p.rng.choice(OPENINGS)),
            "emotion": labelled(p.rng.choice(TONES).split(";")[0]),
            "citation": labelled(" ".join(pick_words(p.rng, sorted(evidence), 4))),
        },
        "system_2_rational": {
            "analysis": labelled(p.rng.choice(REASONS)),
            "plan": labelled(f"I {' '.join(pick_words(p.rng, words, 3))}."),
        },
        "inner_consciousness": labelled(p.rng.choice(REASONS)),
        "final_decision": labelled(texts.get(choice, "I choose this.")),
        "decision_choice": choice,
    }


_DIMENSIONS = ("Duty", "Intellect", "Adversity", "Mating", "pOsitivity", "Negativity", "Deception")
_PLACES = (
    ("a crowded train platform", "Friday, 18:40", "noisy, cold, hurried"),
    ("the back room of a small bakery", "Sunday, early morning", "warm, cramped, quiet"),
    ("a hospital corridor", "Tuesday, 23:10", "bright, sterile, tense"),
    ("a rooftop after a party", "Saturday, past midnight", "windy, loud, unsettled"),
    ("a school office", "Monday, 15:30", "stuffy, formal, hushed"),
    ("a kitchen in a shared flat", "Wednesday, 20:00", "messy, humid, strained"),
)
_SENDERS = ("your older sister", "a colleague, Mara", "your coach", "a neighbour, Mr. Osei")


def _scenario_expansion(p: Prompt) -> Any:
    props = p.schema.get("properties") or {}
    age = props.get("age") or {}
    low, high = int(age.get("minimum", 18)), int(age.get("maximum", age.get("minimum", 18) + 5))
    title = labelled_line(p.user, "Summary title:") or "A hard choice"
    summary = labelled_line(p.user, "Summary:") or "Someone asks something difficult of you."
    dimension = labelled_line(p.user, "Dominant DIAMONDS dimension:") or p.rng.choice(_DIMENSIONS)
    intensities = (props.get("intensity") or {}).get("enum") or ["Medium"]
    location, time, atmosphere = p.rng.choice(_PLACES)
    sender = p.rng.choice(_SENDERS)
    narrative = " ".join(p.rng.sample(NARRATIVE, 12))
    for first, second in (("I am", "you are"), ("I ", "you "), ("my ", "your "), ("My ", "Your ")):
        narrative = narrative.replace(first, second)
    narrative = re.sub(r"(^|[.!?] )you", lambda m: m.group(1) + "You", narrative)
    context = f"{DEMO_LABEL} You are at {location}. {summary} {narrative}"
    return {
        "name": labelled(title),
        "category": f"{dimension} / {p.rng.choice(['Family', 'Work', 'Friendship', 'School'])}",
        "intensity": p.rng.choice(intensities),
        "age": p.rng.randint(low, max(low, high)),
        "description_for_agent": labelled(f"You must answer {sender} about: {title.lower()}."),
        "setting": {"location": location, "time": time, "atmosphere": atmosphere},
        "context_text": context,
        "trigger_event": {
            "sender": sender,
            "message_content": labelled(
                f"(leaning closer) Listen, I need an answer now. {summary} "
                "(voice dropping) Please do not make me ask twice."
            ),
            "action_required": labelled("Decide right now whether you agree, and tell them."),
        },
        **_trait_pressure(p),
    }


_TRAITS = ("Openness", "Conscientiousness", "Extraversion", "Agreeableness", "Neuroticism")


def _trait_pressure(p: Prompt) -> dict:
    """App. L.4's assessed trait pressure and its annotation archetype, when asked for."""
    if "assessed_dimensions" not in (p.schema.get("properties") or {}):
        return {}
    trait = p.rng.choice(_TRAITS)
    pole = p.rng.choice(("High", "Low"))
    return {
        "assessed_dimensions": {
            "trait_pressures": {f"{trait.lower()}_pressure": "saying yes now vs holding back"}
        },
        "annotation_reference": {
            "trait_archetypes": {f"{pole}_{trait}": labelled("Answers in the way this pole would.")}
        },
    }


@dataclass(frozen=True)
class DeliberatelyInvalid:
    """An answer that breaks its schema on purpose: the demo provider sends it as is
    instead of falling back to the schema filler."""

    value: Any


def _memory_generation(p: Prompt) -> Any:
    value = memory_answer(user=p.user, schema=p.schema, rng=p.rng)
    if (
        unit_draw(p.settings.seed, p.model, "memory", p.system, p.user)
        < p.settings.memory_fail_share
    ):
        return DeliberatelyInvalid(spoiled(value, p.rng))
    return value


def _distractor_selection(p: Prompt) -> Any:
    data = item_data(p.user) or {}
    ids = [c.get("id") for c in data.get("candidates") or [] if isinstance(c, dict)]
    ids = [i for i in ids if isinstance(i, str)]
    field = (p.schema.get("properties") or {}).get("selected") or {}
    count = int(field.get("minItems") or 3)
    if len(ids) < count:
        return None
    chosen = sorted(p.rng.sample(ids, count), key=ids.index)
    return {
        "selected": chosen,
        "justification": labelled(
            f"{', '.join(chosen)} are plausible here and differ from the key."
        ),
    }


RULES = ("R1", "R2", "R3", "R4", "R5", "R6")


def _mcq_screening(p: Prompt) -> Any:
    """An App. D.3.1 verdict that passes the platform's contract check: every option and
    rule once, excerpts copied from the input, R1 and needs_human_review consistent."""
    data = item_data(p.user)
    if data is None:
        return None
    key = data.get("answer_key")
    options = {o["label"]: str(o.get("text") or "") for o in data.get("options") or []}
    labels = ("A", "B", "C", "D")
    flagged = (
        unit_draw(p.settings.seed, p.model, data.get("item_id"), data.get("item_version"))
        < p.settings.flag_share
    )

    def anchor(label: str) -> list[dict]:
        text = options.get(label, "")
        if not text.strip():
            return [{"input_path": "item_id", "excerpt": str(data.get("item_id"))}]
        index = sorted(options).index(label)
        return [{"input_path": f"options[{index}].text", "excerpt": excerpt(text)}]

    assessments = [
        {
            "option_id": label,
            "assessment": labelled(
                "The keyed response fits the profile and the scenario best."
                if label == key
                else p.rng.choice(
                    [
                        "Plausible, but less supported by the profile.",
                        "A reasonable choice for someone else; weaker fit here.",
                        "Relevant to the decision; the memories point elsewhere.",
                    ]
                )
            ),
            "evidence_anchors": anchor(label) if label in options else [],
        }
        for label in labels
    ]
    checks = {rule: "pass" for rule in RULES}
    issues = []
    if flagged:
        rule = p.rng.choice(RULES[1:])
        checks[rule] = p.rng.choice(["flag", "uncertain"])
        distractors = [label for label in sorted(options) if label != key] or [key or "A"]
        named = distractors[:2] if rule == "R2" else [p.rng.choice(distractors)]
        issues.append(
            {
                "rule_id": rule,
                "option_ids": named,
                "description": labelled(f"Option {named[0]} may break {rule}; please look."),
                "evidence_anchors": anchor(named[0]) if named[0] in options else [],
                "missing_information": "" if named[0] in options else "the option text",
                "impact": labelled("The item could be ambiguous for a reader."),
                "suggested_human_action": labelled(f"Review option {named[0]} under {rule}."),
            }
        )
    return {
        "item_id": data.get("item_id"),
        "item_version": data.get("item_version"),
        "selection": {
            "status": "unique_best",
            "best_option": key,
            "tied_options": [],
            "justification": labelled(f"Option {key} follows from the profile and memories."),
        },
        "option_assessments": assessments,
        "checks": [
            {"rule_id": rule, "status": status, "comment": labelled(f"{rule} {status}.")}
            for rule, status in checks.items()
        ],
        "issues": issues,
        "needs_human_review": flagged,
    }


BUILDERS: dict[str, Callable[[Prompt], Any]] = {
    "activation_screening": _activation_screening,
    "rerank": _rerank,
    "candidate_response": _candidate_response,
    "evaluation_answer": _evaluation_answer,
    "scenario_expansion": _scenario_expansion,
    "memory_repair": memory_repair,
    "fact_extract": fact_extract,
    "fact_check": fact_verdicts,
    "memory_generation": _memory_generation,
    "audit_classifier": audit_classifier,
    "distractor_selection": _distractor_selection,
    "mcq_screening": _mcq_screening,
    "character_profile": character_profile,
    "comparison_judgment": comparison_judgment,
}


def kind_answer(prompt: Prompt) -> Any | None:
    """The answer of the prompt's kind, or None (generic kind, or nothing to answer with)."""
    builder = BUILDERS.get(prompt_kind(prompt.schema))
    if builder is None:
        return None
    try:
        return builder(prompt)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None  # a prompt shaped unlike the platform's: the generic filler answers
