"""Every write of an evaluation run on the platform: creating, starting and resuming runs,
running one item. Keyword-only and atomic; the rules are here, not in views or tasks
(seed 000 §3.1, App. E, F, I, L.1). Runs imported from a predictions file are written by
``prediction_import``."""

from __future__ import annotations

import logging

from django.db import transaction

import llm
from adjudication.mcq.models import McqItem
from annotation.corpus.models import ProfileVersion
from core.deviations import ProtocolDeviation, record_deviation
from core.llm_runs.services import RunFlow, record_call
from core.llm_runs.spending import parse_budget
from core.plurals import agree, counted
from core.providers import cached_client
from core.tasks import enqueue_on_commit
from core.text_rules import NAME, NOTE, check_texts

from . import ablation, embeddings, leakcheck, parsing, prompt, providers, retrieval
from .item_sets import final_items, items_for_question_ids, question_ids_from_csv  # noqa: F401
from .models import (
    ABLATION_SETTINGS,
    IMPORTED_ONLY_SETTINGS,
    LABEL_MAX,
    RUNNABLE_SETTINGS,
    EvaluationCall,
    EvaluationError,
    EvaluationPrediction,
    EvaluationRun,
    RetrievalSet,
    Setting,
)

logger = logging.getLogger(__name__)

Status = EvaluationPrediction.Status
RunStatus = EvaluationRun.Status
#: Items without a stored response: resuming a run asks them (again).
OPEN = (Status.PENDING, Status.RUNNING, Status.FAILED, Status.CANCELLED)


def run_providers(run: EvaluationRun) -> set[str]:
    """The provider the run's model is served by (for the lab's monthly caps, issue #36)."""
    kind = (run.provider or {}).get("kind")
    return {kind} if kind else set()


#: The one state machine of runs (core.llm_runs); a prediction is the run's unit. A run
#: stops at its budget or at its provider's monthly cap (issue #36).
FLOW = RunFlow(
    run_model=EvaluationRun,
    unit_model=EvaluationPrediction,
    error=EvaluationError,
    providers=run_providers,
)

#: App. F / App. I: temperature 0 where supported (blank: the endpoint's default);
#: reasoning/thinking effort high (each provider's own field, llm/wire.py; blank sends
#: none); one response retained per item, so one structured-output round (no re-asking).
DEFAULT_DECODING = {
    "temperature": 0.0,
    "max_tokens": 4096,
    "max_attempts": 1,
    "reasoning_effort": "high",
}
#: §3.1: Naive-RAG retrieves 30 entries.
NAIVE_RAG_K = retrieval.DEFAULT_K
#: Provider errors that are not a model response: the item can be tried again.
TRANSPORT_ERRORS = {
    "rate_limited",
    "server_error",
    "timeout",
    "connection_error",
    "truncated_body",
    "malformed_response",
    "client_error",
    "internal_error",
}
#: Protocol deviations of evaluation runs (core.deviations) are recorded under this stage.
DEVIATION_STAGE = "evaluation"
TEMPERATURE_RULE = "App. F, I: temperature 0 where the endpoint supports it"
NOT_CONFIGURED = "not_configured"
INPUT_ERROR = "input_error"


# --- runs ---------------------------------------------------------------------------------


def _decoding(options: dict | None) -> dict:
    decoding = dict(DEFAULT_DECODING)
    for name, value in (options or {}).items():
        if name not in DEFAULT_DECODING:
            raise EvaluationError(f"Unknown decoding option {name!r}.")
        decoding[name] = value
    t = decoding["temperature"]
    if t is not None and not (0.0 <= float(t) <= 2.0):
        raise EvaluationError(f"Temperature {t} is outside 0-2 (leave it blank for the default).")
    if int(decoding["max_tokens"]) < 16:
        raise EvaluationError("Max tokens must be at least 16.")
    if not 1 <= int(decoding["max_attempts"]) <= 3:
        raise EvaluationError("Structured-output rounds must be 1-3.")
    effort = decoding["reasoning_effort"]
    if effort is not None and effort not in llm.REASONING_EFFORTS:
        raise EvaluationError(
            f"Reasoning effort {effort!r} is not one of {', '.join(llm.REASONING_EFFORTS)}."
        )
    return decoding


