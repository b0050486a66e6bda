"""The demo answers for every prompt the platform sends, built with the platform's own
prompt builders and schemas, through the offline demo provider and over real HTTP through
the fake server's `DemoResponder`, checked with the platform's own contract functions.

No database: the apps' prompt builders and schemas are pure (or imported, never queried).
"""

import json
from types import SimpleNamespace

import pytest

from adjudication.mcq import screening as mcq_screening
from adjudication.mcq.services.item_assembly import SELECTOR_SCHEMA, SELECTOR_SYSTEM
from annotation.generation import prompts as generation
from annotation.scenario_review.blueprints import (
    EXPANSION_SYSTEM_PROMPT,
    EXPANSION_USER_TEMPLATE,
    expansion_schema,
)
from audit.memory_quality import criteria, repair
from core.life_stages import BY_KEY as LIFE_STAGES
from evaluation import parsing
from evaluation import prompt as evaluation_prompt
from llm import ProviderConfig, SchemaValidator, make_client
from llm.demo import OfflineDemoClient
from llm.demo.answers import DemoSettings, prompt_kind
from llm.demo.material import OPENINGS, REASONS, STANCES, TONES, content_words
from llm.testing.fake_server import DemoResponder, FakeProviderServer

from .helpers import HTTP_KINDS, config_for

KINDS = [*HTTP_KINDS, "offline_demo"]


# --- the platform's prompts, built by its own code ------------------------------------


def profile(n: int, occupation: str):
    return SimpleNamespace(
        character=SimpleNamespace(key=f"CHAR_{n:02d}"),
        construction_label=f"Label {n}",
        occupation=occupation,
        big_five={"O": 0.2, "C": 0.8, "E": 0.4, "A": 0.6, "N": 0.3},
        description=f"Person {n} keeps careful lists and hates surprises.",
        self_value_logic="If I am prepared, nobody can blame me.",
    )


def scenario(sid: str, trigger: str, decision: str, place: str, background: str):
    return SimpleNamespace(
        scenario_id=sid,
        age=30,
        get_stage_display=lambda: "Age-30 transition",
        setting_location=place,
        setting_time="Friday evening",
        setting_atmosphere="cold, noisy",
        context_text=background,
        trigger_sender="your sister",
        trigger_message=trigger,
        action_required=decision,
    )


def memory(n: int, seq: int):
    return SimpleNamespace(
        anonymized_id=f"MEM_CHAR_{n:02d}_{seq:04d}",
        timeline=f"age {seq % 30 + 5}",
        content_summary=f"the winter the bakery closed, episode {seq}",
        psych_conclusion="promises are fragile",
        behavior_policy="keep a spare plan",
        emotion_primary="worry",
        emotion_secondary="",
        emotion_intensity=0.5,
    )


NURSE = profile(1, "Night-shift nurse")
PILOT = profile(2, "Retired airline pilot")
PLATFORM = scenario(
    "SCN_AGE_30_TRANSITION_1",
    "Mum fell in the garden, can you come tonight?",
    "Decide whether to leave the platform and go to the hospital.",
    "a train platform",
    "Your train is late and your phone is at four percent.",
)
WEDDING = scenario(
    "SCN_AGE_30_TRANSITION_2",
    "The caterer cancelled, the wedding is tomorrow and everyone looks at you.",
    "Decide whether to take over the catering yourself.",
    "a marquee",
    "Guests arrive at noon; the marquee smells of damp canvas and lilies.",
)


def response_prompt(person=NURSE, situation=PLATFORM):
    memories = "\n".join(generation.response_memory_line(memory(1, s)) for s in (1, 2))
    system = (
        "You will fully become the character below.\n"
        + generation.character_block(person)
        + "\n\nWhat comes back to you:\n"
        + memories
    )
    user = "What you are going through:\n" + generation.scenario_block(situation)
    return system, user, generation.RESPONSE_SCHEMA


def screening_prompt(count=30):
    lines = "\n".join(generation.screening_memory_line(memory(1, s)) for s in range(1, count + 1))
    system = "Screen the memories.\n" + generation.character_block(NURSE)
    user = generation.scenario_block(PLATFORM) + "\n\nCandidate memories:\n" + lines
    return system, user, generation.SCREENING_SCHEMA


def rerank_prompt(count=70):
    lines = "\n".join(
        generation.reranking_memory_line(memory(1, s), "it fits") for s in range(1, count + 1)
    )
    user = generation.scenario_block(PLATFORM) + "\n\nCandidates:\n" + lines
    return "Keep the most relevant.", user, generation.reranking_schema(50)


