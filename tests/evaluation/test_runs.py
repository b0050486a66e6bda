"""Evaluation runs against the fake provider over real HTTP (Celery eager in-process):
the exact App. L.1 prompt per setting, the temporal filter, the leak check, and every
parsing path end to end."""

import json

import pytest

from adjudication.mcq.models import McqOption
from evaluation import services
from evaluation.models import EvaluationError, EvaluationPrediction, RetrievedMemory, Setting
from evaluation.prediction_import import evaluation_run_import
from evaluation.selectors import model_predictions
from llm.testing.replies import json_reply, raw_body, server_error, text_reply

from .conftest import LATE_WORD, SCENARIO_AGE

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]

SYSTEM = (
    "You are a role-playing simulator. You will receive a person's basic information, past "
    "experiences, current situation, and possible behavioral decisions. Infer the person's "
    "patterns of thought, emotion, and behavior from the supplied evidence, and select the "
    "response that this person would most likely make. Return only a valid JSON object in the "
    "following format:"
)
TASK = (
    "## Task\nUse the supplied experiences to infer this person's thought patterns, emotional "
    "tendencies, and behavioral habits. Simulate how the person would respond in the current "
    "situation and select the most persona-consistent option."
)


def run_items(admin, setting, items=None, *, capture, **kwargs):
    run = services.evaluation_run_create(
        created_by=admin, provider_key="fake", setting=setting, items=items, **kwargs
    )
    with capture(execute=True):
        services.evaluation_run_start(run_id=run.pk)
    run.refresh_from_db()
    return run


def user_text(req):
    (role, text), *_ = req.turns()
    assert role == "user"
    return text


def request_for(server, item):
    found = [
        r
        for r in server.requests
        if f"Character ID: {item.character.key}\n" in user_text(r)
        and f"Scenario: {item.scenario.name}\n" in user_text(r)
    ]
    assert len(found) == 1
    return found[0]


def expected_blocks(item, *, profile=None, memories=None):
    scenario = item.scenario
    version = item.character.versions.get()
    blocks = [
        "## Basic character information\n"
        f"Character ID: {item.character.key}\nOccupation: {version.occupation}"
    ]
    if profile:
        patterns = "\n".join(f"{n}. {p}" for n, p in enumerate(version.core_patterns, start=1))
        blocks.append(
            "## Character profile\n"
            f"Big Five: Openness {version.openness:.2f} | Conscientiousness "
            f"{version.conscientiousness:.2f} | Extraversion {version.extraversion:.2f} | "
            f"Agreeableness {version.agreeableness:.2f} | Neuroticism {version.neuroticism:.2f}\n"
            f"Description: {version.description}\nSelf-value logic: {version.self_value_logic}\n"
            f"Core behavioral patterns:\n{patterns}"
        )
    if memories is not None:
        blocks.append(
            "## Retrieved autobiographical memories\n"
            + "\n".join(f"- [{m.anonymized_id}][{m.timeline}] {m.content_full}" for m in memories)
        )
    blocks.append(
        f"## Current scenario\nScenario: {scenario.name}\n"
        f"Setting: {scenario.setting_location} | {scenario.setting_time} | "
        f"{scenario.setting_atmosphere}\nBackground: {scenario.context_text}"
    )
    blocks.append(
        f"## Trigger event\nSender: {scenario.trigger_sender}\nMessage: "
        f"{scenario.trigger_message}\nRequired decision: {scenario.action_required}"
    )
    blocks.append(TASK)
    options = "\n".join(f"{o.label}. {o.content}" for o in item.options.order_by("label"))
    blocks.append(
        f"## Decision options\n{options}\n\n"
        'Return the selected letter in the "decision_choice" field.'
    )
    return "\n\n".join(blocks)


@pytest.fixture
def always_a(fake_model):
    fake_model.responder = lambda req: {"decision_choice": "A", "final_decision": "I do A."}
    return fake_model


MAIN_SETTINGS = (
    Setting.NO_RETRIEVAL,
    Setting.NAIVE_RAG,
    Setting.DISCLOSED_PROFILE,
    Setting.DISCLOSED_PROFILE_MEMORY,
)


