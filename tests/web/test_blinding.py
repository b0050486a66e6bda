"""Blinding (DESIGN.md): a baseline participant never receives a profile, a key, a memory
or its psychological annotations, in any page, fragment or API response they can request.

The test walks the whole URLconf, so a URL added later is scanned without anyone
remembering to list it; a URL whose parameter the walk cannot fill fails the test.
"""

from urllib.parse import quote
from uuid import uuid4

import pytest
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from annotation.corpus.models import Character
from core.roles import CORPUS_READERS, Role
from tests.blinding import control_scan

from .conftest import SECRET_KEY, SECRETS

# The Django admin's unnamed redirect and catch-all patterns: they only redirect.
UNNAMED_ALLOWED = {"admin"}

# What a baseline participant may open today; a new page for them must be added here,
# on purpose, after checking what it shows.
BASELINE_REACHABLE = {
    "home",
    "login",
    "api-me",
    "api-index",  # lists only what the person may call (for a participant: api-me)
    "healthz",
    "admin:login",
    "baseline:home",
    # Password reset (issue #36, the team): public pages that show no corpus record.
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
    # The guides (issue #36): public Markdown pages built from docs/, no corpus record.
    "docs-index",
    "docs",
}


def named_patterns(resolvers=None, namespace=None, params=()):
    """(view name, parameter names) for every URL in the URLconf."""
    resolver = resolvers or get_resolver()
    for entry in resolver.url_patterns:
        names = tuple(entry.pattern.regex.groupindex)
        if isinstance(entry, URLResolver):
            ns = entry.namespace
            full_ns = f"{namespace}:{ns}" if namespace and ns else (ns or namespace)
            yield from named_patterns(entry, full_ns, params + names)
        elif isinstance(entry, URLPattern):
            if entry.name is None:
                assert namespace in UNNAMED_ALLOWED, f"unnamed URL pattern {entry.pattern}"
                continue
            name = f"{namespace}:{entry.name}" if namespace else entry.name
            yield name, params + names


def url_arguments(corpus, user):
    character = corpus["character"]
    return {
        "key": SECRET_KEY,
        "memory_id": corpus["memory"].memory_id,
        "scenario_id": corpus["scenario"].scenario_id,
        "job_id": corpus["job"].pk,
        # Django admin
        "app_label": "annotation",
        "object_id": str(character.pk),
        "content_type_id": ContentType.objects.get_for_model(Character).pk,
        "id": user.pk,
        # Candidate generation (admin only): test_generation_blinding.py passes a real
        # run and unit; here any id does, every other role is refused before the lookup.
        "run_id": corpus["run"].pk if "run" in corpus else 1,
        "unit_id": corpus["unit"].pk if "unit" in corpus else 1,
        "stage": "response",
        # Blinded comparison and arbitration: tests/comparison/test_blinding_scan.py passes
        # the annotator's own assignment and a real pair; elsewhere any value does.
        "assignment": corpus["assignment"].public_id if "assignment" in corpus else uuid4(),
        "pair_id": corpus["pair"].pk if "pair" in corpus else 1,
        # The memory audit's case pages (added alongside); any id does for the walk.
        "case_id": corpus["case"].pk if "case" in corpus else 1,
        # The reference-label audit: tests/reference_labels/test_blinding_scan.py passes the
        # expert's own audit and item; elsewhere any id does.
        "label_audit_id": corpus["label_audit"].pk if "label_audit" in corpus else 1,
        "label_item_id": corpus["label_item"].pk if "label_item" in corpus else 1,
        # Evaluation runs (admin only): any id does for the walk.
        "prediction_id": 1,
        # MCQ item review (reviewers only): any id does for the walk.
        "item_id": corpus["item"].pk if "item" in corpus else 1,
        # Human baseline: tests/humanbaseline/test_blinding_scan.py walks a real study as
        # its participant; here a study the person is not in is a 404.
        "study_id": 1,
        "position": 1,
        "selection_id": 1,
        "token": uuid4(),
        # Memory generation (admin only): any id does for the walk.
        "batch_id": 1,
        "plan_id": 1,
        # Observer runs (issue 37, admin only): any id does for the walk.
        "observer_run_id": 1,
        # A human observer's task (issue 37): test_an_observer_never_receives... passes the
        # observer's own; elsewhere any id does (another person's task is a 404).
        "task_id": corpus["task"].pk if "task" in corpus else 1,
        "character_key": character.key,
        # Candidate screening (admin only): any id does for the walk.
        "flag_id": 1,
        # Password reset (issue #36, the team): a reset link of no use; the page refuses it.
        "uidb64": "MQ",
        # A participant's erasure (admin only, issue #36): any id does for the walk.
        "participation_id": 1,
        # The statistics pages' plot downloads: SVG is text, so the scan reads it.
        "fmt": "svg",
        # The guides (/docs/<path>, public, issue #36): a guide page.
        "path": "participant/",
    }


