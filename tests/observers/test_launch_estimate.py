"""The observer run launch page's cost estimate (issue 37): per family, before launch, from
the prompts the run will send (four characters a token, the output tokens of the earlier
observer calls or the stated assumption, the stated margin). The test launches the run
it estimated, runs its units against the fake provider over real HTTP, and recomputes
the estimate from the requests the server received."""

import json
import math
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from audit.observers.models import ObserverCall, ObserverRun
from audit.observers.services import observer_unit_execute
from llm.testing.provider_formats import _SCHEMA_MARKER

from .helpers import character_written_for, inventory, vector

pytestmark = pytest.mark.django_db

URL = reverse("audit:observers:launch")
FAMILIES = {"claude": "Claude", "gpt": "GPT", "gemini": "Gemini"}
ROUTES = {"claude": "anthropic", "gpt": "openai", "gemini": "gemini"}
CLIENT_INSTRUCTION = "Reply with a single JSON value and nothing else"
PRICE_IN, PRICE_OUT = Decimal(3), Decimal(15)  # the families' response prices (conftest)
ROW = re.compile(
    r'<tr data-testid="cost-row">\s*<th scope="row" class="fw-normal">([^<]*)</th>\s*'
    r'<td class="text-end" data-testid="cost-calls">([\d,]+)</td>\s*'
    r'<td class="text-end" data-testid="cost-tokens"><span class="d-block">([\d,]+) in</span> '
    r'<span class="d-block">([\d,]+) out</span></td>\s*'
    r'<td class="text-end text-nowrap" data-testid="cost-usd">\$([\d.]+)</td>'
)


def shown_rows(html: str) -> dict[str, dict]:
    section = html.split('data-testid="observer-estimate"', 1)[1]
    rows = {}
    for provider, calls, tokens_in, tokens_out, cost in ROW.findall(section):
        family = next(f for f, label in FAMILIES.items() if provider.startswith(label + " "))
        rows[family] = {
            "calls": int(calls.replace(",", "")),
            "in": int(tokens_in.replace(",", "")),
            "out": int(tokens_out.replace(",", "")),
            "usd": Decimal(cost),
        }
    return rows


@pytest.fixture
def lab(observer_families, admin_client):
    form = inventory()
    first, _ = character_written_for("CHAR_01", vector(N=0.95))
    second, _ = character_written_for("CHAR_02", vector(E=0.10, C=0.90))
    data = {
        "inventory": form.pk,
        "characters": [first.pk, second.pk],
        "families": list(FAMILIES),
        "target": "memories",
        "sample_size": 7,
        "seed": 5,
    }
    return form, data


def test_the_estimate_equals_the_prompts_the_provider_then_receives(
    admin_client, lab, observer_server
):
    form, data = lab
    html = admin_client.post(URL, {**data, "estimate": "Estimate cost"}).content.decode()
    assert 'data-for="choice"' in html and "±30%" in html
    assert not ObserverRun.objects.exists()  # estimating launches nothing
    estimate = shown_rows(html)
    assert set(estimate) == set(FAMILIES)

    # Before any observer call: the answer the inventory asks for, every item at the top
    # of the scale, as compact JSON, at four characters a token.
    answer = {"observer_ratings": {item["id"]: form.scale_max for item in form.items}}
    assumed = math.ceil(len(json.dumps(answer, separators=(",", ":"))) / 4)
    assert f"{assumed} (assumed: no earlier calls)" in html

    response = admin_client.post(URL, {**data, "launch": "Launch observer run"})
    assert response.status_code == 302
    run = ObserverRun.objects.get()
    for unit_id in run.units.order_by("pk").values_list("pk", flat=True):
        observer_unit_execute(unit_id=unit_id)
    assert run.units.filter(status="succeeded").count() == 6

    for family, route in ROUTES.items():
        received = observer_server.requests_for(route)
        assert len(received) == 2  # one per character, no retry
        tokens_in = 0
        for request in received:
            # The client appends its own instruction and the schema to the system
            # prompt; the run's prompt is what comes before it.
            system, instruction = request.system.split(CLIENT_INSTRUCTION, 1)
            assert _SCHEMA_MARKER in instruction
            (role, user), *_ = request.turns()
            assert role == "user" and "=== Statements to rate ===" in user
            schema = json.dumps(request.schema(), separators=(",", ":"))
            tokens_in += math.ceil((len(system.rstrip()) + len(user) + len(schema)) / 4)
        tokens_out = assumed * len(received)
        cost = (tokens_in * PRICE_IN + tokens_out * PRICE_OUT) / Decimal(1_000_000)
        assert estimate[family] == {
            "calls": len(received),
            "in": tokens_in,
            "out": tokens_out,
            "usd": cost.quantize(Decimal("0.0001")),
        }, family
        # Every call the estimate counted was made and recorded, and no other.
        recorded = ObserverCall.objects.filter(unit__run=run, unit__observer=family)
        assert recorded.count() == estimate[family]["calls"], family


def test_after_a_run_the_output_tokens_are_the_recorded_average(admin_client, lab, observer_server):
    _, data = lab
    admin_client.post(URL, {**data, "launch": "Launch observer run"})
    for unit_id in ObserverRun.objects.get().units.values_list("pk", flat=True):
        observer_unit_execute(unit_id=unit_id)
    calls = list(ObserverCall.objects.filter(ok=True).values_list("tokens_out", flat=True))
    average = math.ceil(sum(calls) / len(calls))
    html = admin_client.post(URL, {**data, "estimate": "Estimate cost"}).content.decode()
    assert f"{average} (average of {len(calls)} earlier calls)" in html
    assert all(row["out"] == 2 * average for row in shown_rows(html).values())


def test_the_page_estimates_every_observable_character_before_anything_is_chosen(admin_client, lab):
    html = admin_client.get(URL).content.decode()
    assert 'data-for="all"' in html
    rows = shown_rows(html)
    assert set(rows) == set(FAMILIES) and all(r["calls"] == 2 for r in rows.values())
    # The launch button asks for a confirmation; the estimate button does not.
    launch = re.search(r'<input[^>]*name="launch"[^>]*>', html).group(0)
    estimate = re.search(r'<input[^>]*name="estimate"[^>]*>', html).group(0)
    assert "data-confirm=" in launch and "data-confirm" not in estimate