@transaction.atomic
def evaluation_run_create(
    *,
    created_by,
    provider_key: str,
    setting: str,
    items=None,
    item_set: str = "",
    label: str = "",
    decoding: dict | None = None,
    retrieval_method: str = RetrievalSet.Method.BM25,
    k: int = NAIVE_RAG_K,
    note: str = "",
    budget_usd=None,
) -> EvaluationRun:
    """A pending run with one prediction row per item. ``items`` is any queryset or
    iterable of final :class:`McqItem` (the baseline's 150, the audit's 176, ...); None
    means every final item. ``budget_usd`` (None: no budget) stops the run once its
    recorded cost reaches it (``core.llm_runs.spending``). Start it with
    :func:`evaluation_run_start`."""
    budget_usd = _budget(budget_usd)
    check_texts(
        {"label": label or "", "item_set": item_set or "", "note": note or ""},
        {"label": LABEL_MAX, "item_set": NAME, "note": NOTE},
        labels={"label": "Model label", "item_set": "Item set name"},
        error=EvaluationError,
    )
    if setting in IMPORTED_ONLY_SETTINGS:
        raise EvaluationError(
            f"{Setting(setting).label} runs on its own memory backend: import its "
            "predictions file instead."
        )
    if setting not in Setting.values:
        raise EvaluationError(
            f"Unknown setting {setting!r}; choose one of {', '.join(RUNNABLE_SETTINGS)}."
        )
    available = providers.evaluation_providers()
    config = available.get(provider_key)
    if config is None:
        raise EvaluationError(
            f"No evaluation model named {provider_key!r} is configured; configured: "
            f"{', '.join(sorted(available))}."
        )
    retriever = {}
    if retrieval_method == RetrievalSet.Method.EMBEDDING:
        endpoint = embeddings.embedding_config()
        if endpoint is None:
            raise EvaluationError(embeddings.NOT_CONFIGURED)
        retriever = embeddings.run_retriever(endpoint)
    elif retrieval_method not in (RetrievalSet.Method.BM25, RetrievalSet.Method.TFIDF):
        raise EvaluationError(
            f"Unknown retriever {retrieval_method!r}; use bm25, tfidf or embedding."
        )
    if not 1 <= int(k) <= 200:
        raise EvaluationError(f"k = {k} is outside 1-200.")
    chosen = list(final_items() if items is None else items)
    if not chosen:
        raise EvaluationError("The item set is empty: there are no final items to evaluate.")
    not_final = [i.question_id for i in chosen if i.status != McqItem.Status.FINAL]
    if not_final:
        raise EvaluationError(
            f"{counted(len(not_final), 'item')} {agree(len(not_final), 'is', 'are')} not in "
            f"the final set: {', '.join(not_final[:10])}."
        )
    decoding = _decoding(decoding)
    off_protocol = decoding["temperature"] not in (None, 0, 0.0)
    if off_protocol and not (note or "").strip():
        raise EvaluationError(
            {
                "note": [
                    f"Temperature {decoding['temperature']} departs from the paper's "
                    "temperature 0 (App. F, I): say why in the note; it is recorded as a "
                    "protocol deviation."
                ]
            }
        )
    run = EvaluationRun.objects.create(
        label=(label or config.model).strip()[:120],
        setting=setting,
        provider_key=provider_key,
        provider=providers.provider_summary(config),
        decoding=decoding,
        retrieval_method=retrieval_method,
        retriever=retriever,
        k=int(k),
        item_set=(item_set or ("all final items" if items is None else f"{len(chosen)} items"))[
            :200
        ],
        note=note,
        created_by=created_by,
        budget_usd=budget_usd,
    )
    EvaluationPrediction.objects.bulk_create(
        EvaluationPrediction(run=run, item=item) for item in {i.pk: i for i in chosen}.values()
    )
    if off_protocol:
        record_deviation(
            stage=DEVIATION_STAGE,
            kind=ProtocolDeviation.Kind.SETTING,
            subject=run.deviation_subject,
            rule=f"{TEMPERATURE_RULE}; this run: temperature {decoding['temperature']}",
            reason=note,
            by=created_by,
        )
    return run


def _budget(value):
    try:
        return parse_budget(value)
    except ValueError as error:
        raise EvaluationError({"budget_usd": [str(error)]}) from None


def _enqueue(run_id: int, prediction_ids: list[int]) -> None:
    """Queue the items once the caller's transaction commits, so a worker can read them;
    an item the broker did not take stays pending, and resuming the run queues it."""
    enqueue_on_commit(
        "evaluation.execute_prediction",
        what=f"Evaluation run {run_id}",
        calls=[(prediction_id,) for prediction_id in prediction_ids],
    )


def _locked(run_id: int) -> EvaluationRun:
    return FLOW.lock(run_id)


