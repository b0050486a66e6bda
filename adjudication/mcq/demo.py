"""Item review's part of `make demo` (seed 000 §2.4 Stage 3, App. D.3-D.3.1).

The release's 673 MCQs arrive final (the authors screened and reviewed them), and every
release pair already has its item. So the demo assembles four labelled demo items
(``DEMO_Q_…``, source "demo") from release references of four scenarios, next to the
release items (an admin's override of the assembly gate, recorded as a protocol
deviation: the release's references were not adjudicated in this project), and screens
three of them with a scripted offline judge whose outputs say "[offline demo judge]":

- two flagged by the screen: an R2 near-duplicate concern, and an R1 "distractor better
  supported" concern;
- one technical failure: the judge's output was unusable three times and the item is
  routed to review;
- one needing completion: a strict demo relevance threshold leaves two valid distractors,
  so the item has three options and waits for a reviewer to add one (never padded).

The demo "arbitrator" (the item reviewer) finds them under Items. No real model is
called. Idempotent: a second call finds the demo items and changes nothing.
"""

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq import assembly_rules as mcq_assembly
from adjudication.mcq.models import McqItem
from adjudication.mcq.screening import MAX_SCREENING_ATTEMPTS
from adjudication.mcq.services import item_assembly, item_screening
from llm import CallResult, ProviderConfig

DEMO_PREFIX = "DEMO_"
DEMO_LABEL = "[offline demo judge]"
OFFLINE_DEMO = ProviderConfig(kind="offline_demo", model="offline-demo")
# The demo's items are assembled from the release's references, which were adjudicated by
# the authors, not in this project: an override of the assembly gate, recorded as such.
DEMO_GATE_REASON = (
    "Demo: item review is shown on the release's own references (adjudicated by the "
    "paper's authors, imported here)."
)


class ScriptedDemoJudge:
    """A JSON client answering from a list: dicts are outputs, None an unusable reply."""

    config = OFFLINE_DEMO

    def __init__(self, answers):
        self.answers = list(answers)

    def complete_json(self, *, system, user, schema, max_attempts=1, instruct_schema=True):
        answer = self.answers.pop(0)
        if answer is None:
            return CallResult(
                provider="offline_demo",
                model="offline-demo",
                prompt_hash="",
                ok=False,
                error_kind="invalid_json",
                error_message=f"{DEMO_LABEL} the reply was not JSON",
                demo=True,
            )
        return CallResult(
            provider="offline_demo",
            model="offline-demo",
            prompt_hash="",
            ok=True,
            parsed=answer,
            demo=True,
        )


def _output(item, *, concern: str | None) -> dict:
    materials = item_screening.screening_materials(item)
    excerpt = " ".join(materials["scenario"]["context"].split()[:8])
    distractors = [o["label"] for o in materials["options"] if o["label"] != item.correct_answer]
    checks = {r: "pass" for r in ("R1", "R2", "R3", "R4", "R5", "R6")}
    issues = []
    best = item.correct_answer
    if concern == "R2":
        checks["R2"] = "flag"
        issues.append(
            {
                "rule_id": "R2",
                "option_ids": distractors[:2],
                "description": f"{DEMO_LABEL} Options {distractors[0]} and {distractors[1]} "
                "may express the same behaviour with different wording.",
                "evidence_anchors": [{"input_path": "scenario.context", "excerpt": excerpt}],
                "missing_information": "",
                "impact": "Two options could not be told apart.",
                "suggested_human_action": "Revise or replace one of the two distractors.",
            }
        )
    elif concern == "R1":
        best = distractors[0]
        checks["R1"] = "flag"
        issues.append(
            {
                "rule_id": "R1",
                "option_ids": [item.correct_answer, best],
                "description": f"{DEMO_LABEL} Option {best} may be as well supported by the "
                "profile as the key.",
                "evidence_anchors": [{"input_path": "scenario.context", "excerpt": excerpt}],
                "missing_information": "",
                "impact": "The key may not be uniquely best.",
                "suggested_human_action": "Reconsider the key or replace the distractor.",
            }
        )
    return {
        "item_id": item.question_id,
        "item_version": item.version,
        "selection": {
            "status": "unique_best",
            "best_option": best,
            "tied_options": [],
            "justification": f"{DEMO_LABEL} scripted demo output.",
        },
        "option_assessments": [
            {
                "option_id": o["label"],
                "assessment": f"{DEMO_LABEL} scripted assessment of option {o['label']}.",
                "evidence_anchors": [{"input_path": "scenario.context", "excerpt": excerpt}],
            }
            for o in materials["options"]
        ],
        "checks": [{"rule_id": r, "status": s, "comment": DEMO_LABEL} for r, s in checks.items()],
        "issues": issues,
        "needs_human_review": concern is not None,
    }


