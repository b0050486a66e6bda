"""The records and users each row of ``test_one_door.DOORS`` starts from (issue #33). A
setup returns ``(user, API URL kwargs, page URL kwargs, page fields[, shared fields])``."""

from collections.abc import Callable

from django.core.files.uploadedfile import SimpleUploadedFile

from adjudication.mcq.forms import AssemblyRunForm
from adjudication.mcq.models import McqItem
from adjudication.mcq.services import item_assembly
from annotation.generation.models import GenerationRun, PromptVersion
from annotation.memory_generation.batching import DEFAULT_TIER_SHARES
from annotation.memory_generation.models import MemoryRun
from annotation.memory_generation.services.plans import weights_current
from annotation.profile_review.forms import ProfileEditForm
from annotation.scenario_review import services as scenario_services
from annotation.scenario_review.models import ScenarioBlueprint, ScenarioVersion
from audit.memory_quality.forms import AuditSettingsForm
from audit.memory_quality.models import MemoryCase
from audit.memory_quality.services import configuration
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from audit.reference_labels import adjudicator_pages
from audit.reference_labels import services as label_services
from audit.reference_labels.models import LabelAuditItem
from core.protocol import PROFILE_REVIEWERS
from core.roles import Role
from evaluation.prediction_import import evaluation_run_import
from humanbaseline import services as baseline_services
from humanbaseline.forms import SelectionForm
from humanbaseline.models import BaselineStudy, ItemResponse
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.evaluation.conftest import build_corpus
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory
from tests.humanbaseline.conftest import build_items, enrol, make_study
from tests.mcq.conftest import KEY, PLAUSIBLE, flag, reference
from tests.memory_generation.run_rows import frozen_profile, make_run, plan_for
from tests.memory_quality.conftest import CLEAN, DRIFT, hand_written
from tests.reference_labels.conftest import make_team, small_final_set
from tests.review.conftest import approve, rate, request_change, submit

LONG_NOTE = "x" * 4_001  # one past core.text_rules.NOTE


# --- Setups ---------------------------------------------------------------------------------


def _mcq_item(status=None):
    scenario = ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_1")
    ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)
    target = reference("CHAR_01", scenario, KEY)
    for key, text in PLAUSIBLE.items():
        reference(key, scenario, text)
    item = item_assembly.mcq_item_assemble(reference_id=target.pk, selector=False, dispatch=False)
    item = flag(item)
    if status is not None:
        McqItem.objects.filter(pk=item.pk).update(status=status)
    return item


def mcq_flagged():
    item = _mcq_item()
    user = UserFactory(roles=[Role.ARBITRATOR])
    return user, {"item_id": item.pk}, {"item_id": item.pk}, {"version": item.version}


def mcq_admin_item():
    item = _mcq_item()  # flagged: not awaiting screening
    user = UserFactory(roles=[Role.ADMIN])
    return user, {"item_id": item.pk}, {"item_id": item.pk}, {}


def mcq_assembly_admin():
    initial = {name: f.initial for name, f in AssemblyRunForm().fields.items()}
    page_fields = {k: v for k, v in initial.items() if v is not None and v is not False}
    return UserFactory(roles=[Role.ADMIN]), {}, {}, page_fields


def _escalated_pair():
    who = people()
    pair = make_pair(key="CHAR_81")
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    judge(a[0], family="claude")
    judge(a[1], family="claude", rating="partial", guidance="Name the teacher.")
    judge(a[2], family="gpt")
    return who, pair


def arbitration_pair():
    who, pair = _escalated_pair()
    return who["arbitrator"], {"pair_id": pair.pk}, {"pair_id": pair.pk}, {}


def arbitration_reopen():
    who, pair = _escalated_pair()  # escalated: no decision to reopen
    return who["admin"], {"pair_id": pair.pk}, {"pair_id": pair.pk}, {}


SID = "SCN_SCHOOL_AGE_1"
SCENARIO_CONTENT = {
    "stage": "school_age",
    "age": 30,  # outside the stage: the service refuses
    "age_range": "ages 6-11",
    "name": "The lost notebook",
    "category": "Peer conflict",
    "intensity": "Medium",
    "description_for_agent": "A classmate reads your notebook aloud.",
    "setting_location": "Classroom",
    "setting_time": "Monday morning",
    "setting_atmosphere": "Noisy",
    "context_text": "You left your notebook on the desk.",
    "trigger_sender": "Classmate",
    "trigger_message": "Listen to this!",
    "note": "From the workshop.",
}