@transaction.atomic
def evaluation_run_start(*, run_id: int) -> EvaluationRun:
    """pending → running; its items are queued once this commits."""
    run = _locked(run_id)
    ids = FLOW.start_locked(run, only="a pending run")
    if ids:
        _enqueue(run.pk, ids)
    else:
        FLOW.finish_locked(run)
    return run


@transaction.atomic
def evaluation_run_cancel(*, run_id: int) -> EvaluationRun:
    """Stop a pending or running run: items still waiting are cancelled now; an item a
    worker holds keeps its call (a call already sent is not abandoned), and the run is
    cancelled once those end. Stored responses stay; resuming asks the rest."""
    run = _locked(run_id)
    FLOW.cancel_locked(run)
    return run


def _refuse_unless_resumable(run: EvaluationRun) -> None:
    if run.is_imported:
        raise EvaluationError(f"Run {run.pk} was imported; there is nothing to run.")
    if run.status == RunStatus.PENDING:
        raise EvaluationError(f"Run {run.pk} has not started; start it instead.")
    if run.status == RunStatus.CANCELLING:
        raise FLOW.refusal(
            run, "a run that is not cancelling", hint=": wait until it is cancelled."
        )


@transaction.atomic
def evaluation_run_resume(*, run_id: int, budget_usd=None) -> int:
    """Queue again every item without a stored response: waiting, cancelled,
    interrupted (a worker died holding it) and failed calls. Answered items are never
    asked twice. Returns how many were queued.

    A run stopped at its budget or a monthly cap (issue #36) resumes with ``budget_usd``
    as its new budget (None: none; refused while a limit would stop it again at once):
    its waiting items are queued, the items other workers held have finished or finish,
    and failed ones wait for Retry as before. Any other run keeps its budget, and a
    new one given with it is refused."""
    run = _locked(run_id)
    _refuse_unless_resumable(run)
    if run.is_stopped_at_budget:
        ids = FLOW.resume_locked(run, budget_usd=_budget(budget_usd))
        if ids:
            _enqueue(run.pk, ids)
        else:  # nothing waiting: finished now, or once the items workers hold end
            FLOW.finish_locked(run)
        return len(ids)
    if budget_usd not in (None, ""):
        raise EvaluationError(
            {
                "budget_usd": [
                    f"{FLOW.name(run)} is {run.get_status_display().lower()}: a new budget "
                    "is given only when resuming a run stopped at its budget."
                ]
            }
        )
    open_rows = FLOW.units(run.pk).filter(status__in=OPEN)
    ids = list(open_rows.order_by("pk").values_list("pk", flat=True))
    if not ids:
        raise EvaluationError(f"Run {run.pk} has a stored response for every item.")
    FLOW.reopen_locked(run, ids=ids)
    _enqueue(run.pk, ids)
    return len(ids)


@transaction.atomic
def evaluation_run_retry_failed(*, run_id: int) -> int:
    """Queue again only the items whose call failed; how many were queued."""
    run = _locked(run_id)
    _refuse_unless_resumable(run)
    if run.status == RunStatus.CANCELLED:
        raise EvaluationError(f"Run {run.pk} was cancelled; resume it to ask every open item.")
    if run.is_stopped_at_budget:
        raise EvaluationError(
            f"Run {run.pk} is stopped at budget; resume it (with a new budget, or none) first."
        )
    ids = FLOW.failed_unit_ids_locked(run)
    if not ids:
        raise EvaluationError(f"Run {run.pk} has no failed items to retry.")
    FLOW.reopen_locked(run, ids=ids)
    _enqueue(run.pk, ids)
    return len(ids)


# --- one item -----------------------------------------------------------------------------


def profile_for(character) -> ProfileVersion | None:
    """The character's latest frozen profile version, else its latest version."""
    versions = ProfileVersion.objects.filter(character=character).order_by("-number")
    return versions.filter(frozen_at__isnull=False).first() or versions.first()


def stored_retrieval(run: EvaluationRun, item: McqItem) -> RetrievalSet:
    """The item's stored set under the run's retriever, created once even when two
    workers ask together. An embedding run ranks with the model it was created with;
    a failing or differently configured endpoint raises ``EmbeddingFailure``."""
    embedding = None
    if run.retrieval_method == RetrievalSet.Method.EMBEDDING:
        embedding = embeddings.config_for_run(run.retriever)
    if run.setting in ABLATION_SETTINGS:
        return ablation.ablation_set(
            item, setting=run.setting, method=run.retrieval_method, k=run.k, embedding=embedding
        )
    return retrieval.retrieve_for_item(
        item, method=run.retrieval_method, k=run.k, embedding=embedding
    )


