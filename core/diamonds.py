"""The DIAMONDS situation dimensions (seed 000 App. C.2, Table 12): the scale, the eight
dimensions, their labels and one-line definitions. Scenario review rates them; the display
layer names them."""

import hashlib

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


def one_point_goes_up(*, scenario_id: str, dimension: str) -> bool:
    """Whether a one-point disagreement on this scenario's dimension resolves to the higher
    of the two ratings (else the lower).

    App. C.2 re-assesses only differences above one point and is silent on one-point ones.
    The direction must not depend on the ratings themselves: any rule keyed on the values
    (nearer the midpoint, round half to even) moves Table 13's distribution toward or away
    from certain scale points. Here a stable hash of the scenario id picks the direction of
    its first dimension and the dimensions then alternate in taxonomy order, so within one
    scenario four dimensions go up and four go down, and across scenarios each dimension
    goes up for about half of them. Deterministic: the same two ratings of the same
    scenario always give the same final value.
    """
    index = DIAMONDS_FIELDS.index(dimension)
    first_up = hashlib.sha256(scenario_id.encode()).digest()[0] % 2 == 0
    return first_up == (index % 2 == 0)


def final_rating_rule(a: int, b: int, *, scenario_id: str, dimension: str) -> int:
    """Final value of a dimension the two ratings put at most one point apart: the common
    value, or the higher or lower one as ``one_point_goes_up`` says (never a pull toward
    the midpoint 4; docs/paper-vs-platform.md explains why)."""
    if a == b:
        return a
    if abs(a - b) != 1:
        raise ValueError(f"{a} and {b} are more than one point apart: re-assess them jointly")
    return (
        max(a, b) if one_point_goes_up(scenario_id=scenario_id, dimension=dimension) else min(a, b)
    )
