"""Hostile input (issue #12): malformed and malicious import files and form posts.

Each either gets a clear message naming what is wrong and where, and leaves every table
as it was (a row-for-row fingerprint), or is stored as typed and rendered escaped.
tests/corpus_import/test_import_rejects.py covers the ordinary defects of each file kind
(ranges, required fields, duplicate ids, unknown fields, invalid JSON, invalid UTF-8);
this file adds what an attacker or a broken tool sends, and the same through the
upload page and the API.
"""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.corpus.models import Character
from annotation.corpus_import.importing import import_files
from annotation.corpus_import.models import ImportJob
from annotation.corpus_import.problems import ImportRejected
from core.roles import Role
from tests.comparison.helpers import assign, letter_for, make_pair, people
from tests.corpus_import import as_json, small_characters

from .conftest import changed_tables, table_fingerprints

pytestmark = pytest.mark.django_db

# The import job's own rows record a rejected upload (with its errors); the accounts are
# the test's actors. Nothing else may change.
JOB_TABLES = {"annotation_importjob", "annotation_importjobfile"}
ACTOR_TABLES = {"auth_user", "auth_user_groups", "authtoken_token"}


@pytest.fixture
def stored(release_dir):
    """A corpus to leave untouched; yields a checker of "nothing but the job changed"."""
    import_files(
        [
            ("scenarios.json", (release_dir / "scenarios.json").read_bytes()),
            ("characters.json", as_json(small_characters())),
        ]
    )
    before = table_fingerprints()

    def unchanged(allowed=frozenset()):
        changed = set(changed_tables(before, table_fingerprints())) - set(allowed) - ACTOR_TABLES
        assert not changed, f"a rejected input changed {sorted(changed)}"

    yield unchanged
    unchanged(JOB_TABLES)


def chars(mutate):
    doc = small_characters()
    mutate(doc)
    return as_json(doc)


def raw_chars(old: bytes, new: bytes) -> bytes:
    data = as_json(small_characters())
    assert old in data
    return data.replace(old, new, 1)


# (id, file content, record, field, message excerpt): every one is rejected.
HOSTILE_FILES = [
    ("deeply-nested-array", b"[" * 100_000 + b"]" * 100_000, "", "", "nested too deeply"),
    (
        "deeply-nested-object",
        b'{"scenarios": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5000 + b"}",
        "",
        "",
        "nested too deeply",
    ),
    (
        "nul-escape-in-a-text",
        raw_chars(b'"description": "', b'"description": "\\u0000'),
        "",
        "[0].description",
        "contains a NUL character",
    ),
    (
        "nul-escape-in-a-key",
        raw_chars(b'"description": "', b'"x\\u0000y": 1, "description": "'),
        "",
        "[0].x\x00y (the key)",
        "contains a NUL character",
    ),
    (
        "raw-nul-byte",
        b"===MEM_CHAR_01_N_HIGH_0009===\ncontext: a\x00b\n",
        "",
        "",
        "contains a NUL character at line 2, column 11",
    ),
    (
        "unpaired-surrogate-escape",
        raw_chars(b'"description": "', b'"description": "\\ud800'),
        "",
        "[0].description",
        "unpaired surrogate",
    ),
    (
        "nan-trait",
        raw_chars(b'"O": ', b'"O": NaN, "_": '),
        "CHAR_01",
        "big_five.O",
        "must be a number between 0 and 1, got nan",
    ),
    (
        "infinite-trait",
        raw_chars(b'"O": ', b'"O": 1e400, "_": '),
        "CHAR_01",
        "big_five.O",
        "must be a number between 0 and 1, got inf",
    ),
    (
        "trait-as-a-string",
        chars(lambda d: d[0]["big_five"].update(C="high")),
        "CHAR_01",
        "big_five.C",
        "must be a number between 0 and 1",
    ),
    ("record-is-null", b"[null]", "#1", "", "must be an object, got null"),
    ("record-is-a-string", b'["CHAR_01"]', "#1", "", 'must be an object, got "CHAR_01"'),
    (
        "big-five-as-a-list",
        chars(lambda d: d[0].update(big_five=[0.1, 0.2])),
        "CHAR_01",
        "big_five",
        "must be an object with O, C, E, A, N",
    ),
    (
        "id-as-a-number",
        chars(lambda d: d[0].update(id=1)),
        "#1",
        "id",
        "must be a string, got 1",
    ),
    (
        "core-patterns-as-numbers",
        chars(lambda d: d[0].update(core_patterns=list(range(8)))),
        "CHAR_01",
        "core_patterns[0]",
        "must be a non-empty string, got 0",
    ),
    (
        "name-of-100k-characters",
        chars(lambda d: d[0].update(name="N" * 100_000)),
        "CHAR_01",
        "name",
        "must be at most 200 characters, got 100000",
    ),
    (
        "utf16-file",
        as_json(small_characters()).decode().encode("utf-16"),
        "",
        "",
        "not valid UTF-8 at line 1, column 1",
    ),
    (
        "latin1-file",
        chars(lambda d: d[0].update(name="Zoë")).decode().encode("latin-1"),
        "",
        "",
        "not valid UTF-8",
    ),
    ("top-level-number", b"42", "", "", "unknown file kind"),
    ("top-level-string", b'"scenarios"', "", "", "unknown file kind"),
    (
        "two-kinds-in-one-object",
        b'{"scenarios": {}, "questions": []}',
        "",
        "",
        "holds both scenarios and questions",
    ),
    (
        "memories-not-a-list",
        chars(lambda d: d[0].update(episodic_memory_set={"a": 1})),
        "CHAR_01",
        "episodic_memory_set",
        "",
    ),
    (
        "duplicate-character-ids-in-one-file",
        chars(lambda d: d[1].update(id="CHAR_01")),
        "CHAR_01",
        "id",
        "duplicate: CHAR_01 is already defined earlier in this file",
    ),
    ("binary-garbage", bytes(range(256)) * 4, "", "", "not valid UTF-8"),
]


