"""Fixtures of the export tests: the release imported over labelled stand-in characters
(the release publishes no characters file), and a small corpus whose profile and
provenance fields carry distinctive strings, so a scan of the model-facing files can
find any leak."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Group

from adjudication.arbitration import services as arbitration_services
from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from annotation.corpus_import.importing import import_files
from core.roles import Role
from tests.comparison.helpers import assign, judge
from tests.corpus_import import as_json, release_files, small_characters
from tests.factories import CharacterFactory, MemoryFactory, ProfileVersionFactory, ScenarioFactory

RELEASE_LAYOUT = ("scenarios.json", "ground_truth.json", "mcq.json")


@pytest.fixture(autouse=True)
def role_groups(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture
def imported_release(db, release_dir):
    """The release's scenarios, references and MCQs over 11 stand-in characters."""
    characters = small_characters(characters=11, memories=3)
    import_files([("characters.json", as_json({"characters": characters}))])
    import_files(release_files(release_dir, RELEASE_LAYOUT))
    return characters


# One distinctive value per field an evaluated model must never see (App. E).
TARGET = "CHAR_61"
SOURCES = ("CHAR_77", "CHAR_78", "CHAR_79")  # distractor authors, targets of no item
PROFILE_SECRETS = {
    "construction_label": "Zqx-export-archetype-label",
    "description": "Zqx export description: counts the exits of every room",
    "self_value_logic": "Zqx export self-value logic: safety is earned by vigilance",
    "core_pattern": "Zqx export core pattern 3: rehearses refusals aloud",
    "openness": 0.8731,
    "conscientiousness": 0.1234,
    "extraversion": 0.4567,
    "agreeableness": 0.6789,
    "neuroticism": 0.9512,
}
MEMORY_SECRETS = {
    "context": "Zqx export memory context: the ferry terminal",
    "content_summary": "Zqx export memory summary: missed the last ferry",
    "psych_conclusion": "Zqx export psych conclusion: abandonment schema",
    "behavior_policy": "Zqx export behavior policy: leave an hour early",
    "emotion_primary": "zqxdread",
    "emotion_secondary": "zqxunease",
    "emotion_intensity": 0.6173,
    "trigger": "zqx-trigger-horn",
    "tag": "zqx-tag-harbour",
}
OCCUPATION = "Zqx export tugboat pilot"
CONTENT_FULL = "I stood at the rail as the ferry horn sounded twice over the grey water."
KEY_TEXT = "I choose to wait at the terminal and phone my sister before deciding."


def _profile(character, **overrides):
    values = {
        "construction_label": PROFILE_SECRETS["construction_label"],
        "occupation": OCCUPATION,
        "description": PROFILE_SECRETS["description"],
        "self_value_logic": PROFILE_SECRETS["self_value_logic"],
        "core_patterns": [PROFILE_SECRETS["core_pattern"]]
        + [f"zqx plain pattern {i}" for i in range(2, 9)],
        **{k: PROFILE_SECRETS[k] for k in BIG_FIVE_FIELDS},
    }
    values.update(overrides)
    return ProfileVersionFactory(character=character, number=1, **values)


BIG_FIVE_FIELDS = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")


def make_item(question_id, *, character, scenario, status, key="B", reference=None, texts=None):
    item = McqItem.objects.create(
        question_id=question_id,
        character=character,
        scenario=scenario,
        stage=scenario.stage,
        correct_answer=key,
        status=status,
        reference=reference,
    )
    texts = texts or {}
    sources = iter(SOURCES)
    for i, label in enumerate("ABCD"):
        correct = label == key
        McqOption.objects.create(
            item=item,
            label=label,
            content=texts.get(label, f"{question_id} option {label}: I do thing {i}."),
            is_correct=correct,
            is_generated=label == "C",
            source_character=character.key if correct else next(sources),
        )
    return item


