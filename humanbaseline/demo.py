"""The human baseline's demo data, on top of what ``demo_setup`` builds (the release items
and stand-in memories): a study ready for the demo participant, and a finished report.

The release carries no answer-key provenance, so the demo assigns **stand-in** source
families (50 GPT, 126 Claude, the rest Gemini, the paper's 497/126/50 counts) in a pattern
the App. J constraints can meet; the report reweights to the counts of the final set it
finds (here those stand-ins). One all-Gemini scenario is held out of the selection so the
two practice items share no scenario with the subset. Two **simulated** models' answers
on the subset are uploaded as a predictions CSV, and the admin names the first the best
model before anyone answers (recorded). Four **simulated** participants
(``baseline-sim-1..4``, no password) answer the subset from a seeded random draw so the
admin's report has numbers; the demo participant account starts at the consent page.
Idempotent: a second run finds the study and changes nothing.
"""

import numpy as np
from django.contrib.auth import get_user_model
from django.db import transaction

from adjudication.mcq.models import McqItem
from agreement.constants import HUMAN_BASELINE_SEED
from core.life_stages import LIFE_STAGE_KEYS
from core.roles import Role

from . import services
from .models import BaselineStudy, ItemResponse, ItemSourceFamily

# What the demo participant reads: plain words and nothing about the benchmark, as a real
# study's texts would be (the issue-21 walk-through found "(demo)" and "benchmark" here).
# An earlier demo named its study differently; a database seeded then is found by that name.
DEMO_STUDY_NAME = "Everyday decisions study"
EARLIER_DEMO_STUDY_NAMES = ("Matched-information baseline (demo)",)
DEMO_FAMILY_ORIGIN = "demo stand-in: the release has no answer-key provenance"
DEMO_CONSENT = (
    "You are invited to answer 150 multiple-choice items about fictional people. Taking part "
    "is voluntary; you may stop at any time without giving a reason. Your answers and the "
    "time you spend are stored under your account name and used only for this research. "
    "Payment is by the hour."
)
DEMO_BRIEFING = (
    "Each item shows a fictional person's basic information, up to 30 of their memories, a "
    "situation they are in and four possible responses. Choose the response this person "
    "would most likely give. Reading all the memories is encouraged but not required. There "
    "is no time limit, and you can change any answer until you finalize."
)
SIMULATED_ACCURACY = (0.86, 0.81, 0.79, 0.76)
# A simulated participant who withdrew part-way (issue #36).
DEMO_WITHDRAWN = "baseline-sim-withdrawn"
# Stand-in models: a seeded draw at these accuracies, not a model's answers.
SIMULATED_MODELS = (("simulated model A (demo)", 0.64), ("simulated model B (demo)", 0.43))
DEMO_PRACTICE_ITEMS = 2
# What the demo study pays, as a lab would state it on its study form.
DEMO_PAY = "£12 for every hour of study time recorded on your account, paid after you finalize."
# The code the demo participant sees on finalizing, as a Prolific study would show one.
DEMO_COMPLETION_CODE = "HBDEMO2026"


def standin_families(items) -> dict[int, str]:
    """{item pk: family}: one GPT item in 50 cells of a cyclic pattern (4–5 per character,
    6–7 per bin), Claude on the next item of every cell and a second one in 38 cells."""
    by_cell = {}
    for item in sorted(items, key=lambda i: i.question_id):
        by_cell.setdefault((item.character.key, item.stage), []).append(item)
    characters = sorted({c for c, _ in by_cell})
    gpt_cells, offset = set(), 0
    for n, character in enumerate(characters):
        take = 5 if n < 50 - 4 * len(characters) else 4
        gpt_cells |= {
            (character, LIFE_STAGE_KEYS[(offset + j) % len(LIFE_STAGE_KEYS)]) for j in range(take)
        }
        offset += take
    families = {}
    for n, cell in enumerate(sorted(by_cell)):
        bucket = by_cell[cell]
        if cell in gpt_cells:
            families[bucket[0].pk] = "gpt"
            bucket = bucket[1:]
        claude = 2 if n < 126 - len(by_cell) else 1
        for m, item in enumerate(bucket):
            families[item.pk] = "claude" if m < claude else "gemini"
    return families


