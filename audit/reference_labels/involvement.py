"""Conflict of interest of the reference-label audit (App. D.4: the audit team "did not
participate in benchmark construction"): every record of a person's part in building the
benchmark, and the audit team's candidates with their records. One query per source."""

from dataclasses import dataclass

from django.apps import apps
from django.contrib.auth import get_user_model

from core.roles import Role


@dataclass(frozen=True)
class InvolvementSource:
    """One kind of record of a person's construction work: ``model`` (app_label.Model),
    the user field, an optional filter, and how to describe one record."""

    label: str
    model: str
    user_field: str
    describe: tuple[str, ...]  # value paths joined into the record's description
    filters: tuple[tuple[str, object], ...] = ()


# Everything the platform records of a person's part in building the benchmark (DESIGN.md
# pipeline): profile review and adjudication, scenario review, blinded comparison,
# arbitration, item review, and the memory audit's manual review. App. D.4: the audit team
# "did not participate in benchmark construction".
INVOLVEMENT_SOURCES: tuple[InvolvementSource, ...] = (
    InvolvementSource(
        "profile review", "annotation.ProfileReview", "reviewer", ("case__character__key",)
    ),
    InvolvementSource(
        "profile change request resolved (profile adjudication)",
        "annotation.ChangeRequest",
        "resolved_by",
        ("review__case__character__key", "field"),
    ),
    InvolvementSource(
        "profile edit (profile adjudication)",
        "annotation.ProfileEdit",
        "editor",
        ("case__character__key",),
    ),
    InvolvementSource(
        "profile frozen (profile adjudication)",
        "annotation.ProfileReviewCase",
        "frozen_by",
        ("character__key",),
    ),
    InvolvementSource(
        "scenario screening decision (scenario review pass 1)",
        "annotation.ScreeningDecision",
        "reviewer",
        ("review__scenario__scenario_id",),
    ),
    InvolvementSource(
        "DIAMONDS rating (scenario review pass 2)",
        "annotation.DiamondsRating",
        "reviewer",
        ("review__scenario__scenario_id",),
    ),
    InvolvementSource(
        "joint DIAMONDS re-assessment (scenario review)",
        "annotation.FinalDiamondsRating",
        "recorded_by",
        ("review__scenario__scenario_id",),
    ),
    InvolvementSource(
        "scenario version written",
        "annotation.ScenarioVersion",
        "created_by",
        ("scenario__scenario_id", "number"),
    ),
    InvolvementSource(
        "scenario blueprint drafted", "annotation.ScenarioBlueprint", "created_by", ("title",)
    ),
    InvolvementSource(
        "comparison judgment (blinded three-candidate comparison)",
        "annotation.ComparisonJudgment",
        "assignment__annotator",
        ("assignment__pair__character__key", "assignment__pair__scenario__scenario_id"),
    ),
    InvolvementSource(
        "arbitration decision",
        "adjudication.ArbitrationDecision",
        "arbitrator",
        ("pair__character__key", "pair__scenario__scenario_id"),
    ),
    InvolvementSource(
        "arbitration decision reopened",
        "adjudication.ArbitrationDecision",
        "reopened_by",
        ("pair__character__key", "pair__scenario__scenario_id"),
    ),
    InvolvementSource(
        "item review decision (MCQ item review)",
        "adjudication.McqReviewDecision",
        "reviewer",
        ("item__question_id",),
    ),
    InvolvementSource(
        "MCQ item version made in assembly or item review",
        "adjudication.McqItemVersion",
        "created_by",
        ("item__question_id", "number"),
        filters=(("origin__in", ("assembly", "review")),),
    ),
    InvolvementSource(
        "memory audit review decision (confirm / false positive)",
        "audit.MemoryCase",
        "reviewer",
        ("memory__memory_id",),
    ),
    InvolvementSource(
        "memory edit (memory audit senior edit)",
        "audit.MemoryVersion",
        "author",
        ("memory__memory_id", "number"),
        filters=(("origin", "senior_edit"),),
    ),
)
# How many records of one kind a refusal names before it says "and n more".
RECORDS_NAMED = 5


@dataclass
class Involvement:
    label: str
    count: int
    records: list[str]


def construction_involvement(user_ids) -> dict[int, list[Involvement]]:
    """{user id: the kinds of construction record they appear in} for ``user_ids``; a
    user without any record is absent. One query per source."""
    user_ids = list(user_ids)
    found: dict[int, list[Involvement]] = {}
    if not user_ids:
        return found
    for source in INVOLVEMENT_SOURCES:
        model = apps.get_model(source.model)
        rows = (
            model.objects.filter(**{f"{source.user_field}__in": user_ids}, **dict(source.filters))
            .order_by("pk")
            .values_list(source.user_field, *source.describe)
        )
        per_user: dict[int, list[str]] = {}
        for user_id, *parts in rows:
            per_user.setdefault(user_id, []).append(" ".join(str(p) for p in parts if p != ""))
        for user_id, records in per_user.items():
            unique = list(dict.fromkeys(records))
            found.setdefault(user_id, []).append(
                Involvement(source.label, len(records), unique[:RECORDS_NAMED])
            )
    return found


def describe_involvement(username: str, involvement: list[Involvement]) -> str:
    parts = []
    for inv in involvement:
        named = ", ".join(inv.records)
        more = inv.count - len(inv.records)
        extra = f" and {more} more" if more > 0 else ""
        parts.append(f"{inv.count} × {inv.label} ({named}{extra})")
    return f"{username} took part in construction: " + "; ".join(parts) + "."


@dataclass
class Candidate:
    user: object
    roles: list[str]
    involvement: list[Involvement]

    @property
    def eligible(self) -> bool:
        return not self.involvement


def audit_team_candidates() -> list[Candidate]:
    """Every audit expert and audit adjudicator, with their construction records."""
    users = list(
        get_user_model()
        .objects.filter(
            groups__name__in=[Role.AUDIT_EXPERT.value, Role.AUDIT_ADJUDICATOR.value],
            is_active=True,
        )
        .distinct()
        .prefetch_related("groups")
        .order_by("username")
    )
    involvement = construction_involvement(u.pk for u in users)
    return [
        Candidate(
            user=u,
            roles=sorted(g.name for g in u.groups.all()),
            involvement=involvement.get(u.pk, []),
        )
        for u in users
    ]
