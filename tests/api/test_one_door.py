"""One door per action (issue #33): every write a person can make from a page and a
script from the API refuses the same bad input with the same words at both doors.

``DOORS`` lists each such action: the API endpoint, its page twin, a setup making the
record and the user, and a bad input. The test sends the input to the API (token, JSON)
and to the page (signed in, form post, redirects followed) and asserts that every
message of the API's error body reaches the person on the page. A second test holds the
table to the URLconf: every API write endpoint is in ``DOORS``, or named in
``NO_PAGE_TWIN`` (a write only scripts make) or ``NOT_YET_DRIVEN`` (a twin this test does
not drive yet, with the reason), so a new action cannot be missed."""

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils.html import escape

from adjudication.mcq.forms import AssemblyRunForm
from adjudication.mcq.models import McqItem
from adjudication.mcq.services import item_assembly
from annotation.scenario_review import services as scenario_services
from annotation.scenario_review.models import ScenarioVersion
from audit.memory_quality.forms import AuditSettingsForm
from audit.memory_quality.models import MemoryCase
from audit.memory_quality.services import configuration
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from audit.reference_labels import adjudicator_pages
from audit.reference_labels import services as label_services
from audit.reference_labels.models import LabelAuditItem
from core.roles import Role
from evaluation.prediction_import import evaluation_run_import
from humanbaseline import services as baseline_services
from humanbaseline.forms import SelectionForm
from humanbaseline.models import BaselineStudy, ItemResponse
from tests.api.conftest import token_client
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.evaluation.conftest import build_corpus
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory
from tests.humanbaseline.conftest import build_items, enrol, make_study
from tests.mcq.conftest import KEY, PLAUSIBLE, flag, reference
from tests.memory_quality.conftest import CLEAN, DRIFT, hand_written
from tests.reference_labels.conftest import make_team, small_final_set
from tests.review.conftest import approve

LONG_NOTE = "x" * 4_001  # one past core.text_rules.NOTE


@dataclass(frozen=True)
class Door:
    """An action with two doors. ``setup()`` returns ``(user, api kwargs, page kwargs,
    page fields[, shared fields])``: the page fields are what the page's form carries
    besides what a person types (a hidden version, the form's initial values); shared
    fields go to both doors (the record's current texts); ``page_body`` defaults to
    ``body``; ``htmx`` posts to the page as htmx does; ``multipart`` sends the API a form
    upload instead of JSON."""

    api: str
    page: str
    setup: Callable[[], tuple]
    body: dict | Callable[[], dict]  # a callable makes a fresh body (an upload) per door
    page_body: dict | None = None
    method: str = "post"
    htmx: bool = False
    multipart: bool = False
    expect: tuple[str, ...] = field(default_factory=tuple)


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


def _csv(text: str) -> Callable[[], dict]:
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


# --- The table --------------------------------------------------------------------------------

