"""Reads of the human baseline.

!!! BLINDING !!!  :func:`item_materials` is the only thing participant pages render for an
item: the character by number and occupation, the stored retrieval set's entries, the scenario,
trigger event and options in the evaluated order (App. J "Materials and procedure"). It
never reads the key, a family, a profile beyond the occupation, or a prediction.
"""

import dataclasses
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from django.db.models import Count, Q, Sum
from django.urls import reverse

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from annotation.corpus.models import ProfileVersion
from core import display
from core.life_stages import BY_KEY, LIFE_STAGE_BINS, LIFE_STAGE_KEYS
from core.plurals import counted
from core.roles import Role, user_roles
from evaluation import analysis as evaluation_analysis
from evaluation import selectors as evaluation_selectors
from evaluation.models import EvaluationPrediction, EvaluationRun, RetrievedMemory, Setting
from evaluation.selectors import model_predictions as evaluation_predictions

from .models import (
    ERASED_PREFIX,
    BaselineReport,
    BaselineStudy,
    BestModelChoice,
    ImportedPrediction,
    ItemResponse,
    ItemSourceFamily,
    Participation,
    PracticeAnswer,
    SelectionItem,
    StudyItem,
    SubsetSelection,
    WorkSession,
)
from .reading import (
    ItemWords,
    ReadingLoad,
    count_words,
    participant_text,
    reading_load,
    scenario_words,
)
from .subset import DEFAULT_QUOTAS, EXPERT_REWRITE, CandidateItem

# The task instruction, after App. L.1's model-facing one (J: "mirrors the model-facing
# instruction").
INSTRUCTION = (
    "Use the supplied experiences to infer this person's thought patterns, emotional "
    "tendencies and behavioural habits. Imagine how the person would respond in the current "
    "situation and select the response this person would most likely give."
)


def subset_candidates() -> tuple[list[CandidateItem], int]:
    """Final items with an answer-key source (an admin's row wins over the reference's:
    its family, or ``expert_rewrite`` when the arbitrator rewrote it), and how many final
    items have none. Reads no key. Two queries."""
    overrides = dict(ItemSourceFamily.objects.values_list("item_id", "family"))
    rows = McqItem.objects.filter(status=McqItem.Status.FINAL).values_list(
        "pk", "character__key", "stage", "reference__source_family", "reference__decision_type"
    )
    candidates, without = [], 0
    for pk, character, stage, reference_family, decision_type in rows:
        rewritten = decision_type == ReferenceResponse.DecisionType.REWRITTEN
        family = overrides.get(pk) or (EXPERT_REWRITE if rewritten else reference_family) or ""
        if family:
            candidates.append(CandidateItem(pk, family, character, stage))
        else:
            without += 1
    return candidates, without


def source_counts() -> dict[str, int]:
    """Final items per answer-key source, every source listed, then "(none)"."""
    candidates, without = subset_candidates()
    counts = Counter(c.source for c in candidates)
    listed = {source: counts.pop(source, 0) for source, _ in DEFAULT_QUOTAS}
    return {**listed, **counts, "(none)": without}


def final_set_counts() -> tuple[dict[str, int], int]:
    """This benchmark's final items per answer-key source (the sources the subset balances,
    read the same way), and how many final items have none: App. J reweights to these."""
    candidates, without = subset_candidates()
    counts = Counter(c.source for c in candidates)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))), without


def selection_tables(selection: SubsetSelection) -> dict:
    """Counts of the selected items by character × bin, overall and per family."""
    rows = list(selection.items.values_list("family", "character_key", "stage"))
    characters = sorted({r[1] for r in rows})
    stages = list(LIFE_STAGE_KEYS)
    quotas = selection.parameters.get("quotas", {})
    families = [s for s, q in quotas.items() if q] or list(selection.parameters.get("families", []))

    def table(filtered):
        cell = Counter((c, s) for _, c, s in filtered)
        return {
            "rows": [
                (c, [cell[(c, s)] for s in stages], sum(cell[(c, s)] for s in stages))
                for c in characters
            ],
            "totals": [sum(cell[(c, s)] for c in characters) for s in stages],
            "n": len(filtered),
        }

    return {
        "stages": [(b.key, f"{b.first_age}–{b.last_age}") for b in LIFE_STAGE_BINS],
        "overall": table(rows),
        "families": [(f, table([r for r in rows if r[0] == f])) for f in families],
    }