def withheld_fields(item: McqItem, profile, *, disclose: bool, rset) -> list[leakcheck.Withheld]:
    """What must not appear in the item's prompt (App. E, App. I)."""
    W = leakcheck.Withheld
    withheld = [
        W("the construction label", label)
        for label in ProfileVersion.objects.filter(character=item.character_id).values_list(
            "construction_label", flat=True
        )
    ]
    if profile is not None and not disclose:
        withheld += [
            W("the profile's description", profile.description),
            W("the profile's self_value_logic", profile.self_value_logic),
            *(W("a core behavioral pattern", p) for p in (profile.core_patterns or [])),
        ]
    if rset is not None:
        for entry in rset.entries.select_related("memory"):
            m = entry.memory
            if m is None:
                continue
            withheld += [
                W(f"the context of {m.anonymized_id}", m.context),
                W(f"the content_summary of {m.anonymized_id}", m.content_summary),
                W(f"the psych_conclusion of {m.anonymized_id}", m.psych_conclusion),
                W(f"the behavior_policy of {m.anonymized_id}", m.behavior_policy),
            ]
    return withheld


def prompt_input(item: McqItem, *, setting: str, profile, memory_entries) -> prompt.PromptInput:
    """Field isolation (App. E): only these fields of the records reach the prompt."""
    scenario = item.scenario
    disclosed = None
    if setting in (Setting.DISCLOSED_PROFILE, Setting.DISCLOSED_PROFILE_MEMORY):
        disclosed = prompt.DisclosedProfile(
            big_five=profile.big_five,
            description=profile.description,
            self_value_logic=profile.self_value_logic,
            core_patterns=tuple(profile.core_patterns or ()),
        )
    return prompt.PromptInput(
        character_id=item.character.key,
        occupation=profile.occupation if profile else "",
        scenario_name=scenario.name,
        location=scenario.setting_location,
        time=scenario.setting_time,
        atmosphere=scenario.setting_atmosphere,
        background=scenario.context_text,
        sender=scenario.trigger_sender,
        message=scenario.trigger_message,
        action_required=scenario.action_required,
        options=tuple((o.label, o.content) for o in item.options.order_by("label")),
        memory_entries=tuple(memory_entries) if memory_entries is not None else None,
        profile=disclosed,
    )


def evaluation_item_prompt(item: McqItem, *, run: EvaluationRun):
    """(user prompt, retrieval set, profile version, leak reasons) of one item in a run."""
    profile = profile_for(item.character)
    if profile is None:
        raise EvaluationError(
            f"{item.character.key} has no profile version: its occupation is unknown."
        )
    disclose = run.discloses_profile
    if disclose and not profile.is_frozen:
        raise EvaluationError(
            f"{item.character.key} has no frozen profile; the disclosed settings show only a "
            "frozen, expert-reviewed profile (App. I)."
        )
    rset = None
    entries = None
    if run.uses_memory:
        rset = stored_retrieval(run, item)
        entries = retrieval.memory_block_entries(rset)
    data = prompt_input(item, setting=run.setting, profile=profile, memory_entries=entries)
    text = prompt.user_prompt(data)
    leaks = leakcheck.find_leaks(
        text,
        character_id=item.character.key,
        withheld=withheld_fields(item, profile, disclose=disclose, rset=rset),
    )
    return text, rset, profile, leaks


def _claim(prediction_id: int) -> EvaluationPrediction | None:
    """The prediction, marked running; None when there is nothing to ask (it has its
    response, or its run is not running; an item of a cancelled run is cancelled), or its
    run has just reached its budget or a monthly cap (it waits for a resume, issue #36)."""
    waiting = EvaluationPrediction.objects.select_related("run").get(pk=prediction_id)
    if FLOW.held_at_spending_limit(waiting):
        return None
    with transaction.atomic():
        pred = (
            EvaluationPrediction.objects.select_for_update(of=("self",))
            .select_related("run", "item__character", "item__scenario")
            .get(pk=prediction_id)
        )
        if pred.is_terminal:
            return None
        if pred.run.status not in (RunStatus.CANCELLING, RunStatus.CANCELLED):
            if pred.run.status != RunStatus.RUNNING:
                return None
            pred.status = Status.RUNNING
            pred.attempts += 1
            pred.save(update_fields=["status", "attempts", "updated_at"])
            return pred
        pred.status = Status.CANCELLED
        pred.save(update_fields=["status", "updated_at"])
    FLOW.finish_if_done(run_id=pred.run_id)
    return None


