"""LLM screening of MCQ items under the App. D.3.1 guideline (seed 000 §2.4 Stage 3).

The judge gets the complete item and its construction materials; a valid, consistent
verdict passes the item into the final set or flags it for item review, and a judge that
never answers validly within the retry bound is a technical failure (also reviewed). The
LLM call happens outside any transaction; the rows are locked only to record it.
"""

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from adjudication.mcq import screening as mcq_screening
from adjudication.mcq.models import McqError, McqItem, McqOption, McqScreening
from adjudication.mcq.versions import current_version
from annotation.corpus.models import ActivationSet, Memory, ProfileVersion
from core.protocol import ACTIVATED_MEMORY_LIMIT
from core.providers import configured_provider
from core.tasks import enqueue_on_commit
from llm import ProviderConfig, make_client

SCREENER_PROVIDER_PREFIX = "HEARTBENCH_MCQ_SCREENER"
# At most this many supporting memories go to the judge (the activation budget, App. D.1).
SCREENING_MEMORY_LIMIT = ACTIVATED_MEMORY_LIMIT


def screener_provider() -> ProviderConfig | None:
    """The screening judge (App. D.3.1): ``HEARTBENCH_MCQ_SCREENER_*``. None: revised and
    assembled items wait in ``screening`` until one is configured."""
    return configured_provider(SCREENER_PROVIDER_PREFIX)


def _profile_for(item: McqItem):
    candidate = item.reference.source_candidate if item.reference else None
    if candidate is not None and candidate.profile_version_id:
        return candidate.profile_version
    return ProfileVersion.objects.filter(character=item.character).order_by("-number").first()


def _supporting_memory_ids(item: McqItem) -> list[str]:
    candidate = item.reference.source_candidate if item.reference else None
    if candidate is not None and candidate.activated_memory_ids:
        return list(candidate.activated_memory_ids)
    activation = (
        ActivationSet.objects.filter(
            character=item.character,
            scenario=item.scenario,
            step=ActivationSet.Step.REFINEMENT,
        )
        .order_by("origin")
        .first()
    )
    return list(activation.memory_ids) if activation else []


def _provenance(option: McqOption, item: McqItem) -> str:
    if option.is_generated:
        return "distractor written by a human reviewer (generated)"
    if option.is_correct:
        return "key: the target character's adjudicated reference response"
    who = option.source_character or "another character"
    return f"distractor: adjudicated reference response of {who}"


def screening_materials(item: McqItem) -> dict:
    """The complete item and its construction materials (App. D.3.1, "INPUT"): the
    supporting memories carry their narratives (``content_full``), fitted into
    ``HEARTBENCH_SCREENING_MEMORY_TOKEN_BUDGET`` approximate tokens in activation order
    (:func:`adjudication.mcq.screening.fit_narratives`), next to their annotations."""
    profile = _profile_for(item)
    scenario = item.scenario
    ids = _supporting_memory_ids(item)[:SCREENING_MEMORY_LIMIT]
    by_id = {
        m.memory_id: m for m in Memory.objects.filter(character=item.character, memory_id__in=ids)
    }
    options = sorted(item.options.all(), key=lambda o: o.label)
    memories = [by_id[i] for i in ids if i in by_id]
    budget = settings.HEARTBENCH_SCREENING_MEMORY_TOKEN_BUDGET
    narratives = mcq_screening.fit_narratives([m.content_full for m in memories], budget)
    return {
        "item_id": item.question_id,
        "item_version": item.version,
        "question": "Which response would the target character most plausibly give in this "
        "scenario?",
        "character_profile": {
            "character_id": item.character.key,
            "occupation": profile.occupation if profile else "",
            "big_five": profile.big_five if profile else {},
            "description": profile.description if profile else "",
            "self_value_logic": profile.self_value_logic if profile else "",
            "core_patterns": profile.core_patterns if profile else [],
        },
        "scenario": {
            "scenario_id": scenario.scenario_id,
            "stage": scenario.stage,
            "age": scenario.age,
            "name": scenario.name,
            "setting": f"{scenario.setting_location}; {scenario.setting_time}; "
            f"{scenario.setting_atmosphere}",
            "context": scenario.context_text,
            "trigger": f"{scenario.trigger_sender}: {scenario.trigger_message}",
            "action_required": scenario.action_required,
        },
        "supporting_memories": [
            {
                "memory_id": m.memory_id,
                "event_age": m.event_age,
                "content_full": narrative.text,
                "content_full_truncated": narrative.truncated,
                "content_full_tokens": narrative.tokens,
                "summary": m.content_summary,
                "belief": m.psych_conclusion,
                "behavior_policy": m.behavior_policy,
                "emotion": f"{m.emotion_primary} ({m.emotion_intensity:.2f})",
            }
            for m, narrative in zip(memories, narratives, strict=True)
        ],
        "memory_narrative_budget": {
            "token_budget": budget,
            "token_count": "approximate: one token per CJK, kana or hangul character, one "
            "per four other characters",
            "narrative_tokens": sum(n.tokens for n in narratives),
            "truncated_memory_ids": [
                m.memory_id for m, n in zip(memories, narratives, strict=True) if n.truncated
            ],
            "note": mcq_screening.narrative_budget_note(narratives, budget),
        },
        "reference_annotation": item.reference.inner_consciousness if item.reference else {},
        "options": [{"label": o.label, "text": o.content} for o in options],
        "answer_key": item.correct_answer,
        "option_provenance": [{"label": o.label, "source": _provenance(o, item)} for o in options],
    }