def participation_for(*, user, study_id: int) -> Participation | None:
    return (
        Participation.objects.select_related("study").filter(user=user, study_id=study_id).first()
    )


def participant_studies(*, user):
    return list(
        Participation.objects.filter(user=user)
        .select_related("study")
        .annotate(
            n_answered=Count("responses", filter=~Q(responses__choice="")),
            n_items=Count("responses"),
        )
        .order_by("-created_at")
    )


@dataclass(frozen=True)
class ItemMaterials:
    character: str  # "Character 8, age 30": the number and the scenario's age, no id
    occupation: str
    memories: list  # [(when, narrative)] in rank order; ``when`` in words
    scenario_name: str
    place: str
    time: str
    atmosphere: str
    background: str
    sender: str
    message: str
    action_required: str
    options: list  # [(label, content)] in the evaluated order
    instruction: str = INSTRUCTION


_STAGE_KEY = re.compile(r"\b(" + "|".join(LIFE_STAGE_KEYS) + r")\b")


def timeline_words(timeline: str) -> str:
    """A memory's timeline label as a participant reads it: a life-stage key in it
    (``age_30_transition (30 years old)``) becomes the stage's name
    (``Age-30 transition (30 years old)``); a label in words stays as it is."""
    return _STAGE_KEY.sub(lambda m: BY_KEY[m.group(1)].label, timeline or "")


def _occupation(character_id) -> str:
    version = (
        ProfileVersion.objects.filter(character_id=character_id)
        .order_by("frozen_at", "-number")
        .only("occupation", "frozen_at")
    )
    frozen = [v for v in version if v.frozen_at is not None]
    chosen = (frozen or list(version) or [None])[0]
    return chosen.occupation if chosen else "(not recorded)"


def item_materials(study_item: StudyItem) -> ItemMaterials:
    """What the participant sees for one item; the key and every provenance field stay out."""
    item = study_item.item
    scenario = item.scenario
    entries = (
        RetrievedMemory.objects.filter(retrieval_set_id=study_item.retrieval_set_id)
        .order_by("rank")
        .only("timeline", "content_full")
    )
    options = McqOption.objects.filter(item=item).order_by("label").only("label", "content")
    return ItemMaterials(
        character=display.character_name(item.character, scenario.age),
        occupation=_occupation(item.character_id),
        # Models read "- [ID][timeline] narrative"; a person reads the same timeline and
        # narrative, once each: the anonymized id tells a reader nothing.
        memories=[(timeline_words(e.timeline), participant_text(e.content_full)) for e in entries],
        scenario_name=scenario.name,
        place=scenario.setting_location,
        time=scenario.setting_time,
        atmosphere=scenario.setting_atmosphere,
        background=scenario.context_text,
        sender=scenario.trigger_sender,
        message=scenario.trigger_message,
        action_required=scenario.action_required,
        options=[(o.label, o.content) for o in options],
    )


def item_words(study_items) -> list[ItemWords]:
    """The words a participant reads of each study item (``item_materials``'s texts:
    the scenario, the options, the memories), in the given order. ``study_items`` need
    their item's scenario loaded (they may be unsaved); two queries."""
    options = defaultdict(list)
    for item_id, content in McqOption.objects.filter(
        item_id__in={si.item_id for si in study_items}
    ).values_list("item_id", "content"):
        options[item_id].append(content)
    memories = defaultdict(list)
    for set_id, content in RetrievedMemory.objects.filter(
        retrieval_set_id__in={si.retrieval_set_id for si in study_items}
    ).values_list("retrieval_set_id", "content_full"):
        memories[set_id].append(participant_text(content))
    out = []
    for si in study_items:
        s = si.item.scenario
        out.append(
            ItemWords(
                scenario=scenario_words(s),
                options=count_words(*options[si.item_id]),
                memories=count_words(*memories[si.retrieval_set_id]),
            )
        )
    return out


