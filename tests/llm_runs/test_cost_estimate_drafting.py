"""The cost estimate of a character drafting job before launch (issue #36): it is the
arithmetic of the prompts the job sends (read back from its calls' stored prompts) and
the configured prices, and the cost a job then records against the fake provider (real
HTTP) falls within its stated margin. The launch page shows it and takes a budget; a
budget that is not an amount is refused and nothing is made. A job stopped at its
budget says why on its page, resumes from it or is cancelled."""

import json
import math
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.urls import reverse

from annotation.character_drafting import design
from annotation.character_drafting.estimate import ASSUMED_OUTPUT_TOKENS, drafting_cost_estimate
from annotation.character_drafting.forms import plan_digest
from annotation.character_drafting.models import CharacterDraft, DraftingCall, DraftingJob
from annotation.character_drafting.profile_schema import PROFILE_SCHEMA
from annotation.character_drafting.services import jobs
from annotation.character_drafting.services.common import DraftingError
from annotation.character_drafting.services.execution import character_draft_execute
from annotation.corpus.models import ProfileVersion
from core.llm_runs.models import MILLION
from core.roles import Role
from llm import ProviderConfig
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PRICE_IN, PRICE_OUT = Decimal(3), Decimal(15)
SCHEMA_CHARS = len(json.dumps(PROFILE_SCHEMA, separators=(",", ":")))
Status = DraftingJob.Status


@pytest.fixture
def drafting_server():
    with FakeProviderServer(responder=DemoResponder(seed=7)) as server:
        yield server


@pytest.fixture
def drafting_model(settings, monkeypatch, drafting_server):
    """The drafting model on the fake server, at 3 / 15 USD per million tokens."""
    settings.HEARTBENCH_DRAFTING_PROVIDER = ProviderConfig(
        kind="openai",
        model="fake-drafter",
        base_url=drafting_server.base_url("openai"),
        timeout=5.0,
        max_retries=0,
    )
    monkeypatch.setenv("HEARTBENCH_DRAFTING_PRICE_IN", str(PRICE_IN))
    monkeypatch.setenv("HEARTBENCH_DRAFTING_PRICE_OUT", str(PRICE_OUT))
    return settings.HEARTBENCH_DRAFTING_PROVIDER


@pytest.fixture
def admin(db):
    return UserFactory(roles=[Role.ADMIN])


def run_job(admin, plan, **options):
    """A job over ``plan`` drafted in this process, one draft after another."""
    job = jobs.drafting_job_create(
        user=admin, plan=plan, design=DraftingJob.Design.CUSTOM, queue=False, **options
    )
    for draft in job.drafts.order_by("pk"):
        character_draft_execute(draft_id=draft.pk)
    job.refresh_from_db()
    return job


FIRST = [design.anchored("CHAR_01", "N", "high"), design.anchored("CHAR_02", "C", "low")]
SECOND = [
    design.anchored("CHAR_03", "E", "high"),
    design.neutral("CHAR_04"),
    design.anchored("CHAR_05", "A", "low"),
]


