"""A participant receives no key, profile, annotation or provenance from any baseline URL
(pages, htmx fragments, the answer POST's fragment), at every stage of the study.

Two checks: the secret strings of the fixture never occur; and every response is the same
byte for byte (CSRF tokens aside) after the subset's keys, families and option provenance
are scrambled, so nothing a participant fetches depends on them.
"""

import re

import pytest
from django.urls import get_resolver, reverse

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from core.roles import Role
from humanbaseline import services
from humanbaseline.models import ItemResponse, ItemSourceFamily, SelectionItem
from tests.blinding import scan_responses

from .conftest import SECRETS, enrol

pytestmark = pytest.mark.django_db

QUERY_VARIANTS = ["", "?format=json", "?page=1&position=1"]
HEADER_VARIANTS = [{}, {"HTTP_HX_REQUEST": "true"}, {"HTTP_ACCEPT": "application/json"}]
CSRF = re.compile(r'(name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]+')


def baseline_urls(study, participation):
    """Every URL of the baseline namespace, with this participant's study and positions."""
    n_items = ItemResponse.objects.filter(participation=participation).count() or 1
    n_practice = study.items.filter(is_practice=True).count()
    urls = {}
    for pattern in get_resolver().namespace_dict["baseline"][1].url_patterns:
        name = pattern.name
        params = set(pattern.pattern.regex.groupindex)
        kwargs = {}
        if "study_id" in params:
            kwargs["study_id"] = study.pk
        if "token" in params:
            kwargs["token"] = study.invitation_token
        if "selection_id" in params:
            kwargs["selection_id"] = study.selection_id
        if "participation_id" in params:  # the admin's erasure page (a 403 for them)
            kwargs["participation_id"] = participation.pk
        if "plot" in params:  # the report's plot downloads (SVG is text, so it is scanned)
            kwargs |= {"plot": "accuracy", "fmt": "svg"}
        if "position" in params:
            limit = n_practice if name == "practice" else n_items
            for position in range(1, limit + 1):
                urls[reverse(f"baseline:{name}", kwargs=kwargs | {"position": position})] = name
            continue
        urls[reverse(f"baseline:{name}", kwargs=kwargs)] = name
    return urls


def exposures(body):
    return sorted(what for what, secret in SECRETS.items() if secret in body)


def scan(client, study, participation):
    results = scan_responses(
        client,
        baseline_urls(study, participation),
        exposures,
        query_variants=QUERY_VARIANTS,
        header_variants=HEADER_VARIANTS,
    )
    # The answer fragment an htmx save returns.
    first = ItemResponse.objects.filter(participation=participation, position=1).first()
    if first is not None and participation.status == "started":
        response = client.post(
            reverse("baseline:item", args=[study.pk, 1]),
            {"choice": first.choice or "A", "seconds": "1"},
            HTTP_HX_REQUEST="true",
        )
        results[("POST item 1", "htmx")] = (
            "item",
            response.status_code,
            exposures(response.content.decode()),
        )
    return results


def bodies(client, study, participation):
    out = {}
    for path in baseline_urls(study, participation):
        for headers in HEADER_VARIANTS:
            response = client.get(path, **headers)
            out[(path, str(headers))] = CSRF.sub(r"\1", response.content.decode())
    return out


def scramble_keys(items):
    """Move every subset key to another letter, flip families, rename option sources."""
    for item in items:
        new = "ABCD"[("ABCD".index(item.correct_answer) + 1) % 4]
        McqItem.objects.filter(pk=item.pk).update(correct_answer=new)
        McqOption.objects.filter(item=item).update(is_correct=False, source_character="CHAR_99")
        McqOption.objects.filter(item=item, label=new).update(is_correct=True)
        ReferenceResponse.objects.filter(pk=item.reference_id).update(source_family="gpt")
        ItemSourceFamily.objects.update_or_create(
            item=item, defaults={"family": "claude", "origin": "x"}
        )
    SelectionItem.objects.filter(item__in=items).update(family="claude")


def test_a_participant_never_receives_a_key_profile_or_provenance(small_study, client):
    study, subset, _ = small_study
    p = enrol(study, "scanned", consent=False)
    client.force_login(p.user)
    stages = {}
    stages["invited"] = scan(client, study, p)
    p = services.consent_decide(participation=p, agree=True, version="v1")
    p = services.briefing_complete(participation=p)
    services.practice_answer(participation=p, position=1, choice="B")
    stages["practice"] = scan(client, study, p)
    services.practice_answer(participation=p, position=2, choice="C")
    stages["practice done"] = scan(client, study, p)
    p = services.baseline_session_start(participation=p)
    for position in range(1, len(subset)):
        services.answer_save(participation=p, position=position, choice="ABCD"[position % 4])
    stages["answering"] = scan(client, study, p)

    reachable = set()
    for stage, results in stages.items():
        for (requested, headers), (name, status, found) in results.items():
            assert found == [], f"{stage}: {requested} {headers} ({status}) leaks {found}"
            if status == 200:
                reachable.add(name)
    # The participant reached their own pages, and no admin page.
    assert {"home", "consent", "briefing", "practice", "item", "finalize"} <= reachable
    assert not any(
        name.startswith(("admin", "selection", "study-", "report", "time")) for name in reachable
    )

    before = bodies(client, study, p)
    scramble_keys(subset)
    after = bodies(client, study, p)
    changed = [key for key in before if before[key] != after[key]]
    assert changed == [], f"responses depend on the key or provenance: {changed[:3]}"


def test_the_scan_would_find_the_secrets_on_the_admin_side(small_study, client):
    """The control: the strings are real and reach pages a participant cannot open."""
    study, _, _ = small_study
    from tests.factories import UserFactory

    reader = UserFactory(
        roles=[Role.ADMIN, Role.PRIMARY_ANNOTATOR], is_staff=True, is_superuser=True
    )
    client.force_login(reader)
    character = study.items.first().item.character
    body = client.get(reverse("corpus:character-detail", args=[character.key])).content.decode()
    assert SECRETS["profile description"] in body
    # The scramble is visible where keys may be seen: the same check can fail.
    item = study.items.filter(is_practice=False).first().item
    before = client.get(reverse("admin:adjudication_mcqitem_change", args=[item.pk])).content
    scramble_keys([item])
    after = client.get(reverse("admin:adjudication_mcqitem_change", args=[item.pk])).content
    assert CSRF.sub(r"\1", before.decode()) != CSRF.sub(r"\1", after.decode())


def test_another_participants_study_is_not_found(small_study, client):
    study, _, _ = small_study
    enrol(study, "owner")
    from tests.factories import UserFactory

    stranger = UserFactory(username="stranger", roles=[Role.BASELINE_PARTICIPANT])
    client.force_login(stranger)
    for name, args in (
        ("baseline:item", [study.pk, 1]),
        ("baseline:consent", [study.pk]),
        ("baseline:practice", [study.pk, 1]),
        ("baseline:finalize", [study.pk]),
    ):
        assert client.get(reverse(name, args=args)).status_code == 404
    assert client.get(reverse("baseline:admin")).status_code == 403
