"""The demo answer for the memory generation prompt (seed 000 App. B.5, B.7, L.3).

It reads the slot from the user prompt's labelled lines ("Target age:", "Life-stage
bin:", "Intensity tier:", "Domain:") and writes one memory in the B.7 schema: a
first-person narrative told from inside the moment (no later knowledge, no hindsight
phrases), 2,000–4,500 characters, weaving the five narrative dimensions (surroundings,
spoken lines in quotes, in-the-moment thoughts, the body's response, the same day or the
next few days after), with an emotional intensity inside the tier's band. Sentences are
drawn and combined from banks per domain and age group, so no two memories read the
same; they still share their function words, so the audit's TF-IDF duplicate check
(criterion 4, cosine > 0.85) flags some pairs within a bin, as it does for the demo's
other stand-ins. Every sentence-like field starts with the demo label. Pure text; no
Django.
"""

from __future__ import annotations

import random
import re
from typing import Any

from .demo_material import DEMO_LABEL, labelled, labelled_line, matching_ids

# App. L.3 tiers on the [0, 1] intensity scale: A core wounds, B main-thread episodes,
# C daily friction, D ordinary days.
TIER_INTENSITY = {"A": (0.82, 0.97), "B": (0.6, 0.8), "C": (0.38, 0.58), "D": (0.12, 0.34)}
TIER_EMOTIONS = {
    "A": [
        ("fear", "shame"),
        ("grief", "anger"),
        ("humiliation", "helplessness"),
        ("terror", "guilt"),
    ],
    "B": [("anxiety", "hope"), ("pride", "nervousness"), ("anger", "hurt"), ("longing", "resolve")],
    "C": [("irritation", "embarrassment"), ("frustration", "amusement"), ("unease", "relief")],
    "D": [("contentment", ""), ("calm", "curiosity"), ("mild boredom", ""), ("quiet joy", "")],
}
DOMAINS = ("workplace", "interpersonal", "health", "creative", "daily life")
CONTENT_RANGE = (2000, 4500)