@transaction.atomic
def seed_baseline_demo(*, users) -> BaselineStudy | None:
    """``users`` is demo_setup's {role value: user}; uses ``admin`` and ``participant``."""
    existing = BaselineStudy.objects.filter(
        name__in=(DEMO_STUDY_NAME, *EARLIER_DEMO_STUDY_NAMES)
    ).first()
    if existing is not None:
        if not existing.completion_code:  # a demo made before completion codes
            existing = services.study_completion_set(
                study=existing, code=DEMO_COMPLETION_CODE, url=existing.completion_url
            )
        return existing
    admin = users[Role.ADMIN.value]
    items = list(
        McqItem.objects.filter(status=McqItem.Status.FINAL).select_related("character", "scenario")
    )
    if not items:
        return None
    if not ItemSourceFamily.objects.exists():
        ItemSourceFamily.objects.bulk_create(
            ItemSourceFamily(item_id=pk, family=family, origin=DEMO_FAMILY_ORIGIN)
            for pk, family in standin_families(items).items()
        )
    selection = services.subset_select(
        user=admin, seed=HUMAN_BASELINE_SEED, held_out_scenarios=_practice_scenario(items)
    )
    if not selection.feasible:
        return None
    study = services.study_create(
        user=admin,
        name=DEMO_STUDY_NAME,
        selection=selection,
        consent_version="v1",
        consent_text=DEMO_CONSENT,
        briefing=DEMO_BRIEFING,
        pay_text=DEMO_PAY,
        practice_count=DEMO_PRACTICE_ITEMS,
    )
    # As a Prolific study would: the code the demo participant sees on finalizing.
    study = services.study_completion_set(study=study, code=DEMO_COMPLETION_CODE, url="")
    _simulated_models(study, admin)
    services.participant_enrol(
        study=study, user=users[Role.BASELINE_PARTICIPANT.value], via="admin"
    )
    _simulated_participants(study)
    _withdrawn_participant(study)
    services.report_request(
        study=study, user=admin, seed=HUMAN_BASELINE_SEED, n_boot=10_000, n_permutations=10_000
    )
    return study


def _practice_scenario(items) -> list[str]:
    """The last scenario whose items are all Gemini-origin: holding it out costs the
    scarce GPT and Claude quotas nothing."""
    families = dict(ItemSourceFamily.objects.values_list("item_id", "family"))
    by_scenario = {}
    for item in items:
        by_scenario.setdefault(item.scenario.scenario_id, set()).add(families.get(item.pk))
    gemini_only = sorted(s for s, found in by_scenario.items() if found == {"gemini"})
    return gemini_only[-1:]


def _simulated_models(study, admin):
    """Stand-in model answers on the subset (a predictions CSV), and the best model named
    by the admin before anyone answers."""
    rng = np.random.default_rng(HUMAN_BASELINE_SEED + 1)
    subset = [
        si.item
        for si in study.items.filter(is_practice=False).select_related("item").order_by("position")
    ]
    lines = ["question_id," + ",".join(label for label, _ in SIMULATED_MODELS)]
    for item in subset:
        cells = []
        for _, accuracy in SIMULATED_MODELS:
            wrong = [x for x in "ABCD" if x != item.correct_answer]
            right = rng.random() < accuracy
            cells.append(item.correct_answer if right else wrong[rng.integers(3)])
        lines.append(",".join([item.question_id, *cells]))
    services.predictions_import_csv(
        content="\n".join(lines), origin="demo stand-in: simulated answers, not a model"
    )
    services.best_model_fix(study=study, user=admin, model_label=SIMULATED_MODELS[0][0])


def _simulated_participants(study):
    rng = np.random.default_rng(HUMAN_BASELINE_SEED)
    User = get_user_model()
    for n, accuracy in enumerate(SIMULATED_ACCURACY, start=1):
        user, _ = User.objects.get_or_create(username=f"baseline-sim-{n}")
        user.set_unusable_password()
        user.save()
        p = services.participant_enrol(study=study, user=user, via="admin")
        p = services.consent_decide(participation=p, agree=True, version=study.consent_version)
        p = services.briefing_complete(participation=p)
        for position in range(1, DEMO_PRACTICE_ITEMS + 1):
            services.practice_answer(participation=p, position=position, choice="ABCD"[n % 4])
        p = services.baseline_session_start(participation=p)
        responses = list(
            ItemResponse.objects.filter(participation=p).select_related("study_item__item")
        )
        for response in responses:
            key = response.study_item.item.correct_answer
            wrong = [x for x in "ABCD" if x != key]
            response.choice = key if rng.random() < accuracy else wrong[rng.integers(3)]
            response.seconds = float(rng.integers(40, 240))
        ItemResponse.objects.bulk_update(responses, ["choice", "seconds"])
        services.baseline_finalize(participation=p)


def _withdrawn_participant(study):
    """A fifth simulated participant who answered the first items, then withdrew (issue
    #36): the admin sees how a withdrawal shows on the study page, and the report leaves
    their answers out."""
    user, _ = get_user_model().objects.get_or_create(username=DEMO_WITHDRAWN)
    user.set_unusable_password()
    user.save()
    p = services.participant_enrol(study=study, user=user, via="admin")
    p = services.consent_decide(participation=p, agree=True, version=study.consent_version)
    p = services.briefing_complete(participation=p)
    for position in range(1, DEMO_PRACTICE_ITEMS + 1):
        services.practice_answer(participation=p, position=position, choice="A")
    p = services.baseline_session_start(participation=p)
    for position in range(1, 21):
        services.answer_save(participation=p, position=position, choice="ABCD"[position % 4])
    services.participant_withdraw(participation=p)
