"""Coverage views (App. C.2, Table 13): final-rating distribution, scenarios per bin,
agreement before re-assessment; checked against values computed by hand."""

import csv
import io

import pytest
from django.urls import reverse

from annotation.scenario_review.selectors import scenario_coverage
from annotation.scenario_review.services import (
    scenario_reassess_confirm,
    scenario_reassess_propose,
)
from core.text_diff import identity_anchors
from tests.factories import ScenarioFactory
from tests.web.plot_checks import assert_downloads, assert_readable_plot, svgs, texts

from .conftest import approve, login, rate

# Pass-2 ratings of three scenarios (duty, intellect, adversity, mating, positivity,
# negativity, deception, sociality) by the two reviewers.
RATINGS = {
    "SCN_SCHOOL_AGE_1": ((5, 3, 6, 1, 2, 6, 2, 5), (5, 3, 6, 1, 2, 6, 2, 5)),
    "SCN_SCHOOL_AGE_2": ((2, 6, 4, 1, 3, 4, 1, 6), (3, 6, 4, 2, 3, 4, 1, 6)),
    "SCN_ADOLESCENCE_1": ((7, 2, 6, 3, 1, 7, 5, 4), (7, 2, 3, 3, 1, 7, 5, 4)),  # adversity 6/3
}
FIELDS = (
    "duty",
    "intellect",
    "adversity",
    "mating",
    "positivity",
    "negativity",
    "deception",
    "sociality",
)


@pytest.fixture
def reviewed(scenario_reviewers):
    first, second = scenario_reviewers
    for sid in RATINGS:
        stage = "adolescence" if "ADOLESCENCE" in sid else "school_age"
        ScenarioFactory(scenario_id=sid, stage=stage, age=15 if stage == "adolescence" else 9)
    ScenarioFactory(
        scenario_id="SCN_SCHOOL_AGE_9",
        context_text="You are 34 years old and have worked as a nurse for ten years.",
    )
    for sid, (a, b) in RATINGS.items():
        approve(sid, first)
        approve(sid, second)
        rate(sid, first, **dict(zip(FIELDS, a, strict=True)))
        rate(sid, second, **dict(zip(FIELDS, b, strict=True)))
    proposal = scenario_reassess_propose(
        scenario_id="SCN_ADOLESCENCE_1", reviewer=first, agreed={"adversity": 5}
    )
    scenario_reassess_confirm(
        scenario_id="SCN_ADOLESCENCE_1",
        reviewer=second,
        proposal_id=proposal.pk,
        agreed={"adversity": 5},
    )


def linear_weighted_kappa(pairs, k=7):
    """Cohen's linear-weighted κ written out from its definition."""
    n = len(pairs)
    a_marg = [sum(1 for a, _ in pairs if a == i) / n for i in range(1, k + 1)]
    b_marg = [sum(1 for _, b in pairs if b == j) / n for j in range(1, k + 1)]
    observed = sum(abs(a - b) for a, b in pairs) / n
    expected = sum(
        abs(i - j) * a_marg[i - 1] * b_marg[j - 1] for i in range(1, k + 1) for j in range(1, k + 1)
    )
    return 1 - observed / expected


def test_the_distribution_rows_sum_to_the_number_of_scenarios(reviewed):
    coverage = scenario_coverage()
    assert coverage.n_final == 3
    rows = {r.field: r.counts for r in coverage.distribution}
    assert all(sum(counts) == 3 for counts in rows.values())
    # Finals by hand: duty 5, (2 vs 3 → 2: on SCN_SCHOOL_AGE_2 duty resolves down), 7.
    assert rows["duty"] == [0, 1, 0, 0, 1, 0, 1]
    # adversity: 6, 4, and the re-assessed 5.
    assert rows["adversity"] == [0, 0, 0, 1, 1, 1, 0]
    # mating: 1, (1 vs 2 → 2: mating resolves up there), 3.
    assert rows["mating"] == [1, 1, 1, 0, 0, 0, 0]


