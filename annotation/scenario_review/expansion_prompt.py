"""The scenario expansion prompt (seed 000 §2.3 Stage 2, App. L.4; the schema of App. C.1),
in the project's own words, with a worked example of our own, and its output schema.

Plain strings and dicts. ``EXPANSION_PROMPT_VERSION`` goes into every
blueprint's call record; a changed text is the next version (version 1, before this
module, carried neither the worked example nor the trait pressures and archetypes).
"""

import json

from annotation.scenario_review.models import SCENARIO_INTENSITIES
from core.life_stages import LIFE_STAGE_BINS

EXPANSION_PROMPT_VERSION = 2

# App. L.4: the Big Five labels, exactly these five; trait_pressures keys are the
# lowercase label + "_pressure", trait_archetypes keys "High_<Label>" or "Low_<Label>".
BIG_FIVE_LABELS = ("Openness", "Conscientiousness", "Extraversion", "Agreeableness", "Neuroticism")
PRESSURE_KEYS = tuple(f"{label.lower()}_pressure" for label in BIG_FIVE_LABELS)
ARCHETYPE_KEY_PATTERN = rf"^(High|Low)_({'|'.join(BIG_FIVE_LABELS)})$"

# Our own worked example (not the paper's), showing every field the model writes. The
# id and stage are filled in by the platform after the expansion.
WORKED_EXAMPLE = {
    "id": "SCN_ADOLESCENCE_4",
    "stage": "adolescence",
    "age": 15,
    "diamonds_dimension": "Deception",
    "name": "The Answer Key in the Group Chat",
    "category": "Honesty Dilemma / Peer Loyalty",
    "intensity": "High",
    "description_for_agent": "A classmate circulates stolen test answers shortly before an "
    "exam, and a teacher's question forces a choice between honesty and loyalty.",
    "setting": {
        "location": "Corridor outside the chemistry lab, beside the lockers",
        "time": "7:55 AM, five minutes before the first bell",
        "atmosphere": "Hushed, jittery, conspiratorial",
    },
    "context_text": "The chemistry midterm starts at eight, and it counts for a third of "
    "the term grade. Last night, at 23:40, a photo landed in the class group chat: the "
    "answer key, snapped on the teacher's desk by Marco, who stayed late to clean the "
    "lab. Within minutes twenty-six people had seen it; the chat filled with fire emojis "
    "and then, suddenly, with messages being deleted. You saw the photo before it "
    "vanished. You did not save it, but you remember the first three answers without "
    "trying. This morning the corridor smells of floor polish and energy drinks. Small "
    "groups whisper with their backs to the wall, and every time the lab door opens they "
    "fall silent. Marco is pale and keeps checking his phone. Ms. Okafor, the chemistry "
    "teacher, walked past twice with a stack of papers and a tight mouth; someone says "
    "she found the key moved on her desk. A rumour says she will give everyone a zero "
    "unless one person tells her what happened. The exam has not started, and the "
    "corridor is waiting to see who speaks first.",
    "trigger_event": {
        "sender": "Ms. Okafor, chemistry teacher",
        "message_content": "(stops right in front of you, lowering the papers, voice quiet "
        "but hard) You're one of the few who never jokes in that chat, so I'm asking you. "
        "(glances at Marco, then back) Somebody photographed my answer key last night. I'm "
        "not interested in the whole class, I want to know who took it and who shared it. "
        "(taps the stack) If I don't know by eight, I cancel this exam for everyone and "
        "write a harder one. (softer) You can tell me here, or in my office, nobody has to "
        "hear. But I need an answer now, not after the test.",
        "action_required": "Decide, before the bell, whether you tell Ms. Okafor what you "
        "know about the photo, deny having seen it, or answer some other way.",
    },
    "assessed_dimensions": {
        "trait_pressures": {
            "agreeableness_pressure": "loyalty to a frightened classmate vs fairness to "
            "everyone who studied",
            "conscientiousness_pressure": "following the rule to report cheating vs "
            "avoiding a role one never asked for",
        }
    },
    "annotation_reference": {
        "trait_archetypes": {
            "High_Agreeableness": "Shields Marco: says nothing by name and offers the "
            "teacher a vague account, then quietly urges Marco to own up himself.",
            "Low_Conscientiousness": "Shrugs it off, says they saw nothing worth mentioning "
            "and leaves the teacher to sort it out.",
        }
    },
}

_STAGE_KEYS = " / ".join(b.key.upper() for b in LIFE_STAGE_BINS)

