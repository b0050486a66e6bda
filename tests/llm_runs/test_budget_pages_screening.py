"""The screening pages' side of issue #36: the screening runs page shows the estimate of
screening every item awaiting it and takes an optional budget, refusing a bad one saying
why and creating nothing; a run stopped at its budget shows why, offers a resume form
(not the plain Resume button), refuses a budget already spent and resumes with a new
one or none."""

import json
import math
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from adjudication.mcq import screening
from adjudication.mcq.estimate import ASSUMED_OUTPUT_TOKENS
from adjudication.mcq.models import McqScreeningRun
from adjudication.mcq.services import item_screening, screening_runs
from core.llm_runs.models import MILLION
from core.roles import Role
from llm.structured import schema_instruction
from tests.mcq.conftest import (  # noqa: F401
    fake_server,
    judge,
    person,
    references,
    role_groups,
    scenario,
)
from tests.mcq.test_worker import honest_judge

from .test_cost_estimate_screening import PRICE_IN, PRICE_OUT, assemble, priced

pytestmark = pytest.mark.django_db
Run = McqScreeningRun.Status


@pytest.fixture
def admin(client, person):  # noqa: F811
    user = person(Role.ADMIN)
    client.force_login(user)
    return user


def expected_cost(items) -> Decimal:
    """The judge's first prompt of each item, written out here, characters over four, at
    the test prices."""
    total = Decimal(0)
    for item in items:
        system, user = screening.build_prompt(item_screening.screening_materials(item))
        system = f"{system}\n\n{schema_instruction(screening.OUTPUT_SCHEMA)}"
        schema = len(json.dumps(screening.OUTPUT_SCHEMA, separators=(",", ":")))
        tokens_in = math.ceil((len(system) + len(user) + schema) / 4)
        total += Decimal(tokens_in) * PRICE_IN + Decimal(ASSUMED_OUTPUT_TOKENS) * PRICE_OUT
    return total / MILLION


def test_the_page_shows_the_estimate_and_launches_with_a_budget(
    client,
    admin,
    references,  # noqa: F811
    judge,  # noqa: F811
    monkeypatch,
):
    priced(monkeypatch)
    items = assemble(references, "CHAR_01", "CHAR_05")
    url = reverse("mcq:screening-runs")

    html = client.get(url).content.decode()

    assert 'data-testid="cost-estimate"' in html and 'name="budget_usd"' in html
    expected = expected_cost(items)
    calls = re.search(r'data-testid="cost-calls">(\d+)<', html).group(1)
    total = re.search(r'data-testid="cost-total">\$([0-9.]+)<', html).group(1)
    assert (calls, total) == ("2", f"{expected:.4f}")
    assert "Screening judge" in html

    for bad, message in (
        ("0", "Ensure this value is greater than or equal to 0.01."),
        ("lots", "Enter a number."),
    ):
        response = client.post(url, {"budget_usd": bad})
        assert response.status_code == 200 and message in response.content.decode(), bad
        assert not McqScreeningRun.objects.exists()

    response = client.post(url, {"budget_usd": "0.50"})

    run = McqScreeningRun.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("mcq:screening-run", args=[run.pk])
    assert run.budget_usd == Decimal("0.50") and run.screenings.count() == 2


def test_a_stopped_run_shows_why_and_resumes_with_a_new_budget_or_none(
    client,
    admin,
    references,  # noqa: F811
    judge,  # noqa: F811
    monkeypatch,
):
    priced(monkeypatch, price_in=3000, price_out=15000)  # one screening costs dollars
    judge.responder = honest_judge
    assemble(references, "CHAR_01", "CHAR_05")
    client.post(reverse("mcq:screening-runs"), {"budget_usd": "0.01"})
    run = McqScreeningRun.objects.get()
    first, second = run.screenings.order_by("pk")
    item_screening.mcq_screening_unit_execute(screening_id=first.pk)
    item_screening.mcq_screening_unit_execute(screening_id=second.pk)  # held: stops the run
    run.refresh_from_db()
    assert run.status == Run.STOPPED_AT_BUDGET
    second.refresh_from_db()
    assert second.status == "pending" and second.calls.count() == 0

    page_url = reverse("mcq:screening-run", args=[run.pk])
    page = client.get(page_url).content.decode()
    assert 'data-testid="run-stop-reason"' in page and "budget of $0.01" in page
    assert 'data-run-action="resume-at-budget"' in page and 'id="run-resume"' not in page
    assert 'id="run-cancel"' in page

    resume = reverse("mcq:screening-run-resume", args=[run.pk])
    response = client.post(resume, {"budget_usd": "0.01"})
    assert response.status_code == 200
    assert "would stop again at once" in response.content.decode()
    run.refresh_from_db()
    assert run.status == Run.STOPPED_AT_BUDGET and run.budget_usd == Decimal("0.01")

    response = client.post(resume, {"budget_usd": ""})

    assert response.status_code == 302 and response.url == page_url
    run.refresh_from_db()
    assert run.status == Run.RUNNING and run.budget_usd is None and run.stop_reason == ""
    item_screening.mcq_screening_unit_execute(screening_id=second.pk)
    run.refresh_from_db()
    assert run.status == Run.FINISHED
    assert [u.calls.count() for u in run.screenings.order_by("pk")] == [1, 1]


def test_a_budget_for_a_cancelled_run_is_refused(references, judge, person):  # noqa: F811
    assemble(references, "CHAR_01")
    run = screening_runs.screening_run_for_everything_awaiting(user=person(Role.ADMIN))
    screening_runs.screening_run_cancel(run_id=run.pk)

    with pytest.raises(screening_runs.McqError, match="stopped at its budget"):
        screening_runs.screening_run_resume(run_id=run.pk, budget_usd="5")
    run.refresh_from_db()
    assert run.status == Run.CANCELLED and run.budget_usd is None
