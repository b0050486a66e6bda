"""Arbitration (seed 000 App. D.2): discard, adopt, edit, rewrite; provenance and edit
rate on the reference; reopen by an admin only; outcome statistics."""

import pytest
from django.urls import reverse

from adjudication.arbitration import services
from adjudication.arbitration.forms import FIELD_KINDS
from adjudication.arbitration.models import (
    AdjudicationSettings,
    ArbitrationDecision,
    ReferenceResponse,
)
from agreement import word_edit_rate
from annotation.comparison.models import ComparisonPair
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.web.plot_checks import (
    assert_downloads,
    assert_family_order,
    assert_readable_plot,
    svgs,
    texts,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def escalated():
    who = people()
    pair = make_pair()
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    judge(a[0], family="claude")
    judge(a[1], family="claude", rating="partial", guidance="Name the teacher.")
    judge(a[2], family="gpt")
    pair.refresh_from_db()
    assert pair.status == "escalated"
    return {**who, "pair": pair}


def candidate(pair, family):
    return pair.candidates.get(family=family)


def test_edit_records_text_source_family_arbitrator_and_edit_rate(escalated):
    pair, arb = escalated["pair"], escalated["arbitrator"]
    source = candidate(pair, "claude")
    imported = ReferenceResponse.objects.create(
        character=pair.character,
        scenario=pair.scenario,
        summary="old",
        final_decision="old",
        decision_type="imported",
    )
    fields = {
        "summary": source.summary,
        "emotional_tone": "",
        "core_reasoning": "",
        "final_decision": "I stay behind and water Ms. Lee's plants before I leave.",
    }
    decision = services.arbitration_resolve(
        pair_id=pair.pk, arbitrator=arb, kind="edited", candidate_id=source.pk, fields=fields
    )
    ref = decision.reference
    assert ref.decision_type == "edited" and ref.arbitrator == arb
    assert ref.source_candidate == source and ref.source_family == "claude"
    expected = word_edit_rate(
        services.candidate_response_text(source),
        "\n".join(fields[f] for f in services.REFERENCE_TEXT_FIELDS),
    ).rate
    assert ref.word_edit_rate == pytest.approx(expected) and ref.word_edit_rate > 0
    imported.refresh_from_db()
    assert imported.superseded_at is not None and ref.supersedes == imported
    assert ComparisonPair.objects.get().status == "resolved"


def test_one_decision_only_and_reopen_by_admin_keeps_history(escalated):
    pair, arb, admin = escalated["pair"], escalated["arbitrator"], escalated["admin"]
    services.arbitration_resolve(
        pair_id=pair.pk, arbitrator=arb, kind="adopted", candidate_id=candidate(pair, "gpt").pk
    )
    with pytest.raises(services.ArbitrationError, match="not awaiting arbitration"):
        services.arbitration_resolve(
            pair_id=pair.pk, arbitrator=arb, kind="adopted", candidate_id=candidate(pair, "gpt").pk
        )
    with pytest.raises(services.ArbitrationError, match="Only an admin"):
        services.arbitration_reopen(pair_id=pair.pk, admin=arb, reason="second look")
    services.arbitration_reopen(pair_id=pair.pk, admin=admin, reason="second look")
    assert ComparisonPair.objects.get().status == "escalated"
    assert not ReferenceResponse.objects.filter(superseded_at__isnull=True).exists()
    services.arbitration_resolve(
        pair_id=pair.pk,
        arbitrator=arb,
        kind="rewritten",
        fields={"summary": "New text.", "final_decision": "I call my teacher first."},
    )
    assert ArbitrationDecision.objects.count() == 2
    assert ArbitrationDecision.objects.filter(reopened_at__isnull=False).count() == 1
    current = ReferenceResponse.objects.get(superseded_at__isnull=True)
    assert current.decision_type == "rewritten" and current.source_candidate is None


def test_the_reference_must_state_a_decision_and_discard_needs_a_reason(escalated):
    pair, arb = escalated["pair"], escalated["arbitrator"]
    with pytest.raises(services.ArbitrationError, match="concrete behavioral decision"):
        services.arbitration_resolve(
            pair_id=pair.pk,
            arbitrator=arb,
            kind="rewritten",
            fields={"summary": "x", "final_decision": " "},
        )
    with pytest.raises(services.ArbitrationError, match="reason"):
        services.arbitration_discard(pair_id=pair.pk, arbitrator=arb, reason="")
    services.arbitration_discard(pair_id=pair.pk, arbitrator=arb, reason="Irreconcilable ages.")
    assert ComparisonPair.objects.get().status == "discarded"


def test_family_shown_to_the_arbitrator_only_when_the_admin_allows(client, escalated):
    client.force_login(escalated["arbitrator"])
    url = reverse("adjudication:pair", kwargs={"pair_id": escalated["pair"].pk})
    body = client.get(url).content.decode()
    assert "Claude" not in body and "Gemini" not in body
    assert "Name the teacher." in body  # the annotators' guidance
    AdjudicationSettings.objects.create(pk=1, show_family_to_arbitrator=True)
    assert "Claude" in client.get(url).content.decode()


def test_the_arbitrator_edits_through_the_page_with_a_diff(client, escalated):
    client.force_login(escalated["arbitrator"])
    pair = escalated["pair"]
    url = reverse("adjudication:pair", kwargs={"pair_id": pair.pk})
    # "Edit candidate 1" without JavaScript: the form comes back with its text to edit,
    # the annotators' guidance at hand.
    page = client.get(url + "?edit=1")
    form = page.context["form"]
    first = page.context["page"].by_number(1).candidate
    assert form.initial["kind"] == "edited" and form.initial["final_decision"] == (
        first.final_decision
    )
    assert "Name the teacher." in page.content.decode()
    data = {
        "kind": "edited",
        "candidate": "1",
        "summary": "Changed words entirely here.",
        "final_decision": "I decide.",
    }
    # Without JavaScript the preview is the whole page, scrolled to the diff...
    preview = client.post(url, {**data, "preview": "Preview diff"}).content.decode()
    assert "<ins" in preview and 'id="arbitration-form"' in preview
    assert f'formaction="{url}#diff-preview"' in preview
    # ...with htmx only the diff, in place.
    fragment = client.post(url, {**data, "preview": "1"}, HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith('<div id="diff-preview"') and "<ins" in fragment
    assert "<html" not in fragment and "Rationale (summary)." in fragment
    assert not ArbitrationDecision.objects.exists()
    assert client.post(url, {**data, "decide": "1"}).status_code == 302
    ref = ReferenceResponse.objects.get(superseded_at__isnull=True)
    assert ref.decision_type == "edited" and ref.word_edit_rate > 0


def test_a_preview_never_records_a_decision(client, escalated):
    """A preview without a candidate to compare with, or of another decision, explains
    itself and records nothing (it once fell through to recording the decision)."""
    client.force_login(escalated["arbitrator"])
    url = reverse("adjudication:pair", kwargs={"pair_id": escalated["pair"].pk})
    for data in (
        {"kind": "adopted", "candidate": "1"},
        {"kind": "edited", "final_decision": "I decide."},
        {"kind": "discarded", "reason": "Unfit."},
        {},
    ):
        answer = client.post(url, {**data, "preview": "1"}, HTTP_HX_REQUEST="true")
        assert answer.status_code == 200
        assert 'data-testid="diff-error"' in answer.content.decode(), data
        page = client.post(url, {**data, "preview": "Preview diff"})
        assert page.status_code == 200 and 'data-testid="diff-error"' in page.content.decode()
    assert not ArbitrationDecision.objects.exists()
    escalated["pair"].refresh_from_db()
    assert escalated["pair"].status == ComparisonPair.Status.ESCALATED


def test_the_decision_form_says_which_fields_each_decision_uses(client, escalated):
    """Progressive disclosure (static/adjudication/arbitration.js) reads these marks;
    without JavaScript every field is in the page."""
    client.force_login(escalated["arbitrator"])
    body = client.get(
        reverse("adjudication:pair", kwargs={"pair_id": escalated["pair"].pk})
    ).content.decode()
    form = body[body.index('id="arbitration-form"') :]
    for name, kinds in FIELD_KINDS.items():
        assert f'data-decision-kinds="{" ".join(kinds)}"' in form, name
        assert f'name="{name}"' in form, name
    assert 'name="preview"' in form and 'name="decide"' in form


def test_outcome_statistics_page_and_csv(client, escalated):
    who = escalated
    # a unanimous pair, and a flagged then discarded pair
    p2 = make_pair(key="CHAR_42")
    for a in assign(p2, who["annotators"], who["admin"]).values():
        judge(a, family="gemini")
    p3 = make_pair(key="CHAR_43")
    a3 = list(assign(p3, who["annotators"], who["admin"]).values())
    judge(a3[0], family="gpt", flagged=True)
    judge(a3[1], family="gpt")
    judge(a3[2], family="gpt")
    services.arbitration_discard(pair_id=p3.pk, arbitrator=who["arbitrator"], reason="unfit")
    services.arbitration_resolve(
        pair_id=who["pair"].pk,
        arbitrator=who["arbitrator"],
        kind="adopted",
        candidate_id=candidate(who["pair"], "claude").pk,
    )
    from adjudication.arbitration.selectors import comparison_outcomes

    o = comparison_outcomes(n_boot=200)
    assert (
        o.pairs_total == 3 and o.discarded_at_suitability == 1 and o.discarded_at_arbitration == 0
    )
    assert o.unanimous == 1 and o.unanimous_share == pytest.approx(0.5)
    assert o.references_by_family["Gemini"] == 1 and o.references_by_family["Claude"] == 1
    assert o.position_total == 9 and o.kappa_items == 3 and o.kappa is not None
    # Independent computations: statsmodels' Fleiss' κ on the canonical selections, and
    # the letters recomputed from each annotator's stored permutation.
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

    from annotation.comparison.models import ComparisonJudgment
    from tests.comparison.helpers import letter_for

    judgments = ComparisonJudgment.objects.select_related(
        "assignment", "selected_candidate"
    ).order_by("assignment__pair_id", "assignment__annotator_id")
    families = ["claude", "gpt", "gemini"]
    per_pair = {}
    letters = {"A": 0, "B": 0, "C": 0}
    for j in judgments:
        family = j.selected_candidate.family
        per_pair.setdefault(j.assignment.pair_id, []).append(families.index(family))
        letters[letter_for(j.assignment, family)] += 1
    table, _ = aggregate_raters(list(per_pair.values()), n_cat=len(families))
    assert o.kappa == pytest.approx(sm_fleiss_kappa(table, method="fleiss"))
    assert o.position_counts == letters
    client.force_login(who["admin"])
    body = client.get(reverse("adjudication:outcomes")).content.decode()
    assert "<svg" in body and 'data-testid="position-chart"' in body
    csv = client.get(reverse("adjudication:outcomes-csv")).content.decode()
    assert "fleiss_kappa" in csv and "references_from_Gemini,1" in csv
    client.force_login(who["arbitrator"])
    body = client.get(reverse("adjudication:outcomes")).content.decode()
    assert "Gemini" not in body  # families hidden from the arbitrator by default
    api = client.get(reverse("adjudication-api:outcomes")).json()
    assert api["statistics"]["pairs_total"] == 3


# --- The outcome page's plots (issue 21) ---------------------------------------------


@pytest.fixture
def outcomes(escalated):
    who = escalated
    p2 = make_pair(key="CHAR_42")
    for a in assign(p2, who["annotators"], who["admin"]).values():
        judge(a, family="gemini")
    services.arbitration_resolve(
        pair_id=who["pair"].pk,
        arbitrator=who["arbitrator"],
        kind="adopted",
        candidate_id=candidate(who["pair"], "claude").pk,
    )
    return who


def test_the_outcome_plots_are_readable_and_downloadable(client, outcomes):
    client.force_login(outcomes["admin"])
    response = client.get(reverse("adjudication:outcomes"))
    html = response.content.decode()
    plots = svgs(html)
    assert set(plots) == {"family-chart", "keyed-edit-chart", "edit-chart", "position-chart"}
    for svg in plots.values():
        assert_readable_plot(svg)
    families = texts(plots["family-chart"], "category")
    assert families == ["Claude", "GPT", "Gemini", "Rewritten by the arbitrator"]
    assert_family_order(families)
    assert texts(plots["position-chart"], "axis-label") == ["Displayed letter", "Selections"]
    # One format per kind: a share is a percentage, never "1.000 of surviving pairs".
    assert "of surviving pairs" in html and "1.000 of" not in html
    for plot in response.context["plots"].values():
        assert_downloads(client, plot)


def test_a_kappa_over_few_pairs_says_its_interval_is_not_informative(client, outcomes):
    client.force_login(outcomes["admin"])
    html = client.get(reverse("adjudication:outcomes")).content.decode()
    assert 'data-testid="small-n-note"' in html and "not informative" in html


def test_plot_downloads_follow_the_page_permissions(client, outcomes):
    url = reverse("adjudication:outcomes-plot", kwargs={"plot": "families", "fmt": "png"})
    client.force_login(outcomes["annotators"][0])
    assert client.get(url).status_code == 403
    # The arbitrator does not see families by default: neither on the page nor as a plot.
    client.force_login(outcomes["arbitrator"])
    assert client.get(url).status_code == 404
    positions = reverse("adjudication:outcomes-plot", kwargs={"plot": "positions", "fmt": "svg"})
    assert client.get(positions).status_code == 200
    bad = reverse("adjudication:outcomes-plot", kwargs={"plot": "positions", "fmt": "gif"})
    assert client.get(bad).status_code == 404