@pytest.mark.parametrize(
    ("content", "record", "field", "message"),
    [pytest.param(*case[1:], id=case[0]) for case in HOSTILE_FILES],
)
def test_a_hostile_file_is_rejected_naming_what_and_where(stored, content, record, field, message):
    with pytest.raises(ImportRejected) as rejected:
        import_files([("upload.json", content)])
    problems = rejected.value.errors
    listing = "\n".join(map(str, problems))
    assert all(p.file == "upload.json" for p in problems), listing
    matching = [p for p in problems if (p.record, p.field) == (record, field)]
    assert matching, listing
    assert any(message in p.message for p in matching), listing
    stored()


def test_a_huge_but_valid_memory_text_is_stored_whole():
    text = "A long recollection. " * 250_000  # ~5 MB, beyond any form's limit
    doc = small_characters(characters=1, memories=1)
    doc[0]["episodic_memory_set"][0]["content_full"] = text
    import_files([("characters.json", as_json(doc))])
    from annotation.corpus.models import Memory

    assert Memory.objects.get(memory_id=doc[0]["episodic_memory_set"][0]["id"]).content_full == (
        text
    )


SCRIPT = "<script>alert('hb')</script><img src=x onerror=alert(1)>"


def test_html_in_imported_texts_is_stored_as_typed_and_rendered_escaped(client_for, release_dir):
    doc = small_characters(characters=1, memories=1)
    doc[0]["name"] = "Ada " + SCRIPT
    doc[0]["description"] = "Profile " + SCRIPT
    doc[0]["episodic_memory_set"][0]["content_full"] = "Memory " + SCRIPT
    import_files(
        [
            ("scenarios.json", (release_dir / "scenarios.json").read_bytes()),
            ("characters.json", as_json(doc)),
        ]
    )
    character = Character.objects.get(key="CHAR_01")
    assert character.versions.get().description == "Profile " + SCRIPT
    reader = client_for(Role.ARBITRATOR)
    memory_id = doc[0]["episodic_memory_set"][0]["id"]
    for url in (
        reverse("corpus:character-list"),
        reverse("corpus:character-detail", kwargs={"key": "CHAR_01"}),
        reverse("corpus:memory-detail", kwargs={"memory_id": memory_id}),
    ):
        body = reader.get(url).content.decode()
        assert "<script>alert" not in body and "<img src=x" not in body, url
        assert "&lt;script&gt;alert(&#x27;hb&#x27;)&lt;/script&gt;" in body, url


