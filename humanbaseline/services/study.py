"""The study's setup: answer-key sources and predictions from CSV, the subset selection,
the study with its items and retrieval sets, its status."""

import csv
import io
from collections import Counter

from django.db import transaction

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import OPTION_LABELS, McqItem
from annotation.corpus.models import Scenario
from core.life_stages import LIFE_STAGE_KEYS
from core.plurals import agree, counted
from core.protocol import RETRIEVAL_K
from core.text_rules import check_texts
from evaluation.models import RetrievalSet
from evaluation.retrieval import retrieve_for_item

from .. import selectors
from ..largest_study import largest_feasible
from ..models import (
    PRACTICE_REASON_MAX,
    SEED_MAX,
    STUDY_TEXT_LABELS,
    STUDY_TEXT_LIMITS,
    BaselineError,
    BaselineNotFound,
    BaselineStudy,
    ImportedPrediction,
    ItemSourceFamily,
    SelectionItem,
    StudyItem,
    SubsetSelection,
    check_whole,
)
from ..reading import default_practice_reason
from ..subset import (
    DEFAULT_QUOTAS,
    EXPERT_REWRITE,
    SubsetConstraints,
    select_subset,
)

# The answer-key sources, in the selection form's order: the families, then the rewrites.
SOURCES = tuple(source for source, _ in DEFAULT_QUOTAS)


def _rows(content) -> list[dict]:
    text = content.decode("utf-8-sig") if isinstance(content, bytes) else content
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or "question_id" not in [f.strip() for f in reader.fieldnames]:
        raise BaselineError("The CSV needs a header row with a 'question_id' column.")
    return [{(k or "").strip(): (v or "").strip() for k, v in row.items()} for row in reader]


@transaction.atomic
def item_families_import_csv(*, content, origin: str) -> int:
    """Set answer-key sources from ``question_id,family`` rows (a family, or
    ``expert_rewrite``); any bad row rejects the whole file and leaves the database
    unchanged."""
    rows = _rows(content)
    if rows and "family" not in rows[0]:
        raise BaselineError(f"The CSV needs a 'family' column ({', '.join(SOURCES)}).")
    for row in rows:
        row["family"] = "_".join(row["family"].lower().split())
    items = {
        i.question_id: i
        for i in McqItem.objects.filter(question_id__in=[r["question_id"] for r in rows])
    }
    errors = []
    for line, row in enumerate(rows, start=2):
        if row["question_id"] not in items:
            errors.append(f"Line {line}: no item with question_id {row['question_id']!r}.")
        if row["family"] not in SOURCES:
            errors.append(
                f"Line {line}: family {row['family']!r} is not one of {', '.join(SOURCES)}."
            )
    if not rows:
        errors.append("The CSV has no data rows.")
    if errors:
        raise BaselineError(*errors)
    for row in rows:
        ItemSourceFamily.objects.update_or_create(
            item=items[row["question_id"]],
            defaults={"family": row["family"], "origin": origin},
        )
    return len(rows)


def reference_source(reference: ReferenceResponse) -> str:
    """The answer-key source of a reference ("" when unknown, as for an imported one)."""
    if reference.decision_type == ReferenceResponse.DecisionType.REWRITTEN:
        return EXPERT_REWRITE
    return reference.source_family


@transaction.atomic
def item_families_from_references() -> int:
    """Copy each final item's answer-key source from its reference: the reference's
    ``source_family``, or ``expert_rewrite`` when the arbitrator rewrote it."""
    count = 0
    items = McqItem.objects.filter(status=McqItem.Status.FINAL).select_related("reference")
    for item in items:
        family = reference_source(item.reference) if item.reference_id else ""
        if family:
            ItemSourceFamily.objects.update_or_create(
                item=item, defaults={"family": family, "origin": "reference"}
            )
            count += 1
    return count


@transaction.atomic
def predictions_import_csv(*, content, origin: str) -> int:
    """Model predictions as ``question_id,<model>,<model>...`` (one letter per cell; an
    empty cell is an invalid response, scored incorrect). Rejects the whole file on error."""
    rows = _rows(content)
    if not rows:
        raise BaselineError("The CSV has no data rows.")
    models = [k for k in rows[0] if k and k != "question_id"]
    if not models:
        raise BaselineError("The CSV needs one column per model after 'question_id'.")
    items = {
        i.question_id: i
        for i in McqItem.objects.filter(question_id__in=[r["question_id"] for r in rows])
    }
    errors = []
    for line, row in enumerate(rows, start=2):
        if row["question_id"] not in items:
            errors.append(f"Line {line}: no item with question_id {row['question_id']!r}.")
        for model in models:
            letter = row.get(model, "").upper()
            if letter and letter not in OPTION_LABELS:
                errors.append(f"Line {line}, column {model!r}: {letter!r} is not A, B, C or D.")
    if errors:
        raise BaselineError(*errors)
    for row in rows:
        for model in models:
            ImportedPrediction.objects.update_or_create(
                model_label=model,
                item=items[row["question_id"]],
                defaults={"letter": row.get(model, "").upper(), "origin": origin},
            )
    return len(rows) * len(models)