def _demo_targets(limit: int) -> list[ReferenceResponse]:
    """The first character of the first scenarios with at least four other references."""
    refs = ReferenceResponse.objects.filter(superseded_at__isnull=True).select_related(
        "character", "scenario"
    )
    by_scenario: dict = {}
    for r in refs.order_by("scenario__scenario_id", "character__key"):
        by_scenario.setdefault(r.scenario.scenario_id, []).append(r)
    chosen = [rs[0] for _, rs in sorted(by_scenario.items()) if len(rs) >= 5]
    return chosen[:limit]


def _strict_params(target) -> mcq_assembly.AssemblyParams:
    """A relevance threshold that leaves exactly two valid distractors for ``target``."""
    others = ReferenceResponse.objects.filter(
        scenario=target.scenario, superseded_at__isnull=True
    ).exclude(character=target.character)
    scored = mcq_assembly.score_candidates(
        key=target.final_decision,
        scenario=item_assembly.scenario_text(target.scenario),
        candidates=[
            mcq_assembly.DistractorCandidate(r.pk, r.character.key, r.final_decision)
            for r in others.select_related("character")
        ],
        params=mcq_assembly.AssemblyParams(),
    )
    relevances = sorted((s.relevance for s in scored if s.rejected is None), reverse=True)
    # Just above the third most relevant: the top two stay valid.
    threshold = round((relevances[1] + relevances[2]) / 2, 6)
    return mcq_assembly.AssemblyParams(relevance_min=threshold)


def seed_mcq_demo(*, users: dict | None = None) -> list[McqItem]:
    """Four labelled demo items awaiting item review (see the module docstring)."""
    existing = list(McqItem.objects.filter(question_id__startswith=DEMO_PREFIX))
    if existing:
        return existing
    targets = _demo_targets(4)
    if len(targets) < 4:
        return []
    admin = (users or {}).get("admin")
    items = []
    for target, script in zip(targets[:3], ("R2", "R1", "failure"), strict=True):
        item = item_assembly.mcq_item_assemble(
            reference_id=target.pk,
            selector=False,
            user=admin,
            question_id=f"{DEMO_PREFIX}{item_assembly.question_id_for(target)}",
            dispatch=False,
            gate_override_reason=DEMO_GATE_REASON,
        )
        McqItem.objects.filter(pk=item.pk).update(source="demo")
        if script == "failure":
            judge = ScriptedDemoJudge([None] * MAX_SCREENING_ATTEMPTS)
        else:
            judge = ScriptedDemoJudge([_output(item, concern=script)])
        item_screening.mcq_screening_run(
            item_id=item.pk, client=judge, note="The demo's scripted screening."
        )
        items.append(item)
    target = targets[3]
    item = item_assembly.mcq_item_assemble(
        reference_id=target.pk,
        params=_strict_params(target),
        selector=False,
        user=admin,
        question_id=f"{DEMO_PREFIX}{item_assembly.question_id_for(target)}",
        dispatch=False,
        gate_override_reason=DEMO_GATE_REASON,
    )
    McqItem.objects.filter(pk=item.pk).update(source="demo")
    items.append(item)
    return [McqItem.objects.get(pk=i.pk) for i in items]