def screening_materials(item_id="Q_CHAR_01_SCN_1", version=2, key="C"):
    return {
        "item_id": item_id,
        "item_version": version,
        "question": "Which response would the target character most plausibly give?",
        "character_profile": {"character_id": "CHAR_01", "occupation": "nurse"},
        "scenario": {"scenario_id": "SCN_1", "context": "Your train is late tonight."},
        "supporting_memories": [],
        "reference_annotation": {},
        "options": [
            {"label": "A", "text": "I leave at once and take a taxi to the hospital."},
            {"label": "B", "text": "I call a neighbour to check on Mum first."},
            {"label": "C", "text": "I stay calm, ring the ward and go when I know more."},
            {"label": "D", "text": "I wait for the train and cry quietly."},
        ],
        "answer_key": key,
        "option_provenance": [],
    }


EVALUATION_INPUT = evaluation_prompt.PromptInput(
    character_id="CHAR_01",
    occupation="Night-shift nurse",
    scenario_name="Late train",
    location="a platform",
    time="Friday",
    atmosphere="cold",
    background="Your train is late.",
    sender="your sister",
    message="Mum fell, can you come?",
    action_required="Decide what to do now.",
    options=(("A", "I go at once."), ("B", "I call first."), ("C", "I wait."), ("D", "I cry.")),
    memory_entries=("- [MEM_CHAR_01_0001][age 9] I promised to call first, always.",),
)

MEMORY = {
    "memory_id": "MEM_CHAR_01_0007",
    "timeline": "age 9",
    "event_age": 9,
    "context": "A rainy school afternoon when the class visited the botanical garden on a trip",
    "content_summary": "I lost my friend's bag on the trip and told the teacher, who was "
    "kind, but I felt awful for hours after the bus ride home",
    "content_full": "Years later I learned the bag had been found. " * 5,
    "emotion_primary": "shame",
    "emotion_secondary": "",
    "emotion_intensity": 0.4,
}


@pytest.fixture(params=KINDS)
def client(request):
    """A client of each provider kind: the fake server's demo answers over real HTTP, or
    the offline demo provider."""
    if request.param == "offline_demo":
        yield make_client(ProviderConfig(kind="offline_demo", model="offline-demo-claude"))
        return
    with FakeProviderServer(responder=DemoResponder(seed=7, flag_share=0.1)) as server:
        made = make_client(config_for(server, request.param, max_retries=0))
        yield made
        made.close()


def ask(client, system, user, schema, **kw):
    result = client.complete_json(system=system, user=user, schema=schema, max_attempts=1, **kw)
    assert result.ok, result.failure_reason
    assert result.rounds == 1
    SchemaValidator(schema).validate(result.parsed)
    return result.parsed


# --- every prompt kind, every provider kind -------------------------------------------


def test_activation_screening_picks_offered_memories(client):
    system, user, schema = screening_prompt()
    assert prompt_kind(schema) == "activation_screening"
    picked = [m["memory_id"] for m in ask(client, system, user, schema)]
    offered = {memory(1, s).anonymized_id for s in range(1, 31)}
    assert picked and set(picked) <= offered and len(set(picked)) == len(picked)


def test_rerank_keeps_at_most_the_target_of_offered_memories(client):
    system, user, schema = rerank_prompt(70)
    assert prompt_kind(schema) == "rerank"
    kept = [m["memory_id"] for m in ask(client, system, user, schema)["activated_memories"]]
    offered = {memory(1, s).anonymized_id for s in range(1, 71)}
    assert 1 <= len(kept) <= 50 and set(kept) <= offered


def test_candidate_response_names_the_pair_and_is_labelled(client):
    system, user, schema = response_prompt()
    assert prompt_kind(schema) == "candidate_response"
    answer = ask(client, system, user, schema)
    assert answer["character_id"] == "CHAR_01"
    assert answer["scenario_id"] == PLATFORM.scenario_id
    assert answer["final_decision"].startswith("[offline demo provider]")
    assert answer["inner_consciousness"]["summary"].strip()


def test_scenario_expansion_stays_in_the_life_stage_bin(client):
    stage = LIFE_STAGES["adolescence"]
    user = EXPANSION_USER_TEMPLATE.format(
        stage_label=stage.label,
        age_range=stage.release_age_range,
        first_age=stage.first_age,
        last_age=stage.last_age,
        dimension="Duty",
        title="The borrowed bike",
        summary="A friend asks you to lie to a teacher about a borrowed bike that broke.",
    )
    schema = expansion_schema("adolescence")
    assert prompt_kind(schema) == "scenario_expansion"
    answer = ask(client, EXPANSION_SYSTEM_PROMPT, user, schema)
    assert stage.first_age <= answer["age"] <= stage.last_age
    assert "borrowed bike" in answer["context_text"]


