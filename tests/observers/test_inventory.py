"""The inventory is a file the lab loads (issue 37): the shipped short form loads; a bad
file is refused with every problem named by its line or field, through the admin's page,
and nothing is saved."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from audit.observers.demo import SHORT_FORM
from audit.observers.inventory import TRAITS, InventoryError, parse_inventory
from audit.observers.models import ObserverInventory
from core.roles import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def shipped() -> dict:
    return json.loads(SHORT_FORM.read_text())


def test_the_shipped_short_form_has_items_for_every_trait_with_reverse_keying():
    inventory = parse_inventory(SHORT_FORM.read_bytes())
    assert (inventory.scale_min, inventory.scale_max) == (1, 5)
    for trait in TRAITS:
        keyings = sorted(item.keying for item in inventory.items_of(trait))
        assert keyings == ["+", "+", "-"], trait
    # Observer-phrased: every statement is about a third person.
    assert all(item.text.startswith("This person ") for item in inventory.items)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d["items"][3].update(trait="X"), "items[3].trait: 'X' is not one of O, C, E"),
        (lambda d: d["items"][5].update(keying="reverse"), "items[5].keying: 'reverse'"),
        (lambda d: d["items"][2].update(id="O1"), "items[2].id: O1 is used by an earlier item"),
        (lambda d: d["items"][0].pop("text"), "items[0].text: give a non-empty text"),
        (lambda d: d["items"][0].update(keyng="+"), "items[0]: unknown field keyng"),
        (lambda d: d["scale"].update(max=1), "scale: max must exceed min"),
        (lambda d: d.update(items=[i for i in d["items"] if i["trait"] != "A"]), "(A) has no item"),
        (lambda d: d.pop("version"), "version: give a non-empty text"),
    ],
)
def test_a_bad_field_is_named(change, named):
    data = shipped()
    change(data)
    with pytest.raises(InventoryError) as refused:
        parse_inventory(json.dumps(data))
    assert any(named in problem for problem in refused.value.problems), refused.value.problems


def test_a_json_syntax_error_names_its_line():
    text = SHORT_FORM.read_text().replace(
        '"trait": "C", "keying": "+"}', '"trait": "C" "keying"', 1
    )
    line = next(n for n, row in enumerate(text.splitlines(), start=1) if '"C" "keying"' in row)
    with pytest.raises(InventoryError) as refused:
        parse_inventory(text)
    assert refused.value.problems[0].startswith(f"line {line}, column ")


def upload(client, content: bytes, name="inventory.json"):
    return client.post(
        reverse("audit:observers:inventories"),
        {"file": SimpleUploadedFile(name, content, content_type="application/json")},
    )


def test_the_page_refuses_a_bad_file_naming_the_problem_and_saves_nothing(client):
    client.force_login(UserFactory(roles=[Role.ADMIN]))
    data = shipped()
    data["items"][7]["trait"] = "Q"
    data["items"][9]["keying"] = ""
    answer = upload(client, json.dumps(data).encode())
    assert answer.status_code == 200
    text = answer.content.decode()
    assert "nothing was saved" in text
    assert "items[7].trait: &#x27;Q&#x27; is not one of O, C, E, A, N" in text
    assert "items[9].keying: &#x27;&#x27; is not" in text
    assert not ObserverInventory.objects.exists()

    # The good file loads, once: the same name and version again is refused.
    assert upload(client, SHORT_FORM.read_bytes()).status_code == 302
    stored = ObserverInventory.objects.get()
    assert stored.item_count == 15 and stored.items[0]["id"] == "O1"
    again = upload(client, SHORT_FORM.read_bytes()).content.decode()
    assert "is already loaded" in again and ObserverInventory.objects.count() == 1


def test_only_an_admin_may_load_an_inventory(client):
    client.force_login(UserFactory(roles=[Role.MEMORY_REVIEWER, Role.ARBITRATOR]))
    assert upload(client, SHORT_FORM.read_bytes()).status_code == 403
    assert not ObserverInventory.objects.exists()
