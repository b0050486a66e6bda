"""The cost estimate shown before a run is launched (issue #36), one arithmetic for every
LLM-backed stage.

A workflow builds the prompts its run will send with its own prompt builders (for every
unit, or a sample it scales up) and hands them here as ``PlannedCall`` rows with the
configured prices. The estimate counts:

* input tokens: the characters of the system prompt, the user prompt and the output
  schema (as JSON), divided by ``CHARS_PER_TOKEN`` and rounded up. Providers count with
  their own tokenizers, which for English prose come to roughly four characters a token;
  the request's own wrapping (roles, field names) adds a little more.
* output tokens: per stage, the average of the stage's earlier successful calls when
  there are any (``average_output_tokens``), else the workflow's stated assumption.
* cost: tokens times the configured USD price per million tokens, per provider.

The recorded cost of the run is expected within ``ESTIMATE_MARGIN`` of the estimate
either way; retries, structured-output repair rounds and answers longer than usual are
what push it up.
"""

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Avg, Count, Value

from core.llm_runs.models import MILLION

__all__ = [
    "CHARS_PER_TOKEN",
    "ESTIMATE_MARGIN",
    "PlannedCall",
    "ProviderEstimate",
    "RunEstimate",
    "average_output_tokens",
    "estimate_run",
    "even_sample",
    "past_output_tokens",
    "prompt_tokens",
]

#: One token is taken as four characters of prompt text.
CHARS_PER_TOKEN = 4
#: The recorded cost is expected within this share of the estimate, either way.
ESTIMATE_MARGIN = Decimal("0.30")


def even_sample(items, size: int) -> list:
    """``size`` of ``items`` spread evenly over them (all of them when there are fewer):
    the units whose prompts an estimate builds before scaling up to all."""
    items = list(items)
    if len(items) <= size:
        return items
    step = len(items) / size
    return [items[int(i * step)] for i in range(size)]


def prompt_tokens(system: str, user: str, schema=None) -> int:
    """The input tokens of one call: its characters over ``CHARS_PER_TOKEN``, rounded up.
    The schema counts as compact JSON, the way it travels."""
    chars = len(system) + len(user)
    if schema is not None:
        chars += len(json.dumps(schema, separators=(",", ":")))
    return math.ceil(chars / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class PlannedCall:
    """One call the run will make: who answers (``provider``, as the page names it), at
    which stage, with what prompt, at which prices (USD per million tokens, in and
    out; zero: not configured), and how many times (``count``)."""

    provider: str
    stage: str
    system: str
    user: str
    schema: object = None
    prices: tuple = (Decimal("0"), Decimal("0"))
    count: int = 1

    @property
    def tokens_in(self) -> int:
        return prompt_tokens(self.system, self.user, self.schema)


@dataclass
class ProviderEstimate:
    """The estimate of one provider's share of the run."""

    provider: str
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: Decimal = Decimal("0")
    #: False when a price of this provider is not configured (counted as 0).
    priced: bool = True


@dataclass
class RunEstimate:
    """What the run is expected to cost, per provider, with the assumptions stated."""

    providers: list[ProviderEstimate] = field(default_factory=list)
    margin: Decimal = ESTIMATE_MARGIN
    #: Output tokens assumed per call, by stage, and where each number comes from.
    output_basis: dict = field(default_factory=dict)
    #: How many of the run's units the prompts were built for (the rest scaled up).
    units_sampled: int = 0
    units: int = 0
    chars_per_token: int = CHARS_PER_TOKEN

    @property
    def calls(self) -> int:
        return sum(p.calls for p in self.providers)

    @property
    def tokens_in(self) -> int:
        return sum(p.tokens_in for p in self.providers)

    @property
    def tokens_out(self) -> int:
        return sum(p.tokens_out for p in self.providers)

    @property
    def cost_usd(self) -> Decimal:
        return sum((p.cost_usd for p in self.providers), Decimal("0"))

    @property
    def cost_low(self) -> Decimal:
        return self.cost_usd * (1 - self.margin)

    @property
    def cost_high(self) -> Decimal:
        return self.cost_usd * (1 + self.margin)

    @property
    def margin_percent(self) -> int:
        return int(self.margin * 100)

    @property
    def unpriced(self) -> list[str]:
        return [p.provider for p in self.providers if not p.priced]

    @property
    def sampled(self) -> bool:
        return 0 < self.units_sampled < self.units


def estimate_run(
    calls: Iterable[PlannedCall],
    *,
    output_tokens: dict,
    scale: Decimal | int = 1,
    units: int = 0,
    units_sampled: int = 0,
    output_basis: dict | None = None,
) -> RunEstimate:
    """Sum ``calls`` per provider, in the order providers first appear. ``output_tokens``
    maps a stage to the tokens assumed per answer; ``scale`` (the run's units over the
    units sampled) multiplies every count."""
    rows: dict[str, ProviderEstimate] = {}
    for call in calls:
        row = rows.setdefault(call.provider, ProviderEstimate(call.provider))
        price_in, price_out = (Decimal(str(p)) for p in call.prices)
        tokens_in = call.tokens_in * call.count
        tokens_out = output_tokens.get(call.stage, 0) * call.count
        row.calls += call.count
        row.tokens_in += tokens_in
        row.tokens_out += tokens_out
        row.cost_usd += (tokens_in * price_in + tokens_out * price_out) / MILLION
        row.priced = row.priced and price_in > 0 and price_out > 0
    scale = Decimal(str(scale))
    if scale != 1:
        for row in rows.values():
            row.calls = round(row.calls * scale)
            row.tokens_in = round(row.tokens_in * scale)
            row.tokens_out = round(row.tokens_out * scale)
            row.cost_usd *= scale
    return RunEstimate(
        providers=list(rows.values()),
        output_basis=output_basis or {},
        units=units,
        units_sampled=units_sampled,
    )


def average_output_tokens(calls, *, stage_field: str, assumed: dict) -> tuple[dict, dict]:
    """Output tokens per answer by stage: the average over ``calls`` (a call-record
    queryset) that succeeded, else ``assumed[stage]``. Returns the numbers and, per
    stage, where each comes from (for the page)."""
    past = {
        row[stage_field]: row
        for row in calls.filter(ok=True)
        .values(stage_field)
        .annotate(n=Count("pk"), avg=Avg("tokens_out"))
        .order_by()
    }
    tokens, basis = {}, {}
    for stage, default in assumed.items():
        row = past.get(stage)
        if row and row["n"]:
            tokens[stage] = math.ceil(row["avg"])
            basis[stage] = f"{tokens[stage]:,} (average of {row['n']:,} earlier calls)"
        else:
            tokens[stage] = default
            basis[stage] = f"{default:,} (assumed: no earlier calls)"
    return tokens, basis


def past_output_tokens(calls, *, assumed: int) -> tuple[int, str]:
    """``average_output_tokens`` for a stage whose calls are all of one kind: the tokens
    per answer and where the number comes from."""
    tokens, basis = average_output_tokens(
        calls.annotate(one_stage=Value("")), stage_field="one_stage", assumed={"": assumed}
    )
    return tokens[""], basis[""]
