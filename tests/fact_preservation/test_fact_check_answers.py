"""The fact check's answers read strictly (a fact left without a verdict is the checker's
gap, never counted as missing), the fake responder's rules, an unusable answer keeping
nothing, and the case page's queries not growing with the checks it shows."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from audit.memory_quality import fact_prompts
from audit.memory_quality.models import AuditCall, FactCheck, MemoryCase
from audit.memory_quality.services import fact_check
from core.roles import Role
from llm.testing.fact_check import FactCheckResponder, check_facts, extract_facts
from tests.factories import CharacterFactory
from tests.memory_quality.conftest import CLEAN, DRIFT, hand_written

from .test_repair_fact_check import DROPPED, PLANTED, run_audit

FACTS = ["I ran.", "It rained.", "She called."]


def test_a_fact_without_a_verdict_makes_the_answer_unusable():
    answer = {
        "verdicts": [{"fact": 1, "verdict": "present"}, {"fact": 3, "verdict": "missing"}],
        "invented": [],
    }
    with pytest.raises(fact_prompts.AnswerError, match="no verdict for fact 2"):
        fact_prompts.read_verdicts(answer, FACTS)
    answer["verdicts"].append({"fact": 4, "verdict": "present"})
    with pytest.raises(fact_prompts.AnswerError, match="there is no fact 4"):
        fact_prompts.read_verdicts(answer, FACTS)
    with pytest.raises(fact_prompts.AnswerError, match="no facts"):
        fact_prompts.read_facts({"facts": ["  ", ""]})


def test_verdicts_are_read_in_the_facts_order_with_their_text():
    answer = {
        "verdicts": [
            {"fact": 3, "verdict": "contradicted", "note": "she wrote"},
            {"fact": 1, "verdict": "present"},
            {"fact": 2, "verdict": "missing"},
        ],
        "invented": ["A dog barked.", "A dog barked."],
    }
    verdicts, invented = fact_prompts.read_verdicts(answer, FACTS)
    assert [(v["fact"], v["verdict"]) for v in verdicts] == [
        ("I ran.", "present"),
        ("It rained.", "missing"),
        ("She called.", "contradicted"),
    ]
    assert invented == ["A dog barked."]


def test_the_fake_extracts_sentences_and_checks_them_by_containment():
    original = {"context": "At the park.", "content_summary": "", "content_full": DRIFT}
    facts = extract_facts(original, ["Years later"])
    assert PLANTED in facts and not any("Years later" in f for f in facts)
    numbered = [{"fact": i, "text": t} for i, t in enumerate(facts, 1)]
    repaired = dict(original, content_full=DROPPED.upper())  # case does not matter
    answer = check_facts(numbered, original, repaired)
    missing = [facts[v["fact"] - 1] for v in answer["verdicts"] if v["verdict"] == "missing"]
    assert missing == [PLANTED] and answer["invented"] == []


@pytest.mark.django_db
def test_an_unusable_check_keeps_nothing_and_counts_as_an_attempt(
    admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    memory = hand_written(content_full=DRIFT)
    honest = FactCheckResponder(lambda req: {"content_full": CLEAN})

    def skips_a_fact(req):
        answer = honest(req)
        if "verdicts" in answer:
            answer["verdicts"] = answer["verdicts"][1:]
        return answer

    repair_model.responder = skips_a_fact
    repair_model.fact_checks = False  # the fake server leaves the check's calls to the script
    run = run_audit(admin_user, django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    checks = list(FactCheck.objects.filter(attempt__case=case).order_by("attempt__number"))
    assert [c.status for c in checks] == [FactCheck.Status.ERROR] * 3
    assert "no verdict for fact 1" in checks[0].error
    assert case.status == MemoryCase.Status.REVIEW and case.escalated
    assert "could not be made" in case.repair_note
    memory.refresh_from_db()
    assert memory.content_full == DRIFT
    # The calls that came back unusable are recorded (and paid for) all the same.
    assert AuditCall.objects.filter(run=run, kind="fact_check").count() == 3


@pytest.mark.django_db
def test_the_case_page_queries_do_not_grow_with_the_checks(
    admin_user, person, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    hand_written(content_full=DRIFT)
    hand_written(CharacterFactory(key="CHAR_02"), content_full=DRIFT, event_age=30)

    def rewrite(req):  # the memory at 30 keeps losing a fact; the one at 9 does not
        user = "\n".join(text for role, text in req.turns() if role == "user")
        return {"content_full": DROPPED if '"event_age": 30' in user else CLEAN}

    repair_model.responder = FactCheckResponder(rewrite)
    run = run_audit(admin_user, django_capture_on_commit_callbacks)
    one, three = MemoryCase.objects.filter(run=run).order_by("memory__event_age")
    assert (one.attempts.count(), three.attempts.count()) == (1, 3) and fact_check.enabled()

    client = Client()
    client.force_login(person(Role.MEMORY_REVIEWER))
    counts = []
    for case in (one, three):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("audit:case-detail", args=[case.pk])).status_code == 200
        counts.append(len(queries))
    assert counts[1] <= counts[0], counts
