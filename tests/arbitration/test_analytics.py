"""Arbitration analytics (issue 22): per-annotator agreement with the final reference,
overturns and guidance followed, and the agreement lift, against hand counts on pairs
built through the services; the "guidance followed" record; admin and arbitrator only."""

import math

import numpy as np
import pytest
from django.urls import reverse
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from adjudication.arbitration import analytics, services, stored_reports
from adjudication.arbitration.models import ArbitrationDecision
from adjudication.arbitration.selectors import arbitration_page
from annotation.comparison.models import ComparisonJudgment
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.stored_reports import computed

pytestmark = pytest.mark.django_db


def wilson_by_formula(hits, n, z=1.959963984540054):
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def judged(who, key, selections):
    """A pair judged by the three annotators: [(family, rating, guidance), ...]."""
    pair = make_pair(key=key)
    assignments = list(assign(pair, who["annotators"], who["admin"]).values())
    for assignment, (family, rating, guidance) in zip(assignments, selections, strict=True):
        judge(assignment, family=family, rating=rating, guidance=guidance)
    pair.refresh_from_db()
    return pair


def text_of(candidate):
    return {f: getattr(candidate, f) for f in services.REFERENCE_TEXT_FIELDS}


@pytest.fixture
def decided():
    who = people()
    arb = who["arbitrator"]
    ok = ("as_is", "")
    p1 = judged(who, "CHAR_A1", [("claude", *ok)] * 3)
    p2 = judged(
        who,
        "CHAR_A2",
        [
            ("claude", *ok),
            ("claude", "partial", "Name the teacher."),
            ("gpt", "partial", "Shorter."),
        ],
    )
    p3 = judged(who, "CHAR_A3", [("gemini", *ok), ("gpt", *ok), ("gpt", *ok)])
    p4 = judged(who, "CHAR_A4", [("claude", *ok), ("gemini", *ok), ("gemini", *ok)])
    assert p1.status == "adopted" and {p.status for p in (p2, p3, p4)} == {"escalated"}
    followed = ComparisonJudgment.objects.get(
        assignment__pair=p2, assignment__annotator=who["annotators"][1]
    )
    claude = p2.candidates.get(family="claude")
    services.arbitration_resolve(
        pair_id=p2.pk,
        arbitrator=arb,
        kind="edited",
        candidate_id=claude.pk,
        fields=text_of(claude) | {"final_decision": "I tell Ms. Lee, then water the plants."},
        guidance_followed=[followed.pk],
    )
    services.arbitration_resolve(
        pair_id=p3.pk,
        arbitrator=arb,
        kind="adopted",
        candidate_id=p3.candidates.get(family="gpt").pk,
    )
    services.arbitration_discard(pair_id=p4.pk, arbitrator=arb, reason="Ages contradict.")
    return {**who, "pairs": (p1, p2, p3, p4), "followed": followed}


def test_analytics_match_hand_counts(decided, django_assert_num_queries):
    with django_assert_num_queries(5):
        result = analytics.arbitration_analytics(n_boot=200, seed=1)
    rows = {a.username: a for a in result.annotators}
    expected = {  # (agreement, overturned, guidance followed) as (hits, n)
        "cmp-annotator-1": ((2, 3), (2, 3), (0, 0)),
        "cmp-annotator-2": ((3, 3), (1, 3), (1, 1)),
        "cmp-annotator-3": ((2, 3), (2, 3), (0, 1)),
    }
    assert set(rows) == set(expected)
    for username, counts in expected.items():
        for metric, (hits, n) in zip(analytics.ArbitrationAnalytics.METRICS, counts, strict=True):
            rate = getattr(rows[username], metric)
            assert (rate.hits, rate.n) == (hits, n), (username, metric)
            if n:
                assert (rate.low, rate.high) == pytest.approx(wilson_by_formula(hits, n))
    lift = result.lift
    assert lift.pairs == 3  # the discarded pair has no reference
    assert lift.blind_agreement.estimate == pytest.approx(5 / 9)
    assert lift.outcome_agreement.estimate == pytest.approx(7 / 9)
    assert lift.lift.estimate == pytest.approx(2 / 9)
    codes = {"claude": 0, "gpt": 1, "gemini": 2}
    selections = [["claude"] * 3, ["claude", "claude", "gpt"], ["gemini", "gpt", "gpt"]]
    table = aggregate_raters(np.array([[codes[f] for f in s] for s in selections]), n_cat=3)[0]
    assert lift.fleiss.estimate == pytest.approx(fleiss_kappa(table))


