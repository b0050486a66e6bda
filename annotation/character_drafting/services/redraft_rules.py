"""The rules of a redraft (seed 000 App. B.3): when a reviewed profile may be drafted
again, what it must keep, and how a one-field redraft is put together.

A redraft is refused while its latest version is frozen (final), and while the reviewers
are mid-review (an open case with the reviewers that any review has begun: they would be
reviewing a version that is no longer the latest). It is allowed before any review has
begun and while the senior expert adjudicates; the redraft is then the latest version,
which the senior resolves the change requests against and freezes.
"""

import copy

from annotation.character_drafting.design import NEUTRAL, PlannedCharacter, neutral
from annotation.character_drafting.models import CharacterDraft, DraftingJob
from annotation.character_drafting.profile_schema import profile_as_json
from annotation.corpus.models import Character, ProfileVersion
from annotation.profile_review.models import PROFILE_FIELD_LABELS, ProfileReviewCase
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


def merge_redraft(draft: CharacterDraft, output: dict) -> dict:
    """The profile a draft proposes: the model's output, except that a one-field
    redraft takes only that field from it and keeps the rest of the redrafted version."""
    if not draft.redraft_of_id or not draft.redraft_field:
        return output
    merged = profile_as_json(version_values(draft.redraft_of), draft.char_key)
    field = draft.redraft_field
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
