"""Version 1 of the memory generation prompt, in the project's own words after seed 000
App. B.5 and L.3. Plain strings, Django-free.

Version 1 is history once a run used it: a better prompt is the next version, saved from
the prompt pages (``services.prompts.memory_prompt_create``). Placeholders in braces are
filled by ``prompts.render``; any other brace is sent as written.

The protocol's fixed facts (the retrospective expressions the present-moment rule
forbids, the near-term ones it allows, the five Rubin dimensions, the ABCD tiers, the
output fields and their lengths) are named constants here, and the text quotes them all.
"""

from core.life_stages import ADOLESCENCE, CHILDHOOD

# App. L.3's age-stratified language, one line per band. The bands are the life-stage
# bins' (core.life_stages.age_band): childhood is School age, adolescence Adolescence.
AGE_BAND_LANGUAGE = {
    "childhood": (
        f"Childhood, ages {CHILDHOOD.first_age} to {CHILDHOOD.last_age}: simple, direct "
        "words; feelings named concretely; no abstract summing-up and no adult appraisal "
        "of what it meant."
    ),
    "adolescence": (
        f"Adolescence, ages {ADOLESCENCE.first_age} to {ADOLESCENCE.last_age}: some "
        "self-reflection, but not neatly reasoned out; the confusion and the intensity stay."
    ),
    "adulthood": (
        f"Adulthood, age {ADOLESCENCE.last_age + 1} and over: fuller psychological "
        "thinking is possible, still from inside the moment."
    ),
}

# App. L.3 (and the audit's criteria 1-2, App. B.6): expressions that step outside the
# moment of the event. Each is forbidden in every memory.
FORBIDDEN_EXPRESSIONS = (
    ("years later", "jumps ahead in time"),
    ("many years later", "jumps ahead in time"),
    ("later I learned", "knowledge gained after the event"),
    ("later I discovered", "knowledge gained after the event"),
    ("now thinking back", "a narrator looking back from today"),
    ("now recalling", "a narrator looking back from today"),
    ("looking back", "a narrator looking back from today"),
    ("I now understand", "a narrator looking back from today"),
    ("until now", "measures the event against the present"),
    ("I didn't know then", "sets then against now"),
    ("until ... only then", "a delayed realization"),
    ("it took ... to realize", "a delayed realization"),
    ("walked ... before realizing", "a delayed realization"),
    ("if only I had known", "hindsight regret"),
    ("if I had known earlier", "hindsight regret"),
    ("I thought at the time", "sets then against now"),
    ("from then on", "claims a long-term effect"),
    ("thereafter", "claims a long-term effect"),
    ("the whole thing", "a summary judged after the fact"),
    ("the most ... part", "a summary judged after the fact"),
)

# App. L.3: time markers that stay within the aftermath window (same day to one week).
ALLOWED_EXPRESSIONS = (
    ("that evening", "the same day"),
    ("that night", "the same day"),
    ("before bed", "the same day"),
    ("the next day", "one day after"),
    ("the following day", "one day after"),
    ("a few days later", "within a week"),
)

# App. B.5 items 4-8, after Rubin's basic-systems model (2006).
RUBIN_DIMENSIONS = (
    (
        "sensory detail",
        "what could be seen, heard, smelled or touched, placing the scene in one time and place",
    ),
    (
        "dialogue reconstruction",
        "at least one or two exchanges quoted word for word in "
        "quotation marks, showing how the people stand towards each other",
    ),
    (
        "inner monologue",
        "first-person thoughts and feelings as they happened, carrying the "
        "character's trait profile (a high-neuroticism mind catastrophizes, for example)",
    ),
    (
        "somatic response",
        "what the body did: heartbeat, sweating, tight muscles, a knot in "
        "the stomach, nausea; its strength matches the intensity of the episode",
    ),
    (
        "aftermath",
        "what followed within 24 hours to one week: how the episode touched the "
        "character's beliefs or ways of coping, never later than that",
    ),
)

# App. L.3: the ABCD intensity model.
TIER_DESCRIPTIONS = {
    "A": (
        "core wound",
        "a high-intensity event that strikes directly at the character's core "
        "beliefs about themself and others",
    ),
    "B": (
        "main thread",
        "a medium-to-high intensity event in which the character's traits "
        "clearly drive what happens",
    ),
    "C": ("daily friction", "a small conflict or irritation of ordinary life"),
    "D": ("background noise", "an ordinary everyday moment with little emotional charge"),
}