@pytest.mark.parametrize("setting", MAIN_SETTINGS)
def test_each_setting_sends_exactly_its_blocks(
    setting, admin_user, corpus, always_a, django_capture_on_commit_callbacks
):
    item = corpus["items"][0]
    run = run_items(admin_user, setting, [item], capture=django_capture_on_commit_callbacks)
    assert run.status == "finished"
    req = request_for(always_a, item)
    assert req.system.startswith(SYSTEM) and '"decision_choice": "A|B|C|D"' in req.system
    assert req.body["temperature"] == 0.0  # App. F: temperature 0 where supported
    prediction = run.predictions.get()
    memories = None
    if setting in (Setting.NAIVE_RAG, Setting.DISCLOSED_PROFILE_MEMORY):
        memories = [e for e in prediction.retrieval_set.entries.order_by("rank")]
        assert len(memories) == 4  # the four memories at or before age 10; k = 30
    profile = setting in (Setting.DISCLOSED_PROFILE, Setting.DISCLOSED_PROFILE_MEMORY)
    assert user_text(req) == expected_blocks(item, profile=profile, memories=memories)
    assert prediction.user_prompt == user_text(req)


def test_the_two_memory_settings_reuse_the_same_stored_strings(
    admin_user, corpus, always_a, django_capture_on_commit_callbacks
):
    items = corpus["items"][:2]
    capture = django_capture_on_commit_callbacks
    hidden = run_items(admin_user, Setting.NAIVE_RAG, items, capture=capture)
    disclosed = run_items(admin_user, Setting.DISCLOSED_PROFILE_MEMORY, items, capture=capture)
    for item in items:
        a = hidden.predictions.get(item=item)
        b = disclosed.predictions.get(item=item)
        assert a.retrieval_set_id == b.retrieval_set_id
        block = a.user_prompt.split("## Retrieved autobiographical memories\n")[1].split("\n\n")[0]
        assert block in b.user_prompt


def test_the_temporal_filter_keeps_later_memories_out(
    admin_user, corpus, always_a, django_capture_on_commit_callbacks
):
    run = run_items(admin_user, Setting.NAIVE_RAG, capture=django_capture_on_commit_callbacks)
    assert run.predictions.count() == 8
    for req in always_a.requests:
        assert LATE_WORD not in user_text(req)
    ages = set(RetrievedMemory.objects.values_list("event_age", flat=True))
    assert ages and max(ages) <= SCENARIO_AGE
    # the later memories match the query best, so only the filter keeps them out
    assert all(p.retrieval_set.eligible_count == 4 for p in run.predictions.all())


def test_the_query_is_the_scenario_description_only(
    admin_user, corpus, always_a, django_capture_on_commit_callbacks
):
    item = corpus["items"][0]
    run = run_items(
        admin_user, Setting.NAIVE_RAG, [item], capture=django_capture_on_commit_callbacks
    )
    rset = run.predictions.get().retrieval_set
    scenario = item.scenario
    assert rset.query.startswith(f"Scenario: {scenario.name}\n{scenario.description_for_agent}\n")
    assert f"Background: {scenario.context_text}" in rset.query
    assert all(o.content not in rset.query for o in item.options.all())


@pytest.mark.parametrize(
    "contamination, reason",
    [
        ("self_value_logic", "self_value_logic"),
        ("other_id", "another character's id: CHAR_03"),
        ("label", "construction label"),
        ("annotation", "psych_conclusion of MEM_CHAR_01"),
        ("key_field", "'is_correct'"),
    ],
)
def test_the_leak_check_refuses_a_contaminated_prompt(
    contamination, reason, admin_user, corpus, always_a, django_capture_on_commit_callbacks
):
    item, clean = corpus["items"][0], corpus["items"][1]
    version = item.character.versions.get()
    memory = item.character.memories.order_by("sequence").first()
    extra = {
        "self_value_logic": version.self_value_logic,
        "other_id": "Ask CHAR_03 what they think.",
        "label": version.construction_label,
        "annotation": memory.psych_conclusion,
        "key_field": "(is_correct: true)",
    }[contamination]
    McqOption.objects.filter(item=item, label="B").update(content=f"I go. {extra}")
    setting = Setting.NAIVE_RAG if contamination == "annotation" else Setting.NO_RETRIEVAL
    run = run_items(admin_user, setting, [item, clean], capture=django_capture_on_commit_callbacks)

    blocked = run.predictions.get(item=item)
    assert blocked.status == EvaluationPrediction.Status.LEAK_BLOCKED
    assert blocked.parse_path == "leak" and blocked.choice == ""
    assert any(reason in r for r in blocked.leak_reasons), blocked.leak_reasons
    assert len(always_a.requests) == 1  # only the clean item reached the model
    assert f"Character ID: {clean.character.key}" in user_text(always_a.requests[0])
    assert run.predictions.get(item=clean).status == EvaluationPrediction.Status.ANSWERED
    # a leak-blocked item is graded as incorrect, not left out
    answers = model_predictions([item, clean], setting=setting)[run.label]
    assert answers == {item.pk: None, clean.pk: "A"}


