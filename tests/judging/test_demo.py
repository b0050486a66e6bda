"""`make demo` shows a finished judge run on the pairs the demo's annotators judged."""

import pytest
from django.urls import reverse

from adjudication.judging.demo import DEMO_JUDGE_NAME, DEMO_ORDERS_PER_PAIR
from adjudication.judging.models import JudgeCall, JudgeRun
from core.protocol import ANNOTATORS_PER_PAIR

pytestmark = pytest.mark.django_db


def test_the_demo_has_a_finished_judge_run_on_fully_judged_pairs(demo_built, client):
    run = JudgeRun.objects.get(name=DEMO_JUDGE_NAME)
    assert run.status == JudgeRun.Status.FINISHED
    pairs = list(run.pairs.all())
    assert len(pairs) >= 2
    for pair in pairs:
        judged = pair.assignments.filter(judgment__isnull=False).count()
        assert judged == ANNOTATORS_PER_PAIR, pair
    calls = run.calls.all()
    assert calls.count() == len(pairs) * DEMO_ORDERS_PER_PAIR
    assert set(calls.values_list("status", flat=True)) == {JudgeCall.Status.SUCCEEDED}
    assert all(c.verdict.selected_candidate_id in c.permutation for c in calls)

    client.force_login(run.created_by)
    page = client.get(reverse("judging:run", kwargs={"run_id": run.pk}))
    assert page.status_code == 200
    assert page.content.decode().count('data-status="succeeded"') == calls.count()
