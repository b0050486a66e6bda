"""Shared helpers of the human-baseline tests: a synthetic family assignment of the
release items, and independent counting of the App. J constraints."""

from collections import Counter

from adjudication.mcq.models import McqItem
from core.life_stages import LIFE_STAGE_KEYS
from humanbaseline.demo import standin_families
from humanbaseline.models import ItemSourceFamily


def synthetic_families(items) -> dict[int, str]:
    """{item pk: family} for the release's items: 50 GPT, 126 Claude, 497 Gemini in a
    pattern the App. J constraints can meet (the demo's stand-in assignment). The release
    carries no provenance, so this is a stand-in."""
    return standin_families(items)


def store_families(families: dict[int, str]) -> None:
    ItemSourceFamily.objects.bulk_create(
        ItemSourceFamily(item_id=pk, family=f, origin="test: synthetic")
        for pk, f in families.items()
    )


# App. J's numbers as the paper states them, counted here independently of the solver
# and of the scaling rule that should reproduce them.
PAPER = {
    "families": ("gemini", "claude", "gpt"),
    "per_family": 50,
    "character": (13, 14),
    "stage": (18, 19),
    "cell": (1, 2),
    "family_character": (4, 5),
    "family_stage": (6, 7),
    "family_cell": (0, 1),
}


def constraint_violations(selected_pks, families, numbers=PAPER) -> list[str]:
    """Every App. J constraint counted directly from the items, independently of the solver."""
    c = numbers
    items = list(McqItem.objects.filter(pk__in=selected_pks).select_related("character"))
    rows = [(families[i.pk], i.character.key, i.stage) for i in items]
    all_characters = sorted(set(McqItem.objects.values_list("character__key", flat=True)))
    bad = []
    if len(rows) != c["per_family"] * len(c["families"]):
        bad.append(f"{len(rows)} items")
    fam = Counter(f for f, _, _ in rows)
    for f in c["families"]:
        if fam[f] != c["per_family"]:
            bad.append(f"family {f}: {fam[f]}")
    char = Counter(ch for _, ch, _ in rows)
    stage = Counter(s for _, _, s in rows)
    cell = Counter((ch, s) for _, ch, s in rows)

    def within(group, value):
        low, high = c[group]
        return low <= value <= high

    for ch in all_characters:
        if not within("character", char[ch]):
            bad.append(f"character {ch}: {char[ch]}")
        for s in LIFE_STAGE_KEYS:
            if not within("cell", cell[(ch, s)]):
                bad.append(f"cell {ch}×{s}: {cell[(ch, s)]}")
    for s in LIFE_STAGE_KEYS:
        if not within("stage", stage[s]):
            bad.append(f"bin {s}: {stage[s]}")
    for f in c["families"]:
        fc = Counter(ch for ff, ch, _ in rows if ff == f)
        fs = Counter(s for ff, _, s in rows if ff == f)
        fcell = Counter((ch, s) for ff, ch, s in rows if ff == f)
        for ch in all_characters:
            if not within("family_character", fc[ch]):
                bad.append(f"{f} × {ch}: {fc[ch]}")
        for s in LIFE_STAGE_KEYS:
            if not within("family_stage", fs[s]):
                bad.append(f"{f} × {s}: {fs[s]}")
        bad.extend(f"{f} × {k}: {v}" for k, v in fcell.items() if not within("family_cell", v))
    return bad