def test_memory_repair_passes_the_re_audit(client):
    findings = [{"criterion": criteria.OMNISCIENT, "field": "content_full", "detail": "x"}]
    findings[0]["spans"] = [{"text": "Years later I learned"}]
    fields = ["context", "content_summary", "content_full"]
    constraints = {
        "event_age": 9,
        "timeline": "childhood (age 9)",
        "life_stage": "School age",
        "life_stage_ages": "6-11",
        "source": "",
    }
    system, user = repair.repair_prompt(
        memory=MEMORY,
        target=findings[0],
        findings=findings,
        fields=fields,
        profile=None,
        constraints=constraints,
    )
    schema = repair.repair_schema(fields)
    assert prompt_kind(schema) == "memory_repair"
    answer = ask(client, system, user, schema)
    repaired = criteria.MemoryText(
        MEMORY["memory_id"], "CHAR_01", 9, **answer, emotion_intensity=0.4
    )
    result = criteria.audit_memories([repaired], criteria.AuditConfig())
    assert result.findings.get(MEMORY["memory_id"], []) == []


def test_audit_classifier_answers_a_verdict(client):
    system, user = repair.classifier_prompt(memory=MEMORY, criterion=criteria.OMNISCIENT)
    assert prompt_kind(repair.CLASSIFIER_SCHEMA) == "audit_classifier"
    answer = ask(client, system, user, repair.CLASSIFIER_SCHEMA)
    assert isinstance(answer["defect"], bool) and answer["rationale"].strip()
    if answer["defect"]:
        assert answer["evidence"] in MEMORY["content_full"]


def classify(memory, criterion, *, share=0.0, seed=0):
    system, user = repair.classifier_prompt(memory=memory, criterion=criterion)
    settings = DemoSettings(seed=seed, flag_share=share)
    config = ProviderConfig(kind="offline_demo", model="offline-demo-classifier")
    return ask(OfflineDemoClient(config, settings=settings), system, user, repair.CLASSIFIER_SCHEMA)


def test_the_demo_classifier_judges_the_text_not_the_memory_id():
    """Issue 32: it decided by memory id, so a senior's edit of a flagged memory was
    flagged again whatever it said. Now a cue phrase of the criterion is a defect, with
    its sentence quoted, and an edit that removes it passes."""
    planted = {
        **MEMORY,
        "content_full": MEMORY["content_full"] + " As it turned out, the bus had left.",
    }
    verdict = classify(planted, criteria.OMNISCIENT)
    assert verdict["defect"] and verdict["evidence"] == "As it turned out, the bus had left."
    assert not classify(planted, criteria.VOCABULARY_INFLATION)["defect"]
    assert not classify(MEMORY, criteria.OMNISCIENT)["defect"]
    # Its random flags are drawn from the text: the same text under another id gets the
    # same verdict, and the share is spread over the six criteria.
    flagged = 0
    for n in range(60):
        text = {**MEMORY, "content_full": f"{MEMORY['content_full']} Day {n}."}
        one = classify(text, criteria.OMNISCIENT, share=0.6)
        assert classify({**text, "memory_id": "MEM_CHAR_09_0001"}, 1, share=0.6) == one
        flagged += one["defect"]
    assert 2 <= flagged <= 15  # about 0.6 / 6 of 60


def test_distractor_selection_picks_three_offered_candidates(client):
    data = {
        "scenario": "A late train",
        "key": "I go at once.",
        "candidates": [{"id": f"D{n}", "text": f"Answer {n}"} for n in range(1, 7)],
    }
    user = f"<item_data>\n{json.dumps(data, indent=1)}\n</item_data>"
    assert prompt_kind(SELECTOR_SCHEMA) == "distractor_selection"
    chosen = ask(client, SELECTOR_SYSTEM, user, SELECTOR_SCHEMA)["selected"]
    assert len(set(chosen)) == 3 and set(chosen) <= {f"D{n}" for n in range(1, 7)}


def test_mcq_screening_passes_the_d31_contract(client):
    materials = screening_materials()
    system, user = mcq_screening.build_prompt(materials)
    assert prompt_kind(mcq_screening.OUTPUT_SCHEMA) == "mcq_screening"
    output = ask(client, system, user, mcq_screening.OUTPUT_SCHEMA)
    problems = mcq_screening.contract_problems(
        output,
        item_id=materials["item_id"],
        item_version=materials["item_version"],
        key="C",
        input_text=mcq_screening.materials_text(materials),
    )
    assert problems == []


