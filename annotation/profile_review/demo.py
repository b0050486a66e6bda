"""Demo data for profile review, put at telling stages of the workflow.

``demo_profile_reviews(users=...)`` is idempotent: each step looks at the state it would
create and skips when it is there. It goes through the services, like a person would,
so the history records every step. It creates the two extra primary annotators the
three-reviewer protocol needs and returns them for printing.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotation.corpus.models import Character
from annotation.profile_review import services
from annotation.profile_review.models import (
    ProfileReviewCase,
    Recommendation,
    profile_field_text,
)
from core.roles import Role

EXTRA_ACCOUNTS = (
    ("annotator2", Role.PRIMARY_ANNOTATOR),
    ("annotator3", Role.PRIMARY_ANNOTATOR),
)
ALL_MEET = {
    "trait_alignment": "meets",
    "internal_coherence": "meets",
    "occupational_plausibility": "meets",
    "behavioral_specificity": "meets",
    "interpretive_restraint": "meets",
}


def demo_accounts(accounts: tuple[tuple[str, Role], ...]) -> list[tuple[str, Role, str]]:
    """Create (or reset) the demo accounts ``(username, role)``, each with the password
    ``<username>-demo-pass``; returns ``(username, role, password)`` for printing."""
    users = get_user_model()
    created = []
    for username, role in accounts:
        password = f"{username}-demo-pass"
        user, _ = users.objects.get_or_create(username=username)
        user.set_password(password)
        user.save()
        user.groups.set([Group.objects.get(name=role.value)])
        created.append((username, role, password))
    return created


def _review(character: Character, reviewer, recommendation: str, *, request=None) -> None:
    case = ProfileReviewCase.objects.filter(character=character).first()
    if case and case.reviews.filter(reviewer=reviewer, submitted_at__isnull=False).exists():
        return
    if request:
        version = character.versions.order_by("-number").first()
        text = profile_field_text(version, request["field"])
        services.change_request_add(
            character_key=character.key,
            reviewer=reviewer,
            field=request["field"],
            passage=" ".join(text.split()[:6]),
            concern=request["concern"],
            suggested_correction=request["suggestion"],
        )
    services.profile_review_save(
        character_key=character.key,
        reviewer=reviewer,
        recommendation=recommendation,
        criteria=dict(ALL_MEET, internal_coherence="concern") if request else ALL_MEET,
        explanation="[Demo review] " + ("See the change request." if request else "Coherent."),
        submit=True,
    )


def _profiles(reviewers) -> None:
    drafts = [
        c
        for c in Character.objects.order_by("key")
        if (v := c.versions.order_by("-number").first()) is not None and not v.is_frozen
    ]
    if len(drafts) < 3:
        return
    first, second, third = drafts[:3]
    for reviewer in reviewers:
        _review(first, reviewer, Recommendation.ACCEPT)
    _review(second, reviewers[0], Recommendation.ACCEPT)
    _review(second, reviewers[1], Recommendation.ACCEPT)
    _review(
        second,
        reviewers[2],
        Recommendation.LOCAL_REVISION,
        request={
            "field": "description",
            "concern": "[Demo] The description states the trait as a fixed verdict rather "
            "than a tendency (interpretive restraint).",
            "suggestion": "[Demo] Qualify the claim: 'tends to', and name the situations.",
        },
    )
    # The third profile has two reviews in; the demo annotator's is still to do.
    _review(third, reviewers[0], Recommendation.ACCEPT)
    _review(third, reviewers[1], Recommendation.ACCEPT)


def demo_profile_reviews(*, users: dict) -> list[tuple[str, Role, str]]:
    """Put demo profiles at telling stages of the review; returns the extra accounts.

    ``users`` maps role values to the demo's one account per role.
    """
    accounts = demo_accounts(EXTRA_ACCOUNTS)
    extra = [get_user_model().objects.get(username=name) for name, _ in EXTRA_ACCOUNTS]
    _profiles([*extra, users[Role.PRIMARY_ANNOTATOR.value]])
    return accounts
