"""Simultaneous actions on real PostgreSQL, from threads with their own connections:
two arbitrators deciding one pair at once → one decision; a double submit → one
submission (row locks and unique constraints)."""

import threading

import pytest
from django.db import connection

from adjudication.arbitration import services
from adjudication.arbitration.models import ArbitrationDecision, ReferenceResponse
from adjudication.consensus.services import judgment_submit
from annotation.comparison.models import ComparisonJudgment, ComparisonJudgmentVersion
from core.roles import Role
from tests.comparison.helpers import assign, judge, letter_for, make_pair, people
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def run_together(*calls):
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def worker(i, call):
        from django.db import connection as thread_connection

        try:
            barrier.wait()
            results[i] = ("ok", call())
        except Exception as error:  # noqa: BLE001 - collected for the assertion
            results[i] = ("error", error)
        finally:
            thread_connection.close()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_two_arbitrators_at_once_make_exactly_one_decision():
    assert connection.vendor == "postgresql"
    who = people()
    second = UserFactory(username="cmp-arbitrator-2", roles=[Role.ARBITRATOR])
    pair = make_pair()
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    judge(a[0], family="claude")
    judge(a[1], family="gpt")
    judge(a[2], family="gemini")
    ids = {c.family: c.pk for c in pair.candidates.all()}
    for _ in range(3):
        results = run_together(
            lambda: services.arbitration_resolve(
                pair_id=pair.pk,
                arbitrator=who["arbitrator"],
                kind="adopted",
                candidate_id=ids["claude"],
            ),
            lambda: services.arbitration_resolve(
                pair_id=pair.pk, arbitrator=second, kind="adopted", candidate_id=ids["gpt"]
            ),
        )
        outcomes = sorted(kind for kind, _ in results)
        assert outcomes == ["error", "ok"], results
        error = next(r for k, r in results if k == "error")
        assert isinstance(error, services.ArbitrationError)
        assert ArbitrationDecision.objects.filter(reopened_at__isnull=True).count() == 1
        assert ReferenceResponse.objects.filter(superseded_at__isnull=True).count() == 1
        services.arbitration_reopen(pair_id=pair.pk, admin=who["admin"], reason="again")


def test_a_double_submit_from_two_tabs_is_one_submission():
    who = people()
    pair = make_pair()
    a = assign(pair, who["annotators"], who["admin"])[who["annotators"][0].pk]
    content = {
        "suitability": "suitable",
        "selected_letter": letter_for(a, "gpt"),
        "rating": "as_is",
        "selection_rationale": "Best grounded.",
    }
    results = run_together(
        *[lambda: judgment_submit(public_id=a.public_id, annotator=a.annotator, content=content)]
        * 4
    )
    assert all(kind == "ok" for kind, _ in results), results
    assert ComparisonJudgment.objects.count() == 1
    assert ComparisonJudgmentVersion.objects.count() == 1
