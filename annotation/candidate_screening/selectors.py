"""Reads of candidate screening: the admin's flag pages, which pairs wait, and the
export's chain section. Flags name candidates and their texts only; the family of a
flagged candidate is shown to the admin (who may see provenance), never elsewhere."""

from collections import defaultdict
from dataclasses import dataclass

from django.apps import apps
from django.db.models import Count

from annotation.candidate_screening.leaks import highlight, rule_label
from annotation.candidate_screening.models import SCREENED_FIELDS, CandidateCleaning, LeakFlag


def open_flags_of(candidate_ids) -> dict[int, int]:
    """{candidate pk: open flag pk} for the given candidates (one query)."""
    return dict(
        LeakFlag.objects.filter(
            candidate_id__in=list(candidate_ids), status=LeakFlag.Status.OPEN
        ).values_list("candidate_id", "pk")
    )


def open_flag_candidates():
    """A subquery-ready queryset of the candidates with an open flag."""
    return LeakFlag.objects.filter(status=LeakFlag.Status.OPEN).values("candidate_id")


def judged_pairs_of(candidate_id) -> list[tuple[str, int]]:
    """[(pair label, submitted judgments)] of the comparison pairs holding the candidate
    that annotators have already judged. The comparison layer sits above this one, so
    its judgment model is looked up by label (no import up a layer)."""
    judgment = apps.get_model("annotation", "ComparisonJudgment")
    rows = (
        judgment.objects.filter(assignment__pair__candidates=candidate_id)
        .values(
            "assignment__pair__character__key",
            "assignment__pair__scenario__scenario_id",
            "assignment__pair__round",
        )
        .annotate(n=Count("pk"))
        .order_by(
            "assignment__pair__character__key",
            "assignment__pair__scenario__scenario_id",
            "assignment__pair__round",
        )
    )
    out = []
    for row in rows:
        label = f"{row['assignment__pair__character__key']} × "
        label += row["assignment__pair__scenario__scenario_id"]
        if row["assignment__pair__round"] > 1:
            label += f" (round {row['assignment__pair__round']})"
        out.append((label, row["n"]))
    return out


def judged_message(judged) -> str:
    """Why a judged candidate is not cleaned in place, naming the pairs."""
    named = "; ".join(
        f"{label}: {n} submitted judgment{'s' if n != 1 else ''}" for label, n in judged
    )
    return (
        f"Annotators have already judged this text ({named}). Cleaning it in place would "
        "change the text behind their judgments, so it is refused: accept the flag with a "
        "reason instead (the text and the judgments stay as they are, the reason is kept)."
    )


@dataclass
class FlagField:
    field: str
    pieces: list[tuple[str, bool]]  # (text, highlighted)
    findings: list[dict]


@dataclass
class FlagView:
    flag: LeakFlag
    fields: list[FlagField]
    judged: tuple = ()  # judged_pairs_of(the candidate), on the flag's page

    @property
    def rules(self) -> list[str]:
        return sorted({rule_label(f["rule"]) for f in self.flag.findings})


def _view(flag) -> FlagView:
    texts = flag.screened_texts or {}
    fields = []
    for name in SCREENED_FIELDS:
        found = [f for f in flag.findings if f["field"] == name]
        if found:
            for f in found:
                f.setdefault("label", rule_label(f["rule"]))
            fields.append(FlagField(name, highlight(texts.get(name, ""), found), found))
    return FlagView(flag, fields)


def flag_list(*, status=LeakFlag.Status.OPEN) -> list[FlagView]:
    rows = LeakFlag.objects.filter(status=status).select_related(
        "candidate__character", "candidate__scenario", "resolved_by"
    )
    return [_view(f) for f in rows]


def flag_page(*, flag_id) -> FlagView | None:
    flag = (
        LeakFlag.objects.filter(pk=flag_id)
        .select_related("candidate__character", "candidate__scenario", "resolved_by")
        .first()
    )
    if flag is None:
        return None
    view = _view(flag)
    view.cleaning = CandidateCleaning.objects.filter(flag=flag).first()
    if flag.status == LeakFlag.Status.OPEN:
        view.judged = tuple(judged_pairs_of(flag.candidate_id))
    return view


# --- Construction-export chain section (adjudication.export.chain) -----------------------


def chain_candidate_cleaning(items) -> dict:
    """Construction-export chain section "candidate_cleaning": every leak flag on a
    candidate of the item's (character, scenario), with its findings, its resolution
    and, for a cleaned one, the text before and after the edit."""
    if not items:
        return {}
    by_pair = defaultdict(list)
    for item in items:
        by_pair[(item.character_id, item.scenario_id)].append(item.pk)
    flags = (
        LeakFlag.objects.filter(
            candidate__character_id__in=sorted({c for c, _ in by_pair}),
            candidate__scenario_id__in=sorted({s for _, s in by_pair}),
        )
        .select_related("candidate", "resolved_by", "screened_by", "cleaning__edited_by")
        .order_by("candidate_id", "created_at", "pk")
    )
    rows = defaultdict(list)
    for flag in flags:
        key = (flag.candidate.character_id, flag.candidate.scenario_id)
        if key in by_pair:
            rows[key].append(_chain_flag(flag))
    out = {}
    for key, entries in rows.items():
        for pk in by_pair[key]:
            out[pk] = entries
    return out


def _iso(value):
    return value.isoformat() if value is not None else None


def _chain_flag(flag) -> dict:
    cleaning = getattr(flag, "cleaning", None)
    return {
        "flag_id": flag.pk,
        "candidate": flag.candidate_id,
        "status": flag.status,
        "findings": flag.findings,
        "screened_by": flag.screened_by.get_username() if flag.screened_by else None,
        "created_at": _iso(flag.created_at),
        "resolved_by": flag.resolved_by.get_username() if flag.resolved_by else None,
        "resolved_at": _iso(flag.resolved_at),
        "reason": flag.reason,
        "cleaning": (
            {
                "before": cleaning.before,
                "after": cleaning.after,
                "edited_by": cleaning.edited_by.get_username(),
                "edited_at": _iso(cleaning.edited_at),
                "reason": cleaning.reason,
            }
            if cleaning
            else None
        ),
    }