# A plot each statistics page draws (the plot views answer 404 for another name).
PLOT_NAMES = {
    "review:coverage-plot": "life-stages",
    "audit:labels:outcomes-plot": "outcomes",
    "adjudication:outcomes-plot": "positions",
    "judging:report-plot": "kappa",
    "baseline:report-plot": "accuracy",
    "evaluation:analysis-plot": "life-stages",
    "blinding:report-plot": "success",
}


def every_url(corpus, user):
    arguments = url_arguments(corpus, user)
    urls = {}
    for name, params in named_patterns():
        missing = [p for p in params if p not in arguments and p != "plot"]
        assert not missing, f"add a value for {missing} of {name} to the blinding test"
        values = dict(arguments, plot=PLOT_NAMES.get(name, "none"))
        urls[reverse(name, kwargs={p: values[p] for p in params})] = name
    return urls


QUERY_VARIANTS = [
    "",
    f"?character={SECRET_KEY}",
    "?life_stage=school_age",
    "?stage=school_age",
    "?page=1",
    "?format=json",
]
HEADER_VARIANTS = [
    {},
    {"HTTP_ACCEPT": "application/json"},
    {"HTTP_ACCEPT": "text/html"},
    {"HTTP_HX_REQUEST": "true"},
]


def leaks(body: str, requested: str) -> list[str]:
    """The secrets in ``body``. A page may echo the address the person typed (DRF's
    browsable API shows it in its breadcrumb and format links): that is their own
    input, not a disclosure, so the echo is cut out first, longest form first."""
    path = requested.split("?")[0]
    for echo in (requested, requested.replace("&", "&amp;"), quote(requested, safe="/?=&"), path):
        body = body.replace(echo, "")
    return [what for what, secret in SECRETS.items() if secret in body]


def fetch_everything(client, urls):
    responses = {}
    for path, name in urls.items():
        # The admin ignores these parameters; sparing it keeps the walk quick.
        queries = QUERY_VARIANTS[:1] if name.startswith("admin:") else QUERY_VARIANTS
        for query in queries:
            for headers in HEADER_VARIANTS:
                response = client.get(path + query, **headers)
                responses[(path + query, str(headers))] = (name, response)
    return responses


def test_baseline_participant_never_receives_a_corpus_secret(client_for, make_user, secret_corpus):
    participant = make_user(Role.BASELINE_PARTICIPANT)
    client = client_for()
    client.force_login(participant)
    urls = every_url(secret_corpus, participant)
    assert len(urls) > 40, "the URL walk found too few URLs"

    reachable = set()
    for (requested, headers), (name, response) in fetch_everything(client, urls).items():
        body = response.content.decode(errors="replace")
        found = leaks(body, requested)
        assert not found, f"{requested} {headers} ({response.status_code}) leaks {found}"
        if response.status_code == 200:
            reachable.add(name)
    assert reachable == BASELINE_REACHABLE