def scenario_reviewer():
    return UserFactory(roles=[Role.SCENARIO_REVIEWER]), {}, {}, {}


def scenario_to_screen():
    ScenarioFactory(scenario_id=SID)
    user = UserFactory(roles=[Role.SCENARIO_REVIEWER])
    return user, {"scenario_id": SID}, {"scenario_id": SID}, {}


def scenario_to_revise():
    ScenarioFactory(scenario_id=SID)
    flagger = UserFactory(roles=[Role.SCENARIO_REVIEWER])
    scenario_services.scenario_screen(
        scenario_id=SID, reviewer=flagger, decision="flag", note="Names the age."
    )
    user = UserFactory(roles=[Role.SCENARIO_REVIEWER])
    content = ScenarioVersion.objects.get(scenario__scenario_id=SID).content()
    return user, {"scenario_id": SID}, {"scenario_id": SID}, content


def scenario_to_rate():
    ScenarioFactory(scenario_id=SID)
    one, two = (UserFactory(roles=[Role.SCENARIO_REVIEWER]) for _ in range(2))
    approve(SID, one)
    approve(SID, two)
    return one, {"scenario_id": SID}, {"scenario_id": SID}, {}


QUOTAS = {"quota_gemini": 2, "quota_claude": 2, "quota_gpt": 2, "quota_expert_rewrite": 0}
NO_QUOTA = {k: 0 for k in QUOTAS}


def _initial(form_class, **kwargs) -> dict:
    initial = {name: f.initial for name, f in form_class(**kwargs).fields.items()}
    return {k: v for k, v in initial.items() if v is not None and v is not False}


def baseline_admin():
    build_items(4, 3)
    return UserFactory(roles=[Role.ADMIN]), {}, {}, _initial(SelectionForm)


def baseline_study():
    study, _, _ = make_study(n_items=6, n_practice=2)
    ids = {"study_id": study.pk}
    return UserFactory(roles=[Role.ADMIN]), ids, ids, {}


def baseline_study_one_finalized():
    user, ids, _, _ = baseline_study()
    study = BaselineStudy.objects.get(pk=ids["study_id"])
    participation = enrol(study, "one")
    for response in ItemResponse.objects.filter(participation=participation).select_related(
        "study_item__item"
    ):
        response.choice = response.study_item.item.correct_answer
        response.save(update_fields=["choice"])
    baseline_services.baseline_finalize(participation=participation)
    return user, ids, ids, {}


def csv_upload(text: str) -> Callable[[], dict]:
    return lambda: {"file": SimpleUploadedFile("s.csv", text.encode(), "text/csv")}


def _audited():
    char = CharacterFactory(key="CHAR_01")
    hand_written(char, sequence=1, content_full=CLEAN + " Years later I understood it all.")
    hand_written(char, sequence=2, event_age=20, content_full=DRIFT)
    run = audit_run_start(created_by=UserFactory(roles=[Role.ADMIN]))
    audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    MemoryCase.objects.filter(run=run).update(status=MemoryCase.Status.REVIEW)
    return run, MemoryCase.objects.filter(run=run).order_by("memory__sequence").first()


def audit_case():
    _, case = _audited()
    ids = {"case_id": case.pk}
    return UserFactory(roles=[Role.MEMORY_REVIEWER]), ids, ids, {}


def audit_senior_case():
    _, case = _audited()
    MemoryCase.objects.filter(pk=case.pk).update(status=MemoryCase.Status.SENIOR)
    memory = case.memory
    texts = {f: getattr(memory, f) for f in ("context", "content_summary", "content_full")}
    ids = {"case_id": case.pk}
    return UserFactory(roles=[Role.ARBITRATOR]), ids, ids, {}, texts


def audit_run():
    run, _ = _audited()  # its cases are still open
    ids = {"run_id": run.pk}
    return UserFactory(roles=[Role.ADMIN]), ids, ids, {}


def audit_settings():
    page_fields = AuditSettingsForm.initial_from(configuration.audit_settings_defaults())
    page_fields = {k: v for k, v in page_fields.items() if v is not None and v is not False}
    return UserFactory(roles=[Role.ADMIN]), {}, {}, page_fields


