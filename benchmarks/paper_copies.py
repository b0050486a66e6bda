"""Beyond the paper's scale: the pairs the services judged, copied by bulk insertion
(``benchmarks/paper_build.py`` calls it for ``scale`` > 1).

Submitting 21,120 judgments one service call at a time takes most of an hour; the rows
those calls write are known, though. ``copy_pairs`` takes the pairs the paper-scale build
routed through the services (round 1, three judgments each, no leak flag) and writes, for
each copy of the release's scenarios (``SCN_COPY<n>_…``, ``paper_build._scenario_copies``),
what the services wrote for them, under the copied scenario and with every id remapped:

- the pair's three candidates and the pair itself (same status, routing, reasons);
- the three annotators' assignments (new public ids, the permutation over the new
  candidates), their judgments and judgment versions;
- the pair's reference when it was adopted unanimously or resolved (no imported reference
  to supersede on a copied scenario), and the arbitration decision that installed it;
- the benchmark judge run's calls on the pair (its pairs list, the calls with their
  permutations, records and verdicts).

Candidates' generation units (and their records) are not copied: a copied candidate has
none, as the candidates the build grows have none.
"""

import uuid

from benchmarks.paper_build import JUDGE_RUN_NAME, _say, _scenario_copies

ROUTED = ("adopted", "escalated", "resolved")


