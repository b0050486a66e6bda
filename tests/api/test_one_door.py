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

from tests.api.conftest import token_client
from tests.api.one_door_setups import (
    LONG_NOTE,
    NO_QUOTA,
    QUOTAS,
    SCENARIO_CONTENT,
    ZERO_WEIGHTS,
    arbitration_pair,
    arbitration_reopen,
    audit_case,
    audit_run,
    audit_run_busy,
    audit_runs_page,
    audit_senior_case,
    audit_settings,
    baseline_admin,
    baseline_study,
    baseline_study_one_finalized,
    blueprint_expanded,
    change_request_submitted,
    change_request_to_resolve,
    comparison_assignment,
    csv_upload,
    evaluation_admin,
    evaluation_imported_run,
    generation_run,
    label_adjudicator,
    label_audit_admin,
    label_expert,
    mcq_admin_item,
    mcq_assembly_admin,
    mcq_flagged,
    memory_plan_to_launch,
    memory_plan_unaudited,
    memory_planner,
    memory_run_finished,
    profile_annotator,
    profile_senior,
    scenario_reviewer,
    scenario_to_confirm,
    scenario_to_rate,
    scenario_to_reassess,
    scenario_to_revise,
    scenario_to_screen,
)
from tests.memory_quality.conftest import CLEAN


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
            csv_upload("question_id,family\nQ_NONE,gpt\n"),
            multipart=True,
        ),
    ],
    "baseline-api:predictions": [
        Door(
            "baseline-api:predictions",
            "baseline:predictions",
            baseline_admin,
            csv_upload("model,question_id,choice\nm,Q_NONE,A\n"),
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
    "evaluation-api:run-retry": [
        Door("evaluation-api:run-retry", "evaluation:run-retry", evaluation_imported_run, {}),
    ],
    "evaluation-api:run-cancel": [
        Door("evaluation-api:run-cancel", "evaluation:run-cancel", evaluation_imported_run, {}),
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
    "review-api:scenario-reassess": [
        Door(
            "review-api:scenario-reassess",
            "review:scenario-reassess",
            scenario_to_reassess,
            {"agreed": {"adversity": 5, "deception": 9}},
            page_body={"adversity": 5, "deception": 9},
        ),
        Door(
            "review-api:scenario-reassess",
            "review:scenario-reassess",
            scenario_to_reassess,
            {"agreed": {"adversity": 5, "deception": 3}, "note": LONG_NOTE},
            page_body={"adversity": 5, "deception": 3, "note": LONG_NOTE},
        ),
    ],
    "review-api:scenario-reassess-confirm": [
        Door(
            "review-api:scenario-reassess-confirm",
            "review:scenario-reassess-confirm",
            scenario_to_confirm,
            {"agreed": {"adversity": 4, "deception": 3}},
            page_body={"adversity": 4, "deception": 3},
        ),
    ],
    "review-api:profile-review": [
        Door(
            "review-api:profile-review",
            "review:profile-review",
            profile_annotator,
            {"recommendation": "maybe"},
        ),
        Door(
            "review-api:profile-review",
            "review:profile-review",
            profile_annotator,
            {"recommendation": "accept", "explanation": LONG_NOTE},
        ),
    ],
    "review-api:change-request-create": [
        Door(
            "review-api:change-request-create",
            "review:change-request-add",
            profile_annotator,
            {
                "field": "description",
                "passage": "a passage the description never holds",
                "concern": "Too categorical.",
                "suggested_correction": "Say 'tends to'.",
            },
        ),
        Door(
            "review-api:change-request-create",
            "review:change-request-add",
            profile_annotator,
            {"field": "description", "concern": LONG_NOTE},
        ),
    ],
    "review-api:change-request-withdraw": [
        Door(
            "review-api:change-request-withdraw",
            "review:change-request-withdraw",
            change_request_submitted,
            {},
        ),
    ],
    "review-api:change-request-resolve": [
        Door(
            "review-api:change-request-resolve",
            "review:change-request-resolve",
            change_request_to_resolve({"status": "rejected", "reason": LONG_NOTE}),
            {"status": "rejected", "reason": LONG_NOTE},
            page_body={},
        ),
        Door(
            "review-api:change-request-resolve",
            "review:change-request-resolve",
            change_request_to_resolve({"status": "rejected"}),
            {"status": "rejected"},
            page_body={},
        ),
    ],
    "review-api:profile-edit": [
        Door(
            "review-api:profile-edit",
            "review:profile-edit",
            profile_senior,
            {"occupation": "Nurse", "note": LONG_NOTE},
        ),
    ],
    "review-api:profile-freeze": [
        Door(
            "review-api:profile-freeze",
            "review:profile-freeze",
            profile_senior,
            {"suitability_confirmed": False, "note": "Ready."},
            expect=("Confirm the final suitability check",),
        ),
    ],
    "review-api:blueprint-list": [
        Door(
            "review-api:blueprint-list",
            "review:blueprint-list",
            scenario_reviewer,
            {"title": "The move", "stage": "school_age", "diamonds_dimension": "duty"},
        ),
        Door(
            "review-api:blueprint-list",
            "review:blueprint-list",
            scenario_reviewer,
            {
                "title": "The move",
                "summary": LONG_NOTE,
                "stage": "school_age",
                "diamonds_dimension": "dignity",
            },
        ),
    ],
    "review-api:blueprint-queue": [
        Door(
            "review-api:blueprint-queue",
            "review:blueprint-queue",
            blueprint_expanded,
            {},
            expect=("nothing to queue",),
        ),
    ],
    "export-api:jobs": [
        Door("export-api:jobs", "export:start", evaluation_admin, {"kind": "everything"}),
    ],
    "memory-generation-api:plan-top-up": [
        Door(
            "memory-generation-api:plan-top-up",
            "memory_generation:plan-top-up",
            memory_plan_unaudited,
            {"note": "After the audit."},
            expect=("No memory audit of CHAR_12",),
        ),
    ],
    "corpus-api:import-list": [
        Door(
            "corpus-api:import-list",
            "corpus:import",
            evaluation_admin,
            lambda: {
                "files": [
                    SimpleUploadedFile("scenarios.json", b"[]"),
                    SimpleUploadedFile("scenarios.json", b"[]"),
                ]
            },
            multipart=True,
            expect=("chosen twice: scenarios.json",),
        ),
        Door("corpus-api:import-list", "corpus:import", evaluation_admin, {}, multipart=True),
    ],
    "generation-api:run-list": [
        Door(
            "generation-api:run-list",
            "corpus:generation-new",
            evaluation_admin,
            {"families": ["claude"], "override_gates": True},
        ),
        Door(
            "generation-api:run-list",
            "corpus:generation-new",
            evaluation_admin,
            {"families": ["mistral"], "characters": ["CHAR_98"], "note": LONG_NOTE},
            expect=("Unknown character CHAR_98.",),
        ),
    ],
    "memory-generation-api:run-list": [
        Door(
            "memory-generation-api:run-list",
            "memory_generation:run-new",
            memory_plan_to_launch,
            {"tier_shares": {"A": 0.5, "B": 0.5, "C": 0.5, "D": 0.5}},
            page_body={"tier_a": 0.5, "tier_b": 0.5, "tier_c": 0.5, "tier_d": 0.5},
            expect=("The four tier shares must add up to 1; they add up to 2.",),
        ),
        Door(
            "memory-generation-api:run-list",
            "memory_generation:run-new",
            memory_plan_to_launch,
            {"concurrency": 0, "note": LONG_NOTE},
        ),
    ],
    "memory-generation-api:weights-list": [
        Door(
            "memory-generation-api:weights-list",
            "memory_generation:weights",
            memory_planner,
            {"weights": [0] * 45, "note": "Flat."},
            page_body={**ZERO_WEIGHTS, "note": "Flat."},
            expect=("At least one age needs a weight above 0.",),
        ),
    ],
    "memory-generation-api:plan-list": [
        Door(
            "memory-generation-api:plan-list",
            "memory_generation:plan-new",
            memory_planner,
            {"characters": ["CHAR_09"], "note": "Trial."},
            expect=("CHAR_09: no such character.",),
        ),
    ],
    # Run buttons: a state that refuses the action.
    "generation-api:run-cancel": [
        Door(
            "generation-api:run-cancel",
            "corpus:generation-cancel",
            generation_run,
            {},
            expect=("finished",),
        ),
    ],
    "generation-api:run-retry": [
        Door("generation-api:run-retry", "corpus:generation-retry", generation_run, {}),
    ],
    "memory-generation-api:run-cancel": [
        Door(
            "memory-generation-api:run-cancel",
            "memory_generation:run-cancel",
            memory_run_finished,
            {},
        ),
    ],
    "memory-generation-api:run-resume": [
        Door(
            "memory-generation-api:run-resume",
            "memory_generation:run-resume",
            memory_run_finished,
            {},
        ),
    ],
    "memory-generation-api:run-retry": [
        Door(
            "memory-generation-api:run-retry",
            "memory_generation:run-retry",
            memory_run_finished,
            {},
        ),
    ],
}

# The memory audit's run start: the form's refusal, then the service's.
DOORS["audit-api:run-list"] = [
    Door("audit-api:run-list", "audit:run-list", audit_runs_page, {"note": LONG_NOTE}),
    Door(
        "audit-api:run-list",
        "audit:run-list",
        audit_run_busy,
        {"note": "A second pass."},
        expect=("is still pending; wait for it to finish.",),
    ),
]
# The memory audit run's buttons, each on a run whose state refuses it.
for _action, _refusal in (
    ("cancel", "only a pending or running run can be cancelled"),
    ("resume", "only a cancelled run can be resumed"),
    ("retry", "only a run with failed characters can retry them"),
):
    DOORS[f"audit-api:run-{_action}"] = [
        Door(f"audit-api:run-{_action}", f"audit:run-{_action}", audit_run, {}, expect=(_refusal,))
    ]

# API writes a script makes and no page offers.
NO_PAGE_TWIN = {
    "api-token": "the token is the script's own credential; a person signs in instead",
    "memory-generation-api:run-start": (
        "the page starts a run as it creates it (the launch form's confirm step); starting "
        "a pending run again is a script's recovery, and no page offers it"
    ),
}

# Writes with a page twin that this test does not drive yet (issue #33, remaining work).
NOT_YET_DRIVEN: dict[str, str] = {
    "baseline-api:study-status": (
        "the page offers open/close buttons and ignores any other status without a word; "
        "the API answers 400 from its serializer: nothing a person types to compare"
    ),
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
