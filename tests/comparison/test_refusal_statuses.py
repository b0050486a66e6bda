"""Issue #24: another annotator's comparison draft is a 404 (page, htmx and API), not a
page answering 200 with the refusal as its autosave status."""

import pytest
from django.urls import reverse

from annotation.comparison.models import ComparisonDraft
from tests.api.conftest import token_client

from .helpers import assign, make_pair, people


@pytest.fixture
def two_assignments():
    who = people()
    pair = make_pair()
    assignments = list(assign(pair, who["annotators"], who["admin"]).values())
    return assignments[0], assignments[1]


def test_another_annotators_draft_is_a_404_everywhere(client, two_assignments):
    mine, theirs = two_assignments
    client.force_login(mine.annotator)
    url = reverse("comparison:draft", kwargs={"assignment": theirs.public_id})
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        response = client.post(url, {"selection_rationale": "not mine"}, **headers)
        assert response.status_code == 404
    api = token_client(mine.annotator)
    api_url = reverse("comparison-api:draft", kwargs={"assignment": theirs.public_id})
    assert api.get(api_url).status_code == 404
    assert api.put(api_url, {"selection_rationale": "x"}, format="json").status_code == 404
    assert not ComparisonDraft.objects.exists()
    # The annotator's own draft still saves.
    own = reverse("comparison:draft", kwargs={"assignment": mine.public_id})
    saved = client.post(own, {"selection_rationale": "mine"}, HTTP_HX_REQUEST="true")
    assert saved.status_code == 200 and "Draft saved at " in saved.content.decode()
