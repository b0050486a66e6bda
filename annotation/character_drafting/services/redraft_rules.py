"""The rules of a redraft (seed 000 App. B.3): when a reviewed profile may be drafted
again, what it must keep, and how a redraft is put together.

A redraft is refused while its latest version is frozen (final), while the reviewers
are mid-review (an open case with the reviewers that any review has begun: they would be
reviewing a version that is no longer the latest), and on a profile all three reviewers
accepted as-is (B.3: those are retained unchanged). Before any review has begun it may
rewrite the whole draft (the reviewers then review the new version). Once the reviews are
in and the senior expert adjudicates, B.3's revisions are field-level: a redraft changes
only the fields the open change requests name, and every other field is carried over
exactly. The senior then resolves each of those requests against the redrafted version
(a redraft that finds one resolved meanwhile adds nothing) and makes the final
suitability check, as for the senior's own edits.
"""

import copy

from annotation.character_drafting.design import NEUTRAL, PlannedCharacter, neutral
from annotation.character_drafting.models import CharacterDraft, DraftingJob
from annotation.character_drafting.profile_schema import profile_as_json
from annotation.corpus.models import Character, ProfileVersion
from annotation.profile_review.models import (
    BIG_FIVE_FIELDS,
    PROFILE_FIELD_LABELS,
    ProfileReviewCase,
    accepted_as_is,
)
from core.plurals import counted
from core.protocol import PROFILE_REVIEWERS

FIELD_LABELS = PROFILE_FIELD_LABELS
VERSION_FIELDS = (
    "construction_label",
    "occupation",
    "openness",
    "conscientiousness",
    "extraversion",
    "agreeableness",
    "neuroticism",
    "description",
    "self_value_logic",
    "core_patterns",
)


def version_values(version: ProfileVersion) -> dict:
    return {name: getattr(version, name) for name in VERSION_FIELDS}


def open_case(character: Character) -> ProfileReviewCase | None:
    return (
        ProfileReviewCase.objects.exclude(status=ProfileReviewCase.Status.FROZEN)
        .filter(character=character)
        .select_related("reviewed_version")
        .first()
    )


def unanimously_accepted(case: ProfileReviewCase | None) -> bool:
    """All the case's reviewers have submitted "Acceptable as-is" (App. B.3)."""
    if case is None:
        return False
    return accepted_as_is(r.recommendation for r in case.reviews.all() if r.submitted_at)


def accepted_as_is_message(character: Character) -> str:
    return (
        f"{character.key} was accepted as-is by all {PROFILE_REVIEWERS} reviewers: the protocol "
        "keeps a unanimously accepted profile unchanged, so it is never redrafted. The "
        "senior expert makes the final suitability check and freezes it."
    )


def redraft_blocker(character: Character, *, expected: ProfileVersion | None = None) -> str:
    """Why ``character`` cannot be redrafted now, or "" when it can. With ``expected``,
    also refuses when a newer version than the one redrafted has appeared."""
    latest = character.versions.order_by("-number").first()
    if latest is None:
        return f"{character.key} has no profile version to redraft."
    if expected is not None and latest.pk != expected.pk:
        return (
            f"{character.key} v{latest.number} appeared while the redraft of v{expected.number} "
            "ran; nothing was added. Redraft again from the latest version."
        )
    if latest.is_frozen:
        return (
            f"{latest} is frozen: a frozen profile is final and is never redrafted "
            "(downstream stages point at it)."
        )
    case = open_case(character)
    if case is not None and case.status == ProfileReviewCase.Status.REVIEWING:
        begun = case.reviews.count()
        if begun:
            submitted = case.reviews.filter(submitted_at__isnull=False).count()
            return (
                f"{character.key} v{case.reviewed_version.number} is with the reviewers "
                f"({counted(begun, 'review')} begun, "
                f"{submitted} of {PROFILE_REVIEWERS} submitted). "
                "Redraft once every reviewer has submitted and the senior expert is "
                "adjudicating, so that no reviewer is left reviewing an outdated version."
            )
    if unanimously_accepted(case):
        return accepted_as_is_message(character)
    return ""


def planned_for_version(version: ProfileVersion) -> PlannedCharacter:
    """The design a redraft keeps: the character's first draft's design when it was
    drafted here (a fixed vector stays fixed), else its anchor read from the scores."""
    first = (
        CharacterDraft.objects.filter(
            character_id=version.character_id,
            job__kind=DraftingJob.Kind.DRAFT,
            status=CharacterDraft.Status.SUCCEEDED,
        )
        .order_by("pk")
        .first()
    )
    if first is not None:
        return PlannedCharacter.from_dict(first.planned)
    key, anchor = version.character.key, version.trait_anchor
    if anchor.startswith(NEUTRAL):
        return neutral(key)
    parts = anchor.split()
    if len(parts) == 2:
        return PlannedCharacter(
            char_key=key,
            anchor_trait=parts[0],
            pole=parts[1],
            required={parts[0]: version.big_five[parts[0]]},
        )
    # No single extreme: keep the whole vector as it is.
    return PlannedCharacter(
        char_key=key,
        anchor_trait="",
        pole="none",
        required=dict(version.big_five),
        vector_fixed=True,
    )


def redraft_fields(draft: CharacterDraft) -> list[str] | None:
    """The profile fields a redraft may change: its one field, else every field its
    change requests name (in the order first named); None for a redraft of a draft no
    one has reviewed yet, which may rewrite the whole profile."""
    if draft.redraft_field:
        return [draft.redraft_field]
    named = list(dict.fromkeys(g["field"] for g in draft.guidance or []))
    return named or None


def merge_redraft(draft: CharacterDraft, output: dict) -> dict:
    """The profile a draft proposes: the model's output, except that a redraft limited
    to some fields takes only those from it and keeps the rest of the redrafted version."""
    fields = redraft_fields(draft) if draft.redraft_of_id else None
    if fields is None:
        return output
    merged = profile_as_json(version_values(draft.redraft_of), draft.char_key)
    for field in fields:
        if field == "construction_label":
            merged["name"] = output["name"]
        elif field == "big_five":
            merged["big_five"] = copy.deepcopy(output["big_five"])
            merged["big_five_str"] = output["big_five_str"]
        elif field.startswith("core_pattern_"):
            index = int(field.removeprefix("core_pattern_")) - 1
            merged["core_patterns"][index] = output["core_patterns"][index]
        else:
            merged[field] = output[field]
    return merged


def carry_over(draft: CharacterDraft, values: dict) -> dict:
    """``values`` with every field the redraft may not change set back to the redrafted
    version's value exactly (the checks strip whitespace; a kept field stays as stored)."""
    fields = redraft_fields(draft) if draft.redraft_of_id else None
    if fields is None:
        return values
    old = version_values(draft.redraft_of)
    kept = dict(values)
    patterns = list(old["core_patterns"])
    for field in fields:
        if field.startswith("core_pattern_"):
            index = int(field.removeprefix("core_pattern_")) - 1
            patterns[index] = values["core_patterns"][index]
    kept["core_patterns"] = patterns
    for name in VERSION_FIELDS:
        if name == "core_patterns":
            continue
        named = "big_five" if name in BIG_FIVE_FIELDS else name
        if named not in fields:
            kept[name] = old[name]
    return kept
