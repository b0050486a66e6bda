"""The adjudication-chain sections of the stages before MCQ assembly (App. D.1-D.2):
candidates with their generation provenance, the blinded comparison judgments, and
arbitration decisions. Registered when :mod:`adjudication.export.services` is imported; the
exporter is their only caller.

Each section reads with a fixed number of queries for the whole item list and returns
``{item.pk: jsonable}`` with lists in a fixed order (see :mod:`.export_chain`).
"""

from collections import defaultdict

from django.db.models import Prefetch

from adjudication.arbitration.models import ArbitrationDecision
from adjudication.export.chain import register_chain_section
from annotation.comparison.models import ComparisonJudgmentVersion, ComparisonPair, PairAssignment
from annotation.generation.models import Candidate, LlmCallRecord


def _iso(value):
    return value.isoformat() if value is not None else None


def _username(user):
    return user.get_username() if user is not None else None


def _pairs_of(items) -> dict:
    """{(character pk, scenario pk): [item pk, ...]}"""
    out = defaultdict(list)
    for item in items:
        out[(item.character_id, item.scenario_id)].append(item.pk)
    return out


def _by_item(items, rows_by_pair: dict) -> dict:
    out = {}
    for pair, item_pks in _pairs_of(items).items():
        if pair in rows_by_pair:
            for pk in item_pks:
                out[pk] = rows_by_pair[pair]
    return out


def _pair_filter(items) -> dict:
    return {
        "character_id__in": sorted({i.character_id for i in items}),
        "scenario_id__in": sorted({i.scenario_id for i in items}),
    }


def candidates_section(items) -> dict:
    """Every candidate of the item's pair, with the run, unit and LLM calls behind it."""
    if not items:
        return {}
    wanted = set(_pairs_of(items))
    in_pairs = set(
        ComparisonPair.candidates.through.objects.filter(
            comparisonpair__character_id__in=[c for c, _ in wanted],
            comparisonpair__scenario_id__in=[s for _, s in wanted],
        ).values_list("candidate_id", flat=True)
    )
    rows = defaultdict(list)
    for c in (
        Candidate.objects.filter(**_pair_filter(items))
        .select_related(
            "run__screening_prompt",
            "run__reranking_prompt",
            "run__response_prompt",
            "run__created_by",
            "unit",
            "profile_version",
        )
        .prefetch_related(
            Prefetch("unit__calls", queryset=LlmCallRecord.objects.order_by("created_at", "pk"))
        )
        .order_by("pk")
    ):
        pair = (c.character_id, c.scenario_id)
        if pair not in wanted:
            continue
        rows[pair].append(_candidate(c, c.pk in in_pairs))
    return _by_item(items, rows)


def _candidate(c, in_comparison: bool) -> dict:
    run, unit = c.run, c.unit
    return {
        "id": c.pk,
        "family": c.family,
        "model_name": c.model_name,
        "origin": c.origin,
        "source": c.source,
        "in_comparison_pair": in_comparison,
        "profile_version": c.profile_version.number if c.profile_version else None,
        "summary": c.summary,
        "emotional_tone": c.emotional_tone,
        "core_reasoning": c.core_reasoning,
        "final_decision": c.final_decision,
        "activated_memory_ids": c.activated_memory_ids,
        "created_at": _iso(c.created_at),
        "run": (
            {
                "id": run.pk,
                "status": run.status,
                "families": run.families,
                "models": run.models,
                "activation_models": run.activation_models,
                "prompts": {
                    p.stage: p.number
                    for p in (run.screening_prompt, run.reranking_prompt, run.response_prompt)
                },
                "created_by": _username(run.created_by),
                "created_at": _iso(run.created_at),
                "finished_at": _iso(run.finished_at),
            }
            if run
            else None
        ),
        "unit": (
            {
                "id": unit.pk,
                "status": unit.status,
                "stage_reached": unit.stage_reached,
                "attempts": unit.attempts,
                "reranking_skipped": unit.reranking_skipped,
                "eligible_memory_ids": unit.eligible_memory_ids,
                "screened_memory_ids": unit.screened_memory_ids,
                "activated_memory_ids": unit.activated_memory_ids,
                "tokens_in": unit.tokens_in,
                "tokens_out": unit.tokens_out,
                "cost_usd": str(unit.cost_usd),
                "calls": [
                    {
                        "stage": call.stage,
                        "provider": call.provider,
                        "model": call.model,
                        "prompt_hash": call.prompt_hash,
                        "ok": call.ok,
                        "attempt_count": call.attempt_count,
                        "error_kind": call.error_kind,
                        "tokens_in": call.tokens_in,
                        "tokens_out": call.tokens_out,
                        "created_at": _iso(call.created_at),
                    }
                    for call in unit.calls.all()
                ],
            }
            if unit
            else None
        ),
    }