# --- The same through the upload page and the API ------------------------------------------


@pytest.fixture
def eager(settings):
    from heartbench_site.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


def upload(name, content):
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def upload_via_page(client, files, capture):
    with capture(execute=True):
        return client.post(reverse("corpus:import"), {"files": files})


UPLOADS = [
    ("nul-escape", "characters.json", "HOSTILE_FILES:nul-escape-in-a-text"),
    ("nested", "deep.json", "HOSTILE_FILES:deeply-nested-array"),
    ("html-file-name", f"{SCRIPT}.json", "HOSTILE_FILES:unpaired-surrogate-escape"),
    ("path-in-file-name", "../../etc/passwd", "HOSTILE_FILES:binary-garbage"),
    ("very-long-file-name", "x" * 1000 + ".json", "HOSTILE_FILES:record-is-null"),
]


def hostile_content(ref: str) -> bytes:
    wanted = ref.split(":", 1)[1]
    return next(case[1] for case in HOSTILE_FILES if case[0] == wanted)


@pytest.mark.parametrize(("name", "ref"), [pytest.param(*u[1:], id=u[0]) for u in UPLOADS])
def test_a_hostile_upload_fails_its_job_with_the_errors_shown_escaped(
    stored, client_for, eager, django_capture_on_commit_callbacks, name, ref
):
    admin = client_for(Role.ADMIN)
    response = upload_via_page(
        admin, [upload(name, hostile_content(ref))], django_capture_on_commit_callbacks
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.FAILED
    assert job.errors and job.errors[0]["message"]
    page = admin.get(response["Location"]).content.decode()
    assert job.errors[0]["message"].split(":")[0].replace("'", "&#x27;") in page
    assert "<script>alert" not in page and "<img src=x" not in page
    stored(JOB_TABLES)


def test_an_upload_without_files_is_refused_on_the_form(stored, client_for):
    response = client_for(Role.ADMIN).post(reverse("corpus:import"), {})
    assert response.status_code == 200
    assert "This field is required" in response.content.decode()
    stored()


def test_the_same_file_twice_is_refused_on_the_form(stored, client_for):
    content = as_json(small_characters())
    response = client_for(Role.ADMIN).post(
        reverse("corpus:import"),
        {"files": [upload("a.json", content), upload("a.json", content)]},
    )
    assert "Each file may be chosen once; chosen twice: a.json" in response.content.decode()
    stored()


@pytest.fixture
def admin_api(make_user):
    client = APIClient()
    client.force_authenticate(make_user(Role.ADMIN))
    return client


def test_the_api_refuses_a_json_body_and_a_post_without_files(stored, admin_api):
    url = reverse("corpus-api:import-list")
    as_body = admin_api.post(url, {"characters": small_characters()}, format="json")
    assert as_body.status_code in (400, 415), as_body.content
    empty = admin_api.post(url, {}, format="multipart")
    assert empty.status_code == 400
    assert "files" in empty.json()["fields"]
    stored()


def test_the_api_takes_a_hostile_file_and_reports_where_it_is_broken(
    stored, admin_api, eager, django_capture_on_commit_callbacks
):
    url = reverse("corpus-api:import-list")
    content = hostile_content("HOSTILE_FILES:nul-escape-in-a-text")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_api.post(url, {"files": [upload("c.json", content)]}, format="multipart")
    assert response.status_code == 202, response.content
    job = admin_api.get(reverse("corpus-api:import-detail", args=[response.json()["id"]])).json()
    assert job["status"] == "failed"
    assert job["errors"][0]["file"] == "c.json"
    assert job["errors"][0]["field"] == "[0].description"
    assert "NUL" in job["errors"][0]["message"]
    stored(JOB_TABLES)


# --- Form posts -------------------------------------------------------------------------------


@pytest.fixture
def comparison(db):
    cast = people()
    pair = make_pair()
    assignments = assign(pair, cast["annotators"], cast["admin"])
    annotator = cast["annotators"][0]
    from django.test import Client

    client = Client()
    client.force_login(annotator)
    return {"client": client, "assignment": assignments[annotator.pk], "cast": cast}


def judgment(assignment, **overrides):
    content = {
        "suitability": "suitable",
        "suitability_reason": "",
        "selected_letter": letter_for(assignment, "claude"),
        "rating": "as_is",
        "selection_rationale": "This candidate fits the memories best.",
        "revision_guidance": "",
    }
    content.update(overrides)
    return content


FORM_POSTS = [
    ("letter-outside-a-b-c", {"selected_letter": "D"}, "Select a valid choice. D is not one"),
    ("rating-unknown", {"rating": "perfect"}, "Select a valid choice. perfect is not one"),
    (
        "nul-in-rationale",
        {"selection_rationale": "fits\x00best"},
        "Selection rationale contains a control character (NUL) at character 5",
    ),
    ("missing-rationale", {"selection_rationale": ""}, "Step 3: give a brief rationale"),
    (
        "flag-without-reason",
        {"suitability": "flagged"},
        "Step 1: provide a brief reason for every flag",
    ),
    (
        "partial-without-guidance",
        {"rating": "partial"},
        "partial revisions require concrete written guidance",
    ),
    ("suitability-as-a-list", {"suitability": ["suitable", "flagged"]}, ""),
]


@pytest.mark.parametrize(
    ("overrides", "message"), [pytest.param(*p[1:], id=p[0]) for p in FORM_POSTS]
)
def test_a_broken_judgment_post_is_refused_with_the_step_named(comparison, overrides, message):
    assignment = comparison["assignment"]
    before = table_fingerprints()
    response = comparison["client"].post(
        reverse("comparison:pair", kwargs={"assignment": assignment.public_id}),
        judgment(assignment, **overrides),
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert message.replace("'", "&#x27;") in body, body[body.find("invalid-feedback") - 500 :][
        :1500
    ]
    assert not changed_tables(before, table_fingerprints())


def test_a_draft_with_a_nul_character_is_saved_without_it_or_refused_not_a_crash(comparison):
    assignment = comparison["assignment"]
    response = comparison["client"].post(
        reverse("comparison:draft", kwargs={"assignment": assignment.public_id}),
        {"selection_rationale": "half\x00typed"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    from annotation.comparison.models import ComparisonDraft

    draft = ComparisonDraft.objects.filter(assignment=assignment).first()
    assert draft is None or "\x00" not in json.dumps(draft.data)


def test_script_in_a_rationale_is_stored_as_typed_and_escaped_for_the_arbitrator(comparison):
    assignment = comparison["assignment"]
    content = judgment(assignment, selection_rationale="Fits. " + SCRIPT, rating="partial")
    content["revision_guidance"] = "Add " + SCRIPT
    response = comparison["client"].post(
        reverse("comparison:pair", kwargs={"assignment": assignment.public_id}), content
    )
    assert response.status_code == 302
    from tests.comparison.helpers import judge

    others = [a for a in assignment.pair.assignments.all() if a.pk != assignment.pk]
    for other in others:
        judge(other, family="gpt")
    assignment.pair.refresh_from_db()
    assert assignment.judgment.selection_rationale == "Fits. " + SCRIPT
    from django.test import Client

    senior = Client()
    senior.force_login(comparison["cast"]["arbitrator"])
    body = senior.get(reverse("adjudication:pair", kwargs={"pair_id": assignment.pair_id}))
    body = body.content.decode()
    assert "Fits. &lt;script&gt;" in body
    assert "<script>alert" not in body and "<img src=x" not in body


def test_a_megabyte_rationale_is_stored_whole_or_refused_cleanly(comparison):
    assignment = comparison["assignment"]
    long_text = "word " * 200_000
    response = comparison["client"].post(
        reverse("comparison:pair", kwargs={"assignment": assignment.public_id}),
        judgment(assignment, selection_rationale=long_text),
    )
    assert response.status_code in (200, 302)
    assignment.refresh_from_db()
    if response.status_code == 302:
        assert assignment.judgment.selection_rationale == long_text.strip()
