"""The six criteria's pure core on hand-written memories: true positives and near-misses.
No database."""

import pytest

from audit.memory_quality import criteria
from audit.memory_quality.criteria import (
    AuditConfig,
    MemoryText,
    audit_memories,
    check_memory,
    sanitize_text,
)

CONFIG = AuditConfig()
COMPILED = criteria.CompiledConfig.of(CONFIG)

CONTEXT = (
    "A rainy Tuesday afternoon in the school library while I waited for my mother to pick me up."
)
SUMMARY = (
    "I waited alone in the library after school, watched the rain, and worried that nobody "
    "would come to take me home before dark."
)
NARRATIVE = (
    "The rain drummed on the tall library windows and I counted the drops racing down the "
    'glass. "Are you still here?" the librarian asked. My stomach tightened. That evening I '
    "told my mother about the drops, and the next day I brought a book to read while waiting."
)


def memory(key="MEM_A", *, age=9, intensity=0.7, character="CHAR_01", **fields):
    return MemoryText(
        key,
        character,
        age,
        fields.get("context", CONTEXT),
        fields.get("content_summary", SUMMARY),
        fields.get("content_full", NARRATIVE),
        intensity,
    )


def criteria_of(m):
    return sorted({f.criterion for f in check_memory(m, COMPILED)})


def test_a_clean_memory_passes_every_criterion():
    assert criteria_of(memory()) == []
    assert audit_memories([memory()], CONFIG).flagged() == set()


# --- 1. Omniscient narrator ------------------------------------------------------------


@pytest.mark.parametrize(
    "phrase",
    [
        "Years later I would understand why she was late.",
        "Later I learned that the bus had broken down.",
        "I didn't know then that it was the last rainy day there.",
        "I didn’t know then that she was ill.",  # typographic apostrophe
        "From then on, I always carried a book.",
        "It took me a long time to realize she had tried her best.",
        "If only I had known how close she was.",
        "Until that moment, only then did I see it.",
    ],
)
def test_post_hoc_markers_are_flagged_with_their_evidence(phrase):
    m = memory(content_full=NARRATIVE + " " + phrase)
    found = [f for f in check_memory(m, COMPILED) if f.criterion == criteria.OMNISCIENT]
    assert len(found) == 1
    span = found[0].spans[0]
    assert found[0].field == "content_full"
    assert m.content_full[span.start : span.end] == span.text
    assert span.text.lower().split()[0] in phrase.lower()


@pytest.mark.parametrize(
    "phrase",
    [
        "That evening I told my father.",  # allowed: same day
        "The next day I brought an umbrella.",  # allowed: 1 day
        "A few days later the librarian smiled at me.",  # allowed: within a week
        "My grandmother's years in the garden were later in the story.",  # no marker
        "We learned later lessons at school about the rain cycle.",  # not "later I learned"
    ],
)
def test_in_the_moment_time_phrases_are_near_misses(phrase):
    assert criteria.OMNISCIENT not in criteria_of(memory(content_full=NARRATIVE + " " + phrase))


def test_a_multi_word_marker_across_a_line_break_still_matches():
    m = memory(content_full=NARRATIVE + " Many years\nlater, I returned.")
    (finding,) = [f for f in check_memory(m, COMPILED) if f.criterion == criteria.OMNISCIENT]
    assert finding.spans[0].text == "Many years\nlater"


def test_markers_in_the_metadata_fields_are_found_too():
    m = memory(context=CONTEXT + " Years later it still hurt.")
    (finding,) = [f for f in check_memory(m, COMPILED) if f.criterion == criteria.OMNISCIENT]
    assert finding.field == "context"


# --- 2. Adult evaluation at a child age (School age, ≤ 11) -----------------------------

ADULT = NARRATIVE + " Looking back, I now understand that she was exhausted."


def test_adult_appraisal_in_a_child_memory_is_flagged():
    found = [
        f
        for f in check_memory(memory(age=11, content_full=ADULT), COMPILED)
        if f.criterion == criteria.ADULT_EVALUATION
    ]
    assert len(found) == 1
    assert {s.text for s in found[0].spans} == {"Looking back", "I now understand"}


def test_the_same_appraisal_at_twelve_is_a_near_miss():
    assert criteria.ADULT_EVALUATION not in criteria_of(memory(age=12, content_full=ADULT))


def test_a_child_looking_back_over_a_shoulder_is_still_flagged_by_the_phrase_list():
    # The pattern check is deliberately literal; the reviewer's false-positive override
    # exists for exactly this case.
    m = memory(age=8, content_full=NARRATIVE + " I kept looking back at the door.")
    assert criteria.ADULT_EVALUATION in criteria_of(m)


# --- 3. Field-length inversion ------------------------------------------------------------


def words(n):
    return " ".join(["word"] * n)


def test_a_context_over_thirty_words_is_flagged_with_the_overflow():
    m = memory(context=words(30) + " spilling narration here")
    (finding,) = [f for f in check_memory(m, COMPILED) if f.criterion == 3]
    assert finding.field == "context"
    assert "33 words" in finding.detail
    assert finding.spans[0].text == "spilling narration here"


