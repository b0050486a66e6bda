"""The item screener checked against the item reviewers (issue 37, "Judges checked
against experts"): a stored report, computed on a worker.

A record is one item version that has both an LLM screening verdict (passed or flagged;
a technical failure is no verdict) and an item reviewer's decision on that same version.
The screener's flag is its outcome; the reviewers' flag is their action: retaining the
item as it is says "no defect", every other action (revise, replace or add a distractor,
reconsider the key, reconstruct, remove) confirms one. Per rule, the screener's flag is
its check of that rule (anything but "pass"); the reviewers' decision names no rule, so
each rule's flag is compared with the same item-level decision.

The screening paired with a decision is the latest screening of that version with a
verdict made before the decision; the first decision on a version counts (a version is
decided once in the workflow). Figures: :func:`agreement.flag_agreement.flag_agreement`.

Recall needs reviewers' decisions on passed items, which only a recall audit
(:mod:`adjudication.mcq.recall_audit`) gives. The weighted figures count a flagged
record once and a drawn passed record ``pool/sample`` times (the inverse of its chance of
review): :func:`agreement.flag_agreement.weighted_flag_agreement`.
Guide: docs/lab-admin/validity-judges.md.
"""

from __future__ import annotations

from django.db.models import Count, Max

from adjudication.mcq.models import McqItem, McqRecallAudit, McqReviewDecision, McqScreening
from adjudication.mcq.screening import RULE_IDS
from agreement.flag_agreement import flag_agreement_table, weighted_flag_agreement
from core.protocol import CI_LEVEL, N_BOOTSTRAP, PROTOCOL_SEED
from core.reports.services import Inputs, ReportView, register, report_for

KIND = "adjudication.mcq.screener_agreement"
#: Fewer pairs than this in a set: its counts are shown, its κ, precision and recall not.
MIN_PAIRS = 10
SEED = PROTOCOL_SEED
VERDICTS = (McqScreening.Outcome.PASSED, McqScreening.Outcome.FLAGGED)
RETAIN = McqReviewDecision.Action.RETAIN


def inputs(key: str = "") -> Inputs:
    screenings = McqScreening.objects.aggregate(
        n=Count("pk"), last=Max("finished_at"), top=Max("pk")
    )
    decisions = McqReviewDecision.objects.aggregate(n=Count("pk"), last=Max("pk"))
    audits = McqRecallAudit.objects.aggregate(n=Count("pk"), last=Max("pk"))
    identity = {
        "screenings": screenings,
        "decisions": decisions,
        "recall_audits": audits,
        "bootstrap": [N_BOOTSTRAP, CI_LEVEL, SEED, MIN_PAIRS],
    }
    described = (
        f"{screenings['n']} screenings and {decisions['n']} item review decisions; seed {SEED}"
    )
    return Inputs(identity=identity, described=described)


def rule_flags(output: dict | None) -> dict[str, bool]:
    """Rule id → whether the screener's check of that rule was anything but a pass."""
    checks = (output or {}).get("checks") or []
    return {c["rule_id"]: c["status"] != "pass" for c in checks if c.get("rule_id") in RULE_IDS}


def records() -> tuple[list[dict], dict]:
    """The (screener, reviewers) records and the counts of decisions left out, by reason."""
    decisions = list(
        McqReviewDecision.objects.order_by("decided_at", "pk").values(
            "item_version_id", "action", "decided_at"
        )
    )
    first: dict[int, dict] = {}
    for d in decisions:
        first.setdefault(d["item_version_id"], d)
    screenings = McqScreening.objects.filter(
        item_version_id__in=list(first), outcome__in=VERDICTS
    ).order_by("item_version_id", "created_at", "pk")
    by_version: dict[int, list] = {}
    fields = ("item_version_id", "outcome", "output", "created_at")
    audit = ("recall_audit_id", "recall_audit__pool_size", "recall_audit__sample_size")
    for s in screenings.values(*fields, *audit):
        by_version.setdefault(s["item_version_id"], []).append(s)
    out = []
    left_out = {"no_screening_verdict": 0}
    for version_id, decision in first.items():
        before = [
            s for s in by_version.get(version_id, []) if s["created_at"] <= decision["decided_at"]
        ]
        if not before:
            left_out["no_screening_verdict"] += 1
            continue
        screening = before[-1]
        flagged = screening["outcome"] == McqScreening.Outcome.FLAGGED
        out.append(
            {
                "version": version_id,
                "screener": flagged,
                "reviewers": decision["action"] != RETAIN,
                "rules": rule_flags(screening["output"]),
                "weight": sampling_weight(screening, flagged),
            }
        )
    left_out["decisions"] = len(decisions)
    left_out["versions_decided"] = len(first)
    return out, left_out