def test_the_scan_finds_the_secrets_where_readers_may_see_them(client_for, secret_corpus):
    """The control: the same scan, as a corpus reader, finds every secret, so the test
    above can fail."""
    reader_role = sorted(CORPUS_READERS)[0]
    reader = client_for(reader_role, Role.ADMIN, is_staff=True)
    urls = every_url(secret_corpus, secret_corpus["job"].created_by)
    # The same requests as fetch_everything; the walk stops once every secret is seen.
    seen = control_scan(
        reader,
        urls,
        leaks,
        lambda seen: seen == set(SECRETS),
        query_variants=QUERY_VARIANTS,
        header_variants=HEADER_VARIANTS,
        admin_variants="headers",
    )
    assert seen == set(SECRETS)


def test_a_participant_also_gets_nothing_through_a_token(make_user, secret_corpus):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    participant = make_user(Role.BASELINE_PARTICIPANT)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=participant).key}")
    for path, name in every_url(secret_corpus, participant).items():
        if not path.startswith("/api/"):
            continue
        response = client.get(path, {"character": SECRET_KEY})
        assert not leaks(response.content.decode(), path), name
        if name == "api-index":  # a page for a signed-in browser: a token is sent to log in
            assert response.status_code == 302, name
        elif name == "api-token":  # only POST (password) and DELETE (token) exist
            assert response.status_code == 405, name
        elif name != "api-me":
            assert response.status_code == 403, name


@pytest.mark.parametrize("role", [Role.BASELINE_PARTICIPANT])
def test_api_me_shows_only_the_participants_own_identity(role, client_for):
    body = client_for(role, username="participant-3").get(reverse("api-me")).json()
    assert body == {"username": "participant-3", "roles": ["baseline_participant"]}


# --- LLM judge runs (issue 22): the judge's output never reaches an annotator ------------

JUDGE_SECRETS = {
    "judge rationale": "zqx-judge-verdict-rationale",
    "judge model": "zqx-judge-model-9",
}


@pytest.fixture
def judged_world(secret_corpus):
    """A pair its three annotators judged, and a judge run on it whose verdict and model
    carry secret strings."""
    from adjudication.judging.models import JudgeCall, JudgeRun, JudgeVerdict
    from tests.judging.helpers import judged_pairs

    (pair,), people = judged_pairs(1)
    order = sorted(pair.candidates.values_list("pk", flat=True))
    run = JudgeRun.objects.create(
        name="Secret judge",
        judge_family="gpt",
        provider_family="gpt",
        model=JUDGE_SECRETS["judge model"],
        prompt_version="judge-v1",
        status=JudgeRun.Status.FINISHED,
    )
    run.pairs.set([pair])
    call = JudgeCall.objects.create(
        run=run, pair=pair, order_index=0, permutation=order, status="succeeded"
    )
    JudgeVerdict.objects.create(
        call=call,
        suitability="suitable",
        selected_letter="B",
        selected_candidate_id=order[1],
        rating="as_is",
        selection_rationale=JUDGE_SECRETS["judge rationale"],
    )
    own = pair.assignments.get(annotator=people["annotators"][0])
    corpus = {**secret_corpus, "run": run, "pair": pair, "assignment": own}
    return corpus, people


def judge_leaks(body: str) -> list[str]:
    return [what for what, secret in JUDGE_SECRETS.items() if secret in body]


@pytest.mark.parametrize("who", ["annotator", "arbitrator"])
def test_no_annotator_or_arbitrator_receives_the_judges_output(who, judged_world):
    corpus, people = judged_world
    user = people["annotators"][0] if who == "annotator" else people["arbitrator"]
    client = Client()
    client.force_login(user)
    urls = every_url(corpus, user)
    judging = {path for path, name in urls.items() if name.startswith("judging:")}
    assert len(judging) >= 8, "the walk covers the judge-run pages and the report"
    for (requested, headers), (_, response) in fetch_everything(client, urls).items():
        found = judge_leaks(response.content.decode(errors="replace"))
        assert not found, f"{requested} {headers} ({response.status_code}) leaks {found}"
        if requested.split("?")[0] in judging:
            assert response.status_code in (403, 405), f"{who} reached {requested}"


