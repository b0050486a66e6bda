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
Guide: docs/lab-admin/validity-judges.md.
"""

from __future__ import annotations

from django.db.models import Count, Max

from adjudication.mcq.models import McqReviewDecision, McqScreening
from adjudication.mcq.screening import RULE_IDS
from agreement.flag_agreement import flag_agreement_table
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
    identity = {
        "screenings": screenings,
        "decisions": decisions,
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
    for s in screenings.values("item_version_id", "outcome", "output", "created_at"):
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
        out.append(
            {
                "version": version_id,
                "screener": screening["outcome"] == McqScreening.Outcome.FLAGGED,
                "reviewers": decision["action"] != RETAIN,
                "rules": rule_flags(screening["output"]),
            }
        )
    left_out["decisions"] = len(decisions)
    left_out["versions_decided"] = len(first)
    return out, left_out


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
        "min_pairs": MIN_PAIRS,
        "n_boot": N_BOOTSTRAP,
        "ci_level": CI_LEVEL,
        "seed": SEED,
    }


def stored_report() -> ReportView:
    """The stored report (queues its computation when its inputs changed)."""
    return report_for(KIND, "")


register(KIND, inputs=inputs, compute=compute)
