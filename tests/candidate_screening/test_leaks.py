"""The pure leak detector: what it catches, what it leaves alone, and the offsets."""

import pytest

from annotation.candidate_screening.leaks import highlight, screen_texts


def rules(text, field="final_decision"):
    return [(f.rule, f.text) for f in screen_texts({field: text})]


def test_the_planted_leak_is_caught_with_rule_field_text_and_offset():
    text = "As an AI model by OpenAI, I would stay behind."
    found = screen_texts({"summary": "", "final_decision": text})
    assert [(f.rule, f.field, f.text, f.start) for f in found] == [
        ("ai_self_reference", "final_decision", "As an AI", 0),
        ("model_name", "final_decision", "OpenAI", 18),
    ]
    assert all(text[f.start : f.end] == f.text for f in found)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ChatGPT said so", ("model_name", "ChatGPT")),
        ("I asked gpt-4o", ("model_name", "gpt-4o")),
        ("Anthropic", ("model_name", "Anthropic")),
        ("Maybe Claude knows", ("model_name", "Claude")),  # flagged: a human looks
        ("built on Llama 3", ("model_name", "Llama 3")),
        ("DeepSeek and QWEN", ("model_name", "DeepSeek")),
        ("made by Google", ("google_ai", "made by Google")),
        ("I'm an assistant", ("ai_self_reference", "I'm an assistant")),
        ("from my training data", ("ai_self_reference", "my training data")),
        ("as a language model", ("ai_self_reference", "as a language model")),
        ("## My decision", ("markdown_header", "## My decision")),
        ("I **stay** home", ("bold_or_italic", "**stay**")),
        ("I *really* care", ("bold_or_italic", "*really*")),
        ("First:\n- water the plants", ("list_item", "- w")),
        ("Done.\n---\nNext", ("horizontal_rule", "---")),
        ("Certainly! I stay.", ("sign_off", "Certainly!")),
        ("I hope this helps.", ("sign_off", "I hope this helps")),
        ("Let me know if you need more.", ("sign_off", "Let me know if")),
    ],
)
def test_each_rule_catches_its_kind(text, expected):
    assert expected in rules(text)


@pytest.mark.parametrize(
    "text",
    [
        "I would google it before I go.",
        "Two llamas graze by the fence.",
        "I feel certain and I stay; the gipsy band plays.",
        "My mother says 3 * 4 is twelve.",
        "I am an only child, and I ask for help.",
    ],
)
def test_ordinary_inner_speech_is_not_flagged(text):
    assert rules(text) == []


def test_highlight_merges_overlaps_and_keeps_the_whole_text():
    text = "As an AI model by OpenAI, yes"
    findings = [f.as_dict() for f in screen_texts({"f": text})]
    pieces = highlight(text, findings)
    assert "".join(p for p, _ in pieces) == text
    assert [p for p, hit in pieces if hit] == ["As an AI", "OpenAI"]