def _label_audit():
    team = make_team()
    small_final_set(characters=1, stages=("school_age",), per_stratum=3)
    audit = label_services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=2,
        seed=11,
    )
    first = LabelAuditItem.objects.filter(audit=audit).order_by("position").first()
    return team, first


def label_audit_admin():
    team = make_team()
    small_final_set(characters=1, stages=("school_age",), per_stratum=3)
    shared = {
        "experts": [u.pk for u in team["experts"]][:2],  # one short
        "adjudicator": team["adjudicator"].pk,
        "items_per_stratum": 2,
        "seed": 11,
        "note": "An audit.",
    }
    return team["admin"], {}, {}, {}, shared


def label_expert():
    team, first = _label_audit()
    ids = {"label_item_id": first.pk}
    return team["experts"][0], ids, ids, {}


def label_adjudicator():
    team, first = _label_audit()
    key = first.item_version.correct_answer
    for expert in team["experts"]:
        label_services.label_selection_submit(
            audit_item_id=first.pk, expert=expert, choice="A" if key != "A" else "B", note=""
        )
    ids = {"label_item_id": first.pk}
    page = adjudicator_pages.adjudication_page(audit_item_id=first.pk)
    options = {f"option_{o['label']}": o["content"] for o in page.options}
    # key_change without a note: the service's "Say why in the note".
    return team["adjudicator"], ids, ids, options, {"decision": "key_change", "new_key": "A"}


def evaluation_admin():
    return UserFactory(roles=[Role.ADMIN]), {}, {}, {}


def evaluation_imported_run():
    items = build_corpus()["items"]
    user = UserFactory(roles=[Role.ADMIN])
    text = f"question_id,decision_choice\n{items[0].question_id},A\n"
    run = evaluation_run_import(
        created_by=user, filename="m.csv", content=text.encode(), label="m", setting="naive_rag"
    )
    ids = {"run_id": run.pk}
    return user, ids, ids, {}


def comparison_assignment():
    who = people()
    pair = make_pair(key="CHAR_81")
    assignment = next(iter(assign(pair, who["annotators"], who["admin"]).values()))
    ids = {"assignment": assignment.public_id}
    return assignment.annotator, ids, ids, {}


# --- Run buttons (issue #33: generation, memory generation) ------------------------------------


def generation_run(status: str = "finished"):
    """A generation run in ``status`` (finished by default: nothing to cancel, no failed
    unit to retry)."""
    prompt = {
        s: PromptVersion.objects.filter(stage=s).order_by("number").first()
        for s in ("screening", "reranking", "response")
    }
    user = UserFactory(roles=[Role.ADMIN])
    run = GenerationRun.objects.create(
        created_by=user,
        families=["claude"],
        status=status,
        screening_prompt=prompt["screening"],
        reranking_prompt=prompt["reranking"],
        response_prompt=prompt["response"],
    )
    ids = {"run_id": run.pk}
    return user, ids, ids, {}


def memory_run_finished():
    """A finished memory run: nothing to cancel, resume or retry."""
    user = UserFactory(roles=[Role.ADMIN])
    run = make_run(status=MemoryRun.Status.FINISHED, user=user)
    ids = {"run_id": run.pk}
    return user, ids, ids, {}


# --- Scenario re-assessment (issue #33) ---------------------------------------------------------


def _scenario_split():
    """Both reviewers approved and rated SID; adversity (6/3) and deception (2/4) are more
    than one point apart: the scenario waits for its joint re-assessment."""
    ScenarioFactory(scenario_id=SID)
    first, second = (UserFactory(roles=[Role.SCENARIO_REVIEWER]) for _ in range(2))
    for reviewer in (first, second):
        approve(SID, reviewer)
    rate(SID, first)
    rate(SID, second, adversity=3, deception=4, duty=6)
    return first, second


def scenario_to_reassess():
    first, _ = _scenario_split()
    return first, {"scenario_id": SID}, {"scenario_id": SID}, {}


def scenario_to_confirm():
    """The first reviewer proposed adversity 5, deception 3; the second confirms."""
    first, second = _scenario_split()
    proposal = scenario_services.scenario_reassess_propose(
        scenario_id=SID, reviewer=first, agreed={"adversity": 5, "deception": 3}, note=""
    )
    ids = {"scenario_id": SID}
    return second, ids, ids, {}, {"proposal": proposal.pk}


# --- Profile review (issue #33) -----------------------------------------------------------------