def test_the_disclosed_settings_may_show_the_profile_but_never_the_label(
    admin_user, corpus, always_a, django_capture_on_commit_callbacks
):
    item = corpus["items"][0]
    run = run_items(
        admin_user, Setting.DISCLOSED_PROFILE, [item], capture=django_capture_on_commit_callbacks
    )
    prediction = run.predictions.get()
    assert prediction.status == "answered"
    version = item.character.versions.get()
    assert version.self_value_logic in prediction.user_prompt
    assert version.construction_label not in prediction.user_prompt


REPLIES = {
    "json": json_reply({"decision_choice": "C", "inner_consciousness": "I pick A, no, C"}),
    "lowercase": json_reply({"decision_choice": "b"}),
    "raw": text_reply('Sure. {"final_decision": "I stay", "decision_choice": "D" oops'),
    "invalid": text_reply("I think option A suits this person best."),
    "bad_letter": json_reply({"decision_choice": "E", "final_decision": "Option A"}),
    "refusal": raw_body(
        {
            "choices": [
                {
                    "message": {"role": "assistant", "refusal": "I can't help with that."},
                    "finish_reason": "stop",
                }
            ]
        }
    ),
}
EXPECTED = {
    "json": ("answered", "C", "json"),
    "lowercase": ("answered", "B", "json"),
    "raw": ("answered", "D", "raw_text"),
    "invalid": ("invalid", "", "invalid"),
    "bad_letter": ("invalid", "", "invalid"),
    "refusal": ("invalid", "", "refusal"),
}


def test_every_parsing_path_of_l1(
    admin_user, role_groups, fake_model, django_capture_on_commit_callbacks
):
    from .conftest import build_corpus

    corpus = build_corpus(n_characters=4, n_scenarios=2)
    items = corpus["items"][: len(REPLIES)]
    coords = [(i.character.key, i.scenario.name) for i in items]
    names = dict(zip(coords, REPLIES, strict=True))

    def responder(req):
        text = user_text(req)
        for (key, scenario), name in names.items():
            if f"Character ID: {key}\n" in text and f"Scenario: {scenario}\n" in text:
                return REPLIES[name]
        raise AssertionError("unexpected request")

    fake_model.responder = responder
    run = run_items(
        admin_user, Setting.NO_RETRIEVAL, items, capture=django_capture_on_commit_callbacks
    )
    assert run.status == "finished"
    for item in items:
        p = run.predictions.get(item=item)
        name = names[(item.character.key, item.scenario.name)]
        assert (p.status, p.choice, p.parse_path) == EXPECTED[name], name
    json_row = run.predictions.get(item=items[0])
    assert json_row.parsed["inner_consciousness"] == "I pick A, no, C"  # kept, not graded
    answers = model_predictions(items, setting=Setting.NO_RETRIEVAL)["fake-eval"]
    assert [answers[i.pk] for i in items] == [EXPECTED[n][1] or None for n in REPLIES]