@transaction.atomic
def subset_select(
    *,
    user,
    seed: int,
    constraints: SubsetConstraints | None = None,
    held_out_scenarios=(),
):
    """Run the ILP over the final items that have a source; store the outcome, and when
    it is infeasible the largest feasible study as a proposal.

    ``held_out_scenarios`` (scenario ids) keep their items out of the candidates, so the
    study's practice items can come from them (a practice item shares no scenario with
    the subset)."""
    check_whole("seed", seed, SEED_MAX)
    constraints = constraints or SubsetConstraints()
    held_out = sorted({str(s).strip() for s in held_out_scenarios if str(s).strip()})
    known = set(
        Scenario.objects.filter(scenario_id__in=held_out).values_list("scenario_id", flat=True)
    )
    unknown = [s for s in held_out if s not in known]
    if unknown:
        raise BaselineError(
            *(f"No scenario {s!r}; name held-out scenarios by their scenario_id." for s in unknown)
        )
    candidates, n_without = selectors.subset_candidates()
    if held_out:
        kept_out = set(
            McqItem.objects.filter(scenario__scenario_id__in=held_out).values_list("pk", flat=True)
        )
        candidates = [c for c in candidates if c.item_id not in kept_out]
    stages = list(LIFE_STAGE_KEYS)
    result = select_subset(candidates, constraints, seed=seed, stage_order=stages)
    problems = list(result.problems)
    if n_without:
        problems.append(
            f"{counted(n_without, 'final item')} {agree(n_without, 'has', 'have')} no answer-key "
            "source and were not candidates; "
            "copy the sources from the references or upload a question_id,family CSV."
        )
    proposal = {}
    if not result.feasible and result.failed_at in ("precheck", "solver"):
        found = largest_feasible(candidates, constraints, seed=seed, stage_order=stages)
        if found is not None:
            proposal = {
                **found.constraints.as_dict(),
                "total": found.constraints.total,
                "ranges": found.result.ranges,
                "held_out_scenarios": held_out,
                "binding": list(found.binding),
                "notes": list(found.result.notes),
                "proven": found.proven,
            }
    selection = SubsetSelection.objects.create(
        seed=seed,
        parameters={
            **constraints.as_dict(),
            "total": constraints.total,
            "characters": list(result.characters),
            "stages": list(result.stages),
            "ranges": result.ranges,
            "held_out_scenarios": held_out,
        },
        feasible=result.feasible,
        failed_at=result.failed_at,
        problems=problems,
        notes=list(result.notes),
        proposal=proposal,
        n_candidates=len(candidates),
        n_without_family=n_without,
        objective=result.objective,
        created_by=user,
    )
    by_id = {c.item_id: c for c in candidates}
    SelectionItem.objects.bulk_create(
        SelectionItem(
            selection=selection,
            item_id=item_id,
            family=by_id[item_id].source,
            character_key=by_id[item_id].character,
            stage=by_id[item_id].stage,
        )
        for item_id in result.selected
    )
    return selection


def _retrieval_set(item, *, method: str, k: int) -> RetrievalSet:
    """An imported evaluation run's set when one exists (identical strings to the model's),
    else the built-in retriever's, computed now and stored."""
    imported = (
        RetrievalSet.objects.filter(item=item, method=RetrievalSet.Method.IMPORTED)
        .order_by("-created_at", "-pk")
        .first()
    )
    return imported or retrieve_for_item(item, method=method, k=k)


def _reference_reasoning(item: McqItem) -> str:
    """The reasoning of the reference whose decision is ``item``'s key: its own, or for
    an item imported without the link, the character's reference in the scenario."""
    reference = item.reference if item.reference_id else None
    if reference is None:
        reference = (
            ReferenceResponse.objects.filter(
                character_id=item.character_id, scenario=item.scenario_id
            )
            .order_by("-created_at", "-pk")
            .first()
        )
    return reference.core_reasoning if reference else ""


