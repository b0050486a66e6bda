"""The subset selection through its pages (App. J): a quota per answer-key source with the
paper's defaults, the arbitrator's rewrites as a source of their own, every balance range
scaled or set by hand, and on a small benchmark where the defaults cannot hold, the
largest feasible study (the optimum of quotas chosen by hand) proposed and taken with one
click."""

import re
from collections import Counter

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from adjudication.arbitration.models import ReferenceResponse
from humanbaseline import selectors, services
from humanbaseline.models import ItemSourceFamily, SubsetSelection

from .conftest import build_items
from .subset_checks import hand_chosen_optimum

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def small_benchmark(role_groups):
    """12 final items (4 characters × 3 scenarios), 4 per family, the arbitrator's rewrite
    of CHAR_01's reference in scenario 1 (a GPT item before): gemini 4, claude 4, gpt 3,
    expert rewrite 1."""
    items = build_items(4, 3)
    rewritten = items[0]
    ReferenceResponse.objects.filter(pk=rewritten.reference_id).update(
        decision_type=ReferenceResponse.DecisionType.REWRITTEN, source_family=""
    )
    return items, rewritten


def form_defaults(page: str) -> dict:
    """The selection form's fields as the admin page renders them (its initial values)."""
    form = page[page.index(f'action="{reverse("baseline:selection-create")}"') :]
    form = form[: form.index("</form>")]
    data = {}
    for tag in re.findall(r"<input[^>]*>", form):
        name = re.search(r'name="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name and name.group(1) not in ("csrfmiddlewaretoken", "submit"):
            data[name.group(1)] = value.group(1) if value else ""
    return data


def hidden_fields(page: str, marker: str) -> dict:
    form = page[page.index(marker) :]
    form = form[: form.index("</form>")]
    return {
        name: value
        for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form)
        if name != "csrfmiddlewaretoken"
    }


def test_the_defaults_fail_on_a_small_benchmark_and_the_largest_study_is_one_click_away(
    admin_client, small_benchmark
):
    items, rewritten = small_benchmark
    page = admin_client.get(reverse("baseline:admin")).content.decode()
    for line in ("gemini: 4", "claude: 4", "gpt: 3", "expert_rewrite: 1", "(none): 0"):
        assert f"<li>{line}</li>" in page
    data = form_defaults(page)
    # The paper's defaults: 50 per family, no rewrites, every range scaled (blank).
    assert {k: v for k, v in data.items() if k.startswith("quota_")} == {
        "quota_gemini": "50",
        "quota_claude": "50",
        "quota_gpt": "50",
        "quota_expert_rewrite": "0",
    }
    assert data["cell_min"] == data["cell_max"] == data["source_stage_slack"] == ""
    response = admin_client.post(reverse("baseline:selection-create"), {**data, "seed": "11"})
    failed = SubsetSelection.objects.get()
    assert response.status_code == 302 and not failed.feasible
    page = admin_client.get(response.url).content.decode()
    assert "These constraints cannot hold" in page
    assert "source gpt has only 3 eligible items; its quota is 50." in page
    # Issue 32: the largest study any quotas admit (the rewrite included), not the asked
    # quotas shrunk together (3 per family, 9 items, the rewrite left out).
    candidates, _ = selectors.subset_candidates()
    best = hand_chosen_optimum(candidates)
    assert best > 9
    assert f"The largest feasible study: {best} items" in page
    proposal = hidden_fields(page, 'data-testid="proposal"')
    quotas = {k.removeprefix("quota_"): int(v) for k, v in proposal.items() if k != "seed"}
    assert proposal["seed"] == "11" and sum(quotas.values()) == best
    assert quotas["expert_rewrite"] == 1  # asked for 0: the page says so
    assert "expert_rewrite 1 (asked 0)" in page

    response = admin_client.post(reverse("baseline:selection-create"), proposal)
    used = SubsetSelection.objects.exclude(pk=failed.pk).get()
    assert used.feasible, used.problems
    assert Counter(used.items.values_list("family", flat=True)) == {
        s: q for s, q in quotas.items() if q
    }
    assert used.items.filter(item=rewritten).exists()
    # The same seed and constraints: the subset the proposal computed.
    assert used.parameters["total"] == best and used.seed == 11
    page = admin_client.get(response.url).content.decode()
    assert "feasible</span>" in page and 'data-testid="proposal"' not in page