DOORS = {
    "adjudication-api:decide": [
        Door("adjudication-api:decide", "adjudication:pair", arbitration_pair, {"kind": "x"}),
        Door("adjudication-api:decide", "adjudication:pair", arbitration_pair, {"kind": "adopt"}),
        Door(
            "adjudication-api:decide",
            "adjudication:pair",
            arbitration_pair,
            {"kind": "adopt", "candidate": 1, "reason": LONG_NOTE},
        ),
    ],
    "adjudication-api:reopen": [
        Door("adjudication-api:reopen", "adjudication:reopen", arbitration_reopen, {}),
        Door(
            "adjudication-api:reopen",
            "adjudication:reopen",
            arbitration_reopen,
            {"reason": "Drops the deadline."},
            expect=("This pair has no decision to reopen.",),
        ),
    ],
    "review-api:scenario-new": [
        Door("review-api:scenario-new", "review:scenario-new", scenario_reviewer, SCENARIO_CONTENT),
        Door(
            "review-api:scenario-new",
            "review:scenario-new",
            scenario_reviewer,
            {**SCENARIO_CONTENT, "age": 9, "name": "a\x00b"},
        ),
    ],
    "review-api:scenario-screen": [
        Door(
            "review-api:scenario-screen",
            "review:scenario-screen",
            scenario_to_screen,
            {"decision": "flag"},
        ),
        Door(
            "review-api:scenario-screen",
            "review:scenario-screen",
            scenario_to_screen,
            {"decision": "approve", "logically_consistent": True},
        ),
    ],
    "review-api:scenario-revise": [
        Door(
            "review-api:scenario-revise",
            "review:scenario-revise",
            scenario_to_revise,
            {"age": 30, "note": "Older."},
        ),
        Door(
            "review-api:scenario-revise",
            "review:scenario-revise",
            scenario_to_revise,
            {"note": "No change."},
        ),
    ],
    "review-api:scenario-rate": [
        Door(
            "review-api:scenario-rate",
            "review:scenario-rate",
            scenario_to_rate,
            {"scores": {"duty": 5}},
            page_body={"duty": 5},
        ),
        Door(
            "review-api:scenario-rate",
            "review:scenario-rate",
            scenario_to_rate,
            {"scores": {"duty": 9}, "note": LONG_NOTE},
            page_body={"duty": 9, "note": LONG_NOTE},
        ),
    ],
    "baseline-api:selection-list": [
        Door(
            "baseline-api:selection-list",
            "baseline:selection-create",
            baseline_admin,
            {"seed": 1, **NO_QUOTA},
        ),
        Door(
            "baseline-api:selection-list",
            "baseline:selection-create",
            baseline_admin,
            {"seed": -1, **QUOTAS},
        ),
        Door(
            "baseline-api:selection-list",
            "baseline:selection-create",
            baseline_admin,
            {"seed": 1, **QUOTAS, "held_out_scenarios": "SCN_NOPE"},
        ),
    ],
    "baseline-api:study-list": [
        Door("baseline-api:study-list", "baseline:study-create", baseline_admin, {"name": "S"}),
    ],
    "baseline-api:participants": [
        Door(
            "baseline-api:participants",
            "baseline:participant-create",
            baseline_study,
            {"username": "p1", "password": "123"},
        ),
    ],
    "baseline-api:best-model": [
        Door("baseline-api:best-model", "baseline:best-model", baseline_study, {}),
    ],
    "baseline-api:report": [
        Door(
            "baseline-api:report",
            "baseline:report",
            baseline_study_one_finalized,
            {"seed": 7, "n_boot": 50, "n_permutations": 50},
        ),
        Door(
            "baseline-api:report",
            "baseline:report",
            baseline_study,
            {"seed": 7, "n_boot": -1, "n_permutations": 50},
        ),
    ],
    "baseline-api:families": [
        Door(
            "baseline-api:families",
            "baseline:families",
            baseline_admin,
            _csv("question_id,family\nQ_NONE,gpt\n"),
            multipart=True,
        ),
    ],
    "baseline-api:predictions": [
        Door(
            "baseline-api:predictions",
            "baseline:predictions",
            baseline_admin,
            _csv("model,question_id,choice\nm,Q_NONE,A\n"),
            multipart=True,
        ),
    ],
    "audit-api:case-decide": [
        Door(
            "audit-api:case-decide", "audit:case-decide", audit_case, {"decision": "false_positive"}
        ),
    ],
    "audit-api:case-edit": [
        Door(
            "audit-api:case-edit",
            "audit:case-edit",
            audit_senior_case,
            {"content_summary": "", "note": "Removed the hindsight."},
        ),
        Door(
            "audit-api:case-edit",
            "audit:case-edit",
            audit_senior_case,
            {"content_full": CLEAN, "note": LONG_NOTE},
        ),
    ],
    "audit-api:run-finalize": [
        Door("audit-api:run-finalize", "audit:run-finalize", audit_run, {}),
    ],
    "audit-api:run-classify": [
        Door("audit-api:run-classify", "audit:run-classify", audit_run, {"criterion": "six"}),
        Door("audit-api:run-classify", "audit:run-classify", audit_run, {"criterion": 6}),
    ],
    "audit-api:settings": [
        Door(
            "audit-api:settings",
            "audit:settings",
            audit_settings,
            {"context_words_min": 90, "context_words_max": 10, "note": "x"},
        ),
        Door("audit-api:settings", "audit:settings", audit_settings, {"note": LONG_NOTE}),
    ],
    "audit-api:labels-api:audit-list": [
        Door("audit-api:labels-api:audit-list", "audit:labels:create", label_audit_admin, {}),
        Door(
            "audit-api:labels-api:audit-list",
            "audit:labels:create",
            label_audit_admin,
            {"note": LONG_NOTE},
        ),
    ],
    "audit-api:labels-api:selection": [
        Door("audit-api:labels-api:selection", "audit:labels:select", label_expert, {}),
        Door(
            "audit-api:labels-api:selection",
            "audit:labels:select",
            label_expert,
            {"choice": "A", "note": LONG_NOTE},
        ),
    ],
    "audit-api:labels-api:draft": [
        Door(
            "audit-api:labels-api:draft",
            "audit:labels:draft",
            label_expert,
            {"choice": "E"},
            method="put",
        ),
    ],
    "audit-api:labels-api:adjudication": [
        Door(
            "audit-api:labels-api:adjudication",
            "audit:labels:adjudicate",
            label_adjudicator,
            {},
        ),
    ],
    "evaluation-api:run-list": [
        Door(
            "evaluation-api:run-list",
            "evaluation:run-list",
            evaluation_admin,
            {"setting": "no_retrieval"},
        ),
        Door(
            "evaluation-api:run-list",
            "evaluation:run-list",
            evaluation_admin,
            {"provider": "fake", "setting": "no_retrieval", "note": LONG_NOTE},
        ),
    ],
    "evaluation-api:import": [
        Door(
            "evaluation-api:import",
            "evaluation:import",
            evaluation_admin,
            lambda: {
                "file": SimpleUploadedFile("m.csv", b"question_id,decision_choice\nQ_NOPE,A\n"),
                "label": "m",
                "setting": "naive_rag",
            },
            multipart=True,
        ),
    ],
    "evaluation-api:run-resume": [
        Door(
            "evaluation-api:run-resume",
            "evaluation:run-resume",
            evaluation_imported_run,
            {},
        ),
    ],
    "comparison-api:judgment": [
        Door("comparison-api:judgment", "comparison:pair", comparison_assignment, {}),
        Door(
            "comparison-api:judgment",
            "comparison:pair",
            comparison_assignment,
            {"suitability": "suitable", "suitability_reason": LONG_NOTE * 6},
        ),
    ],
    "comparison-api:draft": [
        Door(
            "comparison-api:draft",
            "comparison:draft",
            comparison_assignment,
            {"suitability_reason": "a\x00b"},
            method="put",
        ),
    ],
    "mcq-api:decide": [
        Door("mcq-api:decide", "mcq:item", mcq_flagged, {"action": "retain"}),
        Door(
            "mcq-api:decide",
            "mcq:item",
            mcq_flagged,
            {"action": "retain", "note": LONG_NOTE},
        ),
    ],
    "mcq-api:revise-draft": [
        Door(
            "mcq-api:revise-draft",
            "mcq:revise-draft",
            mcq_flagged,
            {"content": "a\x00b"},
            method="put",
        ),
    ],
    "mcq-api:screen": [Door("mcq-api:screen", "mcq:screen", mcq_admin_item, {})],
    "mcq-api:runs": [
        Door("mcq-api:runs", "mcq:runs", mcq_assembly_admin, {"include_unadjudicated": True}),
        Door("mcq-api:runs", "mcq:runs", mcq_assembly_admin, {"similarity_max": 5}),
    ],
}