def test_the_judge_scan_finds_the_secrets_on_the_admins_run_page(judged_world):
    """The control: the admin's run page shows both, so the scan above can fail."""
    corpus, people = judged_world
    client = Client()
    client.force_login(people["admin"])
    page = client.get(reverse("judging:run", kwargs={"run_id": corpus["run"].pk}))
    assert page.status_code == 200
    assert set(judge_leaks(page.content.decode())) == set(JUDGE_SECRETS)


def test_the_family_question_is_unreachable_and_no_family_is_named_before_final(client):
    """Issue 22: before an annotator's judgment is final (not submitted, or the pair still
    open) the comparison page, the queue and the API name no family, and the family
    question answers 404; once the pair is routed it opens and may name them."""
    from tests.comparison.helpers import assign, judge, make_pair, people
    from tests.web.test_generation_blinding import FAMILY_WORD

    who = people()
    pair = make_pair(key="CHAR_61")
    first, *others = assign(pair, who["annotators"], who["admin"]).values()
    client.force_login(first.annotator)
    guess = reverse("blinding:guess", args=[first.public_id])
    pages = [
        reverse("comparison:queue"),
        reverse("comparison:pair", args=[first.public_id]),
        reverse("comparison-api:queue"),
        reverse("comparison-api:pair", args=[first.public_id]),
    ]
    for step in ("assigned", "submitted"):
        for url in pages:
            response = client.get(url)
            body = response.content.decode()
            assert response.status_code == 200, url
            assert not FAMILY_WORD.search(body), f"{step}: {url} names a family"
            assert guess not in body, f"{step}: {url} offers the family question"
        assert client.get(guess).status_code == 404, step
        if step == "assigned":
            judge(first, family="claude")
    for a in others:
        judge(a, family="claude")
    assert client.get(guess).status_code == 200
    assert guess in client.get(reverse("comparison:queue")).content.decode()


# --- Human observers (issue 37): an observer reads memories' narratives, nothing else ------

OBSERVER_REACHABLE = (BASELINE_REACHABLE - {"baseline:home"}) | {
    "audit:observers:tasks",
    "audit:observers:task",
}


def test_an_observer_never_receives_a_corpus_secret_but_the_narrative(make_user, secret_corpus):
    """An observer with a task on the secret character walks the whole URLconf: no key,
    profile field, design value, label, memory id or annotation reaches them; the memory's
    narrative (what they rate from) is on their own task page only."""
    from audit.observers.demo import shipped_inventory
    from audit.observers.models import ObserverRun, ObserverUnit

    observer = make_user(Role.OBSERVER)
    character, memory = secret_corpus["character"], secret_corpus["memory"]
    run = ObserverRun.objects.create(
        inventory=shipped_inventory(),
        families=["claude"],
        prompt_version="observer-1",
        status=ObserverRun.Status.FINISHED,
    )
    task = ObserverUnit.objects.create(
        run=run,
        character=character,
        profile_version=character.versions.order_by("number").first(),
        observer_kind=ObserverUnit.Kind.HUMAN,
        observer=observer.get_username(),
        material=[memory.memory_id],
    )
    client = Client()
    client.force_login(observer)
    urls = every_url(secret_corpus | {"task": task}, observer)
    narrative = SECRETS["memory content_full"]
    reachable, seen_narrative = set(), set()
    for (requested, headers), (name, response) in fetch_everything(client, urls).items():
        body = response.content.decode(errors="replace")
        found = [what for what in leaks(body, requested) if what != "memory content_full"]
        assert not found, f"{requested} {headers} ({response.status_code}) leaks {found}"
        if narrative in body:
            seen_narrative.add(name)
        if response.status_code == 200:
            reachable.add(name)
    assert reachable == OBSERVER_REACHABLE
    assert seen_narrative == {"audit:observers:task"}