def test_evaluation_answer_is_l1_and_parses_on_the_json_path(client):
    user = evaluation_prompt.user_prompt(EVALUATION_INPUT)
    schema = evaluation_prompt.RESPONSE_SCHEMA
    assert prompt_kind(schema) == "evaluation_answer"
    # As the evaluation sends it: no schema paragraph, the schema as structured output.
    config = getattr(client, "config", None)
    if config.kind.value != "offline_demo":
        client = make_client(config.with_options(response_format="json_schema"))
    result = client.complete_json(
        system=evaluation_prompt.SYSTEM_PROMPT,
        user=user,
        schema=schema,
        max_attempts=1,
        instruct_schema=False,
    )
    assert result.ok, result.failure_reason
    answer = parsing.parse_response(result.text)
    assert answer.path == parsing.JSON and answer.choice in "ABCD"
    assert set(answer.parsed) >= {"system_1_impulse", "system_2_rational", "final_decision"}


# --- distinct, seeded, persona- and scenario-dependent ---------------------------------


def demo(model="offline-demo-claude", seed=0, flag_share=0.1):
    config = ProviderConfig(kind="offline_demo", model=model)
    return OfflineDemoClient(config, settings=DemoSettings(seed=seed, flag_share=flag_share))


def decision(client, person=NURSE, situation=PLATFORM):
    system, user, schema = response_prompt(person, situation)
    return ask(client, system, user, schema)


def test_each_model_name_gives_a_different_candidate():
    answers = [decision(demo(f"offline-demo-{f}")) for f in ("claude", "gpt", "gemini")]
    assert len({a["final_decision"] for a in answers}) == 3
    assert len({a["inner_consciousness"]["summary"] for a in answers}) == 3


def test_persona_scenario_and_seed_change_the_answer_and_the_same_seed_repeats_it():
    base = decision(demo(seed=3))
    assert decision(demo(seed=3)) == base
    assert decision(demo(seed=4)) != base
    other_persona = decision(demo(seed=3), person=PILOT)
    other_scenario = decision(demo(seed=3), situation=WEDDING)
    assert other_persona != base and other_scenario != base
    # The persona and the scenario show in the text, not only in the randomness.
    # (App. B.2 gives the response no occupation: the persona is the character's label.)
    assert "As Label 2," in other_persona["inner_consciousness"]["summary"]
    banks = " ".join(OPENINGS + STANCES + TONES + REASONS)
    only_wedding = (
        set(content_words(generation.scenario_block(WEDDING), 1000))
        - set(content_words(generation.scenario_block(PLATFORM), 1000))
        - set(content_words(banks, 1000))
    )
    assert only_wedding & set(content_words(json.dumps(other_scenario), 1000))
    assert not only_wedding & set(content_words(json.dumps(base), 1000))


def test_the_fake_server_answers_differ_per_model_and_repeat_per_seed():
    system, user, schema = response_prompt()

    def answers(seed):
        with FakeProviderServer(responder=DemoResponder(seed=seed)) as server:
            out = []
            for kind in ("anthropic", "openai", "gemini"):
                client = make_client(config_for(server, kind, model=f"{kind}-model"))
                out.append(ask(client, system, user, schema)["final_decision"])
                client.close()
            return out

    first = answers(1)
    assert len(set(first)) == 3
    assert answers(1) == first
    assert answers(2) != first


@pytest.mark.parametrize("share", [0.0, 0.3, 1.0])
def test_the_flagged_share_of_screenings_follows_the_setting(share):
    client = demo(model="judge", flag_share=share)
    flagged = 0
    for n in range(200):
        materials = screening_materials(item_id=f"Q_{n:03d}", key="ABCD"[n % 4])
        system, user = mcq_screening.build_prompt(materials)
        output = ask(client, system, user, mcq_screening.OUTPUT_SCHEMA)
        assert not mcq_screening.contract_problems(
            output,
            item_id=materials["item_id"],
            item_version=2,
            key=materials["answer_key"],
            input_text=mcq_screening.materials_text(materials),
        )
        flagged += output["needs_human_review"]
    assert abs(flagged / 200 - share) <= 0.07


def test_the_flag_share_and_seed_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("HEARTBENCH_DEMO_SEED", "11")
    monkeypatch.setenv("HEARTBENCH_DEMO_FLAG_SHARE", "0.25")
    assert DemoSettings.from_env() == DemoSettings(seed=11, flag_share=0.25)
    env_client = make_client(ProviderConfig(kind="offline_demo", model="offline-demo-claude"))
    assert decision(env_client) == decision(demo(seed=11, flag_share=0.25))
    monkeypatch.setenv("HEARTBENCH_DEMO_FLAG_SHARE", "1.5")
    with pytest.raises(ValueError, match="between 0 and 1"):
        DemoSettings.from_env()