# API writes a script makes and no page offers.
NO_PAGE_TWIN = {
    "api-token": "the token is the script's own credential; a person signs in instead",
}

# Writes with a page twin that this test does not drive yet (issue #33, remaining work).
PENDING = "page twin not driven yet: its setup and bad input are still to write"
RUN_BUTTON = (
    "a run page's button (start/cancel/resume/retry): both doors go through the run "
    "services that issue #33's one LLM-run framework rewrites; driven once it lands"
)
NOT_YET_DRIVEN: dict[str, str] = {
    "corpus-api:import-list": PENDING,
    "generation-api:run-list": PENDING,
    "generation-api:run-cancel": RUN_BUTTON,
    "generation-api:run-retry": RUN_BUTTON,
    "memory-generation-api:weights-list": PENDING,
    "memory-generation-api:plan-list": PENDING,
    "memory-generation-api:plan-top-up": PENDING,
    "memory-generation-api:run-list": PENDING,
    "memory-generation-api:run-start": RUN_BUTTON,
    "memory-generation-api:run-cancel": RUN_BUTTON,
    "memory-generation-api:run-resume": RUN_BUTTON,
    "memory-generation-api:run-retry": RUN_BUTTON,
    "review-api:profile-review": PENDING,
    "review-api:change-request-create": PENDING,
    "review-api:change-request-withdraw": PENDING,
    "review-api:change-request-resolve": PENDING,
    "review-api:profile-edit": PENDING,
    "review-api:profile-freeze": PENDING,
    "review-api:blueprint-list": PENDING,
    "review-api:blueprint-queue": PENDING,
    "review-api:scenario-reassess": PENDING,
    "review-api:scenario-reassess-confirm": PENDING,
    "audit-api:run-list": PENDING,
    "baseline-api:study-status": (
        "the page offers open/close buttons and ignores any other status without a word; "
        "the API answers 400 from its serializer: nothing a person types to compare"
    ),
    "export-api:jobs": PENDING,
}