def _clone(model, rows, remap: dict, batch_size: int = 2000) -> dict[int, int]:
    """Bulk-create a copy of each row of ``rows`` (every concrete field as stored, those
    named in ``remap`` passed through its function); returns {old pk: new pk}."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    copies = []
    for row in rows:
        values = {f.attname: getattr(row, f.attname) for f in fields}
        for attname, change in remap.items():
            values[attname] = change(values[attname])
        copies.append(model(**values))
    made = model.objects.bulk_create(copies, batch_size=batch_size)
    return {old.pk: new.pk for old, new in zip(rows, made, strict=True)}


def source_pairs() -> list:
    """The pairs to copy: round 1 over the release's scenarios, routed, three judgments,
    no candidate with a leak flag (pk order)."""
    from django.db.models import Count

    from annotation.candidate_screening.models import LeakFlag
    from annotation.comparison.models import ComparisonPair

    return list(
        ComparisonPair.objects.filter(
            round=1,
            status__in=ROUTED,
            scenario__references__decision_type="imported",
        )
        .exclude(candidates__in=LeakFlag.objects.values("candidate"))
        .annotate(judged=Count("assignments__judgment", distinct=True))
        .filter(judged=3)
        .distinct()
        .order_by("pk")
    )


def copy_pairs(n_pairs: int, started: float) -> int:
    """Copies of the routed pairs over copied scenarios until there are ``n_pairs`` pairs
    in all; returns how many were written."""
    from annotation.comparison.models import ComparisonPair

    need = n_pairs - ComparisonPair.objects.count()
    if need <= 0:
        return 0
    sources = source_pairs()
    per_copy = len(sources)
    copies = 1 + -(-need // per_copy)
    scenarios = _scenario_copies(copies)
    release = {s.pk: s.scenario_id for s in scenarios[: len(scenarios) // copies]}
    by_id = {s.scenario_id: s.pk for s in scenarios}
    taken = set(ComparisonPair.objects.values_list("character_id", "scenario_id", "round"))
    written = 0
    for n in range(2, copies + 1):
        target = {pk: by_id[sid.replace("SCN_", f"SCN_COPY{n}_", 1)] for pk, sid in release.items()}
        batch = [p for p in sources if (p.character_id, target[p.scenario_id], 1) not in taken][
            : need - written
        ]
        if batch:
            written += _copy_batch(batch, target)
            _say(f"copy {n}: {written:,} of {need:,} pairs copied", started)
        if written >= need:
            break
    return written


def _copy_batch(pairs: list, scenario_of: dict[int, int]) -> int:
    """Write the copies of ``pairs``; ``scenario_of`` maps a release scenario's pk to its
    copy's."""
    from django.db import transaction

    from adjudication.arbitration.models import ArbitrationDecision, ReferenceResponse
    from adjudication.judging.models import JudgeCall, JudgeCallRecord, JudgeRun, JudgeVerdict
    from annotation.comparison.models import (
        ComparisonJudgment,
        ComparisonJudgmentVersion,
        ComparisonPair,
        PairAssignment,
    )
    from annotation.generation.models import Candidate

    pair_ids = [p.pk for p in pairs]
    links = list(ComparisonPair.candidates.through.objects.filter(comparisonpair_id__in=pair_ids))
    scenario = scenario_of.__getitem__
    with transaction.atomic():
        candidates = list(Candidate.objects.filter(pk__in=[x.candidate_id for x in links]))
        # No generation unit of its own: as the candidates the build grows.
        cand = _clone(
            Candidate, candidates, {"scenario_id": scenario, "unit_id": lambda _: None}
        ).__getitem__
        pair = _clone(ComparisonPair, pairs, {"scenario_id": scenario}).__getitem__
        ComparisonPair.candidates.through.objects.bulk_create(
            [
                ComparisonPair.candidates.through(
                    comparisonpair_id=pair(x.comparisonpair_id), candidate_id=cand(x.candidate_id)
                )
                for x in links
            ],
            batch_size=5000,
        )

        def permutation(ids):
            return [cand(c) for c in ids]

        assignments = list(PairAssignment.objects.filter(pair_id__in=pair_ids))
        assignment = _clone(
            PairAssignment,
            assignments,
            {"pair_id": pair, "permutation": permutation, "public_id": lambda _: uuid.uuid4()},
        ).__getitem__
        judgments = list(ComparisonJudgment.objects.filter(assignment__pair_id__in=pair_ids))
        judgment = _clone(
            ComparisonJudgment,
            judgments,
            {"assignment_id": assignment, "selected_candidate_id": cand},
        ).__getitem__
        _clone(
            ComparisonJudgmentVersion,
            list(ComparisonJudgmentVersion.objects.filter(judgment__in=judgments)),
            {"judgment_id": judgment, "selected_candidate_id": cand},
        )

        decisions = list(ArbitrationDecision.objects.filter(pair_id__in=pair_ids))
        references = list(
            ReferenceResponse.objects.filter(
                source_candidate_id__in=[c.pk for c in candidates], superseded_at__isnull=True
            ).exclude(decision_type=ReferenceResponse.DecisionType.IMPORTED)
        )
        reference = _clone(
            ReferenceResponse,
            references,
            {
                "scenario_id": scenario,
                "source_candidate_id": cand,
                # A copied scenario has no imported reference for it to supersede.
                "supersedes_id": lambda _: None,
            },
        )
        new_decisions = _clone(
            ArbitrationDecision,
            decisions,
            {
                "pair_id": pair,
                "source_candidate_id": lambda c: c and cand(c),
                "reference_id": lambda r: r and reference.get(r),
            },
        )
        followed = ArbitrationDecision.guidance_followed.through
        followed.objects.bulk_create(
            [
                followed(
                    arbitrationdecision_id=new_decisions[x.arbitrationdecision_id],
                    comparisonjudgment_id=judgment(x.comparisonjudgment_id),
                )
                for x in followed.objects.filter(arbitrationdecision__in=decisions)
            ]
        )

        run = JudgeRun.objects.filter(name=JUDGE_RUN_NAME).order_by("pk").last()
        if run is not None:
            run_pairs = set(run.pairs.filter(pk__in=pair_ids).values_list("pk", flat=True))
            run.pairs.add(*[pair(p) for p in run_pairs])
            calls = list(JudgeCall.objects.filter(run=run, pair_id__in=run_pairs))
            call = _clone(JudgeCall, calls, {"pair_id": pair, "permutation": permutation})
            _clone(
                JudgeCallRecord,
                list(JudgeCallRecord.objects.filter(call__in=calls)),
                {"call_id": call.__getitem__},
            )
            _clone(
                JudgeVerdict,
                list(JudgeVerdict.objects.filter(call__in=calls)),
                {"call_id": call.__getitem__, "selected_candidate_id": cand},
            )
    return len(pairs)