def test_guidance_is_recorded_only_on_an_edit_and_only_where_given(decided):
    p2 = decided["pairs"][1]
    decision = ArbitrationDecision.objects.get(pair=p2)
    assert list(decision.guidance_followed.all()) == [decided["followed"]]
    who = decided
    p5 = judged(
        who,
        "CHAR_A5",
        [("claude", "as_is", ""), ("gpt", "partial", "Kinder."), ("gpt", "as_is", "")],
    )
    with_guidance, without = (
        ComparisonJudgment.objects.get(assignment__pair=p5, revision_guidance="Kinder."),
        ComparisonJudgment.objects.filter(assignment__pair=p5, revision_guidance="").first(),
    )
    gpt = p5.candidates.get(family="gpt")
    with pytest.raises(services.ArbitrationError, match="Only an edit"):
        services.arbitration_resolve(
            pair_id=p5.pk, arbitrator=who["arbitrator"], kind="adopted", candidate_id=gpt.pk,
            guidance_followed=[with_guidance.pk],
        )  # fmt: skip
    for wrong in (without, decided["followed"]):  # no guidance; another pair's judgment
        with pytest.raises(services.ArbitrationError, match="Tick only guidance"):
            services.arbitration_resolve(
                pair_id=p5.pk, arbitrator=who["arbitrator"], kind="edited", candidate_id=gpt.pk,
                fields=text_of(gpt), guidance_followed=[wrong.pk],
            )  # fmt: skip


def test_the_arbitration_page_records_the_guidance_an_edit_follows(client):
    who = people()
    pair = judged(
        who,
        "CHAR_A6",
        [("claude", "as_is", ""), ("gpt", "partial", "Kinder."), ("gpt", "partial", "Brief.")],
    )
    client.force_login(who["arbitrator"])
    url = reverse("adjudication:pair", kwargs={"pair_id": pair.pk})
    body = client.get(url).content.decode()
    assert "Guidance this edit follows" in body and "cmp-annotator-2: Kinder." in body
    kinder = ComparisonJudgment.objects.get(assignment__pair=pair, revision_guidance="Kinder.")
    page = arbitration_page(pair_id=pair.pk)
    gpt_number = next(c.number for c in page.candidates if c.candidate.family == "gpt")
    gpt = pair.candidates.get(family="gpt")
    data = {
        "kind": "edited",
        "candidate": gpt_number,
        "guidance_followed": [kinder.pk],
        "decide": "1",
    }
    data |= text_of(gpt) | {"final_decision": "I kindly tell Mom I will come later."}
    assert client.post(url, data).status_code == 302
    decision = ArbitrationDecision.objects.get(pair=pair)
    assert decision.kind == "edited" and list(decision.guidance_followed.all()) == [kinder]


def test_the_page_csv_and_plots_show_the_figures_to_arbitrators_not_annotators(client, decided):
    client.force_login(decided["annotators"][0])
    for name in ("adjudication:analytics", "adjudication:analytics-csv"):
        assert client.get(reverse(name)).status_code == 403
    client.force_login(decided["arbitrator"])
    computed(stored_reports.KIND)
    outcomes = client.get(reverse("adjudication:outcomes")).content.decode()
    assert reverse("adjudication:analytics") in outcomes
    page = client.get(reverse("adjudication:analytics")).content.decode()
    assert 'data-testid="analytics-table"' in page and "cmp-annotator-2" in page
    assert "100.0% (3 of 3" in page and "33.3% (1 of 3" in page
    assert 'data-testid="small-n-note"' in page  # three pairs only
    assert page.count("<svg") >= 3
    csv = client.get(reverse("adjudication:analytics-csv")).content.decode()
    assert "cmp-annotator-2,agreement,3,3,1.0," in csv
    assert "(all),agreement_lift,,3," in csv
    plot = reverse("adjudication:analytics-plot", kwargs={"plot": "overturned", "fmt": "svg"})
    assert client.get(plot).status_code == 200


def test_before_any_arbitration_the_overturn_plots_say_why_they_are_empty(client):
    """As on the demo (issue 32): a pair adopted unanimously and one still escalated. The
    agreement plot has its bars; nobody can have been overturned, and no edit followed any
    guidance, so those two plots are a sentence each, not an axis of "no value" rows."""
    who = people()
    ok = ("as_is", "")
    judged(who, "CHAR_E1", [("claude", *ok)] * 3)
    judged(who, "CHAR_E2", [("claude", *ok), ("gpt", *ok), ("gemini", *ok)])
    client.force_login(who["arbitrator"])
    computed(stored_reports.KIND)
    response = client.get(reverse("adjudication:analytics"))
    shown = {plot.name: plot for plot in response.context["plots"]}
    assert not shown["agreement"].empty and "<svg" in shown["agreement"].svg
    for name in ("overturned", "guidance-followed"):
        assert "nothing to plot" in shown[name].empty
        assert not shown[name].svg and not shown[name].png_url
    page = response.content.decode()
    assert page.count('data-testid="plot-empty"') == 2 and "no value" not in page
    assert "The arbitrator has not decided an escalated pair yet" in page
    plot = reverse("adjudication:analytics-plot", kwargs={"plot": "overturned", "fmt": "png"})
    assert client.get(plot).status_code == 404