def study_reading_load(*, study: BaselineStudy) -> ReadingLoad:
    """The study's reading load from the counts stored with its items (practice
    included): the expected duration the consent and the study pages state. One query."""
    rows = StudyItem.objects.filter(study=study).values_list(
        "scenario_words", "option_words", "memory_words"
    )
    return reading_load([ItemWords(*row) for row in rows])


def study_item_at(*, participation: Participation, position: int) -> ItemResponse | None:
    return (
        ItemResponse.objects.select_related(
            "study_item__item__scenario", "study_item__item__character"
        )
        .filter(participation=participation, position=position)
        .first()
    )


def navigator(*, participation: Participation) -> list[tuple[int, bool]]:
    return [
        (position, bool(choice))
        for position, choice in ItemResponse.objects.filter(participation=participation)
        .order_by("position")
        .values_list("position", "choice")
    ]


def practice_items(*, study: BaselineStudy) -> list[StudyItem]:
    return list(
        StudyItem.objects.filter(study=study, is_practice=True)
        .select_related("item__scenario", "item__character")
        .order_by("position")
    )


def practice_candidates(*, subset_scenarios) -> tuple[list[McqItem], int]:
    """Final items in scenarios outside ``subset_scenarios`` (scenario pks), taken one per
    scenario in turn so practice spreads over scenarios; and how many scenarios the final
    set has. Two queries."""
    final = McqItem.objects.filter(status=McqItem.Status.FINAL)
    n_scenarios = final.values("scenario").distinct().count()
    by_scenario = defaultdict(list)
    for item in (
        final.exclude(scenario__in=list(subset_scenarios))
        .select_related("scenario")
        .order_by("scenario__scenario_id", "question_id")
    ):
        by_scenario[item.scenario.scenario_id].append(item)
    queues = list(by_scenario.values())
    ordered = [
        queue[n]
        for n in range(max(map(len, queues), default=0))
        for queue in queues
        if n < len(queue)
    ]
    return ordered, n_scenarios


def practice_answer(*, participation: Participation, study_item: StudyItem):
    return PracticeAnswer.objects.filter(participation=participation, study_item=study_item).first()


def practice_answered(*, participation: Participation) -> dict[int, str]:
    """{practice position: the letter chosen} of the participant's practice answers."""
    return dict(
        PracticeAnswer.objects.filter(participation=participation).values_list(
            "study_item__position", "choice"
        )
    )


# --- admin ------------------------------------------------------------------------------------


def study_list():
    return list(
        BaselineStudy.objects.select_related("selection")
        .annotate(
            n_participants=Count("participants", distinct=True),
            n_finalized=Count(
                "participants",
                filter=Q(
                    participants__status=Participation.Status.FINALIZED,
                    participants__withdrawn_at__isnull=True,
                ),
                distinct=True,
            ),
        )
        .order_by("-created_at")
    )


def selection_list():
    return list(
        SubsetSelection.objects.select_related("created_by").annotate(n_items=Count("items"))
    )


def study_participants(*, study: BaselineStudy):
    """Participants with their answered count and time on task: three queries."""
    participants = list(
        Participation.objects.filter(study=study)
        .select_related("user")
        .annotate(
            n_answered=Count("responses", filter=~Q(responses__choice=""), distinct=True),
            item_seconds=Sum("responses__seconds"),
        )
        .order_by("created_at", "pk")
    )
    sessions = defaultdict(list)
    for s in WorkSession.objects.filter(participation__study=study).order_by("started_at"):
        sessions[s.participation_id].append(s)
    for p in participants:
        p.is_erased = p.user.get_username().startswith(ERASED_PREFIX)
        p.work_sessions = sessions[p.pk]
        p.session_seconds = sum(s.seconds for s in p.work_sessions)
    return participants


def time_rows(*, study: BaselineStudy):
    """Rows of the payment export: one per participant × item, then one per session."""
    item_rows = list(
        ItemResponse.objects.filter(participation__study=study)
        .select_related("participation__user", "study_item__item")
        .order_by("participation__user__username", "position")
    )
    sessions = list(
        WorkSession.objects.filter(participation__study=study)
        .select_related("participation__user")
        .order_by("participation__user__username", "started_at")
    )
    return item_rows, sessions


