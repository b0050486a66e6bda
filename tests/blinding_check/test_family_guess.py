"""The optional family question: closed (404) until the judgment is final, offered in
the queue after routing, never says whether a guess was right; the blinding report's
numbers match scipy, statsmodels and a hand count."""

import csv
import io

import pytest
from django.urls import reverse
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from annotation.blinding import services as blinding
from annotation.blinding.guess_rates import binomial_p_greater, wilson_interval
from annotation.blinding.selectors import blinding_report, selected_letter_counts
from annotation.comparison.models import COMPARISON_LETTERS, ComparisonJudgment
from annotation.comparison.services import ComparisonError
from annotation.generation.models import Candidate
from tests.comparison.helpers import assign, judge, make_pair, people

pytestmark = pytest.mark.django_db
FAMILY_NAMES = ("Claude", "GPT", "Gemini")


def truth(assignment):
    family = dict(
        Candidate.objects.filter(pk__in=assignment.permutation).values_list("pk", "family")
    )
    return {
        letter: family[pk]
        for letter, pk in zip(COMPARISON_LETTERS, assignment.permutation, strict=True)
    }


@pytest.fixture
def world():
    who = people()
    pair = make_pair(key="CHAR_51")
    assigned = list(assign(pair, who["annotators"], who["admin"]).values())
    return {**who, "pair": pair, "assigned": assigned}


def test_the_question_is_closed_until_the_pair_is_routed(client, world):
    first = world["assigned"][0]
    url = reverse("blinding:guess", args=[first.public_id])
    client.force_login(first.annotator)
    assert client.get(url).status_code == 404  # not submitted
    judge(first, family="claude")
    assert client.get(url).status_code == 404  # submitted, pair still open
    queue = client.get(reverse("comparison:queue")).content.decode()
    assert 'data-testid="family-question"' not in queue
    with pytest.raises(ComparisonError):
        blinding.family_guess_save(
            public_id=first.public_id, annotator=first.annotator, guesses={"A": "gpt"}
        )
    for a in world["assigned"][1:]:
        judge(a, family="claude")
    world["pair"].refresh_from_db()
    assert not world["pair"].is_open
    queue = client.get(reverse("comparison:queue")).content.decode()
    assert url in queue
    page = client.get(url).content.decode()
    assert all(name in page for name in FAMILY_NAMES)
    response = client.post(url, {"A": "claude", "B": "unknown", "C": "gpt"}, follow=True)
    body = response.content.decode()
    assert "your guesses are saved" in body
    for word in ("correct", "right guess", "wrong"):
        assert word not in body.lower()
    assert first.family_guess.guesses == {"A": "claude", "B": "unknown", "C": "gpt"}


def test_another_annotator_cannot_open_someone_elses_question(client, world):
    for a in world["assigned"]:
        judge(a, family="gpt")
    client.force_login(world["assigned"][1].annotator)
    url = reverse("blinding:guess", args=[world["assigned"][0].public_id])
    assert client.get(url).status_code == 404


def test_the_report_matches_scipy_statsmodels_and_a_hand_count(client, world):
    for a in world["assigned"]:
        judge(a, family="gemini")
    first, second, third = world["assigned"]
    t1, t2 = truth(first), truth(second)
    # first: all three right; second: A right, B wrong, C no idea; third: all no idea.
    wrong_b = next(f for f in ("claude", "gpt", "gemini") if f != t2["B"])
    plan = {
        first: dict(t1),
        second: {"A": t2["A"], "B": wrong_b, "C": "unknown"},
        third: dict.fromkeys(COMPARISON_LETTERS, "unknown"),
    }
    for a, guesses in plan.items():
        blinding.family_guess_save(public_id=a.public_id, annotator=a.annotator, guesses=guesses)
    report = blinding_report()
    o = report.overall
    assert (o.right, o.named, o.no_idea) == (4, 5, 4)
    assert o.rate == pytest.approx(4 / 5)
    low, high = proportion_confint(4, 5, alpha=0.05, method="wilson")
    assert o.ci == pytest.approx((low, high))
    assert o.p_value == pytest.approx(binomtest(4, 5, 1 / 3, alternative="greater").pvalue)
    by_annotator = {t.label: (t.right, t.named, t.no_idea) for t in report.by_annotator}
    assert by_annotator == {
        first.annotator.username: (3, 3, 0),
        second.annotator.username: (1, 2, 1),
        third.annotator.username: (0, 0, 3),
    }
    # Per family, by hand.
    hand = {}
    for a, guesses in plan.items():
        for letter, family in truth(a).items():
            r, n, u = hand.get(family, (0, 0, 0))
            g = guesses[letter]
            hand[family] = (r + (g == family), n + (g != "unknown"), u + (g == "unknown"))
    by_family = {t.label.lower(): (t.right, t.named, t.no_idea) for t in report.by_family}
    assert by_family == hand
    # Position bias: the same count as the comparison outcomes page, and by hand.
    letters = list(ComparisonJudgment.objects.values_list("selected_letter", flat=True))
    assert report.position_counts == {x: letters.count(x) for x in COMPARISON_LETTERS}
    assert selected_letter_counts() == report.position_counts

    client.force_login(world["admin"])
    page = client.get(reverse("blinding:report")).content.decode()
    assert 'data-testid="blinding-overall"' in page and "80.0%" in page
    rows = list(
        csv.reader(io.StringIO(client.get(reverse("blinding:report-csv")).content.decode()))
    )
    values = {name: value for _, name, value in rows[1:]}
    assert values["all_right"] == "4" and values["all_no_idea"] == "4"
    assert float(values["all_wilson_ci_low"]) == pytest.approx(low)
    svg = client.get(reverse("blinding:report-plot", args=["success", "svg"]))
    assert svg.status_code == 200 and b"<svg" in svg.content


@pytest.mark.parametrize("k, n", [(0, 1), (1, 3), (7, 12), (30, 60), (12, 12)])
def test_wilson_and_binomial_match_the_references(k, n):
    assert wilson_interval(k, n) == pytest.approx(
        proportion_confint(k, n, alpha=0.05, method="wilson")
    )
    assert binomial_p_greater(k, n) == pytest.approx(
        binomtest(k, n, 1 / 3, alternative="greater").pvalue
    )


def test_the_outcomes_page_reuses_the_same_position_count(client, world):
    from adjudication.arbitration.selectors import comparison_outcomes

    for a, family in zip(world["assigned"], ("claude", "gpt", "gemini"), strict=True):
        judge(a, family=family)
    assert comparison_outcomes(n_boot=0).position_counts == selected_letter_counts()