def sampling_weight(screening: dict, flagged: bool) -> float | None:
    """How many screened item versions a record stands for in the recall estimate: a
    flagged item always reaches review (1); a passed item only when a recall audit drew
    it, with the chance sample/pool (weight pool/sample). A passed item reviewed outside
    any draw has no known chance: None (left out of the weighted figures)."""
    if flagged:
        return 1.0
    if screening["recall_audit_id"] is None:
        return None
    return screening["recall_audit__pool_size"] / screening["recall_audit__sample_size"]


def weighted_figures(rows: list[dict]) -> dict | None:
    """The inverse-probability-weighted figures of the records a known chance brought to
    review (flagged, or passed and drawn); None when no drawn passed item was decided."""
    design = [r for r in rows if r["weight"] is not None]
    passed = [r for r in design if not r["screener"]]
    out = {"n": len(design), "n_passed": len(passed), "enough": False}
    if not passed:
        return None
    if len(design) < MIN_PAIRS:
        return out
    figures = weighted_flag_agreement(
        [r["screener"] for r in design],
        [r["reviewers"] for r in design],
        [r["weight"] for r in design],
        n_boot=N_BOOTSTRAP,
        seed=SEED,
        ci_level=CI_LEVEL,
    )
    return {**out, **figures.as_dict(), "enough": True}


def audit_counts() -> dict:
    """The recall audits so far: draws, passed items drawn, and how many of those the
    reviewers decided (at the version drawn) or still have in review."""
    drawn = McqScreening.objects.filter(recall_audit__isnull=False)
    decided = McqReviewDecision.objects.filter(
        item_version_id__in=drawn.values("item_version_id")
    ).values("item_version_id")
    return {
        "draws": McqRecallAudit.objects.count(),
        "drawn": drawn.count(),
        "drawn_decided": drawn.filter(item_version_id__in=decided).count(),
        "drawn_waiting": McqItem.objects.filter(
            pk__in=drawn.exclude(item_version_id__in=decided).values("item_id"),
            status=McqItem.Status.FLAGGED,
        ).count(),
    }


def compute(key: str = "") -> dict:
    rows, left_out = records()
    sets = {"all": ([r["screener"] for r in rows], [r["reviewers"] for r in rows])}
    for rule in RULE_IDS:
        named = [r for r in rows if rule in r["rules"]]
        sets[rule] = ([r["rules"][rule] for r in named], [r["reviewers"] for r in named])
    table = flag_agreement_table(
        sets, min_pairs=MIN_PAIRS, n_boot=N_BOOTSTRAP, seed=SEED, ci_level=CI_LEVEL
    )
    return {
        "n_pairs": len(rows),
        "overall": table.pop("all"),
        "groups": [{"name": name, **figures} for name, figures in table.items()],
        "left_out": left_out,
        "passed_reviewed": sum(1 for r in rows if not r["screener"]),
        "passed_outside_audit": sum(1 for r in rows if not r["screener"] and r["weight"] is None),
        "weighted": weighted_figures(rows),
        "audit": audit_counts(),
        "min_pairs": MIN_PAIRS,
        "n_boot": N_BOOTSTRAP,
        "ci_level": CI_LEVEL,
        "seed": SEED,
    }


def stored_report() -> ReportView:
    """The stored report (queues its computation when its inputs changed)."""
    return report_for(KIND, "")


register(KIND, inputs=inputs, compute=compute)