def latest_report(*, study: BaselineStudy) -> BaselineReport | None:
    return BaselineReport.objects.filter(study=study).order_by("-created_at", "-pk").first()


def model_predictions(items) -> dict[str, dict[int, str | None]]:
    """{model label: {item pk: letter or None}}: the evaluation app's main-setting
    (Naive-RAG) predictions, plus uploaded CSVs (an upload wins for the same label and item).
    An item a model was never graded on is absent; None is an invalid response."""
    merged = {label: dict(preds) for label, preds in evaluation_predictions(items).items()}
    pks = [i.pk for i in items]
    for label, pk, letter in ImportedPrediction.objects.filter(item_id__in=pks).values_list(
        "model_label", "item_id", "letter"
    ):
        merged.setdefault(label, {})[pk] = letter or None
    return merged


def study_has_answers(*, study: BaselineStudy) -> bool:
    return ItemResponse.objects.filter(participation__study=study).exclude(choice="").exists()


def full_benchmark_accuracy(run_ids) -> tuple[list[dict], int, list[str]]:
    """Each run's accuracy on the full final set, by the evaluation app's own computation
    (``evaluation.analysis.accuracy_rows``, invalid answers incorrect); the number of final
    items; and what makes a run unfit (not Naive-RAG, not finished, not run on every final
    item). Rows only when there is no problem, best first."""
    final_ids = set(
        McqItem.objects.filter(status=McqItem.Status.FINAL).values_list("pk", flat=True)
    )
    wanted = [int(pk) for pk in run_ids]
    runs = list(EvaluationRun.objects.filter(pk__in=wanted).order_by("pk"))
    covered = dict(
        EvaluationPrediction.objects.filter(run__in=runs, item_id__in=final_ids)
        .values("run_id")
        .annotate(n=Count("item_id", distinct=True))
        .values_list("run_id", "n")
    )
    problems = [f"No evaluation run {pk}." for pk in sorted(set(wanted) - {r.pk for r in runs})]
    for r in runs:
        name = f"Run {r.pk} ({r.label})"
        if r.setting != Setting.NAIVE_RAG:
            problems.append(
                f"{name} is a {r.get_setting_display()} run; the baseline compares humans with "
                "the main Naive-RAG setting."
            )
        if r.status not in evaluation_selectors.RESULT_STATUSES:
            problems.append(f"{name} is {r.get_status_display().lower()}, not finished.")
        if covered.get(r.pk, 0) < len(final_ids):
            problems.append(
                f"{name} covers {covered.get(r.pk, 0)} of the {len(final_ids)} final items; "
                "the best model is chosen on the full final set."
            )
    if problems or not runs:
        return [], len(final_ids), problems
    table = evaluation_selectors.prediction_table(runs)
    table = dataclasses.replace(table, item_ids=tuple(i for i in table.item_ids if i in final_ids))
    # The point estimate is all that is used; one resample keeps the bootstrap cheap.
    rows = evaluation_analysis.accuracy_rows(
        table, n_boot=1, seed=evaluation_analysis.BOOTSTRAP_SEED
    )
    scored = {row.run_id: row for row in rows}
    out = [
        {
            "run_id": r.pk,
            "label": r.label,
            "accuracy": float(scored[r.pk].accuracy) if r.pk in scored else 0.0,
            "n_items": int(scored[r.pk].n_items) if r.pk in scored else 0,
        }
        for r in runs
    ]
    out.sort(key=lambda row: (-row["accuracy"], row["label"], row["run_id"]))
    return out, len(final_ids), []


def best_model_history(*, study: BaselineStudy) -> list[BestModelChoice]:
    return list(
        BestModelChoice.objects.filter(study=study)
        .select_related("chosen_by")
        .order_by("chosen_at", "pk")
    )


