"""Drafting provenance for admins only (issue #35; DESIGN.md's blinding rules; seed 000
App. B.3: the reviewers' materials are the profile's fields, "the full Big Five vector
and intended trait anchor, character description, occupation, self-value logic, and
eight core behavioral patterns", not the model that drafted them). A profile drafted
and redrafted on the platform records its drafting model; the character pages used to
tell every role which model drafted it ("drafted by … (anthropic claude-…)").

Every role but admin, and a person holding all of them, walks every character, profile
review and drafting page and API response (the URLconf's, so a page added later is
walked too) and finds no model name, provider or family of the drafting run; the
control shows the same walk as an admin finds them, so the scan can fail."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from annotation.character_drafting import design
from annotation.character_drafting.models import DraftingJob
from annotation.character_drafting.services import jobs, redraft
from core.roles import CORPUS_READERS, Role
from llm import ProviderConfig
from tests.blinding import control_scan, scan_responses
from tests.factories import UserFactory
from tests.web.test_blinding import HEADER_VARIANTS, named_patterns

from .test_redraft import adjudicate_with_requests, run

pytestmark = pytest.mark.django_db

MODEL = "zqx-claude-drafter-7719"
PROVENANCE = {
    "model name": re.compile(re.escape(MODEL)),
    "provider": re.compile(r"\banthropic\b", re.IGNORECASE),
    # A family's name as a word, in any case: "Claude", "GPT", "gemini".
    "family": re.compile(r"\b(claude|gpt|gemini)\b", re.IGNORECASE),
}
NON_ADMIN_ROLES = [role for role in Role if role != Role.ADMIN]
# Where a character's profile, its review and its drafting are shown.
NAMESPACES = {
    "corpus",
    "corpus-api",
    "review",
    "review-api",
    "drafting",
    "drafting-api",
    "memory_generation",
}
QUERY_VARIANTS = ["", "?format=json"]


@pytest.fixture
def drafted_by_claude(settings, fake_server, drafting_admin, annotators, senior):
    """CHAR_03 drafted, reviewed and redrafted by a Claude model on the fake server: its
    v1 and v2 both record the model in their source."""
    settings.HEARTBENCH_DRAFTING_PROVIDER = ProviderConfig(
        kind="anthropic",
        model=MODEL,
        base_url=fake_server.base_url("anthropic"),
        timeout=2.0,
        max_retries=0,
    )
    job = jobs.drafting_job_create(
        user=drafting_admin,
        plan=[design.anchored("CHAR_03", "C", "high")],
        design=DraftingJob.Design.CUSTOM,
    )
    v1 = run(job).drafts.get().profile_version
    adjudicate_with_requests(annotators, v1, ["description"])
    again = redraft.drafting_redraft_create(user=drafting_admin, character_key="CHAR_03")
    v2 = run(again).drafts.get().profile_version
    assert MODEL in v1.source and MODEL in v2.source and "anthropic" in v2.source
    return {"job": job, "v2": v2}


def character_urls(drafted) -> dict[str, str]:
    """{path: view name} of every URL in those namespaces whose parameters name the
    drafted character, its drafting job or any id (a 404 shows nothing either)."""
    arguments = {"key": "CHAR_03", "character_key": "CHAR_03", "job_id": drafted["job"].pk}
    arguments["id"] = drafted["job"].drafts.get().pk
    urls = {}
    for name, params in named_patterns():
        if name.split(":")[0] not in NAMESPACES or not set(params) <= set(arguments):
            continue
        urls[reverse(name, kwargs={p: arguments[p] for p in params})] = name
    return urls


def exposures(body: str) -> list[str]:
    return [what for what, pattern in PROVENANCE.items() if pattern.search(body)]


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("roles", [[r] for r in NON_ADMIN_ROLES] + [NON_ADMIN_ROLES], ids=str)
def test_no_role_but_admin_reads_the_drafting_model(roles, drafted_by_claude):
    user = UserFactory(username="reader", roles=roles)
    urls = character_urls(drafted_by_claude)
    assert {"corpus:character-detail", "corpus-api:character-detail"} <= set(urls.values())
    assert {"review:profile-adjudicate", "drafting:redraft-new"} <= set(urls.values())
    client = login(user)
    for (requested, headers), (_, status, found) in scan_responses(
        client, urls, exposures, query_variants=QUERY_VARIANTS, header_variants=HEADER_VARIANTS
    ).items():
        assert not found, f"{roles} {requested} {headers} ({status}) exposes {found}"
    if not set(roles) & CORPUS_READERS:  # a participant or an observer: no corpus at all
        page = client.get(reverse("corpus:character-detail", kwargs={"key": "CHAR_03"}))
        assert page.status_code in (302, 403), roles
        return
    # A corpus reader still reads the profile and where it came from, minus the model.
    job = drafted_by_claude["v2"].source.split("by drafting job ")[1].split()[0]
    page = client.get(reverse("corpus:character-detail", kwargs={"key": "CHAR_03"}))
    assert page.status_code == 200
    assert f"redraft of v1 (description) by drafting job {job}" in page.content.decode()
    api = client.get(reverse("corpus-api:character-detail", kwargs={"key": "CHAR_03"})).json()
    sources = [v["source"] for v in api["versions"]]
    assert f"redraft of v1 (description) by drafting job {job}" in sources


def test_the_admin_still_reads_the_drafting_model(drafting_admin, drafted_by_claude):
    """The control: the same walk as an admin finds the model, provider and family on
    the character page and in the API, so the test above can fail."""
    seen = control_scan(
        login(drafting_admin),
        character_urls(drafted_by_claude),
        lambda body, _: exposures(body),
        lambda seen: set(PROVENANCE) <= seen,
        query_variants=QUERY_VARIANTS,
        header_variants=HEADER_VARIANTS,
    )
    assert set(PROVENANCE) <= seen
    client = login(drafting_admin)
    page = client.get(reverse("corpus:character-detail", kwargs={"key": "CHAR_03"}))
    assert MODEL in page.content.decode()
    api = client.get(reverse("corpus-api:character-detail", kwargs={"key": "CHAR_03"})).json()
    assert any(MODEL in v["source"] and "anthropic" in v["source"] for v in api["versions"])
