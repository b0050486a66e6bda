"""The blinding report's interval and test are clustered by assignment: the three guesses
of one assignment are not independent, and treating them as independent (Wilson, exact
binomial) makes the report claim more certainty than it has. Beyond seed 000 (its §2.4
Stage 2 blinds the families; the guess question and this report are the platform's own
check of that blinding)."""

import csv
import io

import numpy as np
import pytest
import statsmodels.api as sm
from django.urls import reverse
from scipy.stats import norm

from annotation.blinding import services as blinding
from annotation.blinding.guess_rates import CHANCE, clustered_share, tally
from annotation.blinding.selectors import blinding_report
from annotation.comparison.models import COMPARISON_LETTERS
from tests.blinding_check.test_family_guess import truth
from tests.comparison.helpers import assign, judge, make_pair, people

FAMILIES = ("claude", "gpt", "gemini")


def statsmodels_clustered(clusters):
    """Intercept-only least squares on the 0/1 guesses, errors clustered by assignment."""
    y = np.concatenate([[1.0] * r + [0.0] * (n - r) for r, n in clusters])
    groups = np.concatenate([[g] * n for g, (_, n) in enumerate(clusters)])
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    rate, se = float(fit.params[0]), float(fit.bse[0])
    low, high = fit.conf_int(alpha=0.05)[0]
    return rate, se, (max(0.0, low), min(1.0, high)), float(norm.sf((rate - CHANCE) / se))


def perfectly_correlated_guesses(n_right, n_wrong):
    """(truth, guess, assignment): each assignment's three guesses all right or all wrong."""
    guesses = []
    for a in range(n_right + n_wrong):
        for k, family in enumerate(FAMILIES):
            wrong = FAMILIES[(k + 1) % 3]
            guesses.append((family, family if a < n_right else wrong, a))
    return guesses


@pytest.mark.parametrize(("n_right", "n_wrong"), [(4, 6), (7, 5), (2, 1), (20, 22)])
def test_perfectly_correlated_guesses_get_a_wider_interval_and_a_larger_p(n_right, n_wrong):
    """With every assignment's three guesses all right or all wrong, the clustered
    interval is wider and the clustered p-value larger than the independent ones, and
    both equal statsmodels' cluster-robust fit."""
    t = tally("all", perfectly_correlated_guesses(n_right, n_wrong))
    assert (t.right, t.named) == (3 * n_right, 3 * (n_right + n_wrong))
    rate, se, ci, p = statsmodels_clustered(t.clusters)
    c = t.clustered
    assert c.rate == pytest.approx(rate) and c.se == pytest.approx(se)
    assert t.clustered_ci == pytest.approx(ci)
    assert t.clustered_p_value == pytest.approx(p)
    low, high = t.ci
    assert t.clustered_ci[1] - t.clustered_ci[0] > high - low
    assert t.clustered_p_value > t.p_value


def test_independent_looking_assignments_match_statsmodels_too():
    """Assignments with mixed guesses: still statsmodels' cluster-robust figures."""
    clusters = [(1, 3), (2, 3), (0, 2), (3, 3), (1, 1), (2, 3), (0, 0)]
    rate, se, ci, p = statsmodels_clustered([c for c in clusters if c[1]])
    c = clustered_share(clusters)
    assert c.n_clusters == 6
    assert (c.rate, c.se, c.p_value) == pytest.approx((rate, se, p))
    assert c.ci == pytest.approx(ci)


def test_one_assignment_has_no_clustered_figures():
    """One assignment has no spread between assignments to estimate an error from."""
    t = tally("one", perfectly_correlated_guesses(1, 0))
    assert t.clustered is None and t.clustered_ci is None and t.clustered_p_value is None
    assert t.ci is not None  # the independent interval is still given


@pytest.mark.django_db
def test_the_report_page_and_downloads_carry_the_clustered_test(client):
    """Three annotators' guesses on one pair: two name every family right, one names every
    family wrong. The report's overall and per-annotator figures are the clustered ones,
    on the page, in the CSV and in the API rows."""
    who = people()
    pair = make_pair(key="CHAR_52")
    assigned = list(assign(pair, who["annotators"], who["admin"]).values())
    for a in assigned:
        judge(a, family="gemini")
    for n, a in enumerate(assigned):
        t = truth(a)
        guesses = {
            x: t[x] if n != 1 else FAMILIES[(FAMILIES.index(t[x]) + 1) % 3]
            for x in COMPARISON_LETTERS
        }
        blinding.family_guess_save(public_id=a.public_id, annotator=a.annotator, guesses=guesses)

    report = blinding_report()
    o = report.overall
    assert (o.right, o.named) == (6, 9)
    rate, se, ci, p = statsmodels_clustered([(3, 3), (0, 3), (3, 3)])
    assert o.clustered_ci == pytest.approx(ci) and o.clustered_p_value == pytest.approx(p)
    assert o.clustered_p_value > o.p_value
    assert o.clustered_ci[1] - o.clustered_ci[0] > o.ci[1] - o.ci[0]
    # Per family, each assignment gives one guess: clusters of one.
    for t in report.by_family:
        assert all(n == 1 for _, n in t.clusters)

    client.force_login(who["admin"])
    page = client.get(reverse("blinding:report")).content.decode()
    assert "clustered" in page and 'data-testid="clustered-p"' in page
    rows = list(
        csv.reader(io.StringIO(client.get(reverse("blinding:report-csv")).content.decode()))
    )
    values = {name: value for _, name, value in rows[1:]}
    assert float(values["all_clustered_ci_low"]) == pytest.approx(ci[0])
    assert float(values["all_clustered_p_greater_than_chance"]) == pytest.approx(p)
    api = client.get(reverse("blinding-api:report-rows")).json()
    api_rows = api["results"] if isinstance(api, dict) else api
    overall = next(r for r in api_rows if r["group"] == "all")
    assert overall["clustered_p_greater_than_chance"] == pytest.approx(p)
    assert overall["clustered_ci_high"] == pytest.approx(ci[1])
