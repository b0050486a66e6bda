"""The screen's rules on single texts (pure: no database)."""

import hashlib
import json

import pytest

from audit.hygiene import rules
from audit.hygiene.rules import Rule

ALLOWED = rules.load_allowed_words(rules.DEFAULT_ALLOWED_WORDS)
EMPTY = rules.Lexicon(name="empty")


def screen(text, *, profile="", lexicon=EMPTY):
    return rules.screen_field(
        "content_full",
        text,
        screen=rules.Screen(lexicon=lexicon, allowed=ALLOWED),
        profile_words=rules.words_of(profile),
    )


def spans(found):
    return [(m.rule, m.text) for m in found]


def test_planted_contacts_and_a_name_are_flagged_with_their_rule_and_span():
    text = (
        "Later my friend Ottoline gave me her e-mail, ottoline.r@example.org, and her "
        "number 020 7946 0958; she lived at 14 Orchard Lane, near www.orchard-school.co.uk."
    )
    found = screen(text)
    assert spans(found) == [
        (Rule.NAME, "Ottoline"),
        (Rule.EMAIL, "ottoline.r@example.org"),
        (Rule.PHONE, "020 7946 0958"),
        (Rule.ADDRESS, "14 Orchard Lane"),
        (Rule.URL, "www.orchard-school.co.uk"),
    ]
    for match in found:
        assert text[match.start : match.end] == match.text
        assert match.field == "content_full"


def test_a_clean_text_is_not_flagged():
    text = (
        "I was nine. Mom called me down for dinner on Sunday, and Dad said the rain would stop "
        "by May. Shame, fear: I hid the broken cup behind the bread bin from 1998-2002 years."
    )
    assert screen(text) == []


def test_a_name_the_profile_holds_is_the_characters_own():
    text = "I walked home with Bertrand and Ottoline after the concert."
    assert spans(screen(text, profile="An older cousin, Bertrand, raised me.")) == [
        (Rule.NAME, "Ottoline")
    ]


def test_id_numbers_and_postcodes():
    found = spans(screen("my card said 123-45-6789 and the letter went to London SW1A 1AA."))
    assert (Rule.ID_NUMBER, "123-45-6789") in found
    assert (Rule.POSTCODE, "SW1A 1AA") in found
    assert spans(screen("we paid 120 dollars for 3 tickets")) == []


def test_the_lexicon_matches_hashed_words_and_plain_terms(tmp_path):
    planted = "zorblax"  # a made-up word: the test spells no offensive word either
    digest = hashlib.sha256(planted.encode()).hexdigest()
    path = tmp_path / "lexicon.json"
    path.write_text(
        json.dumps(
            {
                "name": "test lexicon",
                "entries": [{"sha256": digest, "category": "insult"}],
                "terms": [{"term": "go away forever", "category": "harassment"}],
            }
        )
    )
    lexicon = rules.load_lexicon(path)
    assert lexicon.size == 2
    found = screen("You Zorblax, he said. Go away forever, they wrote.", lexicon=lexicon)
    assert [(m.rule, m.text, m.detail) for m in found] == [
        (Rule.LEXICON, "Zorblax", "insult"),
        (Rule.LEXICON, "Go away forever", "harassment"),
    ]


def test_the_shipped_lexicon_spells_no_word_out_and_loads():
    doc = json.loads(rules.DEFAULT_LEXICON.read_text())
    assert doc["terms"] == []
    assert all(len(e["sha256"]) == 64 for e in doc["entries"])
    assert rules.load_lexicon(rules.DEFAULT_LEXICON).size == len(doc["entries"]) > 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("not json", "is not valid JSON"),
        ('{"entries": [{"sha256": "abc"}]}', "Entry 1 of lexicon.json needs a 64-digit hex sha256"),
    ],
)
def test_a_broken_lexicon_is_refused_with_what_is_wrong(tmp_path, body, message):
    path = tmp_path / "lexicon.json"
    path.write_text(body)
    with pytest.raises(rules.LexiconError, match=message):
        rules.load_lexicon(path)