def _profile_draft():
    """CHAR_01 v1 under review."""
    return ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)


def profile_annotator():
    _profile_draft()
    ids = {"key": "CHAR_01"}
    return UserFactory(roles=[Role.PRIMARY_ANNOTATOR]), ids, ids, {}


def _reviewed_case(*, with_request: bool):
    """CHAR_01 v1 with every review in, so the senior may adjudicate; with a change
    request from the first annotator when ``with_request``."""
    version = _profile_draft()
    annotators = [UserFactory(roles=[Role.PRIMARY_ANNOTATOR]) for _ in range(PROFILE_REVIEWERS)]
    change = request_change("CHAR_01", annotators[0]) if with_request else None
    for n, annotator in enumerate(annotators):
        revise = n == 0 and with_request
        recommendation = "local_revision" if revise else "accept"
        submit("CHAR_01", annotator, recommendation, explanation="Read in full.")
    return version, annotators[0], change


def _submitted_change_request():
    """An annotator's change request on CHAR_01, in a review already submitted."""
    _, annotator, change = _reviewed_case(with_request=True)
    return annotator, change


def change_request_submitted():
    annotator, change = _submitted_change_request()
    ids = {"key": "CHAR_01", "id": change.pk}
    return annotator, ids, ids, {}


def change_request_to_resolve(body: dict) -> Callable[[], tuple]:
    """The senior expert resolves a submitted change request; the page's resolve form
    names its fields with the request's prefix, so the setup carries ``body`` for it."""

    def setup():
        _, change = _submitted_change_request()
        ids = {"key": "CHAR_01", "id": change.pk}
        page = {f"cr{change.pk}-{name}": value for name, value in body.items()}
        return UserFactory(roles=[Role.ARBITRATOR]), ids, ids, page

    return setup


def profile_senior():
    version, _, _ = _reviewed_case(with_request=False)
    ids = {"key": "CHAR_01"}
    page_fields = ProfileEditForm.initial_for(version)
    return UserFactory(roles=[Role.ARBITRATOR]), ids, ids, page_fields


# --- Scenario blueprints (issue #33) ------------------------------------------------------------


def blueprint_expanded():
    """A blueprint a worker expanded already into its draft scenario."""
    user = UserFactory(roles=[Role.SCENARIO_REVIEWER])
    blueprint = ScenarioBlueprint.objects.create(
        title="The lost notebook",
        summary="A classmate reads the notebook aloud.",
        stage="school_age",
        diamonds_dimension="duty",
        created_by=user,
        status=ScenarioBlueprint.Status.EXPANDED,
        scenario=ScenarioFactory(scenario_id=SID),
    )
    ids = {"id": blueprint.pk}
    return user, ids, ids, {}


def memory_plan_unaudited():
    """CHAR_12's plan, with no audit finalized since it was made: nothing to top up."""
    plan = plan_for("CHAR_12")
    ids = {"plan_id": plan.pk}
    return UserFactory(roles=[Role.ADMIN]), ids, ids, {}


def memory_plan_to_launch():
    """CHAR_12's plan, ready for a run; the launch form's defaults and its confirm step."""
    plan = plan_for("CHAR_12")
    tiers = {f"tier_{tier.lower()}": share for tier, share in DEFAULT_TIER_SHARES.items()}
    page = {"concurrency": 4, "seed": 0, **tiers, "confirm": "1"}
    return UserFactory(roles=[Role.ADMIN]), {}, {}, page, {"plans": [plan.pk]}


def memory_planner():
    """An admin on the plan and weight pages (CHAR_12 can be planned, so the plan form is
    drawn); the plan form's weight version and target."""
    frozen_profile("CHAR_12")
    version = weights_current()
    page = {"weights": version.pk, "target": 1000}
    return UserFactory(roles=[Role.ADMIN]), {}, {}, page


ZERO_WEIGHTS = {f"age_{age}": 0 for age in range(6, 51)}
# --- The memory audit's run start (issue #33: the runs page and POST /api/audit/runs/) ----


def audit_runs_page():
    CharacterFactory(key="CHAR_01")
    return UserFactory(roles=[Role.ADMIN]), {}, {}, {}


def audit_run_busy():
    """A run waiting for its worker: a second start is refused until it has ended."""
    user, *doors = audit_runs_page()
    audit_run_start(created_by=user, note="The first pass.")
    return user, *doors
