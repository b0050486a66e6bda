"""The item-review revise form autosaves (core.drafts): per item version,
for the reviewer who types it; removing or retaining an item asks first."""

import pytest
from django.test import Client
from django.urls import reverse

from adjudication.mcq.services import item_assembly
from core.drafts import FormDraft
from core.roles import Role

from .conftest import flag, scenario_with_references

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def test_a_revise_draft_is_the_reviewers_and_its_versions(person):
    item = flag(
        item_assembly.mcq_item_assemble(reference_id=scenario_with_references(1).pk, selector=False)
    )
    mine, theirs = person(Role.ARBITRATOR), person(Role.ADMIN)
    url = reverse("mcq:revise-draft", args=[item.pk])
    page = reverse("mcq:item", args=[item.pk])
    saved = client_for(mine).post(
        url, {"label": "C", "content": "Half a distractor", "action": "revise_distractor"}, **HTMX
    )
    assert saved.status_code == 200 and saved.content.decode().startswith("Draft saved ")
    draft = FormDraft.objects.get(user=mine)
    assert draft.key == f"mcq-revise:{item.pk}:v{item.version}"
    assert draft.data == {"label": "C", "content": "Half a distractor"}
    assert "Half a distractor" in client_for(mine).get(page).content.decode()
    other = client_for(theirs).get(page).content.decode()
    assert "Half a distractor" not in other
    assert "Not saved yet — changes save automatically." in other
    assert 'data-confirm="Remove ' in other and "cannot be undone" in other
    refused = client_for(person(Role.MEMORY_REVIEWER)).post(url, {"content": "x"}, **HTMX)
    assert refused.status_code == 403
    assert client_for(mine).post(reverse("mcq:revise-draft", args=[999999])).status_code == 404
