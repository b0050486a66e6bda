"""The paper's scale on top of the demo, through the platform's own services
(``benchmarks/paper_scale.py`` builds with it; ``tests/site/test_paper_scale.py`` runs it
at a tiny scale).

Starting from a database ``demo_setup`` loaded (the release's 64 scenarios, 673 references
and 673 final items over the eleven stand-in characters, every workflow at a demo stage),
``grow`` adds, for ``scale`` 1 (the paper, seed 000 App. B.8, D):

- memories up to 1,000 per stand-in character, from ``heartbench_site.synthetic_corpus``
  (bulk-created rows with the fields the importer writes);
- candidates for every (character, release scenario), three families each, in the demo's
  generation run (bulk-created: their texts are the demo run's candidates'), then the
  pairs through ``comparison_pairs_create`` (which screens them for leaks): 704 pairs;
- the three demo annotators assigned to every pair (``pairs_assign``) and their 2,112
  judgments submitted (``judgment_submit``, which routes each pair): 279 escalated by
  disagreement, the rest adopted unanimously;
- nine in ten escalations resolved by the demo arbitrator (``arbitration_resolve``);
- a memory audit run with the default criteria (all six) over those memories
  (``audit_run_execute``);
- the demo's 176-item label audit answered by its three experts
  (``label_selection_submit``);
- simulated evaluation runs imported (``evaluation_run_import``) up to 65 runs.

``scale`` multiplies the pairs, judgments and escalations (memories, label audit items
and evaluation runs stop at the paper's counts); above 1, the paper's part is built as
above, then each further copy of the pairs is made over a copy of the release's scenarios
(``SCN_COPY<n>_…``), as a lab that ran the protocol again would have, by bulk insertion
of the rows the services wrote for the paper's pairs (``benchmarks/paper_copies.py``).
"""

import json
import time

import numpy as np
from django.db import transaction

PAPER = {
    "memories_per_character": 1000,
    "pairs": 704,
    "judgments": 2112,
    "escalations": 279,
    "final_items": 673,
    "label_audit_items": 176,
    "evaluation_runs": 65,
}
RESOLVED_SHARE = 0.9
JUDGE_RUN_NAME = "Benchmark judge run (offline demo provider)"
JUDGE_ORDERS = 3
LABEL = "[Demo stand-in, not from the HEART-Bench release]"
RELEASE_KEYS = [f"CHAR_{n:02d}" for n in range(1, 12)]
SIM_MODELS = tuple(f"bench-sim model {n:02d}" for n in range(1, 40))


def targets(scale: float) -> dict[str, int]:
    capped = min(scale, 1.0)
    pairs = round(PAPER["pairs"] * scale)
    return {
        "memories_per_character": round(PAPER["memories_per_character"] * capped),
        "pairs": pairs,
        "judgments": 3 * pairs,
        "escalations": round(PAPER["escalations"] * scale),
        "label_audit_items": round(PAPER["label_audit_items"] * capped),
        "evaluation_runs": round(PAPER["evaluation_runs"] * capped),
    }


def _say(message: str, started: float) -> None:
    print(f"  [{time.perf_counter() - started:6.1f} s] {message}", flush=True)


def _users():
    from django.contrib.auth import get_user_model

    users = {u.username: u for u in get_user_model().objects.all()}
    return users


def grow_memories(per_character: int) -> int:
    """Bulk-created stand-in memories up to ``per_character`` per release character."""
    from annotation.corpus.models import Character, Memory
    from heartbench_site import synthetic_corpus

    rows = []
    for character in Character.objects.filter(key__in=RELEASE_KEYS):
        have = Memory.objects.filter(character=character).count()
        last = max(Memory.objects.filter(character=character).values_list("sequence", flat=True))
        ages = synthetic_corpus.spread_ages(per_character)
        for n in range(have, per_character):
            seq = last + 1 + n - have
            memory_id = f"MEM_{character.key}_BENCH_{seq:04d}"
            age = ages[n]
            m = synthetic_corpus.memory(memory_id, age, label=LABEL)
            rows.append(
                synthetic_corpus.standin_row(
                    character,
                    m,
                    anonymized_id=f"MEM_{character.key}_B{seq:04d}",
                    sequence=seq,
                    age=age,
                )
            )
    Memory.objects.bulk_create(rows, batch_size=1000)
    return len(rows)