def test_a_quota_for_expert_rewrites_brings_the_rewritten_reference_in(
    admin_client, small_benchmark
):
    items, rewritten = small_benchmark
    quotas = {"quota_gemini": 1, "quota_claude": 1, "quota_gpt": 1, "quota_expert_rewrite": 1}
    admin_client.post(reverse("baseline:selection-create"), {"seed": 3, **quotas})
    selection = SubsetSelection.objects.get()
    assert selection.feasible, selection.problems
    assert selection.items.get(item=rewritten).family == "expert_rewrite"
    # Copying sources from the references records the rewrite too.
    services.item_families_from_references()
    assert ItemSourceFamily.objects.get(item=rewritten).family == "expert_rewrite"


def test_ranges_set_by_hand_are_recorded_and_half_a_range_is_refused(admin_client, small_benchmark):
    quotas = {"quota_gemini": 2, "quota_claude": 2, "quota_gpt": 2, "quota_expert_rewrite": 0}
    page = admin_client.post(
        reverse("baseline:selection-create"), {"seed": 1, **quotas, "cell_min": 1}
    ).content.decode()
    assert (
        "Set both the minimum and the maximum of &#x27;items per character × life-stage "
        "cell&#x27;, or neither." in page
    )
    assert not SubsetSelection.objects.exists()
    page = admin_client.post(
        reverse("baseline:selection-create"),
        {"seed": 1, **{k: 0 for k in quotas}},
    ).content.decode()
    assert "Every quota is 0: give at least one source a quota." in page
    assert not SubsetSelection.objects.exists()

    response = admin_client.post(
        reverse("baseline:selection-create"),
        {"seed": 1, **quotas, "character_min": 1, "character_max": 2, "stage_slack": 1},
    )
    selection = SubsetSelection.objects.get()
    assert selection.feasible, selection.problems
    assert selection.parameters["overrides"] == {"character": [1, 2]}
    assert selection.parameters["slack"] == {"stage": 1}
    assert selection.parameters["ranges"]["character"] == {"all": "1–2"}
    page = admin_client.get(response.url).content.decode()
    assert "set by hand" in page and "tolerance ±1" in page


def test_a_csv_can_name_the_expert_rewrite_source(admin_client, small_benchmark):
    items, _ = small_benchmark
    text = f"question_id,family\n{items[5].question_id},Expert rewrite\n"
    admin_client.post(
        reverse("baseline:families"),
        {"file": SimpleUploadedFile("s.csv", text.encode(), "text/csv")},
    )
    assert ItemSourceFamily.objects.get(item=items[5]).family == "expert_rewrite"


def test_the_selection_pages_take_constant_queries(
    admin_client, small_benchmark, django_assert_num_queries
):
    quotas = {"quota_gemini": 3, "quota_claude": 3, "quota_gpt": 3, "quota_expert_rewrite": 0}
    admin_client.post(reverse("baseline:selection-create"), {"seed": 1, **quotas})
    first = SubsetSelection.objects.get()
    admin_url = reverse("baseline:admin")
    detail_url = reverse("baseline:selection-detail", args=[first.pk])
    admin_client.get(admin_url)
    with django_assert_num_queries(ADMIN_PAGE_QUERIES):
        admin_client.get(admin_url)
    with django_assert_num_queries(DETAIL_PAGE_QUERIES):
        admin_client.get(detail_url)
    for seed in (2, 3):
        admin_client.post(reverse("baseline:selection-create"), {"seed": seed, **quotas})
    admin_client.post(reverse("baseline:selection-create"), {"seed": 4, **quotas, "quota_gpt": 50})
    with django_assert_num_queries(ADMIN_PAGE_QUERIES):
        body = admin_client.get(admin_url).content.decode()
    assert body.count("infeasible (precheck)") == 1
    larger = SubsetSelection.objects.order_by("-pk").first()
    assert larger.proposal
    with django_assert_num_queries(DETAIL_PAGE_QUERIES):
        admin_client.get(reverse("baseline:selection-detail", args=[larger.pk]))


ADMIN_PAGE_QUERIES = 7
DETAIL_PAGE_QUERIES = 6
