"""The Naive-RAG query is the entire scenario description (seed 000 App. E), recorded with
each stored retrieval set and shown where the set is shown; a set stored under another
query (an older rule, a revised scenario) is not served for the current one."""

import pytest
from django.urls import reverse

from evaluation.models import EvaluationRun, RetrievalSet, Setting
from evaluation.retrieval import retrieve_for_item
from tests.export.conftest import make_item
from tests.factories import CharacterFactory, MemoryFactory, ScenarioFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


def scenario_with_distinct_fields():
    return ScenarioFactory(
        scenario_id="SCN_SCHOOL_AGE_77",
        age=10,
        name="The Lost Lantern",
        category="Integrity Dilemma",
        diamonds_dimension="Deception",
        description_for_agent="A choice about honesty after a borrowed thing goes missing.",
        setting_location="Village square",
        setting_time="Dusk",
        setting_atmosphere="Festive",
        context_text="Your cousin lent you her paper lantern for the festival parade.",
        trigger_sender="Cousin",
        trigger_message="Where is my lantern? Grandmother made it for me.",
        action_required="Decide what to tell your cousin.",
    )


def expected_query(s):
    return (
        f"Scenario: {s.name}\n"
        f"{s.description_for_agent}\n"
        f"Setting: {s.setting_location} | {s.setting_time} | {s.setting_atmosphere}\n"
        f"Background: {s.context_text}\n"
        f"Trigger event: {s.trigger_sender}: {s.trigger_message}\n"
        f"Required decision: {s.action_required}"
    )


@pytest.fixture
def lantern_item():
    character = CharacterFactory(key="CHAR_77")
    # Only the background and the trigger event speak of lanterns, cousins and festivals;
    # the one-sentence agent description shares no word with this memory.
    lantern = MemoryFactory(
        character=character,
        sequence=1,
        event_age=8,
        content_full="My cousin and I carried paper lanterns at the festival parade.",
    )
    for seq, text in enumerate(
        (
            "A choice about a bicycle: I decided to ride it to school.",
            "I went missing from class once; the honesty of my friend saved me.",
            "After a borrowed book got wet, I dried it on the radiator.",
        ),
        start=2,
    ):
        MemoryFactory(character=character, sequence=seq, event_age=9, content_full=text)
    scenario = scenario_with_distinct_fields()
    item = make_item(
        "SCN_SCHOOL_AGE_77__CHAR_77", character=character, scenario=scenario, status="final"
    )
    return item, lantern


def test_the_query_is_the_entire_scenario_description_without_the_options(lantern_item):
    item, _ = lantern_item
    rset = retrieve_for_item(item, method=RetrievalSet.Method.BM25, k=30)
    assert rset.query == expected_query(item.scenario)
    for option in item.options.all():
        assert option.content not in rset.query
    # construction labels of the scenario are not part of its description
    assert item.scenario.category not in rset.query
    assert item.scenario.diamonds_dimension not in rset.query


@pytest.mark.parametrize("method", [RetrievalSet.Method.BM25, RetrievalSet.Method.TFIDF])
def test_a_memory_matching_only_the_background_and_trigger_ranks_first(method, lantern_item):
    item, lantern = lantern_item
    rset = retrieve_for_item(item, method=method, k=30)
    assert rset.entries.order_by("rank").first().memory_id == lantern.pk


def test_a_set_stored_under_another_query_is_not_served(lantern_item):
    item, lantern = lantern_item
    stale = RetrievalSet.objects.create(
        item=item,
        method=RetrievalSet.Method.BM25,
        k=30,
        query=item.scenario.description_for_agent,  # the rule before App. E was followed
        scenario_age=item.scenario.age,
        eligible_count=0,
    )
    rset = retrieve_for_item(item, method=RetrievalSet.Method.BM25, k=30)
    assert rset.pk != stale.pk
    assert rset.query == expected_query(item.scenario)
    assert rset.entries.order_by("rank").first().memory_id == lantern.pk
    # asked again, the current set is reused
    assert retrieve_for_item(item, method=RetrievalSet.Method.BM25, k=30).pk == rset.pk


def test_the_prediction_page_shows_the_query(
    client, admin_user, lantern_item, fake_model, django_capture_on_commit_callbacks
):
    from tests.factories import ProfileVersionFactory

    item, _ = lantern_item
    ProfileVersionFactory(character=item.character, number=1)
    fake_model.responder = lambda req: {"decision_choice": "A"}
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("evaluation:run-list"),
            {
                "provider": "fake",
                "setting": Setting.NAIVE_RAG,
                "item_set": "ids",
                "question_ids": item.question_id,
                "retrieval_method": "bm25",
                "k": 30,
                "temperature": "0",
                "max_tokens": 4096,
            },
        )
    run = EvaluationRun.objects.get()
    p = run.predictions.get()
    assert p.status == "answered", p.error_message
    html = client.get(reverse("evaluation:prediction-detail", args=[run.pk, p.pk])).content.decode()
    assert 'data-testid="retrieval-query"' in html
    assert "Background: Your cousin lent you her paper lantern for the festival parade." in html
    assert "Trigger event: Cousin: Where is my lantern? Grandmother made it for me." in html