def comparison_section(items) -> dict:
    """The pair's blinded comparison: each annotator's letters → candidates and every
    submitted version of their judgment (canonical candidate ids, not letters only)."""
    if not items:
        return {}
    rows = {}
    pairs = (
        ComparisonPair.objects.filter(**_pair_filter(items))
        .select_related("profile_version", "created_by")
        .prefetch_related(
            Prefetch(
                "assignments",
                queryset=PairAssignment.objects.select_related(
                    "annotator", "assigned_by", "judgment"
                ).order_by("pk"),
            ),
            Prefetch(
                "assignments__judgment__versions",
                queryset=ComparisonJudgmentVersion.objects.order_by("number"),
            ),
        )
        .order_by("pk")
    )
    for pair in pairs:
        rows[(pair.character_id, pair.scenario_id)] = {
            "pair_id": pair.pk,
            "status": pair.status,
            "profile_version": pair.profile_version.number,
            "escalation_reasons": pair.escalation_reasons,
            "created_by": _username(pair.created_by),
            "created_at": _iso(pair.created_at),
            "routed_at": _iso(pair.routed_at),
            "assignments": [_assignment(a) for a in pair.assignments.all()],
        }
    return _by_item(items, rows)


def _judgment(content) -> dict:
    return {**content.content(), "selected_candidate": content.selected_candidate_id}


def _assignment(a) -> dict:
    judgment = getattr(a, "judgment", None)
    return {
        "annotator": _username(a.annotator),
        "batch": a.batch,
        "permutation": a.permutation,
        "assigned_by": _username(a.assigned_by),
        "assigned_at": _iso(a.assigned_at),
        "judgment": (
            {
                **_judgment(judgment),
                "version": judgment.version,
                "submitted_at": _iso(judgment.submitted_at),
                "versions": [
                    {**_judgment(v), "number": v.number, "created_at": _iso(v.created_at)}
                    for v in judgment.versions.all()
                ],
            }
            if judgment
            else None
        ),
    }


def arbitration_section(items) -> dict:
    """Every arbitration decision on the item's pair, reopened ones included."""
    if not items:
        return {}
    rows = defaultdict(list)
    decisions = (
        ArbitrationDecision.objects.filter(
            pair__character_id__in=sorted({i.character_id for i in items}),
            pair__scenario_id__in=sorted({i.scenario_id for i in items}),
        )
        .select_related("pair", "arbitrator", "reopened_by")
        .order_by("decided_at", "pk")
    )
    for d in decisions:
        rows[(d.pair.character_id, d.pair.scenario_id)].append(
            {
                "id": d.pk,
                "kind": d.kind,
                "arbitrator": _username(d.arbitrator),
                "source_candidate": d.source_candidate_id,
                "reason": d.reason,
                "reference": d.reference_id,
                "decided_at": _iso(d.decided_at),
                "reopened_at": _iso(d.reopened_at),
                "reopened_by": _username(d.reopened_by),
                "reopen_reason": d.reopen_reason,
            }
        )
    return _by_item(items, rows)


register_chain_section("candidates", candidates_section)
register_chain_section("comparison", comparison_section)
register_chain_section("arbitration", arbitration_section)