def test_the_estimate_is_the_sent_prompts_at_the_configured_prices(drafting_model, admin):
    before = drafting_cost_estimate(plan=SECOND, provider=drafting_model)
    assert before.output_basis["Profile draft"].startswith(
        f"{ASSUMED_OUTPUT_TOKENS['Profile draft']:,} (assumed"
    )
    run_job(admin, FIRST)
    earlier_out = list(DraftingCall.objects.values_list("tokens_out", flat=True))

    cost = drafting_cost_estimate(plan=SECOND, provider=drafting_model)
    job = run_job(admin, SECOND)

    assert job.status == Status.FINISHED
    calls = list(DraftingCall.objects.filter(draft__job=job))
    assert len(calls) == 3 == cost.calls
    tokens_in = sum(math.ceil((len(c.system) + len(c.user) + SCHEMA_CHARS) / 4) for c in calls)
    tokens_out = math.ceil(sum(earlier_out) / len(earlier_out))
    assert cost.tokens_in == tokens_in and cost.tokens_out == 3 * tokens_out
    assert cost.cost_usd == (tokens_in * PRICE_IN + 3 * tokens_out * PRICE_OUT) / MILLION
    assert [(p.provider, p.priced) for p in cost.providers] == [("openai", True)]
    # Each call recorded its cost at the prices, and the drafts carry their calls' totals.
    for draft in job.drafts.all():
        (call,) = draft.calls.all()
        assert (
            call.cost_usd
            == (Decimal(call.tokens_in) * PRICE_IN + Decimal(call.tokens_out) * PRICE_OUT) / MILLION
        )
        assert (draft.tokens_in, draft.tokens_out, draft.cost_usd) == (
            call.tokens_in,
            call.tokens_out,
            call.cost_usd,
        )


def test_a_job_records_a_cost_within_the_estimates_margin(drafting_model, admin):
    run_job(admin, FIRST)
    plan = [design.anchored(f"CHAR_{n:02d}", t, "high") for n, t in enumerate("OCEAN", start=3)]

    cost = drafting_cost_estimate(plan=plan, provider=drafting_model)
    job = run_job(admin, plan)

    recorded = sum(d.cost_usd for d in job.drafts.all())
    assert DraftingCall.objects.filter(draft__job=job).count() == cost.calls == 5
    assert recorded > 0
    assert cost.cost_low <= recorded <= cost.cost_high, (recorded, cost.cost_usd)


def test_a_model_without_prices_is_named_on_the_estimate(drafting_model, monkeypatch):
    monkeypatch.delenv("HEARTBENCH_DRAFTING_PRICE_OUT")
    cost = drafting_cost_estimate(plan=SECOND, provider=drafting_model)
    assert cost.unpriced == ["openai"] and cost.calls == 3


# --- the launch page ---------------------------------------------------------------------

CUSTOM = "CHAR_12: E low\nCHAR_13: neutral"


def launch(client, *, budget="", **extra):
    plan = design.parse_custom_design(CUSTOM)
    return client.post(
        reverse("drafting:job-new"),
        {
            "design": "custom",
            "custom_design": CUSTOM,
            "model": "fake-drafter",
            "note": "",
            "budget_usd": budget,
            "confirmed_plan": plan_digest(plan, "fake-drafter"),
            **extra,
        },
    )


def test_the_launch_page_shows_the_estimate_and_launches_with_a_budget(
    client, admin, drafting_model, django_capture_on_commit_callbacks
):
    client.force_login(admin)
    body = client.get(reverse("drafting:job-new")).content.decode()
    estimate = body[body.index('data-testid="cost-estimate"') :]
    assert 'data-testid="cost-calls">11<' in estimate  # the paper's design: 11 characters
    assert "openai" in estimate and 'name="budget_usd"' in body

    checked = launch(client, preview="1").content.decode()
    estimate = checked[checked.index('data-testid="cost-estimate"') :]
    expected = drafting_cost_estimate(plan=design.parse_custom_design(CUSTOM), provider=None)
    total = expected.cost_usd.quantize(Decimal("0.0001"), ROUND_HALF_UP)
    assert 'data-testid="cost-calls">2<' in estimate
    assert f'data-testid="cost-total">${total}<' in estimate
    assert not DraftingJob.objects.exists()

    with django_capture_on_commit_callbacks(execute=False):
        response = launch(client, budget="2.50", launch="1")
    job = DraftingJob.objects.get()
    assert response.status_code == 302
    assert job.budget_usd == Decimal("2.50") and job.drafts.count() == 2
    page = client.get(reverse("drafting:job-detail", args=[job.pk])).content.decode()
    assert 'data-testid="run-budget">Budget: $2.50<' in page


