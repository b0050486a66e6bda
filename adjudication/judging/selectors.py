"""Reads of judge runs: the pairs a run may judge, the materials one call shows the judge,
a run's progress and its per-call table, the run list. Each issues a fixed number of
queries whatever the number of pairs or calls.

!!! BLINDING !!!  Everything here carries the judge's output and candidate ids (whose
family is provenance). Only admin-only views may call it.
"""

from dataclasses import dataclass

from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404
from django.template.defaultfilters import floatformat
from django.urls import NoReverseMatch, reverse

from adjudication.judging.models import JudgeCall, JudgeRun
from adjudication.judging.prompts import JudgeMaterials
from annotation.comparison.models import COMPARISON_LETTERS, ComparisonPair
from annotation.comparison.selectors import (
    BlindCandidate,
    blind_memories,
    memories_by_id,
)
from annotation.generation.models import Candidate
from core.protocol import ANNOTATORS_PER_PAIR

CallStatus = JudgeCall.Status


def judge_eligible_pairs():
    """Pairs with their three candidates whose every assigned annotator has submitted
    (at least ``ANNOTATORS_PER_PAIR`` judgments): the calibration report compares the
    judge with those humans."""
    return (
        ComparisonPair.objects.annotate(
            judged=Count("assignments__judgment", distinct=True),
            candidate_count=Count("candidates", distinct=True),
        )
        .filter(judged__gte=ANNOTATORS_PER_PAIR, candidate_count=len(COMPARISON_LETTERS))
        .select_related("character", "scenario")
        .order_by("character__key", "scenario__scenario_id")
    )


def judge_materials(*, pair: ComparisonPair, permutation: list[int]) -> JudgeMaterials:
    """What the annotator's comparison page shows for ``pair``, candidates in
    ``permutation``'s order; the memories are the audited ones, as on the page
    (``annotation.comparison.selectors.comparison_page``)."""
    version, scenario = pair.profile_version, pair.scenario
    candidates = Candidate.objects.in_bulk(permutation)
    wanted = {i for c in candidates.values() for i in c.activated_memory_ids or []}
    by_id = memories_by_id(pair.character_id, wanted)
    blind = []
    for letter, candidate_id in zip(COMPARISON_LETTERS, permutation, strict=True):
        c = candidates[candidate_id]
        blind.append(
            BlindCandidate(
                letter=letter,
                summary=c.summary,
                emotional_tone=c.emotional_tone,
                core_reasoning=c.core_reasoning,
                final_decision=c.final_decision,
                memories=blind_memories(c.activated_memory_ids or [], by_id),
            )
        )
    traits = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
    big_five = " ".join(
        f"{name[0].upper()} {floatformat(getattr(version, name), 2)}" for name in traits
    )
    return JudgeMaterials(
        character_key=pair.character.key,
        profile={
            "big_five": big_five,
            "trait_anchor": version.trait_anchor,
            "occupation": version.occupation,
            "description": version.description,
            "self_value_logic": version.self_value_logic,
            "core_patterns": list(version.core_patterns or []),
        },
        scenario={
            "scenario_id": scenario.scenario_id,
            "name": scenario.name,
            "background": scenario.description_for_agent,
            "setting": f"{scenario.setting_location} · {scenario.setting_time} · "
            f"{scenario.setting_atmosphere}",
            "context": scenario.context_text,
            "trigger": f"{scenario.trigger_sender}: {scenario.trigger_message}",
            "action_required": scenario.action_required,
        },
        candidates=blind,
    )


# --- pages -------------------------------------------------------------------------------


def judge_run_list():
    return (
        JudgeRun.objects.select_related("created_by")
        .order_by("-created_at", "-pk")
        .annotate(
            pair_count=Count("pairs", distinct=True),
            call_count=Count("calls", distinct=True),
            done_count=Count(
                "calls",
                filter=Q(calls__status__in=JudgeCall.TERMINAL),
                distinct=True,
            ),
        )
    )


def judge_run_get(*, run_id: int) -> JudgeRun:
    return get_object_or_404(JudgeRun.objects.select_related("created_by"), pk=run_id)


@dataclass(frozen=True)
class JudgeProgress:
    total: int
    pending: int
    running: int
    succeeded: int
    failed: int
    cancelled: int

    @property
    def done(self) -> int:
        return self.succeeded + self.failed + self.cancelled

    @property
    def without_verdict(self) -> int:
        return self.total - self.succeeded

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


def judge_run_progress(*, run_id: int) -> JudgeProgress:
    counts = dict(
        JudgeCall.objects.filter(run_id=run_id)
        .values_list("status")
        .annotate(n=Count("pk"))
        .values_list("status", "n")
    )
    return JudgeProgress(
        total=sum(counts.values()), **{s: counts.get(s, 0) for s in CallStatus.values}
    )


@dataclass(frozen=True)
class CallRow:
    call: JudgeCall
    letters: list[tuple[str, int]]  # (letter, candidate pk) in the order shown
    selected_letter: str
    selected_candidate_id: int | None


def judge_call_page(*, run_id: int, page_number=None, per_page: int = 50):
    """One page of a run's calls, with the letters each showed and the verdict's choice."""
    calls = (
        JudgeCall.objects.filter(run_id=run_id)
        .select_related("pair__character", "pair__scenario", "verdict")
        .order_by("pair__character__key", "pair__scenario__scenario_id", "order_index")
    )
    page = Paginator(calls, per_page).get_page(page_number)
    rows = []
    for call in page.object_list:
        verdict = getattr(call, "verdict", None)
        rows.append(
            CallRow(
                call=call,
                letters=list(zip(COMPARISON_LETTERS, call.permutation or [], strict=False)),
                selected_letter=verdict.selected_letter if verdict else "",
                selected_candidate_id=verdict.selected_candidate_id if verdict else None,
            )
        )
    page.rows = rows
    return page


def judge_report_url(run_id: int) -> str | None:
    """The run's calibration report, once that page exists (``judging:report``)."""
    try:
        return reverse("judging:report", kwargs={"run_id": run_id})
    except NoReverseMatch:
        return None
