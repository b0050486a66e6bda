"""The arbitration queue lists only the open cases (decided ones are a separate list),
and an adjudication setting away from the paper's protocol is recorded as a protocol
deviation when it is saved (seed 000 App. D.2)."""

import re

import pytest
from django.urls import reverse

from adjudication.arbitration import services
from adjudication.arbitration.models import AdjudicationSettings
from core.deviations import ProtocolDeviation, deviations_for_manifest
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.factories import ScenarioFactory

pytestmark = pytest.mark.django_db


def pair_with(who, key, families, rating="as_is"):
    pair = make_pair(key=key, scenario=ScenarioFactory())
    for assignment, family in zip(
        assign(pair, who["annotators"], who["admin"]).values(), families, strict=True
    ):
        judge(assignment, family=family, rating=rating, guidance="Shorten it.")
    pair.refresh_from_db()
    return pair


def rows(body):
    return body.count('data-testid="arbitration-row"')


def link_names(body):
    """The text of each link, tags (a visually hidden part too) stripped."""
    return [re.sub(r"<[^>]+>", "", m) for m in re.findall(r"<a [^>]*>(.*?)</a>", body, re.S)]


def test_the_queue_lists_only_open_pairs_and_the_decided_list_the_rest(
    client, django_assert_num_queries
):
    who = people()
    open_pair = pair_with(who, "CHAR_31", ["claude", "claude", "gpt"])
    resolved = pair_with(who, "CHAR_32", ["claude", "claude", "gpt"])
    discarded = pair_with(who, "CHAR_33", ["gpt", "gpt", "claude"])
    adopted = pair_with(who, "CHAR_34", ["gemini"] * 3)
    services.arbitration_resolve(
        pair_id=resolved.pk,
        arbitrator=who["arbitrator"],
        kind="adopted",
        candidate_id=resolved.candidates.get(family="claude").pk,
    )
    services.arbitration_discard(
        pair_id=discarded.pk, arbitrator=who["arbitrator"], reason="Unfit."
    )
    client.force_login(who["arbitrator"])
    queue = client.get(reverse("adjudication:queue")).content.decode()
    # Pairs by their plain names (issue 32): no character key or scenario id on the page.
    assert rows(queue) == 1 and f"Arbitrate {open_pair.title}" in link_names(queue)
    assert open_pair.character.key not in queue and open_pair.scenario.scenario_id not in queue
    for done in (resolved, discarded, adopted):
        assert done.title not in queue
    assert reverse("adjudication:decided") in queue
    decided = client.get(reverse("adjudication:decided")).content.decode()
    assert rows(decided) == 3 and open_pair.title not in decided
    for done in (resolved, discarded, adopted):
        assert f"Open {done.title}" in link_names(decided)
    # A fixed number of queries, whatever the number of pairs (the page's count and its
    # rows, issue #34; the sixth: the pairs the arbitrator judged, issue #24).
    with django_assert_num_queries(6) as few:
        client.get(reverse("adjudication:queue"))
    pair_with(who, "CHAR_35", ["claude", "gpt", "gemini"])
    with django_assert_num_queries(len(few.captured_queries)):
        assert rows(client.get(reverse("adjudication:queue")).content.decode()) == 2


def test_showing_families_to_the_arbitrator_needs_a_reason_and_is_a_deviation():
    who = people()
    with pytest.raises(services.ArbitrationError, match="reason for departing"):
        services.adjudication_settings_save(admin=who["admin"], show_family_to_arbitrator=True)
    assert not AdjudicationSettings.current().show_family_to_arbitrator
    with pytest.raises(services.ArbitrationError, match="Only an admin"):
        services.adjudication_settings_save(
            admin=who["arbitrator"], show_family_to_arbitrator=True, reason="x"
        )
    services.adjudication_settings_save(
        admin=who["admin"], show_family_to_arbitrator=True, reason="Family-bias audit."
    )
    assert AdjudicationSettings.current().show_family_to_arbitrator
    (row,) = deviations_for_manifest()
    assert row["stage"] == "arbitration" and row["kind"] == "setting"
    assert "Model-family identities remain hidden" in row["rule"]
    assert row["reason"] == "Family-bias audit." and row["recorded_by"] == "cmp-admin"
    # Saving it again, or back to the protocol, records nothing more.
    services.adjudication_settings_save(admin=who["admin"], show_family_to_arbitrator=True)
    services.adjudication_settings_save(admin=who["admin"], show_family_to_arbitrator=False)
    assert ProtocolDeviation.objects.count() == 1


def test_the_admin_form_asks_for_the_reason_and_records_the_deviation(client):
    who = people()
    client.force_login(who["admin"])
    url = reverse("admin:adjudication_adjudicationsettings_add")
    refused = client.post(url, {"show_family_to_arbitrator": "on", "deviation_reason": ""})
    assert refused.status_code == 200
    assert "Give the reason for departing from the protocol" in refused.content.decode()
    assert not AdjudicationSettings.objects.exists() and not ProtocolDeviation.objects.exists()
    saved = client.post(
        url, {"show_family_to_arbitrator": "on", "deviation_reason": "Family-bias audit."}
    )
    assert saved.status_code == 302
    assert AdjudicationSettings.current().show_family_to_arbitrator
    deviation = ProtocolDeviation.objects.get()
    assert deviation.reason == "Family-bias audit." and deviation.recorded_by == who["admin"]