def best_model_basis(*, study: BaselineStudy) -> dict | None:
    """How the study's best model was fixed (the latest choice), with every change made
    once participants had answered; None when it was never fixed. One query."""
    history = best_model_history(study=study)
    if not history:
        return None
    current = history[-1]
    previous = [None] + [c.model_label for c in history[:-1]]
    return {
        "label": current.model_label,
        "method": current.method,
        "method_display": current.get_method_display(),
        "chosen_by": current.chosen_by.get_username(),
        "chosen_at": current.chosen_at.isoformat(),
        "runs": list(current.runs),
        "n_final_items": current.n_final_items,
        "tied_with": list(current.tied_with),
        "reason": current.reason,
        "n_fixes": len(history),
        "changes_after_answers": [
            {
                "from": before,
                "to": c.model_label,
                "by": c.chosen_by.get_username(),
                "at": c.chosen_at.isoformat(),
                "reason": c.reason,
            }
            for before, c in zip(previous, history, strict=True)
            if c.after_answers
        ],
    }


def participant_labels(*, study: BaselineStudy) -> dict[int, str]:
    """{participation pk: "1", "2", …}: each participant's number in the study, by the
    order they enrolled (withdrawn ones keep theirs). Reports name participants by it."""
    pks = Participation.objects.filter(study=study).order_by("created_at", "pk")
    return {pk: str(n) for n, pk in enumerate(pks.values_list("pk", flat=True), start=1)}


def report_inputs(*, study: BaselineStudy) -> dict:
    """The raw answer matrix of the finalized participants, keys, sources, predictions."""
    finalized = list(
        Participation.objects.counted().filter(study=study).order_by("created_at", "pk")
    )
    labels = participant_labels(study=study)
    study_items = list(
        StudyItem.objects.filter(study=study, is_practice=False)
        .select_related("item")
        .order_by("position")
    )
    families = dict(
        SelectionItem.objects.filter(selection=study.selection).values_list("item_id", "family")
    )
    answers = defaultdict(dict)
    for participation_id, study_item_id, choice in (
        ItemResponse.objects.counted()
        .filter(participation__study=study)
        .values_list("participation_id", "study_item_id", "choice")
    ):
        answers[study_item_id][participation_id] = choice
    items = [si.item for si in study_items]
    predictions = model_predictions(items)
    # Models and humans are compared on the same items: a model graded on only part of
    # the subset is left out (and named in the report), never scored wrong on the rest.
    complete = {
        label: preds for label, preds in predictions.items() if all(i.pk in preds for i in items)
    }
    partial = {
        label: sum(1 for i in items if i.pk in preds)
        for label, preds in predictions.items()
        if label not in complete
    }
    counts, without = final_set_counts()
    basis = best_model_basis(study=study)
    return {
        "target_counts": counts,
        "n_without_source": without,
        "best_model": basis["label"] if basis else None,
        "best_model_basis": basis,
        "answers": [[answers[si.pk][p.pk] for p in finalized] for si in study_items],
        "keys": [si.item.correct_answer for si in study_items],
        "sources": [families[si.item_id] for si in study_items],
        # A number, never the username: reports and their exports name no participant.
        "annotators": [labels[p.pk] for p in finalized],
        "model_predictions": {
            label: [preds[i.pk] for i in items] for label, preds in sorted(complete.items())
        },
        "excluded_models": partial,
    }


def baseline_home_queues(*, user) -> dict:
    """Home cards of the human baseline for the roles ``user`` holds."""
    held = user_roles(user)
    cards = {}
    if Role.BASELINE_PARTICIPANT in held:
        count = (
            Participation.objects.filter(user=user, study__status=BaselineStudy.Status.OPEN)
            .exclude(
                status__in=[
                    Participation.Status.DECLINED,
                    Participation.Status.FINALIZED,
                    Participation.Status.WITHDRAWN,
                ]
            )
            .count()
        )
        cards["baseline_study"] = {
            "count": count,
            "url": reverse("baseline:home"),
            "label": f"{counted(count, 'study', 'studies')} to take or continue",
        }
    if Role.ADMIN in held:
        count = BaselineStudy.objects.filter(status=BaselineStudy.Status.OPEN).count()
        cards["baseline_admin"] = {
            "count": count,
            "url": reverse("baseline:admin"),
            "label": counted(count, "open human-baseline study", "open human-baseline studies"),
        }
    return cards