PLACES = {
    "workplace": [
        "the back office with the humming printer",
        "a glass meeting room on the fourth floor",
        "the loading dock behind the warehouse",
        "a shared desk by the window in the open-plan office",
        "the staff kitchen with its dripping tap",
        "the site cabin at the edge of the car park",
    ],
    "school": [
        "the classroom with the crooked blinds",
        "the corridor outside the head teacher's office",
        "the school canteen at lunchtime",
        "the edge of the playground near the fence",
        "the library corner with the beanbags",
        "the changing room after a swimming lesson",
    ],
    "interpersonal": [
        "my cousin's crowded kitchen",
        "the bench outside the corner shop",
        "the hallway of our flat",
        "a café table by the steamed-up window",
        "the back seat of my aunt's car",
        "the stairwell between the third and fourth floors",
    ],
    "health": [
        "the waiting room of the clinic",
        "a narrow bed in the emergency ward",
        "the pharmacy queue on a Saturday",
        "the bathroom floor at home",
        "the physiotherapist's room with the paper sheet",
        "a hospital corridor that smells of disinfectant",
    ],
    "creative": [
        "the art room with paint-stiff brushes",
        "a rehearsal space above a garage",
        "my desk covered in sketches",
        "the community hall before the show",
        "a cramped practice room with a broken metronome",
        "the kitchen table spread with cardboard and glue",
    ],
    "daily life": [
        "the bus stop in the drizzle",
        "the supermarket aisle with the flickering light",
        "our balcony at dusk",
        "the laundrette with its warm, soapy air",
        "the park path along the canal",
        "the kitchen while the rice boils over",
    ],
}
PEOPLE = {
    "child": [
        "my mother",
        "my father",
        "my teacher, Ms. Alvarez",
        "my best friend Tomas",
        "my big sister",
        "a boy from my class",
        "my grandmother",
        "the dinner lady",
    ],
    "teen": [
        "my coach",
        "my friend Priya",
        "my younger brother",
        "a girl from the year above",
        "my form tutor",
        "my stepfather",
        "the neighbour's son",
        "my lab partner",
    ],
    "adult": [
        "my manager, Dana",
        "a colleague, Kwame",
        "my partner",
        "my landlord",
        "an old friend, Ines",
        "the nurse on duty",
        "my sister-in-law",
        "a client, Mr. Halloran",
    ],
}
SIGHTS = [
    "the light is thin and grey and shows every smear on the window",
    "a plastic bag drifts across the ground and catches on a railing",
    "someone has left a half-eaten apple on the sill, already going brown",
    "the clock above the door is two minutes fast, as always",
    "a strip of yellow tape peels off the floor near my feet",
    "the streetlamp outside flickers on though it is not dark yet",
    "there is a coffee ring on the paper in front of me",
    "a pigeon walks in circles near the open door",
]
SOUNDS = [
    "a radio somewhere plays a song I half know",
    "the fridge clicks and starts to hum",
    "rain taps unevenly on the roof",
    "a chair scrapes across the floor behind me",
    "traffic hisses past on the wet road",
    "somebody laughs too loudly in the next room",
    "keys jingle in a pocket as someone walks by",
    "the heating pipes knock twice and go quiet",
]
SMELLS = [
    "it smells of wet coats and floor polish",
    "there is a smell of burnt toast and coffee",
    "the air smells of chlorine and rubber",
    "I can smell cut grass through the open window",
    "someone is eating oranges and the smell fills the room",
    "the place smells of dust and old paper",
    "there is a sharp smell of cleaning fluid",
]
TOUCH = [
    "the edge of the table is sticky under my fingers",
    "my sleeves are damp at the wrists",
    "the chair is cold through my jeans",
    "my shoelace has come undone and I leave it",
    "the strap of my bag cuts into my shoulder",
    "the paper is soft and worn where I keep folding it",
]
BODY = {
    "high": [
        "My heart is going so fast I can feel it in my throat.",
        "My hands are shaking and I press them flat against my legs.",
        "There is a hot, tight feeling behind my eyes.",
        "My stomach drops, as if the floor has moved.",
        "I cannot get a full breath; it stops halfway every time.",
        "Sweat runs down my back under my shirt.",
    ],
    "mid": [
        "My shoulders are up near my ears and I make them come down.",
        "My face goes warm and I look at the floor.",
        "My jaw aches and I notice I have been clenching it.",
        "My fingers keep tapping on my knee.",
        "My mouth is dry and I swallow twice.",
    ],
    "low": [
        "My shoulders loosen a little.",
        "I yawn and stretch my arms above my head.",
        "My feet are warm for the first time today.",
        "I notice I am breathing slowly and evenly.",
        "My legs feel heavy in a pleasant way.",
    ],
}
THOUGHTS = {
    "child": [
        "I want to go home right now.",
        "Maybe if I am very quiet nobody will see me.",
        "I do not understand why everyone is looking.",
        "I wish my mum was here.",
        "I think I did something wrong but I do not know what.",
        "It is not fair, I tell myself, it is just not fair.",
        "I count my fingers under the table to stay calm.",
    ],
    "teen": [
        "Everyone must be able to tell, I think, everyone.",
        "I hate that I care this much about what they say.",
        "Part of me wants to shout and part of me wants to vanish.",
        "I keep replaying the last thing I said and it sounds worse each time.",
        "Why is it always me who has to fix things?",
        "I tell myself to act normal, whatever normal is.",
        "I am not going to cry here. Not here.",
    ],
    "adult": [
        "I run through the options in my head and none of them is good.",
        "I can feel the old urge to smooth everything over, and I notice it.",
        "I am angry, and underneath the anger I am scared.",
        "I tell myself to slow down and answer the question that was asked.",
        "I wonder whether I am being unreasonable, and decide I am not.",
        "There is a list in my head of everything still undone today.",
        "I want to be fair to them and to myself at the same time.",
    ],
}
SAYINGS = {
    "child": [
        ("Are you all right, sweetheart?", "I'm fine."),
        ("Who did this?", "It wasn't me, I promise."),
        ("Come here, let me see.", "It doesn't hurt that much."),
        ("You can sit with us if you want.", "Really?"),
        ("Why are you crying?", "I don't know."),
    ],
    "teen": [
        ("You're overreacting, you know that?", "Maybe. I don't care."),
        ("Can we talk about it later?", "We always say later."),
        ("Did you really mean that?", "I don't know what I meant."),
        ("Just tell me the truth.", "Fine. I was scared."),
        ("Everyone's waiting for you.", "Then let them wait a minute."),
    ],
    "adult": [
        ("I need an answer by the end of the day.", "You'll have it by five."),
        ("Are you sure you're okay with this?", "No, but I'll manage."),
        ("I thought you'd be pleased.", "I am. I'm also tired."),
        ("Can I be honest with you?", "Please."),
        ("We can't keep doing it this way.", "I know. So what do we change?"),
    ],
}
EVENTS = {
    "workplace": [
        "a deadline moves up without warning",
        "my work is criticised in front of others",
        "I am asked to cover a shift I cannot manage",
        "a plan I suggested is finally tried",
    ],
    "school": [
        "the teacher reads out the test marks",
        "I am picked last for a team",
        "my drawing is pinned on the wall",
        "I forget my lines in assembly",
    ],
    "interpersonal": [
        "a friend cancels at the last minute",
        "someone I trust says something unkind",
        "we make up after a long silence",
        "I am asked to keep a secret",
    ],
    "health": [
        "the test result is not what I hoped",
        "a sudden pain stops me halfway up the stairs",
        "I wait for someone to come out of surgery",
        "the doctor says it is nothing serious",
    ],
    "creative": [
        "the piece I worked on for weeks falls apart",
        "a stranger stops to look at what I made",
        "I freeze before I am due to play",
        "an idea finally works on the page",
    ],
    "daily life": [
        "the bus does not come",
        "I lose my keys on the way home",
        "a neighbour knocks with a plate of food",
        "the washing machine floods the floor",
    ],
}
AFTER = [
    "That evening I lie awake and listen to the pipes, going over what was said.",
    "Before bed I write two lines about it on the back of a receipt and throw it away.",
    "The next day I catch myself checking my phone for a message that does not come.",
    "The following morning my legs still feel shaky when I climb the stairs.",
    "A few days later I walk past the same spot and my chest tightens for a second.",
    "That night I eat standing up in the kitchen, not hungry, just busy with my hands.",
    "The next day I tell one person about it, quickly, and change the subject.",
    "That evening I tidy my room for an hour without deciding to.",
]
TRIGGER_WORDS = {
    "workplace": ["printer noise", "a sudden deadline", "a raised voice", "an email flag"],
    "school": ["a teacher's red pen", "the school bell", "being picked last", "lunch trays"],
    "interpersonal": [
        "a cancelled plan",
        "a long silence",
        "a friend's tone",
        "an unanswered text",
    ],
    "health": ["disinfectant smell", "a waiting room", "a doctor's pause", "sudden pain"],
    "creative": ["a blank page", "stage lights", "a broken string", "wet paint"],
    "daily life": ["rain at a bus stop", "lost keys", "a knock at the door", "a flooded floor"],
}
CONCLUSIONS = [
    "Being seen failing feels worse than failing; fear of judgement shapes what is risked next.",
    "Help offered without conditions is hard to accept when self-reliance has been the safe way.",
    "Control over small things steadies the self when larger things slip out of reach.",
    "Anger here protects a softer hurt about not being counted on.",
    "Quiet competence earns a sense of worth that praise alone does not.",
    "Closeness feels safest when it is chosen, not demanded.",
]
POLICIES = [
    "When judged in public, go quiet first, then answer once the heat drops.",
    "Prepare early for anything that can be checked by others.",
    "Say yes to help only after a pause, and thank people twice.",
    "Keep hands busy when feelings run high; decide after the task is done.",
    "Name the problem plainly and offer one concrete fix.",
    "Check in with the people involved the next day instead of waiting for them.",
]


DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
REPLIES = ("too quickly", "in a small voice", "with a joke", "honestly", "after a long pause")


def _after_clause(rng: random.Random) -> str:
    sentence = rng.choice(AFTER).rstrip(".")
    return sentence[:1].lower() + sentence[1:]


def _age_group(age: int) -> str:
    return "child" if age <= 12 else "teen" if age <= 18 else "adult"


def _int_line(text: str, label: str, default: int) -> int:
    match = re.search(r"\d+", labelled_line(text, label))
    return int(match.group(0)) if match else default


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _words(rng: random.Random, clauses: list[str], low: int, high: int) -> str:
    """The first clause, then more of ``clauses`` while the text stays within low–high
    words (the demo label's three included)."""
    target = rng.randint(low, high) - 3
    words = clauses[0].split()
    for clause in clauses[1:]:
        more = clause.split()
        if len(words) + len(more) > target:
            continue
        words += more
    while len(words) < low - 3:
        words += rng.choice(clauses[1:]).split()
    return labelled(" ".join(words[: high - 3]).rstrip(",;") + ".")


# Small banks combined per sentence, so two memories rarely share a sentence.
COLOURS = "grey yellow faded green navy rust-red pale-blue cream chipped-white brown".split()
THINGS = (
    "mug umbrella folder backpack poster kettle notebook jacket lunchbox lamp scarf "
    "bicycle bucket radiator curtain calendar sandwich bottle sticker tray"
).split()
SPOTS = (
    "by the door|on the floor|against the wall|on the windowsill|under the table|"
    "on a hook|next to the sink|on the shelf|by my elbow|in the corner"
).split("|")
MOVES = ("leans|sits|lies|waits|hangs|rests|tilts|sags|balances|stands").split("|")


