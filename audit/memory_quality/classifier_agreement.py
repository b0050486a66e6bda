"""The LLM defect classifier checked against the memory reviewers (issue 37, "Judges
checked against experts"): a stored report, computed on a worker.

A record is one memory and criterion that the memory reviewers decided on, with the
classifier's verdict on the same memory, criterion and text. The reviewers decide a
case (one memory of an audit run): confirming the defect says "defect" for every
criterion flagged in front of them, the team's false-positive override says "no defect"
for each. The criteria in front of them are the flags of the text they read: flags made
from the version of the memory current at the decision up to the decision, of its last
re-audit pass (and any flag the classifier added meanwhile). The classifier's verdict on
that criterion in the case's run counts when it judged the same version of the memory
(the version current when the verdict was recorded is the one current at the
decision); "confirms" and "adds" are its flag, "rejects" is no flag, a failed call is no
verdict. Criteria the reviewers were not shown have no expert decision and are not
records. Figures: :func:`agreement.flag_agreement.flag_agreement`.
Guide: docs/lab-admin/validity-judges.md.
"""

from __future__ import annotations

from bisect import bisect_right

from django.db.models import Count, Max

from agreement.flag_agreement import flag_agreement_table
from audit.memory_quality import criteria
from audit.memory_quality.models import ClassifierResult, MemoryCase, MemoryFlag, MemoryVersion
from core.protocol import CI_LEVEL, N_BOOTSTRAP, PROTOCOL_SEED
from core.reports.services import Inputs, ReportView, register, report_for

KIND = "audit.memory_quality.classifier_agreement"
#: Fewer pairs than this in a set: its counts are shown, its κ, precision and recall not.
MIN_PAIRS = 10
SEED = PROTOCOL_SEED
V = ClassifierResult.Verdict
FLAGS = (V.CONFIRMS, V.ADDS)
CLASSIFIER_PASS = "classifier"


def inputs(key: str = "") -> Inputs:
    verdicts = ClassifierResult.objects.aggregate(n=Count("pk"), last=Max("pk"))
    decided = MemoryCase.objects.exclude(decision="").aggregate(
        n=Count("pk"), last=Max("decided_at")
    )
    flags = MemoryFlag.objects.aggregate(n=Count("pk"), last=Max("pk"))
    versions = MemoryVersion.objects.aggregate(n=Count("pk"), last=Max("pk"))
    identity = {
        "verdicts": verdicts,
        "decided": decided,
        "flags": flags,
        "versions": versions,
        "bootstrap": [N_BOOTSTRAP, CI_LEVEL, SEED, MIN_PAIRS],
    }
    described = (
        f"{verdicts['n']} classifier verdicts and {decided['n']} reviewed memories; seed {SEED}"
    )
    return Inputs(identity=identity, described=described)


def _version_at(times: list, numbers: list, moment) -> int:
    """The number of the memory's version current at ``moment`` (0 before any)."""
    i = bisect_right(times, moment)
    return numbers[i - 1] if i else 0


def reviewed_criteria(flags: list[dict], since, decided_at) -> set[int]:
    """The criteria flagged in front of the reviewers: flags of the text they read (made
    from ``since``, that text's version, up to ``decided_at``) of the last re-audit pass,
    plus any the classifier added to the case meanwhile."""
    window = [f for f in flags if (since is None or f["created_at"] >= since)]
    window = [f for f in window if f["created_at"] <= decided_at]
    passes = [f for f in window if f["audit_pass"] != CLASSIFIER_PASS]
    last = max(passes, key=lambda f: f["created_at"])["audit_pass"] if passes else None
    return {
        f["criterion"]
        for f in window
        if f["audit_pass"] == last or f["audit_pass"] == CLASSIFIER_PASS
    }


def records() -> tuple[list[dict], dict]:
    """The (classifier, reviewers) records and the counts left out, by reason."""
    cases = list(
        MemoryCase.objects.exclude(decision="")
        .filter(decided_at__isnull=False)
        .values("pk", "run_id", "memory_id", "decision", "decided_at")
    )
    case_ids = [c["pk"] for c in cases]
    memory_ids = {c["memory_id"] for c in cases}
    flags: dict[int, list] = {}
    for f in MemoryFlag.objects.filter(case_id__in=case_ids).values(
        "case_id", "criterion", "audit_pass", "created_at"
    ):
        flags.setdefault(f["case_id"], []).append(f)
    versions: dict[int, tuple[list, list]] = {}
    for v in (
        MemoryVersion.objects.filter(memory_id__in=memory_ids)
        .order_by("memory_id", "created_at", "number")
        .values("memory_id", "number", "created_at")
    ):
        times, numbers = versions.setdefault(v["memory_id"], ([], []))
        times.append(v["created_at"])
        numbers.append(v["number"])
    verdicts = {
        (r["run_id"], r["memory_id"], r["criterion"]): r
        for r in ClassifierResult.objects.filter(memory_id__in=memory_ids).values(
            "run_id", "memory_id", "criterion", "verdict", "created_at"
        )
    }
    out = []
    left_out = {"no_verdict": 0, "failed_verdict": 0, "other_text": 0}
    for case in cases:
        times, numbers = versions.get(case["memory_id"], ([], []))
        read = _version_at(times, numbers, case["decided_at"])
        since = times[numbers.index(read)] if read else None
        for criterion in sorted(
            reviewed_criteria(flags.get(case["pk"], []), since, case["decided_at"])
        ):
            verdict = verdicts.get((case["run_id"], case["memory_id"], criterion))
            if verdict is None:
                left_out["no_verdict"] += 1
            elif verdict["verdict"] == V.FAILED:
                left_out["failed_verdict"] += 1
            elif _version_at(times, numbers, verdict["created_at"]) != read:
                left_out["other_text"] += 1
            else:
                out.append(
                    {
                        "case": case["pk"],
                        "criterion": criterion,
                        "classifier": verdict["verdict"] in FLAGS,
                        "reviewers": case["decision"] == MemoryCase.Decision.CONFIRMED,
                    }
                )
    left_out["cases_decided"] = len(cases)
    return out, left_out


def compute(key: str = "") -> dict:
    rows, left_out = records()
    sets = {"all": ([r["classifier"] for r in rows], [r["reviewers"] for r in rows])}
    for number in criteria.CRITERIA:
        named = [r for r in rows if r["criterion"] == number]
        sets[str(number)] = ([r["classifier"] for r in named], [r["reviewers"] for r in named])
    table = flag_agreement_table(
        sets, min_pairs=MIN_PAIRS, n_boot=N_BOOTSTRAP, seed=SEED, ci_level=CI_LEVEL
    )
    overall = table.pop("all")
    groups = [
        {"name": f"{number}. {criteria.CRITERIA[int(number)]}", **figures}
        for number, figures in table.items()
    ]
    return {
        "n_pairs": len(rows),
        "overall": overall,
        "groups": groups,
        "left_out": left_out,
        "min_pairs": MIN_PAIRS,
        "n_boot": N_BOOTSTRAP,
        "ci_level": CI_LEVEL,
        "seed": SEED,
    }


def stored_report() -> ReportView:
    """The stored report (queues its computation when its inputs changed)."""
    return report_for(KIND, "")


register(KIND, inputs=inputs, compute=compute)
