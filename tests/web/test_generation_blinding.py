"""Blinding of candidate provenance (DESIGN.md; seed 000 §2.4 Stage 2): a candidate's
model family and model name, the run that wrote it and its call records reach the admin
and nobody else, in any page, fragment or API response.

Every role but admin walks the whole URLconf (test_blinding's walk, so a URL added later
is scanned too) with generation records in the database whose provenance strings are
distinctive; the control shows the same scan as an admin finds them all.
"""

import re

import pytest

from core.roles import Role
from tests.blinding import control_scan, scan_responses

from .conftest import SECRET_MODEL_NAMES
from .test_blinding import HEADER_VARIANTS, every_url

# Provenance strings stored by the make_run fixture and below, each found nowhere else.
PROVENANCE = {
    **{f"model name ({family})": name for family, name in SECRET_MODEL_NAMES.items()},
    "run note": "zqx-run-note: pilot with the lighthouse keeper",
    "call request": "zqx request body",
    "call raw response": "zqx&quot;: &quot;raw response",
}
# A family's name as a word, in any case: "Claude", "GPT", "gemini".
FAMILY_WORD = re.compile(r"\b(claude|gpt|gemini)\b", re.IGNORECASE)

# The Accept header variants cover the API's formats; ?status and ?page reach the
# generation pages' filters and pagination.
QUERY_VARIANTS = ["", "?status=failed&page=1"]
NON_ADMIN_ROLES = [role for role in Role if role != Role.ADMIN]


@pytest.fixture
def generation_secrets(secret_corpus, make_run):
    run = make_run(
        [secret_corpus["character"]],
        [secret_corpus["scenario"]],
        statuses=("succeeded", "failed", "succeeded"),
    )
    run.note = PROVENANCE["run note"]
    run.save(update_fields=["note"])
    return {**secret_corpus, "run": run, "unit": run.units.get(family="claude")}


def exposures(body: str) -> list[str]:
    found = [what for what, secret in PROVENANCE.items() if secret in body]
    found += sorted({f"family {m.group(0)!r}" for m in FAMILY_WORD.finditer(body)})
    return found


def scan(client, urls):
    """{(url, headers): (view name, status, what the body exposes)}"""
    return scan_responses(
        client,
        urls,
        exposures,
        query_variants=QUERY_VARIANTS,
        header_variants=HEADER_VARIANTS,
    )


@pytest.mark.parametrize("role", NON_ADMIN_ROLES, ids=str)
def test_no_role_but_admin_receives_candidate_provenance(
    role, client_for, make_user, generation_secrets
):
    user = make_user(role, is_staff=True)  # staff, even: the Django admin must refuse too
    client = client_for()
    client.force_login(user)
    urls = every_url(generation_secrets, user)
    generation_urls = [p for p, name in urls.items() if "generation" in name or "prompt" in name]
    assert len(generation_urls) >= 13, "the walk missed the generation URLs"
    for (requested, headers), (name, status, found) in scan(client, urls).items():
        assert not found, f"{role} {requested} {headers} ({status}) exposes {found}"
        if requested.split("?")[0] in generation_urls:
            # The Django admin sends a staff member without model permissions to its
            # login page; the site's own pages and API refuse.
            refused = (302, 403) if name.startswith("admin:") else (403,)
            assert status in refused, f"{role} got {status} for {requested} {headers}"


def test_a_person_holding_every_role_but_admin_gets_no_provenance(
    client_for, make_user, generation_secrets
):
    user = make_user(*NON_ADMIN_ROLES)
    client = client_for()
    client.force_login(user)
    for (requested, headers), (_, status, found) in scan(
        client, every_url(generation_secrets, user)
    ).items():
        assert not found, f"{requested} {headers} ({status}) exposes {found}"


def test_the_scan_finds_the_provenance_where_the_admin_may_see_it(
    client_for, make_user, generation_secrets
):
    """The control: the same scan as an admin (with Django admin access) finds every
    provenance string and every family name, so the tests above can fail."""
    admin = make_user(Role.ADMIN, is_staff=True, is_superuser=True)
    client = client_for()
    client.force_login(admin)
    families = {"family 'Claude'", "family 'GPT'", "family 'Gemini'"}
    # The same requests as scan(); the walk stops once everything asserted below is seen.
    seen = control_scan(
        client,
        every_url(generation_secrets, admin),
        lambda body, _: exposures(body),
        lambda seen: set(PROVENANCE) <= seen and families <= seen,
        query_variants=QUERY_VARIANTS,
        header_variants=HEADER_VARIANTS,
    )
    assert set(PROVENANCE) <= seen
    assert families <= seen