@transaction.atomic
def study_create(
    *,
    user,
    name: str,
    selection: SubsetSelection,
    consent_version: str,
    consent_text: str,
    briefing: str,
    pay_text: str = "",
    practice_question_ids=(),
    practice_count: int = 0,
    retrieval_method: str = RetrievalSet.Method.BM25,
    k: int = RETRIEVAL_K,
) -> BaselineStudy:
    """Fix the study's items and their retrieval sets. Practice items are the named ones,
    or else ``practice_count`` final items picked from scenarios outside the subset; either
    way none shares a scenario with the subset (its keyed response would be an option
    there, App. J).

    Each item's words (what a participant reads of it) are counted now: the consent and
    study pages state the expected duration from them. A practice item's feedback reason
    starts as its reference's own reasoning (``reading.default_practice_reason``)."""
    check_texts(
        {"name": name, "consent_version": consent_version, "consent_text": consent_text}
        | {"briefing": briefing, "pay_text": pay_text},
        STUDY_TEXT_LIMITS,
        labels=STUDY_TEXT_LABELS,
        error=BaselineError,
    )
    practice_question_ids = list(practice_question_ids or [])
    if not selection.feasible:
        raise BaselineError(f"Selection #{selection.pk} is infeasible; it has no subset to study.")
    subset = list(
        McqItem.objects.filter(pk__in=selection.items.values("item_id"))
        .select_related("scenario", "character")
        .order_by("question_id")
    )
    subset_ids = {i.question_id for i in subset}
    in_subset = Counter(i.scenario_id for i in subset)
    errors = []
    practice = []
    if practice_question_ids:
        for qid in practice_question_ids:
            item = McqItem.objects.filter(question_id=qid).select_related("scenario").first()
            if item is None:
                errors.append(f"Practice item {qid!r}: no such item.")
            elif qid in subset_ids:
                errors.append(
                    f"Practice item {qid!r} is in the subset; practice items must not be."
                )
            elif item.scenario_id in in_subset:
                errors.append(
                    f"Practice item {qid!r}: its scenario {item.scenario.scenario_id} has "
                    f"{counted(in_subset[item.scenario_id], 'item')} in the subset; practice items "
                    "must come from scenarios outside the subset."
                )
            else:
                practice.append(item)
    elif practice_count > 0:
        available, n_scenarios = selectors.practice_candidates(subset_scenarios=in_subset)
        if len(available) < practice_count:
            errors.append(
                f"{counted(practice_count, 'practice item')} asked for, but only "
                f"{counted(len(available), 'final item')} {agree(len(available), 'lies', 'lie')} "
                "in scenarios outside the subset (the subset uses "
                f"{len(in_subset)} of {n_scenarios} scenarios): "
                f"{practice_count - len(available)} short. Name practice items, ask for "
                "fewer, or hold scenarios out of the subset selection for practice."
            )
        practice = available[:practice_count]
    else:
        errors.append(
            "Name at least one practice item (question_id), or give a number of practice "
            "items to pick from scenarios outside the subset."
        )
    if len(set(practice_question_ids)) != len(practice_question_ids):
        errors.append("A practice item is listed twice.")
    if not consent_version.strip() or not consent_text.strip():
        errors.append("The consent text and its version are both required.")
    if errors:
        raise BaselineError(*errors)
    study = BaselineStudy.objects.create(
        name=name,
        selection=selection,
        consent_version=consent_version.strip(),
        consent_text=consent_text,
        briefing=briefing,
        pay_text=pay_text.strip(),
        retrieval_method=retrieval_method,
        k=k,
        created_by=user,
    )
    study_items = [
        StudyItem(
            study=study,
            item=item,
            position=n,
            retrieval_set=_retrieval_set(item, method=retrieval_method, k=k),
        )
        for n, item in enumerate(subset, start=1)
    ] + [
        StudyItem(
            study=study,
            item=item,
            is_practice=True,
            position=n,
            retrieval_set=_retrieval_set(item, method=retrieval_method, k=k),
            practice_reason=default_practice_reason(_reference_reasoning(item)),
        )
        for n, item in enumerate(practice, start=1)
    ]
    for study_item, words in zip(study_items, selectors.item_words(study_items), strict=True):
        study_item.scenario_words = words.scenario
        study_item.option_words = words.options
        study_item.memory_words = words.memories
    StudyItem.objects.bulk_create(study_items)
    return study


@transaction.atomic
def practice_reason_set(*, study: BaselineStudy, position: int, reason: str) -> StudyItem:
    """Say why practice item ``position``'s expected answer is expected: the feedback a
    participant reads after checking an answer. Blank puts the default back."""
    check_texts(
        {"practice_reason": reason},
        {"practice_reason": PRACTICE_REASON_MAX},
        labels={"practice_reason": "Reason"},
        error=BaselineError,
    )
    study_item = (
        StudyItem.objects.select_for_update()
        .select_related("item")
        .filter(study=study, is_practice=True, position=position)
        .first()
    )
    if study_item is None:
        raise BaselineNotFound(f"The study has no practice item {position}.")
    study_item.practice_reason = reason.strip() or default_practice_reason(
        _reference_reasoning(study_item.item)
    )
    study_item.save(update_fields=["practice_reason"])
    return study_item


@transaction.atomic
def study_set_status(*, study: BaselineStudy, status: str) -> BaselineStudy:
    study.status = status
    study.save(update_fields=["status"])
    return study
