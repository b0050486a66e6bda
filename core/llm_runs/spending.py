"""Spending limits of every LLM-backed run (issue #36): a run's own budget and the lab's
monthly cap per provider.

Both are checked when a worker is about to take up a unit of a running run
(``RunFlow.claim_allowed``): once the run's recorded cost (the sum of its units'
``cost_usd``) reaches its budget, or the month's recorded spend of a provider the run
uses (the sum of every stage's call records' ``cost_usd`` since the first of the month,
UTC) reaches that provider's cap, the run is stopped at budget with a reason saying
which. No unit is taken up after that; units a worker already holds finish their calls
and are recorded as usual, and waiting units stay waiting. Resuming the run (with a
raised budget, or none) queues the waiting units again.

The check runs before a unit, not before every call: a run can overshoot its budget by
what the units already in flight cost (at most one unit per worker process).
"""

import datetime
from decimal import Decimal

from django.apps import apps
from django.db.models import Sum
from django.utils import timezone

from core.llm_runs.models import AbstractCall, MonthlySpendingCap

__all__ = [
    "month_spend",
    "month_start",
    "parse_budget",
    "run_spend",
    "spending_stop_reason",
    "usd",
]


def usd(amount) -> str:
    """$1,234.57: how the pages and the reasons write an amount."""
    return f"${Decimal(amount or 0):,.2f}"


def parse_budget(value) -> Decimal | None:
    """A budget as typed (blank: none); raises ``ValueError`` with a message a person can
    act on."""
    if value is None or str(value).strip() == "":
        return None
    try:
        amount = Decimal(str(value).strip().lstrip("$").replace(",", ""))
    except ArithmeticError:
        raise ValueError(f"The budget {value!r} is not an amount in USD.") from None
    if not amount.is_finite() or amount <= 0:
        raise ValueError("A budget is an amount in USD above 0 (leave it blank for none).")
    return amount.quantize(Decimal("0.01"))


def run_spend(flow, run_id: int) -> Decimal:
    """What the run's calls cost so far: the sum of its units' recorded costs."""
    total = flow.units(run_id).aggregate(total=Sum("cost_usd"))["total"]
    return total or Decimal("0")


def month_start(now: datetime.datetime | None = None) -> datetime.datetime:
    """The first instant of the current calendar month, UTC."""
    now = (now or timezone.now()).astimezone(datetime.UTC)
    return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def call_record_models() -> list:
    """Every stage's call-record model (each derives from ``AbstractCall``)."""
    return [m for m in apps.get_models() if issubclass(m, AbstractCall)]


def month_spend(provider: str, *, now=None) -> Decimal:
    """The provider's recorded spend this calendar month, over every stage's calls."""
    since = month_start(now)
    total = Decimal("0")
    for model in call_record_models():
        rows = model.objects.filter(provider=provider, created_at__gte=since)
        total += rows.aggregate(total=Sum("cost_usd"))["total"] or Decimal("0")
    return total


def spending_stop_reason(flow, run) -> str:
    """Why ``run`` may take up no further unit ("" when it may): its budget is reached,
    or a provider it uses has reached the lab's monthly cap."""
    if run.budget_usd is not None:
        spent = run_spend(flow, run.pk)
        if spent >= run.budget_usd:
            return (
                f"Stopped at its budget of {usd(run.budget_usd)}: its calls have cost "
                f"{usd(spent)}. Resume it with a higher budget, or none, to finish it."
            )
    providers = sorted(set(flow.providers(run))) if flow.providers else []
    if providers:
        for cap in MonthlySpendingCap.objects.filter(provider__in=providers):
            spent = month_spend(cap.provider)
            if spent >= cap.cap_usd:
                month = month_start().strftime("%B %Y")
                return (
                    f"Stopped at the lab's monthly cap for {cap.provider}: "
                    f"{usd(spent)} spent in {month}, cap {usd(cap.cap_usd)}. Resume it "
                    "once the cap is raised (Django admin: Monthly spending caps) or next month."
                )
    return ""