def test_agreement_is_computed_on_the_ratings_before_reassessment(reviewed):
    agreement = {a.label: a for a in scenario_coverage().agreement}
    adversity = agreement["Adversity"]
    assert adversity.n_units == 3
    assert adversity.exact == pytest.approx(66.7) and adversity.within_one == pytest.approx(66.7)
    pairs = [(6, 6), (4, 4), (6, 3)]
    assert adversity.kappa_linear.value == pytest.approx(linear_weighted_kappa(pairs), abs=1e-3)
    # Every dimension but three agrees exactly, so α and κ are 1 there.
    assert agreement["Intellect"].alpha.value == 1.0
    assert agreement["Intellect"].kappa_linear.value == 1.0
    pooled = agreement["All dimensions pooled"]
    assert pooled.n_units == 24
    assert pooled.exact == pytest.approx(100 * 21 / 24, abs=0.1)


def test_life_stage_bins_and_the_character_agnostic_check(reviewed):
    stages = {s.key: s for s in scenario_coverage().stages}
    assert (stages["school_age"].total, stages["school_age"].complete) == (3, 2)
    assert (stages["adolescence"].total, stages["adolescence"].complete) == (1, 1)
    assert stages["midlife_transition"].total == 0
    assert stages["school_age"].anchored == ["SCN_SCHOOL_AGE_9"]


def test_identity_anchor_heuristic():
    kinds = {
        k
        for k, _ in identity_anchors(
            "You are 34 years old. You have worked as a clerk. Your 5-year-old daughter waits."
        )
    }
    assert kinds == {"age", "tenure", "family"}
    assert identity_anchors("Your colleague Mara, 34, has worked as a nurse for years.") == []


def test_pages_plots_and_csv(reviewed, scenario_reviewers):
    client = login(scenario_reviewers[0])
    page = client.get(reverse("review:scenario-coverage")).content.decode()
    assert 'data-testid="diamonds-chart"' in page and "<svg" in page and "<rect" in page
    assert 'data-testid="stage-chart"' in page
    assert "<script" not in page.split('id="main"')[1].split("</main>")[0]
    body = client.get(reverse("review:coverage-diamonds-csv")).content.decode()
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0] == ["dimension", *[f"rated_{v}" for v in range(1, 8)], "scenarios"]
    assert rows[3] == ["Adversity", "0", "0", "0", "1", "1", "1", "0", "3"]
    stages = list(
        csv.reader(
            io.StringIO(client.get(reverse("review:coverage-life-stages-csv")).content.decode())
        )
    )
    assert stages[1][:6] == ["school_age", "School age", "ages 6-11", "3", "8", "2"]
    agreement = list(
        csv.reader(
            io.StringIO(client.get(reverse("review:coverage-agreement-csv")).content.decode())
        )
    )
    assert agreement[3][:2] == ["Adversity", "3"]
    api = client.get(reverse("review-api:scenario-coverage")).json()
    assert api["distribution"]["adversity"] == [0, 0, 0, 1, 1, 1, 0]
    assert api["life_stages"]["school_age"] == 3


def test_the_coverage_plots_are_readable_and_downloadable(reviewed, scenario_reviewers):
    client = login(scenario_reviewers[0])
    response = client.get(reverse("review:scenario-coverage"))
    plots = svgs(response.content.decode())
    assert set(plots) == {"diamonds-chart", "stage-chart"}
    for svg in plots.values():
        assert_readable_plot(svg, legend=True)
    stages = texts(plots["stage-chart"], "category")
    assert "School age" in stages and "school_age" not in stages
    # The target line is named in the legend, not an unlabelled dashed line.
    assert "Target (8 per bin)" in texts(plots["stage-chart"], "legend")
    assert texts(plots["diamonds-chart"], "legend")[0] == "Rating"
    for plot in response.context["plots"].values():
        assert_downloads(client, plot)
    # Two reviewers rated only a few scenarios: the coefficients say so.
    assert 'data-testid="small-n-note"' in response.content.decode()


def test_coverage_plot_downloads_follow_the_page_permissions(client, reviewed):
    from tests.factories import UserFactory

    client.force_login(UserFactory(roles=[]))
    url = reverse("review:coverage-plot", kwargs={"plot": "diamonds", "fmt": "png"})
    assert client.get(url).status_code == 403