def test_thirty_words_of_context_and_forty_of_summary_are_near_misses():
    assert 3 not in criteria_of(memory(context=words(30), content_summary=words(40)))


def test_a_summary_over_forty_words_is_flagged():
    found = [
        f for f in check_memory(memory(content_summary=words(41)), COMPILED) if f.criterion == 3
    ]
    assert [f.field for f in found] == ["content_summary"]


def test_dialogue_inside_the_context_is_narrative_detail():
    m = memory(context='In the library, "Are you still here waiting, kid?" the librarian asked me.')
    (finding,) = [f for f in check_memory(m, COMPILED) if f.criterion == 3]
    assert "dialogue" in finding.detail
    assert finding.spans[0].text.startswith('"Are you')


def test_a_short_quoted_word_in_the_context_is_a_near_miss():
    m = memory(
        context='A rainy afternoon in the "quiet" corner of the library, waiting for a parent.'
    )
    assert 3 not in criteria_of(m)


# --- 4. Semantic duplication ------------------------------------------------------------

OTHER = (
    "The football pitch smelled of cut grass and the whistle shrieked twice. Coach yelled "
    '"Run!" and my legs burned. After the match we ate oranges on the bench.'
)


def test_near_identical_narratives_in_one_window_flag_the_later_memory():
    a = memory("MEM_1", age=8)
    b = memory("MEM_2", age=10, content_full=NARRATIVE + " I waited.")
    c = memory("MEM_3", age=9, content_full=OTHER)
    result = audit_memories([a, c, b], CONFIG)
    assert result.flagged() == {"MEM_2"}
    (finding,) = result.findings["MEM_2"]
    assert finding.criterion == criteria.SEMANTIC_DUPLICATION
    assert finding.related == "MEM_1"
    assert finding.score > 0.85


def test_the_same_narrative_in_another_window_or_character_is_a_near_miss():
    a = memory("MEM_1", age=8)
    other_window = memory("MEM_2", age=13)  # adolescence, not school age
    other_character = memory("MEM_3", age=8, character="CHAR_02")
    assert audit_memories([a, other_window, other_character], CONFIG).flagged() == set()


def test_the_threshold_is_strictly_greater_than():
    texts = [
        NARRATIVE,
        NARRATIVE + " Then something else entirely happened with the dog and the bus.",
    ]
    (pair,) = criteria.similar_pairs(texts, 0.5)
    score = pair[2]
    assert criteria.similar_pairs(texts, score) == []
    assert criteria.similar_pairs(texts, score - 1e-6)


# --- 5. Length violation ------------------------------------------------------------------


def test_a_narrative_over_ten_thousand_characters_is_flagged():
    long = ("I waited by the window. " * 500)[:10_001]
    found = [f for f in check_memory(memory(content_full=long), COMPILED) if f.criterion == 5]
    assert len(found) == 1 and "10,001" in found[0].detail


def test_exactly_ten_thousand_characters_and_outside_the_guided_range_is_only_reported():
    exact = ("I waited by the window. " * 500)[:10_000]
    short = memory("MEM_S", content_full="I waited.")
    assert 5 not in criteria_of(memory(content_full=exact))
    report = audit_memories([memory("MEM_E", content_full=exact), short], CONFIG).length_report
    assert report["above_guided"] == 1 and report["below_guided"] == 1
    assert report["over_limit"] == 0


# --- 6. Schema-vocabulary inflation ---------------------------------------------------------

INFLATED = NARRATIVE + " My abandonment schema and emotional dysregulation flared."


def test_psychoanalytic_terms_in_a_low_intensity_episode_are_flagged():
    (finding,) = [
        f
        for f in check_memory(memory(intensity=0.25, content_full=INFLATED), COMPILED)
        if f.criterion == 6
    ]
    assert {s.text for s in finding.spans} == {"abandonment schema", "dysregulation"}


def test_the_same_terms_at_intensity_point_four_are_a_near_miss():
    assert 6 not in criteria_of(memory(intensity=0.4, content_full=INFLATED))


def test_ordinary_words_containing_a_term_are_near_misses():
    m = memory(
        intensity=0.2, content_full=NARRATIVE + " The projector hummed; the schemata book fell."
    )
    assert 6 not in criteria_of(m)


# --- Settings ---------------------------------------------------------------------------


def test_settings_change_what_is_flagged():
    config = AuditConfig(
        omniscient_patterns=("the librarian asked",), enabled_criteria=frozenset({1})
    )
    found = audit_memories([memory(content_full=INFLATED)], config).findings["MEM_A"]
    assert [f.criterion for f in found] == [1]


def test_a_disabled_criterion_flags_nothing():
    config = AuditConfig(enabled_criteria=frozenset({1, 2, 3, 5, 6}))
    a, b = memory("MEM_1"), memory("MEM_2")
    assert audit_memories([a, b], config).flagged() == set()


# --- Sanitation -------------------------------------------------------------------------


def test_sanitize_removes_the_name_and_gendered_labels():
    text = '"Good girl, Mira," the coach said. "Young man, sit." Miranda waved.'
    clean = sanitize_text(text, names=["Mira"], labels=criteria.NARRATOR_LABELS)
    assert clean == '"Good kid, you," the coach said. "Young person, sit." Miranda waved.'