# --- The doors agree ----------------------------------------------------------------------------


def _fresh(body):
    return body() if callable(body) else body


def _messages(body) -> list[str]:
    """What the API's error body says to a person: each field's messages when it names
    fields (its ``detail`` may prefix them with the field's name), else its ``detail``."""
    if isinstance(body, dict) and isinstance(body.get("fields"), dict):
        return [m for errors in body["fields"].values() for m in errors]
    detail = body.get("detail") if isinstance(body, dict) else body
    if isinstance(detail, str):
        return [detail]
    messages = list(detail or [])
    if not messages and isinstance(body, dict):
        messages = [m for errors in body.values() for m in errors]
    return messages


def _cases() -> list:
    return [
        pytest.param(door, id=f"{name}-{n}")
        for name, doors in DOORS.items()
        for n, door in enumerate(doors)
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("door", _cases())
def test_the_page_and_the_api_refuse_with_the_same_words(door):
    user, api_kwargs, page_kwargs, page_fields, *shared = door.setup()
    shared = shared[0] if shared else {}
    body = shared | _fresh(door.body)
    api = getattr(token_client(user), door.method)(
        reverse(door.api, kwargs=api_kwargs),
        body,
        format="multipart" if door.multipart else "json",
    )
    assert 400 <= api.status_code < 500, (api.status_code, api.content)
    messages = _messages(api.json())
    assert messages, api.content
    for expected in door.expect:
        assert any(expected in m for m in messages), messages

    page = Client()
    page.force_login(user)
    headers = {"HTTP_HX_REQUEST": "true"} if door.htmx else {}
    answer = page.post(
        reverse(door.page, kwargs=page_kwargs),
        shared | page_fields | (_fresh(door.body) if door.page_body is None else door.page_body),
        follow=True,
        **headers,
    )
    html = answer.content.decode()
    for message in messages:
        assert escape(message) in html or message in html, (message, door)


# --- The table covers every write ------------------------------------------------------------


def _api_writes() -> set[str]:
    def walk(resolver, namespaces=()):
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                inner = namespaces + ((pattern.namespace,) if pattern.namespace else ())
                yield from walk(pattern, inner)
            elif isinstance(pattern, URLPattern):
                view = getattr(pattern.callback, "view_class", None)
                route = str(pattern.pattern)
                writes = view is not None and any(
                    hasattr(view, m) for m in ("post", "put", "patch", "delete")
                )
                if writes and pattern.name:
                    yield ":".join((*namespaces, pattern.name)), route

    return {name for name, _ in walk(get_resolver()) if reverse_is_api(name)}


def reverse_is_api(name: str) -> bool:
    try:
        return reverse(name).startswith("/api/")
    except Exception:  # a route with arguments: judge by its namespace
        return name.split(":")[0].endswith("api")


def test_every_api_write_with_a_page_twin_is_in_the_table():
    writes = _api_writes()
    listed = set(DOORS) | set(NO_PAGE_TWIN) | set(NOT_YET_DRIVEN)
    assert writes - listed == set(), "API writes missing from DOORS (or NO_PAGE_TWIN)"
    assert listed - writes == set(), "names in the table that are no API write"
    assert not set(DOORS) & (set(NO_PAGE_TWIN) | set(NOT_YET_DRIVEN))
    assert all(door.api == name for name, doors in DOORS.items() for door in doors)
