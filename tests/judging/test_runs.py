"""Judge runs: what a launch creates and refuses, the run-level state changes, and the
admin's pages (no worker here: tests/judging/test_worker.py runs them)."""

import pytest
from django.urls import reverse

from adjudication.judging.models import JudgeCall, JudgeRun
from adjudication.judging.services.runs import (
    FLOW,
    JudgeRunError,
    judge_run_cancel,
    judge_run_create,
    judge_run_resume,
    judge_run_start,
)
from tests.comparison.helpers import make_pair
from tests.generation.helpers import family_settings
from tests.judging.helpers import judged_pairs

pytestmark = pytest.mark.django_db


class _Server:
    def base_url(self, kind):
        return f"http://127.0.0.1:9/{kind}"


@pytest.fixture(autouse=True)
def providers(settings):
    settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(_Server())


def create(**kwargs):
    return judge_run_create(
        **{"user": None, "name": "", "provider_family": "gpt", "seed": 3, **kwargs}
    )


def test_a_run_takes_every_fully_judged_pair_with_distinct_orders():
    pairs, _ = judged_pairs(2)
    make_pair(key="CHAR_90")  # nobody has judged it: not eligible
    run = create(orders_per_pair=4, judge_family="claude", model="judge-x")
    assert set(run.pairs.all()) == set(pairs)
    assert (run.judge_family, run.provider_family, run.model) == ("claude", "gpt", "judge-x")
    assert run.status == JudgeRun.Status.PENDING and run.name == "Claude judge"
    for pair in pairs:
        calls = run.calls.filter(pair=pair).order_by("order_index")
        assert [c.order_index for c in calls] == [0, 1, 2, 3]
        orders = [tuple(c.permutation) for c in calls]
        assert len(set(orders)) == 4
        assert all(set(o) == set(pair.candidates.values_list("pk", flat=True)) for o in orders)
    again = create(orders_per_pair=4)
    assert [c.permutation for c in again.calls.order_by("pair", "order_index")] == [
        c.permutation for c in run.calls.order_by("pair", "order_index")
    ], "the same seed, the same orders"
    assert create(orders_per_pair=1).model == "fake-gpt-response"


def test_a_launch_refuses_what_it_cannot_do(settings):
    (pair,), _ = judged_pairs(1)
    waiting = make_pair(key="CHAR_91")
    with pytest.raises(JudgeRunError, match="three submitted human judgments"):
        create(pair_ids=[pair.pk, waiting.pk])
    for orders in (0, 7):
        with pytest.raises(JudgeRunError, match="1 to 6"):
            create(orders_per_pair=orders)
    with pytest.raises(JudgeRunError, match="No provider is configured"):
        create(provider_family="mistral")
    assert not JudgeRun.objects.exists()


def test_cancel_and_resume_follow_the_runs_state():
    judged_pairs(2)
    run = create(orders_per_pair=2)
    with pytest.raises(JudgeRunError, match="only a cancelled"):
        judge_run_resume(run_id=run.pk)
    judge_run_start(run_id=run.pk)
    with pytest.raises(JudgeRunError, match="only a run that has not started"):
        judge_run_start(run_id=run.pk)
    JudgeCall.objects.filter(pk=run.calls.first().pk).update(status="succeeded")
    run = judge_run_cancel(run_id=run.pk)
    assert run.status == JudgeRun.Status.CANCELLED
    assert sorted(run.calls.values_list("status", flat=True)) == ["cancelled"] * 3 + ["succeeded"]
    with pytest.raises(JudgeRunError, match="only a pending or running run"):
        judge_run_cancel(run_id=run.pk)
    run = judge_run_resume(run_id=run.pk)
    assert run.status == JudgeRun.Status.RUNNING and run.finished_at is None
    assert sorted(run.calls.values_list("status", flat=True)) == ["pending"] * 3 + ["succeeded"]