@pytest.mark.parametrize(
    ("budget", "message"),
    [("-3", "greater than or equal to 0.01"), ("lots", "Enter a number."), ("0", "0.01")],
)
def test_a_bad_budget_is_refused_and_nothing_is_made(
    client, admin, drafting_model, budget, message
):
    client.force_login(admin)
    response = launch(client, budget=budget, launch="1")
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not DraftingJob.objects.exists() and not CharacterDraft.objects.exists()


def test_the_service_refuses_a_budget_that_is_not_an_amount(drafting_model, admin):
    with pytest.raises(DraftingError, match="not an amount in USD"):
        jobs.drafting_job_create(
            user=admin, plan=SECOND, design=DraftingJob.Design.CUSTOM, budget_usd="ten"
        )
    assert not DraftingJob.objects.exists()


# --- a job stopped at its budget, on its page ----------------------------------------------


def stopped_job(admin, monkeypatch):
    monkeypatch.setenv("HEARTBENCH_DRAFTING_PRICE_IN", "3000")  # a draft costs dollars
    monkeypatch.setenv("HEARTBENCH_DRAFTING_PRICE_OUT", "15000")
    job = jobs.drafting_job_create(
        user=admin, plan=SECOND, design=DraftingJob.Design.CUSTOM, queue=False, budget_usd="0.01"
    )
    first, second, third = job.drafts.order_by("pk")
    character_draft_execute(draft_id=first.pk)  # nothing spent yet: drafted
    character_draft_execute(draft_id=second.pk)  # held: the job stops at its budget
    job.refresh_from_db()
    assert job.status == Status.STOPPED_AT_BUDGET
    return job, first, second, third


def test_a_stopped_job_says_why_and_resumes_from_its_page(
    client, admin, drafting_model, monkeypatch, django_capture_on_commit_callbacks
):
    client.force_login(admin)
    job, first, second, third = stopped_job(admin, monkeypatch)
    second.refresh_from_db()
    assert second.status == "pending" and second.deliveries == 0 and not second.calls.exists()
    body = client.get(reverse("drafting:job-detail", args=[job.pk])).content.decode()
    assert "Stopped at its budget of $0.01" in body
    resume = reverse("drafting:job-resume", args=[job.pk])
    assert f'action="{resume}"' in body and 'name="budget_usd"' in body
    assert 'id="run-cancel"' in body

    refused = client.post(resume, {"budget_usd": "0.01"})
    assert refused.status_code == 200
    assert "would stop again at once" in refused.content.decode()

    with django_capture_on_commit_callbacks(execute=False) as sent:
        response = client.post(resume, {"budget_usd": ""})
    assert response.status_code == 302 and len(sent) == 1
    job.refresh_from_db()
    assert job.status == Status.RUNNING and job.budget_usd is None
    for draft in (second, third):
        character_draft_execute(draft_id=draft.pk)
    job.refresh_from_db()
    assert job.status == Status.FINISHED
    assert DraftingCall.objects.filter(draft__job=job).count() == 3
    assert ProfileVersion.objects.count() == 3


def test_a_stopped_job_can_be_cancelled_and_frees_its_keys(
    client, admin, drafting_model, monkeypatch
):
    client.force_login(admin)
    job, first, second, third = stopped_job(admin, monkeypatch)
    response = client.post(reverse("drafting:job-cancel", args=[job.pk]))
    assert response.status_code == 302
    job.refresh_from_db()
    assert job.status == Status.CANCELLED
    assert sorted(job.drafts.values_list("status", flat=True)) == [
        "cancelled",
        "cancelled",
        "succeeded",
    ]
    # A late delivery of a cancelled draft drafts nothing.
    character_draft_execute(draft_id=third.pk)
    assert DraftingCall.objects.count() == 1
    # The cancelled drafts' keys can be drafted again by a new job.
    again = jobs.drafting_job_create(
        user=admin, plan=SECOND[1:], design=DraftingJob.Design.CUSTOM, queue=False
    )
    assert again.drafts.count() == 2