VEHICLES = "van bus tram scooter taxi bicycle ambulance lorry motorbike delivery-cart".split()
PASSING = (
    "rattles past|idles at the lights|brakes hard|turns the corner|hoots twice|splashes by".split(
        "|"
    )
)
SURFACES = "bench railing desk floor counter doorframe blanket seat windowpane banister".split()
TEXTURES = "gritty cold warm sticky smooth damp rough dusty greasy ridged".split()
LIMBS = "palms fingertips knees elbows wrists thumbs forearms".split()
HANDLING = "straighten|turn over|pick up|push away|fold|wipe|tap|hold up".split("|")
PAUSES = (
    "put it back|wait|breathe out|look at the window|count to ten|swallow|say nothing|bite my lip"
).split("|")
TASTES = "metal salt mint dust sugar smoke coffee pencil-shavings rain soap".split()
SKIN = "neck ears cheeks fingers knees scalp toes".split()
FEELING = "prickle|burn|go numb|feel hot|feel cold|tingle|ache".split("|")
NOISES = (
    "a dog barks twice|a baby starts crying|a phone buzzes on a table|a door slams|"
    "a kettle whistles|someone whistles a tune|a trolley squeaks|a window rattles|"
    "a tap drips|a lift pings"
).split("|")


def _detail(rng: random.Random) -> str:
    """One sensory sentence made of small banks."""
    kind = rng.randrange(6)
    if kind == 0:
        return f"Outside, a {rng.choice(VEHICLES)} {rng.choice(PASSING)}."
    if kind == 1:
        return f"The {rng.choice(SURFACES)} is {rng.choice(TEXTURES)} under my {rng.choice(LIMBS)}."
    if kind == 2:
        return f"I {rng.choice(HANDLING)} the {rng.choice(THINGS)} and {rng.choice(PAUSES)}."
    if kind == 3:
        return (
            f"The air tastes of {rng.choice(TASTES)}, and my {rng.choice(SKIN)} "
            f"{rng.choice(FEELING)}."
        )
    if kind == 4:
        return f"Somewhere {rng.choice(NOISES)}."
    return _sight(rng)


