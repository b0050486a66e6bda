"""The DIAMONDS situation dimensions (seed 000 App. C.2, Table 12): the scale, the eight
dimensions, their labels and one-line definitions. Scenario review rates them; the display
layer names them."""

# App. C.2 / Table 12: 1 (not present), 4 (moderately present), 7 (strongly present).
DIAMONDS_MIN, DIAMONDS_MID, DIAMONDS_MAX = 1, 4, 7
DIAMONDS_SCALE = tuple(range(DIAMONDS_MIN, DIAMONDS_MAX + 1))
DIAMONDS_ANCHORS = {
    DIAMONDS_MIN: "not present",
    DIAMONDS_MID: "moderately present",
    DIAMONDS_MAX: "strongly present",
}

# (field name, label, letter) in the taxonomy's order (Rauthmann et al. 2014). The paper
# writes "pOsitivity" to show where the acronym's O comes from; a page names it in words.
DIAMONDS_DIMENSIONS: tuple[tuple[str, str, str], ...] = (
    ("duty", "Duty", "D"),
    ("intellect", "Intellect", "I"),
    ("adversity", "Adversity", "A"),
    ("mating", "Mating", "M"),
    ("positivity", "Positivity", "O"),
    ("negativity", "Negativity", "N"),
    ("deception", "Deception", "D"),
    ("sociality", "Sociality", "S"),
)
DIAMONDS_FIELDS = tuple(f for f, _, _ in DIAMONDS_DIMENSIONS)
DIAMONDS_LABELS = {f: label for f, label, _ in DIAMONDS_DIMENSIONS}
DIAMONDS_DIMENSION_CHOICES = [(label, label) for _, label, _ in DIAMONDS_DIMENSIONS]

# What each dimension asks of a situation, in a line a rater can keep in mind while rating
# (our wording of the interpretation the paper's Table 12 takes from Rauthmann et al.).
DIAMONDS_DEFINITIONS = {
    "duty": "Something has to be done: a task, a job or an obligation the person is "
    "expected to meet.",
    "intellect": "The situation calls for thinking: understanding, judging ideas, learning "
    "or showing what one knows.",
    "adversity": "The person is under threat, criticised, blamed or treated badly; "
    "something is going wrong for them.",
    "mating": "Romance or attraction is in play: a possible or actual partner, courtship, "
    "intimacy.",
    "positivity": "The situation is pleasant: enjoyable, playful, easy-going or rewarding.",
    "negativity": "The situation can stir bad feelings: stress, worry, anger, guilt, "
    "frustration or sadness.",
    "deception": "Someone may lie, hide the truth, manipulate or betray; trust is at stake.",
    "sociality": "Other people and the relationships with them are central: talking, "
    "belonging, helping, being close or apart.",
}
assert set(DIAMONDS_DEFINITIONS) == set(DIAMONDS_FIELDS)
