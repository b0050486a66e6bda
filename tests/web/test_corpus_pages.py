"""The corpus pages show what a corpus reader needs, with a fixed number of queries."""

import pytest
from django.urls import reverse

from core.life_stages import LIFE_STAGE_BINS
from core.roles import Role
from tests.factories import MemoryFactory, ProfileVersionFactory, ScenarioFactory

from .conftest import SECRET_KEY, SECRETS, fresh_character


@pytest.fixture
def reader(client_for):
    return client_for(Role.PRIMARY_ANNOTATOR)


def test_character_list_shows_the_current_version(reader, secret_corpus):
    body = reader.get(reverse("corpus:character-list")).content.decode()
    assert SECRET_KEY in body
    assert SECRETS["construction label"] in body  # v2, the newest version
    assert "version 2" in body and "draft" in body
    assert "0.87" in body  # openness, two decimals
    row = body[body.index(SECRET_KEY) :]
    assert '<td class="text-end">2</td>' in row[: row.index("</tr>")]  # memory count


def test_character_detail_shows_versions_patterns_and_memories(reader, secret_corpus):
    body = reader.get(reverse("corpus:character-detail", args=[SECRET_KEY])).content.decode()
    assert "Current profile · v2" in body and "Draft: not frozen" in body
    assert SECRETS["profile description"] in body
    assert SECRETS["self-value logic"] in body
    patterns = body[body.index('data-testid="core-patterns"') :]
    assert patterns[: patterns.index("</ol>")].count("<li>") == 8
    assert SECRETS["core pattern"] in body
    versions = body[body.index('data-testid="profile-versions"') :]
    assert "v1" in versions and "frozen 2026-01-05" in versions
    table = body[body.index('data-testid="memory-table"') :]
    assert SECRETS["memory id"] in table
    assert "School age" in table and "Adolescence" in table  # ages 9 and 16
    assert SECRETS["memory content_full"] not in body  # the table shows summaries only


def test_character_detail_paginates_memories(reader, secret_corpus):
    character = secret_corpus["character"]
    for seq in range(3, 61):
        MemoryFactory(character=character, sequence=seq)
    first = reader.get(reverse("corpus:character-detail", args=[SECRET_KEY])).content.decode()
    assert "Page 1 of 2" in first
    assert f"MEM_{SECRET_KEY}_N_HIGH_0050" in first
    assert f"MEM_{SECRET_KEY}_N_HIGH_0051" not in first
    second = reader.get(reverse("corpus:character-detail", args=[SECRET_KEY]) + "?page=2")
    assert f"MEM_{SECRET_KEY}_N_HIGH_0060" in second.content.decode()


def test_memory_detail_shows_all_ten_fields(reader, secret_corpus):
    memory = secret_corpus["memory"]
    body = reader.get(reverse("corpus:memory-detail", args=[memory.memory_id])).content.decode()
    for text in (
        memory.anonymized_id,
        memory.timeline,
        memory.context,
        memory.content_summary,
        SECRETS["memory content_full"],
        "rain",
        SECRETS["psych_conclusion"],
        SECRETS["behavior_policy"],
        "fear / loneliness",
        "intensity 0.70",
        "Family",  # a theme (relevance tag), in words
    ):
        assert text in body, text


def test_scenarios_are_grouped_by_the_eight_life_stages(reader, secret_corpus):
    body = reader.get(reverse("corpus:scenario-list")).content.decode()
    positions = [body.index(f'data-stage="{b.key}"') for b in LIFE_STAGE_BINS]
    assert positions == sorted(positions)
    school = body[positions[0] : positions[1]]
    adolescence = body[positions[1] : positions[2]]
    assert "SCN_SCHOOL_AGE_0" in school and "SCN_ADOLESCENCE_1" not in school
    assert "SCN_ADOLESCENCE_1" in adolescence
    assert "No scenarios in this stage yet." in body[positions[2] :]


def test_scenario_detail_shows_the_four_components(reader, secret_corpus):
    scenario = secret_corpus["scenario"]
    url = reverse("corpus:scenario-detail", args=[scenario.scenario_id])
    body = reader.get(url).content.decode()
    for text in (
        scenario.name,
        scenario.description_for_agent,
        scenario.setting_location,
        scenario.setting_time,
        scenario.context_text,
        scenario.trigger_sender,
        scenario.trigger_message,
        scenario.action_required,
    ):
        assert text in body, text


def _grow(n):
    """n more characters, each with two versions, three memories; n more scenarios."""
    for _ in range(n):
        character = fresh_character()
        ProfileVersionFactory(character=character, number=1)
        ProfileVersionFactory(character=character, number=2)
        for seq in range(1, 4):
            MemoryFactory(character=character, sequence=seq)
        ScenarioFactory()


def _detail_urls(secret_corpus):
    return [
        reverse("corpus:character-detail", args=[SECRET_KEY]),
        reverse("corpus:memory-detail", args=[secret_corpus["memory"].memory_id]),
        reverse("corpus:scenario-detail", args=[secret_corpus["scenario"].scenario_id]),
    ]


# session + user + groups, then the page's own queries.
PAGE_QUERIES = {
    "corpus:character-list": 3 + 3,  # count, characters with memory counts, versions
    "corpus:scenario-list": 3 + 1,
}


@pytest.mark.parametrize("name", sorted(PAGE_QUERIES))
def test_list_pages_issue_a_fixed_number_of_queries(
    name, reader, secret_corpus, django_assert_num_queries
):
    _grow(1)
    with django_assert_num_queries(PAGE_QUERIES[name]):
        assert reader.get(reverse(name)).status_code == 200
    _grow(19)
    with django_assert_num_queries(PAGE_QUERIES[name]):
        assert reader.get(reverse(name)).status_code == 200


def test_detail_pages_issue_a_fixed_number_of_queries(
    reader, secret_corpus, django_assert_num_queries
):
    # character: character + its versions (with frozen_by), stage counts, memory count, page
    expected = [3 + 5, 3 + 1, 3 + 1]
    for url, n in zip(_detail_urls(secret_corpus), expected, strict=True):
        with django_assert_num_queries(n):
            assert reader.get(url).status_code == 200
    character = secret_corpus["character"]
    for seq in range(3, 40):
        MemoryFactory(character=character, sequence=seq, event_age=6 + seq % 40)
    ProfileVersionFactory(character=character, number=3)
    for url, n in zip(_detail_urls(secret_corpus), expected, strict=True):
        with django_assert_num_queries(n):
            assert reader.get(url).status_code == 200