# App. L.3 / B.7 Table 8: the output fields and the lengths that guide generation.
OUTPUT_FIELDS = (
    ("id", "the slot reference given in the request"),
    ("timeline", 'the life stage and the target age, e.g. "adolescence (14 years old)"'),
    ("context", "a scene description of 15-30 words"),
    ("content_summary", "the gist of the event in 20-40 words"),
    (
        "content_full",
        "the first-person narrative, about 2,000-4,500 characters (never more than 10,000)",
    ),
    ("triggers", "4 short cues that could bring this memory back"),
    (
        "psych_conclusion",
        "a psychological reading of 40-80 words (schemas, defence "
        "mechanisms and similar concepts may be named here, not in the narrative)",
    ),
    ("behavior_policy", "the behavioural tendency the episode leaves, in 30-60 words"),
    (
        "emotion_signature",
        "primary and secondary emotion (English words) and an intensity between 0 and 1",
    ),
    ("relevance_tags", "4 tags for retrieval"),
)


def _bullets(pairs, fmt) -> str:
    return "\n".join(fmt.format(a, b) for a, b in pairs)


DEFAULT_SYSTEM = (
    """\
You write episodic autobiographical memories for fictional characters in a research \
project on the Big Five personality model. Every memory you write is one episode from \
one character's life, told by that character at the age it happens.

# Layer 1: who the character is
This specification is fixed; every memory must be consistent with all of it.
- Label: {character_label}
- Occupation: {occupation}
- Big Five (0 to 1): {big_five}
- Description: {description}
- Self-value logic: {self_value_logic}
- The eight core behavioural patterns:
{core_patterns}
A pattern shows up when the situation calls for it; no single memory has to show all \
eight, and none may contradict them.

# Layer 2: where in life we are
This batch covers ages {age_window}, in the life stage "{life_stage}". {life_stage_guidance} \
Each request names the exact age of its memory; the episode happens at that age and fits \
that stage of life.

# Layer 3: what a narrative holds
Unlike a one-line fact ("failed a job interview"), content_full lets the reader live \
through the episode. Weave these five strands together in running prose, with no \
headings, labels or lists for them:
"""
    + _bullets(RUBIN_DIMENSIONS, "- {0}: {1}.")
    + """

# First person and anonymity
- The narrator is always "I". Never refer to the protagonist as he, she or they.
- Never write the character's own name or label anywhere in the memory.
- When someone speaks to the narrator, they say "you", "kid", "classmate", \
"colleague" or a similar form of address, never a name for the narrator. Other people \
may have names.

# The present moment
The narrator stands at the moment of the event, at the age of the event. A memory at 17 \
knows only what a 17-year-old knows then; it never jumps to a later time. These \
expressions are forbidden, and so is anything that works like them:
"""
    + _bullets(FORBIDDEN_EXPRESSIONS, '- "{0}" ({1})')
    + """
Time markers inside the aftermath window are allowed:
"""
    + _bullets(ALLOWED_EXPRESSIONS, '- "{0}" ({1})')
    + """

# Language for the age
Each request names the band of its age.
- """
    + AGE_BAND_LANGUAGE["childhood"]
    + """
- """
    + AGE_BAND_LANGUAGE["adolescence"]
    + """
- """
    + AGE_BAND_LANGUAGE["adulthood"]
    + """

# Intensity tiers (ABCD)
Each request names the tier of its memory. Across the corpus the tiers come in these \
proportions:
- A, core wound (about {share_a}): """
    + TIER_DESCRIPTIONS["A"][1]
    + """.
- B, main thread (about {share_b}): """
    + TIER_DESCRIPTIONS["B"][1]
    + """.
- C, daily friction (about {share_c}): """
    + TIER_DESCRIPTIONS["C"][1]
    + """.
- D, background noise (about {share_d}): """
    + TIER_DESCRIPTIONS["D"][1]
    + """.
The emotion_signature intensity (0 to 1) follows the tier: high for A, low for D. \
Keep ordinary language for mild episodes; clinical vocabulary belongs in \
psych_conclusion at most.

# Variety
Each request names a domain (workplace, interpersonal, health, creative, daily life) \
and lists the scenes already written recently; write a new scene in that domain, not a \
variant of a listed one.

# Output
Answer with one JSON object and nothing else, with these fields:
"""
    + _bullets(OUTPUT_FIELDS, "- {0}: {1}")
    + "\n"
)

DEFAULT_USER = """\
Write one memory for slot {slot_ref}.

Target age: {target_age}
Life-stage bin: {life_stage}
Intensity tier: {tier}
Domain: {domain}
Language for the age: {age_band}

The tier: {tier_name}, {tier_description}.
The timeline field must say the age: "{timeline_example}".

Recent scenes to avoid:
{recent_contexts}
"""

NOTE = "Version 1: the built-in prompt after seed 000 App. B.5 and L.3."
