"""Pairs the three annotators have judged, ready for a judge run."""

from adjudication.judging.models import JudgeCall
from annotation.comparison.models import COMPARISON_LETTERS
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.factories import ScenarioFactory

FAMILIES = ("claude", "gpt", "gemini")


def judged_pairs(count=2, *, people_=None):
    """``count`` pairs, each judged by the same three annotators (they pick claude,
    claude, gpt); returns (pairs, people)."""
    people_ = people_ or people()
    pairs = []
    for n in range(count):
        pair = make_pair(key=f"CHAR_{60 + n}", scenario=ScenarioFactory())
        assignments = assign(pair, people_["annotators"], people_["admin"])
        for assignment, family in zip(
            assignments.values(), ("claude", "claude", "gpt"), strict=True
        ):
            judge(assignment, family=family)
        pairs.append(pair)
    return pairs, people_


def sent_request(call: JudgeCall) -> dict:
    """The judge's request of the call's latest model call (its ``JudgeCallRecord``)."""
    return call.records.order_by("-created_at", "-pk").first().request


def shown_block(call: JudgeCall, letter: str) -> str:
    """The text the call's prompt showed under ``letter``."""
    user = sent_request(call)["user"]
    start = user.index(f"## Candidate {letter}\n")
    end = user.find("\n## ", start + 1)
    return user[start:] if end == -1 else user[start:end]


def letter_of(call: JudgeCall, candidate_id: int) -> str:
    return COMPARISON_LETTERS[call.permutation.index(candidate_id)]