def _store(prediction_id: int, **fields) -> bool:
    """Store the outcome unless another delivery of the same task already did."""
    with transaction.atomic():
        pred = EvaluationPrediction.objects.select_for_update().get(pk=prediction_id)
        if pred.is_terminal:
            return False
        for name, value in fields.items():
            setattr(pred, name, value)
        pred.save(update_fields=[*fields, "updated_at"])
        return True


def evaluation_prediction_execute(*, prediction_id: int) -> EvaluationPrediction:
    """Ask the run's model about one item. Safe to call any number of times: a stored
    response is never replaced and never asked for again."""
    pred = _claim(prediction_id)
    if pred is None:
        return EvaluationPrediction.objects.get(pk=prediction_id)
    run = pred.run
    try:
        _execute(pred, run)
    except Exception as exc:
        logger.exception("evaluation prediction %s crashed", prediction_id)
        _store(
            prediction_id, status=Status.FAILED, error_kind="internal_error", error_message=str(exc)
        )
        FLOW.finish_if_done(run_id=run.pk)
        raise
    FLOW.finish_if_done(run_id=run.pk)
    return EvaluationPrediction.objects.get(pk=prediction_id)


def _execute(pred: EvaluationPrediction, run: EvaluationRun) -> None:
    try:
        text, rset, profile, leaks = evaluation_item_prompt(pred.item, run=run)
    except embeddings.EmbeddingFailure as failure:
        # The retriever's endpoint, not the item: resuming the run asks again.
        _store(
            pred.pk,
            status=Status.FAILED,
            error_kind=failure.error_kind,
            error_message=parsing.without_nul(" ".join(failure.messages)),
        )
        return
    except EvaluationError as error:
        _store(
            pred.pk,
            status=Status.FAILED,
            error_kind=INPUT_ERROR,
            error_message=" ".join(error.messages),
        )
        return
    common = {"user_prompt": text, "retrieval_set": rset, "profile_version": profile}
    if leaks:
        logger.warning("evaluation prediction %s refused by the leak check: %s", pred.pk, leaks)
        _store(
            pred.pk,
            status=Status.LEAK_BLOCKED,
            parse_path=EvaluationPrediction.ParsePath.LEAK,
            leak_reasons=leaks,
            choice="",
            **common,
        )
        return
    config = providers.evaluation_providers().get(run.provider_key)
    if config is None:
        _store(
            pred.pk,
            status=Status.FAILED,
            error_kind=NOT_CONFIGURED,
            error_message=(
                f"No evaluation model named {run.provider_key!r} is configured in this worker; set "
                f"{providers.MODELS_VARIABLE} and {providers.PREFIX}{run.provider_key.upper()}_* "
                "and resume the run."
            ),
            **common,
        )
        return
    decoding = run.decoding or DEFAULT_DECODING
    config = config.with_options(
        temperature=decoding.get("temperature"),
        max_tokens=int(decoding.get("max_tokens") or DEFAULT_DECODING["max_tokens"]),
        response_format=providers.answer_format(config),
        # A run made before the field existed recorded none and sends none.
        reasoning_effort=decoding.get("reasoning_effort"),
    )
    result = cached_client(config).complete_json(
        system=prompt.SYSTEM_PROMPT,
        user=text,
        schema=prompt.RESPONSE_SCHEMA,
        max_attempts=int(decoding.get("max_attempts") or 1),
        instruct_schema=False,
    )
    # The call and its tokens are stored first: a worker killed after it loses nothing
    # it paid for, and a redelivery asks again (one more call, never a second response).
    record_call(
        EvaluationCall,
        result=result,
        totals=(EvaluationPrediction, pred.pk),
        prices=providers.model_prices(run.provider_key),
        prediction_id=pred.pk,
    )
    outcome = {
        **common,
        "raw_response": parsing.without_nul(result.text or ""),
        "error_kind": result.error_kind or "",
        "error_message": parsing.without_nul(result.error_message or ""),
    }
    if result.error_kind in TRANSPORT_ERRORS:
        _store(pred.pk, status=Status.FAILED, **outcome)
        return
    answer = parsing.parse_response(result.text, refused=result.error_kind == "refused")
    _store(
        pred.pk,
        status=Status.ANSWERED if answer.choice else Status.INVALID,
        choice=answer.choice or "",
        parse_path=answer.path,
        parsed=parsing.without_nul(answer.parsed),
        **({**outcome, "error_message": outcome["error_message"] or answer.note}),
    )