def test_a_cancel_waits_for_the_calls_in_flight_and_a_retry_takes_only_the_failed():
    judged_pairs(2)
    run = create(orders_per_pair=1)
    judge_run_start(run_id=run.pk)
    held, waiting = run.calls.order_by("pk")
    JudgeCall.objects.filter(pk=held.pk).update(status="running")
    run = judge_run_cancel(run_id=run.pk)
    # A call a worker holds is not abandoned: the run is cancelling until it ends.
    assert run.status == JudgeRun.Status.CANCELLING
    assert run.calls.get(pk=waiting.pk).status == "cancelled"
    with pytest.raises(JudgeRunError, match="wait until it has stopped"):
        judge_run_resume(run_id=run.pk)
    JudgeCall.objects.filter(pk=held.pk).update(status="failed", error_message="boom")
    FLOW.finish_if_done(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.CANCELLED and run.finished_at

    # A run that finished with failures retries its failed calls only.
    JudgeCall.objects.filter(pk=waiting.pk).update(status="succeeded")
    JudgeRun.objects.filter(pk=run.pk).update(status=JudgeRun.Status.FINISHED_WITH_FAILURES)
    run = judge_run_resume(run_id=run.pk)
    assert run.status == JudgeRun.Status.RUNNING and run.finished_at is None
    held.refresh_from_db()
    assert (held.status, held.error_message) == ("pending", "")
    assert run.calls.get(pk=waiting.pk).status == "succeeded"


@pytest.mark.parametrize(
    ("status", "button", "label"),
    [
        ("pending", "cancel", "Cancel run"),
        ("running", "cancel", "Cancel run"),
        ("cancelled", "resume", "Resume run (2 calls without a verdict)"),
        ("finished_with_failures", "retry", "Retry 1 failed call"),
        ("finished", None, None),
        ("cancelling", None, None),
    ],
)
def test_the_run_page_offers_the_frameworks_buttons_for_the_state(client, status, button, label):
    _, people_ = judged_pairs(2)
    run = create(orders_per_pair=1)
    JudgeRun.objects.filter(pk=run.pk).update(status=status)
    JudgeCall.objects.filter(pk=run.calls.order_by("pk").first().pk).update(status="failed")
    client.force_login(people_["admin"])
    page = client.get(reverse("judging:run", kwargs={"run_id": run.pk})).content.decode()
    assert page.count("data-run-action=") == (1 if button else 0)
    if button:
        action = "cancel" if button == "cancel" else "resume"
        url = reverse(f"judging:{action}", kwargs={"run_id": run.pk})
        assert f'data-run-action="{button}"' in page and f'hx-post="{url}"' in page
        assert f">{label}</button>" in page


def test_the_admin_launches_a_run_and_reads_its_calls(client):
    pairs, people_ = judged_pairs(2)
    client.force_login(people_["admin"])
    form = client.get(reverse("judging:launch"))
    assert form.status_code == 200
    body = form.content.decode()
    assert "All 2 pairs with three submitted judgments" in body
    assert 'data-confirm="Launch this judge run?' in body
    response = client.post(
        reverse("judging:launch"),
        {
            "provider_family": "gpt",
            "pair_scope": "chosen",
            "pairs": [pairs[1].pk],
            "orders_per_pair": 2,
            "seed": 5,
        },
    )
    run = JudgeRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "judging:run", kwargs={"run_id": run.pk}
    )
    assert run.status == JudgeRun.Status.RUNNING and list(run.pairs.all()) == [pairs[1]]
    page = client.get(response["Location"]).content.decode()
    for call in run.calls.all():
        a, b, c = call.permutation
        assert f"A → {a} · B → {b} · C → {c}" in page
    assert 'hx-trigger="every 1s"' in page and "Cancel run" in page
    fragment = client.get(response["Location"], HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith('<section id="run-progress"')
    listing = client.get(reverse("judging:runs")).content.decode()
    assert f'href="{reverse("judging:run", kwargs={"run_id": run.pk})}"' in listing
    assert reverse("judging:runs") in client.get(reverse("home")).content.decode()


def test_choosing_pairs_without_any_is_refused(client):
    _, people_ = judged_pairs(1)
    client.force_login(people_["admin"])
    response = client.post(
        reverse("judging:launch"),
        {"provider_family": "gpt", "pair_scope": "chosen", "orders_per_pair": 1, "seed": 1},
    )
    assert response.status_code == 200
    assert "Choose at least one pair" in response.content.decode()
    assert not JudgeRun.objects.exists()


@pytest.fixture
def broker_down():
    """The task broker unreachable (a closed port), as when Redis is not running."""
    from heartbench_site.celery import app

    previous = app.conf.broker_url

    def point_at(url):
        app.conf.update(broker_url=url, broker_write_url=url, broker_read_url=url)
        app._pool = None
        app.amqp._producer_pool = None

    point_at("redis://127.0.0.1:9/0")
    yield
    point_at(previous)


@pytest.mark.django_db(transaction=True)
def test_a_launch_without_a_broker_keeps_the_run_and_says_so(client, broker_down):
    _, people_ = judged_pairs(1)
    client.force_login(people_["admin"])
    data = {"provider_family": "gpt", "pair_scope": "all", "orders_per_pair": 2, "seed": 1}
    page = client.post(reverse("judging:launch"), data, follow=True).content.decode()
    run = JudgeRun.objects.get()
    assert f"Judge run {run.pk} is saved but could not be queued" in page
    assert run.status == JudgeRun.Status.RUNNING
    assert set(run.calls.values_list("status", flat=True)) == {"pending"}
    # Once a worker is back, the admin cancels and resumes: the calls are queued again.
    judge_run_cancel(run_id=run.pk)
    assert set(run.calls.values_list("status", flat=True)) == {"cancelled"}


def test_the_pages_take_a_fixed_number_of_queries(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    pairs, people_ = judged_pairs(3)
    client.force_login(people_["admin"])

    def queries(path):
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(path).status_code == 200
        return len(ctx)

    small = create(pair_ids=[pairs[0].pk], orders_per_pair=1)
    large = create(orders_per_pair=3)
    for call in large.calls.all()[:4]:
        JudgeCall.objects.filter(pk=call.pk).update(status="succeeded")
    page = reverse("judging:run", kwargs={"run_id": small.pk})
    assert queries(page) == queries(reverse("judging:run", kwargs={"run_id": large.pk}))
    one = queries(reverse("judging:runs"))
    create(orders_per_pair=2)
    create(orders_per_pair=2)
    assert queries(reverse("judging:runs")) == one