def _scenario_copies(copies: int) -> list:
    """The release's scenarios, then ``copies - 1`` copies of them (``SCN_COPY<n>_…``)."""
    from annotation.corpus.models import Scenario

    release = list(
        Scenario.objects.filter(references__decision_type="imported")
        .distinct()
        .order_by("scenario_id")
    )
    out = list(release)
    for n in range(2, copies + 1):
        for s in release:
            copy, _ = Scenario.objects.get_or_create(
                scenario_id=s.scenario_id.replace("SCN_", f"SCN_COPY{n}_", 1),
                defaults={
                    f.name: getattr(s, f.name)
                    for f in Scenario._meta.concrete_fields
                    if f.name not in ("id", "scenario_id")
                },
            )
            out.append(copy)
    return out


def grow_pairs(n_pairs: int, started: float) -> list[int]:
    """Candidates and pairs up to ``n_pairs`` pairs in all; returns the new pairs' ids."""
    from annotation.candidate_screening.models import LeakFlag
    from annotation.comparison import services
    from annotation.comparison.models import ComparisonPair
    from annotation.corpus.models import Character, ProfileVersion, Scenario
    from annotation.generation.demo import DEMO_RUN_NOTE
    from annotation.generation.models import Candidate, GenerationRun

    users = _users()
    run = GenerationRun.objects.get(note=DEMO_RUN_NOTE)
    have = ComparisonPair.objects.count()
    if have >= n_pairs:
        return []
    # The demo run's candidates of one pair no leak flag touched: their texts are reused.
    flagged = set(
        ComparisonPair.objects.filter(
            candidates__in=LeakFlag.objects.values("candidate")
        ).values_list("pk", flat=True)
    )
    template = ComparisonPair.objects.filter(candidates__run=run).exclude(pk__in=flagged).first()
    templates = list(template.candidates.order_by("family"))
    characters = list(Character.objects.filter(key__in=RELEASE_KEYS))
    profiles = {
        c.pk: ProfileVersion.objects.filter(character=c).order_by("-number").first()
        for c in characters
    }
    taken = set(Candidate.objects.values_list("character_id", "scenario_id"))
    scenarios_per_copy = Scenario.objects.filter(references__decision_type="imported").distinct()
    copies = -(-n_pairs // (len(characters) * scenarios_per_copy.count()))
    rows = []
    need = n_pairs - have
    for scenario in _scenario_copies(copies):
        for character in characters:
            if len(rows) >= 3 * need:
                break
            if (character.pk, scenario.pk) in taken:
                continue
            for t in templates:
                rows.append(
                    Candidate(
                        character=character,
                        scenario=scenario,
                        family=t.family,
                        model_name=t.model_name,
                        run=run,
                        profile_version=profiles[character.pk],
                        summary=t.summary,
                        emotional_tone=t.emotional_tone,
                        core_reasoning=t.core_reasoning,
                        final_decision=t.final_decision,
                        activated_memory_ids=t.activated_memory_ids,
                        origin=Candidate.Origin.GENERATED,
                        source=t.source,
                    )
                )
    Candidate.objects.bulk_create(rows, batch_size=1000)
    _say(f"{len(rows):,} candidates written", started)
    created = services.comparison_pairs_create(user=users["admin"], run_id=run.pk)
    _say(f"{len(created):,} pairs created and screened", started)
    return [p.pk for p in created]


def _content(letter: str, rating: str = "as_is", guidance: str = "") -> dict:
    return {
        "suitability": "suitable",
        "selected_letter": letter,
        "rating": rating,
        "selection_rationale": "Benchmark: the decision follows from the character's core "
        "patterns and the activated memories.",
        "revision_guidance": guidance,
    }


def judge_pairs(pair_ids: list[int], escalations: int, started: float) -> int:
    """Assign the new pairs to the three demo annotators and submit their judgments: the
    first ``escalations`` pairs by disagreement, the rest unanimously. Returns how many
    were escalated."""
    from adjudication.consensus.services import judgment_submit, pairs_assign
    from annotation.comparison.models import COMPARISON_LETTERS, PairAssignment

    users = _users()
    annotators = [users[n] for n in ("annotator", "annotator2", "annotator3")]
    pairs_assign(user=users["admin"], pair_ids=pair_ids, annotator_ids=[a.pk for a in annotators])
    _say(f"{len(pair_ids) * 3:,} assignments made", started)
    by_pair: dict[int, list] = {}
    for a in PairAssignment.objects.filter(pair_id__in=pair_ids).order_by("annotator__username"):
        by_pair.setdefault(a.pair_id, []).append(a)
    escalated = 0
    for i, pair_id in enumerate(sorted(pair_ids)):
        disagree = escalated < escalations
        with transaction.atomic():
            for k, assignment in enumerate(by_pair[pair_id]):
                # Letters are per annotator: agreement is on the candidate (by id).
                chosen = sorted(assignment.permutation)[k if disagree else 0]
                letter = COMPARISON_LETTERS[assignment.permutation.index(chosen)]
                judgment_submit(
                    public_id=assignment.public_id,
                    annotator=assignment.annotator,
                    content=_content(letter),
                )
        escalated += disagree
        if (i + 1) % 100 == 0:
            _say(f"{i + 1:,} of {len(pair_ids):,} pairs judged", started)
    return escalated


def resolve_escalations(started: float) -> int:
    """The demo arbitrator adopts a candidate for nine in ten escalated pairs."""
    from adjudication.arbitration.services import arbitration_resolve
    from annotation.comparison.models import ComparisonPair

    arbitrator = _users()["arbitrator"]
    escalated = list(
        ComparisonPair.objects.filter(status=ComparisonPair.Status.ESCALATED).order_by("pk")
    )
    resolved = escalated[: int(len(escalated) * RESOLVED_SHARE)]
    for pair in resolved:
        arbitration_resolve(
            pair_id=pair.pk,
            arbitrator=arbitrator,
            kind="adopted",
            candidate_id=pair.candidates.order_by("pk").first().pk,
            reason="Benchmark: the clearest of the three on the character's patterns.",
        )
    _say(f"{len(resolved):,} escalations resolved", started)
    return len(resolved)


def judge_run(started: float) -> int:
    """A judge run on every pair its annotators judged, three candidate orders each, on
    the offline demo provider (Celery eager: its calls run as the transaction commits)."""
    from adjudication.judging.models import JudgeCall
    from adjudication.judging.services.runs import (
        judge_provider_configs,
        judge_run_create,
        judge_run_start,
    )
    from annotation.generation.models import ModelFamily

    configs = judge_provider_configs()
    family = next(f for f in ModelFamily.values if f in configs and configs[f].is_demo)
    with transaction.atomic():
        run = judge_run_create(
            user=_users()["admin"],
            name=JUDGE_RUN_NAME,
            provider_family=family,
            seed=20261207,
            orders_per_pair=JUDGE_ORDERS,
            note="Benchmark: every judged pair in three candidate orders.",
        )
        judge_run_start(run_id=run.pk)
    calls = JudgeCall.objects.filter(run=run).count()
    _say(f"judge run of {calls:,} calls done", started)
    return calls


def audit_memories(started: float) -> int:
    """A memory audit run with all six criteria over the release characters' memories
    (criterion 4 included, which the demo's settings turn off); returns its cases."""
    from audit.memory_quality.demo import OFFLINE_DEMO
    from audit.memory_quality.services import configuration, runs

    admin = _users()["admin"]
    version = configuration.audit_settings_create(
        created_by=admin,
        note="Benchmark: every criterion on, the protocol's defaults",
        enabled_criteria=[1, 2, 3, 4, 5, 6],
    )
    run = runs.audit_run_start(
        created_by=admin,
        character_keys=RELEASE_KEYS,
        note="Benchmark: default audit of the stand-in memories",
        settings_version=version,
    )
    run = runs.audit_run_execute(run_id=run.pk, dispatch_repairs=False, provider=OFFLINE_DEMO)
    cases = run.cases.count()
    _say(f"memory audit run: {cases:,} cases", started)
    return cases


def answer_label_audit(items: int, started: float) -> int:
    """The demo label audit's three experts answer its first ``items`` items (the key,
    one in eight items with one dissent, which goes to the adjudicator)."""
    from adjudication.mcq.models import OPTION_LABELS
    from audit.reference_labels import services
    from audit.reference_labels.demo import DEMO_NOTE
    from audit.reference_labels.models import LabelAudit, LabelSelection

    users = _users()
    audit = LabelAudit.objects.filter(note=DEMO_NOTE).first()
    if audit is None:
        return 0
    experts = [users[n] for n in ("auditor", "auditor2", "auditor3")]
    done = set(
        LabelSelection.objects.filter(
            audit_item__audit=audit, submitted_at__isnull=False
        ).values_list("audit_item_id", "expert_id")
    )
    rows = list(audit.items.select_related("item_version").order_by("pk")[:items])
    for i, row in enumerate(rows):
        key = row.item_version.correct_answer
        for k, expert in enumerate(experts):
            if (row.pk, expert.pk) in done:
                continue
            choice = key if (i % 8 or k) else [x for x in OPTION_LABELS if x != key][0]
            services.label_selection_submit(
                audit_item_id=row.pk, expert=expert, choice=choice, note=""
            )
    _say(f"{len(rows):,} label-audit items answered", started)
    return len(rows)


def import_evaluation_runs(total: int, started: float) -> int:
    """Simulated runs over the final set imported until there are ``total`` runs."""
    from adjudication.mcq.models import McqItem
    from evaluation.models import EvaluationRun, Setting
    from evaluation.prediction_import import evaluation_run_import

    admin = _users()["admin"]
    items = list(
        McqItem.objects.filter(status=McqItem.Status.FINAL)
        .order_by("question_id")
        .values_list("question_id", "correct_answer")
    )
    rng = np.random.default_rng(20261207)
    made = 0
    plans = [(m, s) for m in SIM_MODELS for s in (Setting.NO_RETRIEVAL, Setting.NAIVE_RAG)]
    for label, setting in plans:
        if EvaluationRun.objects.count() >= total:
            break
        accuracy = 0.25 if setting == Setting.NO_RETRIEVAL else rng.uniform(0.35, 0.65)
        predictions = {}
        for question_id, key in items:
            wrong = [x for x in "ABCD" if x != key]
            correct = rng.random() < accuracy
            predictions[question_id] = key if correct else wrong[int(rng.integers(3))]
        payload = {"model": label, "setting": setting, "predictions": predictions}
        evaluation_run_import(
            created_by=admin,
            filename=f"{label}.json",
            content=json.dumps(payload).encode(),
            note="Benchmark: simulated run at the paper's scale",
        )
        made += 1
    _say(f"{made} evaluation runs imported", started)
    return made


def grow(scale: float) -> dict[str, int]:
    """Bring the demo database in use to ``scale`` times the paper; returns the counts.
    Up to the paper's scale through the services; beyond it, the pairs the services
    judged are copied by bulk insertion (``benchmarks/paper_copies.py``)."""
    from annotation.comparison.models import ComparisonPair
    from benchmarks.paper_copies import copy_pairs

    started = time.perf_counter()
    want = targets(scale)
    paper = targets(min(scale, 1.0))
    grow_memories(want["memories_per_character"])
    _say("memories written", started)
    audit_memories(started)
    new_pairs = grow_pairs(paper["pairs"], started)
    already = ComparisonPair.objects.filter(
        status__in=["escalated", "resolved", "discarded", "regenerating"]
    )
    judge_pairs(new_pairs, max(0, paper["escalations"] - already.count()), started)
    resolve_escalations(started)
    judge_run(started)
    answer_label_audit(want["label_audit_items"], started)
    import_evaluation_runs(want["evaluation_runs"], started)
    if scale > 1:
        copy_pairs(want["pairs"], started)
    return counts()


def counts() -> dict[str, int]:
    from adjudication.arbitration.models import ArbitrationDecision
    from adjudication.judging.models import JudgeCall
    from adjudication.mcq.models import McqItem
    from annotation.comparison.models import ComparisonJudgment, ComparisonPair, PairAssignment
    from annotation.corpus.models import Memory
    from annotation.generation.models import Candidate
    from audit.memory_quality.models import MemoryCase
    from audit.reference_labels.models import LabelAuditItem
    from evaluation.models import EvaluationRun

    pairs = ComparisonPair.objects
    return {
        "stand-in memories": Memory.objects.filter(character__key__in=RELEASE_KEYS).count(),
        "memory audit cases": MemoryCase.objects.count(),
        "pairs": pairs.count(),
        "candidates in pairs": Candidate.objects.filter(
            pk__in=ComparisonPair.candidates.through.objects.values("candidate_id")
        ).count(),
        "assignments": PairAssignment.objects.count(),
        "judgments": ComparisonJudgment.objects.count(),
        "escalations": pairs.filter(
            status__in=["escalated", "resolved", "discarded", "regenerating"]
        ).count(),
        "escalations open": pairs.filter(status="escalated").count(),
        "arbitration decisions": ArbitrationDecision.objects.count(),
        "adopted unanimously": pairs.filter(status="adopted").count(),
        "final items": McqItem.objects.filter(status=McqItem.Status.FINAL).count(),
        "judge calls": JudgeCall.objects.count(),
        "label audit items": LabelAuditItem.objects.count(),
        "label audit items answered": LabelAuditItem.objects.filter(
            selections__submitted_at__isnull=False
        )
        .distinct()
        .count(),
        "evaluation runs": EvaluationRun.objects.count(),
    }