@pytest.fixture
def secret_corpus(db):
    """One final item on a profile and memory full of distinctive strings; distractors
    written by characters that are no item's target; items in every non-final status."""
    target = CharacterFactory(key=TARGET)
    _profile(target, frozen_at=datetime(2026, 3, 1, tzinfo=UTC))
    for key in SOURCES:
        _profile(CharacterFactory(key=key), construction_label=f"Zqx source label {key}")
    memory = MemoryFactory(
        character=target,
        sequence=7,
        context=MEMORY_SECRETS["context"],
        content_summary=MEMORY_SECRETS["content_summary"],
        content_full=CONTENT_FULL,
        psych_conclusion=MEMORY_SECRETS["psych_conclusion"],
        behavior_policy=MEMORY_SECRETS["behavior_policy"],
        emotion_primary=MEMORY_SECRETS["emotion_primary"],
        emotion_secondary=MEMORY_SECRETS["emotion_secondary"],
        emotion_intensity=MEMORY_SECRETS["emotion_intensity"],
        triggers=[MEMORY_SECRETS["trigger"]],
        relevance_tags=[MEMORY_SECRETS["tag"]],
    )
    scenario = ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_61", category="Zqx category")
    reference = ReferenceResponse.objects.create(
        character=target,
        scenario=scenario,
        summary="Zqx reference summary",
        final_decision=KEY_TEXT,
        decision_type="imported",
        source="zqx-reference-source",
    )
    final = make_item(
        "Q_CHAR_61_SCN_SCHOOL_AGE_61",
        character=target,
        scenario=scenario,
        status=McqItem.Status.FINAL,
        reference=reference,
        texts={"B": KEY_TEXT},
    )
    others = {}
    for n, status in enumerate(
        [s for s in McqItem.Status.values if s != McqItem.Status.FINAL], start=62
    ):
        s = ScenarioFactory(scenario_id=f"SCN_SCHOOL_AGE_{n}")
        others[status] = make_item(
            f"Q_CHAR_61_SCN_SCHOOL_AGE_{n}", character=target, scenario=s, status=status
        )
    return {"item": final, "memory": memory, "scenario": scenario, "others": others}


def file_text(path: str, body: bytes) -> str:
    """A file of the export as text to scan: a Parquet file's columns and rows as CSV."""
    if path.endswith(".parquet"):
        import io

        import pandas

        return pandas.read_parquet(io.BytesIO(body)).to_csv(index=False)
    return body.decode()


@pytest.fixture
def export_root(settings, tmp_path):
    """Export jobs store their zips in the test's own folder."""
    settings.EXPORT_ROOT = tmp_path / "exports"
    return settings.EXPORT_ROOT


@pytest.fixture
def eager_builds(export_root, django_capture_on_commit_callbacks):
    """Export jobs built in-process when their transaction commits, as a worker would
    once the message arrives. ``with eager_builds(): ...`` around a request."""
    from contextlib import contextmanager

    from heartbench_site.celery import app

    @contextmanager
    def build():
        app.conf.task_always_eager = True
        try:
            with django_capture_on_commit_callbacks(execute=True):
                yield
        finally:
            app.conf.task_always_eager = False

    return build


def edited_by_arbitrator(pair, who, final_decision: str):
    """The pair judged (two annotators choose claude, one asks for guidance; one chooses
    gpt), escalated, and edited by the arbitrator from the claude candidate with a new
    final decision: the arbitration decision, whose ``reference`` is the pair's current
    reference."""
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    judge(a[0], family="claude")
    judge(a[1], family="claude", rating="partial", guidance="Name the teacher.")
    judge(a[2], family="gpt")
    source = pair.candidates.get(family="claude")
    return arbitration_services.arbitration_resolve(
        pair_id=pair.pk,
        arbitrator=who["arbitrator"],
        kind="edited",
        candidate_id=source.pk,
        fields={
            "summary": source.summary,
            "emotional_tone": "",
            "core_reasoning": "",
            "final_decision": final_decision,
        },
    )
