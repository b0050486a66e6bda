"""Shared helpers of the human-baseline tests: a synthetic family assignment of the
release items, and independent counting of the App. J constraints."""

from collections import Counter

from adjudication.mcq.models import McqItem
from annotation.corpus.life_stages import LIFE_STAGE_KEYS
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


def constraint_violations(selected_pks, families, constraints) -> list[str]:
    """Every App. J constraint counted directly from the items, independently of the solver."""
    c = constraints
    items = list(McqItem.objects.filter(pk__in=selected_pks).select_related("character"))
    rows = [(families[i.pk], i.character.key, i.stage) for i in items]
    all_characters = sorted(set(McqItem.objects.values_list("character__key", flat=True)))
    bad = []
    if len(rows) != c.total:
        bad.append(f"{len(rows)} items, not {c.total}")
    fam = Counter(f for f, _, _ in rows)
    for f in c.families:
        if fam[f] != c.per_family:
            bad.append(f"family {f}: {fam[f]}")
    char = Counter(ch for _, ch, _ in rows)
    stage = Counter(s for _, _, s in rows)
    cell = Counter((ch, s) for _, ch, s in rows)
    for ch in all_characters:
        if not c.character_min <= char[ch] <= c.character_max:
            bad.append(f"character {ch}: {char[ch]}")
        for s in LIFE_STAGE_KEYS:
            if not c.cell_min <= cell[(ch, s)] <= c.cell_max:
                bad.append(f"cell {ch}×{s}: {cell[(ch, s)]}")
    for s in LIFE_STAGE_KEYS:
        if not c.stage_min <= stage[s] <= c.stage_max:
            bad.append(f"bin {s}: {stage[s]}")
    for f in c.families:
        fc = Counter(ch for ff, ch, _ in rows if ff == f)
        fs = Counter(s for ff, _, s in rows if ff == f)
        fcell = Counter((ch, s) for ff, ch, s in rows if ff == f)
        for ch in all_characters:
            if not c.family_character_min <= fc[ch] <= c.family_character_max:
                bad.append(f"{f} × {ch}: {fc[ch]}")
        for s in LIFE_STAGE_KEYS:
            if not c.family_stage_min <= fs[s] <= c.family_stage_max:
                bad.append(f"{f} × {s}: {fs[s]}")
        bad.extend(f"{f} × {k}: {v}" for k, v in fcell.items() if v > c.family_cell_max)
    return bad