def mcq_screening_run(*, item_id: int, client=None) -> McqScreening | None:
    """Screen the item's current version under App. D.3.1 (idempotent per version).

    Returns None when the item is not awaiting screening and never was screened, or no
    judge is configured. Invalid or inconsistent outputs are retried up to
    ``MAX_SCREENING_ATTEMPTS`` times; then the screening is a technical failure and the
    item goes to review.
    """
    with transaction.atomic():
        item = McqItem.objects.select_for_update().get(pk=item_id)
        version = current_version(item)
        done = (
            McqScreening.objects.filter(item_version=version)
            .exclude(outcome=McqScreening.Outcome.PENDING)
            .order_by("-created_at")
            .first()
        )
        if done is not None or item.status != McqItem.Status.SCREENING:
            return done
        if client is None:
            config = screener_provider()
            if config is None:
                return None
            client = make_client(config)
        screening, _ = McqScreening.objects.get_or_create(
            item_version=version,
            outcome=McqScreening.Outcome.PENDING,
            defaults={"item": item},
        )
        item = McqItem.objects.select_related(
            "character", "scenario", "reference__source_candidate__profile_version"
        ).get(pk=item_id)
        materials = screening_materials(item)

    key = materials["answer_key"]
    haystack = mcq_screening.materials_text(materials)
    errors, output, problems = [], None, None
    system = user = ""
    for _attempt in range(mcq_screening.MAX_SCREENING_ATTEMPTS):
        system, user = mcq_screening.build_prompt(materials, previous_problems=problems)
        result = client.complete_json(
            system=system, user=user, schema=mcq_screening.OUTPUT_SCHEMA, max_attempts=1
        )
        if not result.ok:
            problems = [f"{result.error_kind}: {result.error_message}"]
        else:
            problems = mcq_screening.contract_problems(
                result.parsed,
                item_id=materials["item_id"],
                item_version=materials["item_version"],
                key=key,
                input_text=haystack,
            )
            if not problems:
                output = result.parsed
        if output is not None:
            break
        errors.append({"error_kind": result.error_kind or "inconsistent", "problems": problems})

    config = getattr(client, "config", None)
    with transaction.atomic():
        item = McqItem.objects.select_for_update().get(pk=item_id)
        screening = McqScreening.objects.select_for_update().get(pk=screening.pk)
        if output is None:
            screening.outcome = McqScreening.Outcome.TECHNICAL_FAILURE
            screening.needs_human_review = True
        else:
            screening.output = output
            screening.needs_human_review = output["needs_human_review"]
            screening.outcome = (
                McqScreening.Outcome.FLAGGED
                if output["needs_human_review"]
                else McqScreening.Outcome.PASSED
            )
        screening.attempts = len(errors) + (1 if output is not None else 0)
        screening.attempt_errors = errors
        screening.judge_family = str(config.kind) if config is not None else ""
        screening.judge_model = (config.model or "") if config is not None else ""
        screening.prompt_sha256 = mcq_screening.prompt_digest(system, user)
        screening.finished_at = timezone.now()
        screening.save()
        # An edit made while the judge was working has its own screening queued.
        if item.version == version.number and item.status == McqItem.Status.SCREENING:
            item.status = (
                McqItem.Status.FINAL
                if screening.outcome == McqScreening.Outcome.PASSED
                else McqItem.Status.FLAGGED
            )
            item.save(update_fields=["status"])
    return screening


def mcq_screening_request(*, item_id: int) -> None:
    """Queue screening of an item awaiting it (the admin's "screen now")."""
    item = McqItem.objects.get(pk=item_id)
    if item.status != McqItem.Status.SCREENING:
        raise McqError(f"{item.question_id} is not awaiting screening.")
    enqueue_on_commit(
        "adjudication.mcq_screen_item", item.pk, what=f"Screening of MCQ item {item.pk}"
    )