def test_a_failed_call_is_retryable_and_resuming_asks_only_the_unanswered(
    admin_user, corpus, fake_model, django_capture_on_commit_callbacks
):
    items = corpus["items"][:3]
    target = items[1]

    def responder(req):
        if f"Character ID: {target.character.key}\n" in user_text(req):
            return server_error(503)
        return {"decision_choice": "A"}

    fake_model.responder = responder
    run = run_items(
        admin_user, Setting.NO_RETRIEVAL, items, capture=django_capture_on_commit_callbacks
    )
    assert run.status == "finished_with_failures"
    failed = run.predictions.get(item=target)
    assert failed.status == "failed" and failed.error_kind == "server_error"
    # Until it is re-run, the failed call is scored as no valid answer (incorrect).
    assert model_predictions(items, setting=Setting.NO_RETRIEVAL)["fake-eval"][target.pk] is None

    fake_model.responder = lambda req: {"decision_choice": "B"}
    before = len(fake_model.requests)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.evaluation_run_resume(run_id=run.pk) == 1
    run.refresh_from_db()
    assert run.status == "finished"
    assert len(fake_model.requests) == before + 1
    assert run.predictions.get(item=target).choice == "B"
    assert set(run.predictions.exclude(item=target).values_list("choice", flat=True)) == {"A"}


def test_a_named_subset_by_question_ids_and_csv(admin_user, corpus, always_a):
    ids = [i.question_id for i in corpus["items"][:3]]
    assert set(services.items_for_question_ids(ids)) == set(corpus["items"][:3])
    csv_ids = services.question_ids_from_csv(
        ("question_id,x\n" + "\n".join(f"{q},1" for q in ids)).encode()
    )
    assert csv_ids == ids
    with pytest.raises(EvaluationError, match="1 unknown question id"):
        services.items_for_question_ids([*ids, "SCN_NOPE__CHAR_09"])
    corpus["items"][0].__class__.objects.filter(pk=corpus["items"][0].pk).update(status="removed")
    with pytest.raises(EvaluationError, match="not in the final set"):
        services.items_for_question_ids(ids)


def test_import_json_and_csv(admin_user, corpus):
    items = corpus["items"]
    payload = {
        "model": "gemini-3.8-flash",
        "setting": "naive_rag",
        "predictions": [
            {"question_id": items[0].question_id, "decision_choice": "b"},
            {"question_id": items[1].question_id, "raw_response": '{"decision_choice": "C"'},
            {"question_id": items[2].question_id, "refused": True},
        ],
    }
    run = evaluation_run_import(
        created_by=admin_user, filename="gemini.json", content=json.dumps(payload).encode()
    )
    rows = {p.item_id: (p.choice, p.parse_path) for p in run.predictions.all()}
    assert rows == {
        items[0].pk: ("B", "imported"),
        items[1].pk: ("C", "raw_text"),
        items[2].pk: ("", "refusal"),
    }
    csv_text = f"question_id,decision_choice\n{items[0].question_id},A\n{items[3].question_id},\n"
    run2 = evaluation_run_import(
        created_by=admin_user,
        filename="m.csv",
        content=csv_text.encode(),
        label="qwen",
        setting="no_retrieval",
    )
    assert model_predictions(items, setting="no_retrieval") == {
        "qwen": {items[0].pk: "A", items[3].pk: None}
    }
    assert (run2.status, run2.origin) == ("finished", "imported")
    assert not run2.predictions.filter(calls__isnull=False).exists()  # nothing was called

    count = EvaluationPrediction.objects.count()
    bad = f"question_id,decision_choice\n{items[0].question_id},A\nSCN_NOPE__CHAR_01,B\n"
    with pytest.raises(EvaluationError, match="unknown question id"):
        evaluation_run_import(
            created_by=admin_user,
            filename="bad.csv",
            content=bad.encode(),
            label="x",
            setting="naive_rag",
        )
    with pytest.raises(EvaluationError, match="Line 2"):
        evaluation_run_import(
            created_by=admin_user,
            filename="bad.csv",
            content=f"question_id,answer\n{items[0].question_id},E\n".encode(),
            label="x",
            setting="naive_rag",
        )
    assert EvaluationPrediction.objects.count() == count  # rejected files store nothing


def test_a_worker_without_the_provider_records_why(
    admin_user, corpus, always_a, monkeypatch, django_capture_on_commit_callbacks
):
    run = services.evaluation_run_create(
        created_by=admin_user,
        provider_key="fake",
        setting="no_retrieval",
        items=corpus["items"][:1],
    )
    monkeypatch.delenv("HEARTBENCH_EVALUATION_MODELS")
    with django_capture_on_commit_callbacks(execute=True):
        services.evaluation_run_start(run_id=run.pk)
    p = run.predictions.get()
    assert p.status == "failed" and p.error_kind == "not_configured"
    assert "HEARTBENCH_EVAL_FAKE_" in p.error_message