EXPANSION_SYSTEM_PROMPT = f"""\
You design psychological scenarios for a personality research benchmark. You receive a \
short scenario sketch written by an expert and turn it into one complete scenario, \
written as a single JSON object.

## What the object looks like
Return one JSON object and nothing else (no commentary, no code fence). Here is a \
complete worked example of the format; write a new scenario for the sketch you are \
given, do not reuse this one:
{json.dumps(WORKED_EXAMPLE, ensure_ascii=False, indent=1)}

## The fields
1. id: SCN_<STAGE>_<N> in capitals, STAGE being one of {_STAGE_KEYS}. The platform \
assigns it after the expansion; you may leave the example's pattern.
2. stage: the same stage in lower case; the platform sets it from the sketch.
3. age: the age of the person in the scenario, a whole number inside the life-stage \
bin given with the sketch.
4. diamonds_dimension: the dominant DIAMONDS dimension the sketch names (Duty, \
Intellect, Adversity, Mating, Positivity, Negativity, Deception or Sociality).
5. name: a scenario title in English.
6. category: two short labels joined by " / ".
7. intensity: one of Low, Medium, High, Very High, Extreme.
8. description_for_agent: one sentence that summarises the scenario without giving \
away its concrete details.
9. setting: location, time, and two or three adjectives for the atmosphere.
10. context_text: the background, 150 to 300 words, addressed to "you". Give "you" no \
concrete identity: no age, job, years in a job, schooling, marital or parenting status \
and no money figures about "you", because such details would contradict the memories \
of the character being tested. Describe only what is happening and the pressure of the \
moment; who "you" are comes from the character. Other people in the scene (friends, \
family, colleagues, rivals) may have names and specific details.
11. trigger_event: sender, a concrete role; message_content, 100 to 200 words of \
spoken words with actions and expressions in parentheses, colloquial and emotionally \
loaded; action_required, one or two sentences naming the decision to be made at once.
12. assessed_dimensions.trait_pressures: usually one to three entries. Each key is a \
Big Five trait in lower case followed by _pressure (for example \
conscientiousness_pressure); each value names the dilemma on that trait as \
"X vs Y".
13. annotation_reference.trait_archetypes: exactly one entry per trait in \
trait_pressures. For each such trait choose one pole, High_<Trait> or Low_<Trait>, \
and describe in one or two sentences how a person at that pole typically reacts. These \
references support the later ground-truth annotation.

## Principles
1. Neutral towards character: the scenario presupposes no personality; any character \
could plausibly meet it.
2. No identity anchors for "you": never write that you are so many years old, that you \
have worked somewhere for some years, that you are a given profession, or that you have \
a child of some age. The scenario gives the objective situation and its pressure only.
3. Concrete, not abstract: name places, times and secondary characters, and give \
sensory detail.
4. context_text speaks to "you" in the second person, so the character can step \
straight into the scene.
5. The trigger event is urgent: the response is due now and cannot be postponed.
6. Everything serves the dominant DIAMONDS dimension: the background, the trigger and \
the assessed dimensions all centre on it.
7. Assess only what the scenario can really tell apart: trait pressures that separate \
personalities, not a generic choice between right and wrong.
8. annotation_reference covers assessed_dimensions one to one: the same traits, no \
more, no fewer.
9. Fit the life stage: the situation belongs to the ordinary life of someone in the \
developmental stage given.

## Big Five labels
Use exactly these five: {", ".join(BIG_FIVE_LABELS)}. In trait_pressures keys write \
them in lower case with _pressure ({", ".join(PRESSURE_KEYS)}); in trait_archetypes \
keys write High_ or Low_ followed by the label (High_Agreeableness, Low_Neuroticism).
"""

EXPANSION_USER_TEMPLATE = """\
Life-stage bin: {stage_label} ({age_range}; ages {first_age}-{last_age})
Dominant DIAMONDS dimension: {dimension}
Summary title: {title}
Summary: {summary}

Expand this summary into the full JSON object."""


def expansion_schema_for_ages(first_age: int, last_age: int) -> dict:
    text = {"type": "string", "minLength": 1}
    return {
        "type": "object",
        "required": [
            "name",
            "category",
            "intensity",
            "age",
            "description_for_agent",
            "setting",
            "context_text",
            "trigger_event",
            "assessed_dimensions",
            "annotation_reference",
        ],
        "allOf": _one_archetype_per_pressure(),
        "properties": {
            "name": text,
            "category": text,
            "intensity": {"type": "string", "enum": list(SCENARIO_INTENSITIES)},
            "age": {"type": "integer", "minimum": first_age, "maximum": last_age},
            "description_for_agent": text,
            "setting": {
                "type": "object",
                "required": ["location", "time", "atmosphere"],
                "properties": {"location": text, "time": text, "atmosphere": text},
            },
            "context_text": text,
            "trigger_event": {
                "type": "object",
                "required": ["sender", "message_content", "action_required"],
                "properties": {
                    "sender": text,
                    "message_content": text,
                    "action_required": text,
                },
            },
            "assessed_dimensions": {
                "type": "object",
                "required": ["trait_pressures"],
                "properties": {
                    "trait_pressures": {
                        "type": "object",
                        "minProperties": 1,
                        "propertyNames": {"enum": list(PRESSURE_KEYS)},
                        "additionalProperties": {"type": "string", "pattern": " vs "},
                    }
                },
            },
            "annotation_reference": {
                "type": "object",
                "required": ["trait_archetypes"],
                "properties": {
                    "trait_archetypes": {
                        "type": "object",
                        "minProperties": 1,
                        "propertyNames": {"pattern": ARCHETYPE_KEY_PATTERN},
                        "additionalProperties": text,
                    }
                },
            },
        },
    }


def _one_archetype_per_pressure() -> list[dict]:
    """L.4 principle 8 as schema rules, so a violation is sent back like any other: a
    trait under pressure has exactly one archetype (High_ or Low_), and no other trait has
    one."""
    rules = []
    for label in BIG_FIVE_LABELS:
        poles = [f"High_{label}", f"Low_{label}"]
        has_pole = {"anyOf": [{"required": [p]} for p in poles]}
        rules.append(
            {
                "if": {
                    "properties": {
                        "assessed_dimensions": {
                            "properties": {
                                "trait_pressures": {"required": [f"{label.lower()}_pressure"]}
                            }
                        }
                    }
                },
                "then": {
                    "properties": {
                        "annotation_reference": {
                            "properties": {
                                "trait_archetypes": {**has_pole, "not": {"required": poles}}
                            }
                        }
                    }
                },
                "else": {
                    "properties": {
                        "annotation_reference": {
                            "properties": {"trait_archetypes": {"not": has_pole}}
                        }
                    }
                },
            }
        )
    return rules
