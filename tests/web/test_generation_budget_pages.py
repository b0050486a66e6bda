"""Costs on the generation pages (issue #36): the launch page shows the cost estimate per
provider, a run launched with a budget shows it, and a run stopped at its budget says why
and can be resumed from its page (refused, saying why, when the new budget is too low)."""

from decimal import Decimal

import pytest
from django.urls import reverse

from annotation.generation.models import Candidate, GenerationRun
from core.roles import Role

Status = GenerationRun.Status


@pytest.fixture
def admin(client_for):
    return client_for(Role.ADMIN)


@pytest.fixture
def priced(offline_generation):
    for setup in offline_generation.values():
        setup.update(
            price_in=Decimal(3),
            price_out=Decimal(15),
            activation_price_in=Decimal(1),
            activation_price_out=Decimal(5),
        )
    return offline_generation


def text(response) -> str:
    return response.content.decode()


def test_the_launch_page_shows_the_cost_estimate_per_provider(admin, priced, generation_corpus):
    body = text(admin.get(reverse("corpus:generation-new")))

    estimate = body[body.index('data-testid="cost-estimate"') :]
    for provider in ("Claude (offline_demo)", "GPT (offline_demo)", "Gemini (offline_demo)"):
        assert provider in estimate
    # 4 pairs × 3 families, each unit a screening and a response call (3 memories each).
    assert estimate.count('data-testid="cost-calls">8<') == 3
    assert "±30%" in estimate and "one token per 4 characters" in estimate
    assert "price not configured" not in estimate
    total = estimate[estimate.index('data-testid="cost-total">$') :].split("$")[1].split("<")[0]
    assert Decimal(total) > 0


def test_a_family_without_prices_says_so(admin, offline_generation, generation_corpus):
    body = text(admin.get(reverse("corpus:generation-new")))
    assert body.count("price not configured") == 3
    assert 'data-testid="cost-unpriced"' in body


def test_a_run_launched_with_a_budget_shows_it(
    admin, priced, generation_corpus, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(
            reverse("corpus:generation-new"),
            {"launch": "Launch run", "families": ["gpt"], "budget_usd": "2.50"},
        )
    run = GenerationRun.objects.get()
    assert run.budget_usd == Decimal("2.50")
    assert response.status_code == 302
    body = text(admin.get(reverse("corpus:generation-detail", args=[run.pk])))
    assert 'data-testid="run-budget">Budget: $2.50<' in body


def test_a_budget_that_is_not_an_amount_is_refused(admin, priced, generation_corpus):
    response = admin.post(
        reverse("corpus:generation-new"),
        {"launch": "Launch run", "families": ["gpt"], "budget_usd": "-3"},
    )
    assert response.status_code == 200
    assert not GenerationRun.objects.exists()
    assert "greater than or equal to 0.01" in text(response)


def stopped_run(make_run, generation_corpus):
    run = make_run(
        generation_corpus["characters"],
        generation_corpus["scenarios"],
        families=["gpt"],
        statuses=("succeeded", "pending"),
        run_status=Status.STOPPED_AT_BUDGET,
    )
    run.budget_usd = Decimal("0.02")
    run.stop_reason = "Stopped at its budget of $0.02: its calls have cost $0.05."
    run.save()
    return run


def test_a_stopped_run_says_why_and_offers_a_resume(admin, priced, make_run, generation_corpus):
    run = stopped_run(make_run, generation_corpus)
    body = text(admin.get(reverse("corpus:generation-detail", args=[run.pk])))

    assert 'data-status="stopped_at_budget">Stopped at budget<' in body
    assert "Stopped at its budget of $0.02: its calls have cost $0.05." in body
    assert f'action="{reverse("corpus:generation-resume", args=[run.pk])}"' in body
    assert 'name="budget_usd"' in body
    assert 'hx-trigger="every 1s"' not in body  # nothing runs until it is resumed


def test_a_resume_below_the_cost_so_far_is_refused_on_the_page(
    admin, priced, make_run, generation_corpus
):
    run = stopped_run(make_run, generation_corpus)
    response = admin.post(
        reverse("corpus:generation-resume", args=[run.pk]), {"budget_usd": "0.03"}
    )
    assert response.status_code == 200
    assert "would stop again at once" in text(response)
    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET and run.budget_usd == Decimal("0.02")


def test_a_resume_without_a_budget_runs_the_waiting_units(
    admin, priced, make_run, generation_corpus, django_capture_on_commit_callbacks
):
    run = stopped_run(make_run, generation_corpus)
    done_before = set(Candidate.objects.filter(run=run).values_list("unit_id", flat=True))

    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(
            reverse("corpus:generation-resume", args=[run.pk]), {"budget_usd": ""}
        )

    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == Status.FINISHED and run.budget_usd is None and not run.stop_reason
    candidates = list(Candidate.objects.filter(run=run).values_list("unit_id", flat=True))
    assert len(candidates) == len(set(candidates)) == run.units.count() == 4
    assert done_before < set(candidates)