def _sight(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return _cap(rng.choice(SIGHTS)) + "."
    return (
        f"A {rng.choice(COLOURS)} {rng.choice(THINGS)} {rng.choice(MOVES)} "
        f"{rng.choice(SPOTS)}, and I keep looking at it."
    )


def _narrative(
    rng: random.Random,
    *,
    age: int,
    place: str,
    person: str,
    event: str,
    level: str,
    target: int,
    limit: int,
) -> str:
    group = _age_group(age)
    who = person.split(",")[0]
    said, answer = rng.choice(SAYINGS[group])
    said2, answer2 = rng.choice([x for x in SAYINGS[group] if x[0] != said])
    opening = f"{DEMO_LABEL} I am {age}, and I am in {place}. {_sight(rng)}"
    middle = [
        f"Today {event}, and {person} is the first to notice.",
        f'"{said}" {who} says, quietly enough that only I hear it. "{answer}" I say, '
        "and my voice comes out smaller than I mean it to.",
        f'Later, in the same hour, {who} tries again. "{said2}" "{answer2}"',
    ]
    pool = (
        [_cap(x) + "." for x in rng.sample(SOUNDS, 3)]
        + [_cap(x) + "." for x in rng.sample(SMELLS, 2)]
        + [_cap(x) + "." for x in rng.sample(TOUCH, 2)]
        + rng.sample(THOUGHTS[group], 4)
        + rng.sample(BODY[level], min(4, len(BODY[level])))
        + [_sight(rng) for _ in range(4)]
        + [_detail(rng) for _ in range(26)]
        + [
            f"I look at {who} and then down at the {rng.choice(THINGS)} in my hands.",
            f"{_cap(who)} moves the {rng.choice(COLOURS)} {rng.choice(THINGS)} "
            f"{rng.choice(SPOTS)} without looking at me.",
            f"I pick at the edge of my {rng.choice(THINGS)} until a thread comes loose.",
        ]
    )
    rng.shuffle(pool)
    for i, sentence in enumerate(middle):
        pool.insert(min(len(pool), 2 + 5 * i + rng.randint(0, 3)), sentence)
    after = rng.sample(AFTER, 3)
    text, count = opening, 0
    for sentence in pool:
        if len(text) >= target:
            break
        count += 1
        text += ("\n\n" if count % 7 == 0 else " ") + sentence
    ending = "\n\n" + " ".join(after)
    return (text + ending)[:limit].rstrip()


def memory_answer(*, user: str, schema: Any, rng: random.Random) -> dict:
    """One schema-shaped memory for the slot the user prompt names."""
    props = (schema or {}).get("properties") or {}
    age = _int_line(user, "Target age:", 20)
    stage = labelled_line(user, "Life-stage bin:") or "life"
    tier = (labelled_line(user, "Intensity tier:")[:1] or "C").upper()
    tier = tier if tier in TIER_INTENSITY else "C"
    domain = labelled_line(user, "Domain:").lower() or rng.choice(DOMAINS)
    domain = domain if domain in PLACES else "daily life"
    setting = "school" if domain == "workplace" and age <= 17 else domain
    low, high = TIER_INTENSITY[tier]
    intensity = round(rng.uniform(low, high), 2)
    level = "high" if intensity >= 0.6 else "mid" if intensity >= 0.38 else "low"
    primary, secondary = rng.choice(TIER_EMOTIONS[tier])
    group = _age_group(age)
    place = rng.choice(PLACES[setting])
    person = rng.choice(PEOPLE[group])
    event = rng.choice(EVENTS[setting])
    spec = props.get("content_full") or {}
    least = max(CONTENT_RANGE[0], int(spec.get("minLength", 0)))
    most = min(CONTENT_RANGE[1], int(spec.get("maxLength", CONTENT_RANGE[1])))
    content = _narrative(
        rng,
        age=age,
        place=place,
        person=person,
        event=event,
        level=level,
        target=rng.randint(least + 200, max(least + 200, most - 900)),
        limit=most,
    )
    scene = [
        f"I am {age}, in {place}, on an ordinary {rng.choice(DAYS)},",
        f"when {event};",
        f"{person} is there,",
        f"and {rng.choice(SOUNDS)}.",
        f"{_cap(rng.choice(SMELLS))}.",
    ]
    gist = [
        f"{_cap(event)} while I am in {place},",
        f"and {person} sees how I take it;",
        f"I answer {rng.choice(REPLIES)},",
        f"and {_after_clause(rng)}.",
        f"{_cap(rng.choice(THOUGHTS[group]))}",
    ]
    triggers = rng.sample(TRIGGER_WORDS[setting], 3) + [
        place.split(" with ")[0].removeprefix("the ")
    ]
    tags = [setting, stage.lower(), primary, group if group != "adult" else "adulthood"]
    value = {
        "id": _memory_id(user, props, rng),
        "timeline": f"{stage.lower()} ({age} years old)",
        "context": _words(rng, scene, 15, 30),
        "content_summary": _words(rng, gist, 20, 40),
        "content_full": content,
        "triggers": triggers,
        # L.3: a 40-80-word conclusion and a 30-60-word policy.
        "psych_conclusion": labelled(" ".join(rng.sample(CONCLUSIONS, 4))),
        "behavior_policy": labelled(" ".join(rng.sample(POLICIES, 4))),
        "emotion_signature": {"primary": primary, "secondary": secondary, "intensity": intensity},
        "relevance_tags": tags,
    }
    emotion = (props.get("emotion_signature") or {}).get("properties") or {}
    for key in ("primary", "secondary"):
        allowed = (emotion.get(key) or {}).get("enum")
        if allowed and value["emotion_signature"][key] not in allowed:
            value["emotion_signature"][key] = rng.choice(allowed)
    return {k: v for k, v in value.items() if not props or k in props}


def _memory_id(user: str, props: dict, rng: random.Random) -> str:
    pattern = (props.get("id") or {}).get("pattern")
    offered = matching_ids(user, pattern) if pattern else []
    if offered:
        return offered[0]
    named = labelled_line(user, "Memory id:") or labelled_line(user, "Memory ID:")
    return named or f"MEM_DEMO_{rng.randrange(10**6):06d}"


# Deliberately invalid outputs (HEARTBENCH_DEMO_MEMORY_FAIL_SHARE): each breaks the B.7
# schema in a way a real model does, so the retry path and failed batches can be seen.
def spoiled(value: dict, rng: random.Random) -> dict:
    broken = dict(value)
    how = rng.choice(("missing", "short", "intensity"))
    if how == "missing":
        broken.pop("psych_conclusion", None)
    elif how == "short":
        broken["content_full"] = labelled("I stand there. That is all.")
    else:
        broken["emotion_signature"] = {**broken.get("emotion_signature", {}), "intensity": 1.7}
    return broken
