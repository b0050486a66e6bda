"""Re-importing after profile review, the memory audit and scenario review (issue #18,
point 1): the same files change nothing, a change to a reviewed, edited, audited or
frozen record is refused with the database unchanged, and "import as new versions"
adds a changed profile as a draft for review."""

import copy
import json
from dataclasses import dataclass
from io import StringIO

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.corpus.models import Character, Memory, ProfileVersion, Scenario
from annotation.corpus_import.importing import import_files
from annotation.corpus_import.models import ImportJob
from annotation.corpus_import.problems import ImportRejected
from annotation.corpus_import.services import import_job_run
from annotation.profile_review.forms import ProfileEditForm
from annotation.profile_review.models import ProfileReviewCase
from annotation.profile_review.services import (
    change_request_add,
    change_request_resolve,
    profile_edit,
    profile_freeze,
    profile_review_save,
)
from annotation.scenario_review.models import ScenarioReview
from annotation.scenario_review.services import scenario_rate, scenario_screen
from audit.memory_quality.models import MemoryCase, MemoryVersion
from audit.memory_quality.services.review import case_review_decide, case_senior_edit
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.roles import Role
from tests.factories import UserFactory

from . import as_json, small_characters

pytestmark = pytest.mark.django_db

DRIFT = " Years later I understood that she had been working two jobs."
SENIOR_TEXT = "I waited by the window and counted the cars until her bus came."
EDITED_DESCRIPTION = "A careful person who tends to read situations for what could go wrong."
SCORES = dict(
    duty=5, intellect=3, adversity=6, mating=1, positivity=2, negativity=6, deception=2, sociality=5
)
ALL_MEET = dict.fromkeys(
    (
        "trait_alignment",
        "internal_coherence",
        "occupational_plausibility",
        "behavioral_specificity",
        "interpretive_restraint",
    ),
    "meets",
)


def fingerprints() -> dict[str, tuple[int, str]]:
    """{table: (row count, md5 of every row's text)} of every table Django manages."""
    prints = {}
    with connection.cursor() as cursor:
        for table in sorted(connection.introspection.table_names()):
            quoted = connection.ops.quote_name(table)
            cursor.execute(
                f"SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) "
                f"FROM {quoted} t"
            )
            prints[table] = cursor.fetchone()
    return prints


def changed_tables(before: dict, after: dict) -> list[str]:
    return sorted(t for t in before.keys() | after.keys() if before.get(t) != after.get(t))


@dataclass
class Reviewed:
    characters: list[dict]
    scenarios: dict
    files: list[tuple[str, bytes]]
    edited_memory: str
    scenario_id: str
    admin: object


@pytest.fixture
def reviewed(db, release_dir) -> Reviewed:
    """Two characters and the release's scenarios imported; CHAR_01's profile edited by
    the senior and frozen; a memory with a planted defect edited by the senior in the
    memory audit; one scenario through both passes of scenario review."""
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    annotators = [UserFactory(roles=[Role.PRIMARY_ANNOTATOR]) for _ in range(3)]
    senior = UserFactory(username="senior", roles=[Role.ARBITRATOR])
    admin = UserFactory(username="admin", roles=[Role.ADMIN])
    memory_reviewer = UserFactory(roles=[Role.MEMORY_REVIEWER])
    scenario_reviewers = [UserFactory(roles=[Role.SCENARIO_REVIEWER]) for _ in range(2)]

    characters = small_characters(characters=2, memories=4)
    defective = characters[0]["episodic_memory_set"][1]
    defective["content_full"] += DRIFT
    scenarios = json.loads((release_dir / "scenarios.json").read_text())
    files = [("characters.json", as_json(characters)), ("scenarios.json", as_json(scenarios))]
    import_files(files)

    # One reviewer asks for a change to the description (App. B.3 keeps a profile all
    # three accept as-is unchanged); the senior edits it and accepts the request.
    drafted = ProfileVersion.objects.get(character__key="CHAR_01")
    change = change_request_add(
        character_key="CHAR_01",
        reviewer=annotators[0],
        field="description",
        passage=" ".join(drafted.description.split()[:4]),
        concern="Too categorical.",
        suggested_correction="Say how the character tends to act.",
    )
    for n, annotator in enumerate(annotators):
        profile_review_save(
            character_key="CHAR_01",
            reviewer=annotator,
            recommendation="local_revision" if n == 0 else "accept",
            criteria=ALL_MEET,
            submit=True,
        )
    values = ProfileEditForm.initial_for(drafted)
    values["core_patterns"] = [values.pop(f"core_pattern_{i}") for i in range(1, 9)]
    values["description"] = EDITED_DESCRIPTION
    profile_edit(character_key="CHAR_01", editor=senior, values=values)
    change_request_resolve(request_id=change.pk, arbitrator=senior, status="accepted")
    profile_freeze(character_key="CHAR_01", arbitrator=senior, suitability_confirmed=True)

    run = audit_run_start(created_by=admin)
    audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    case = MemoryCase.objects.get(run=run, memory__memory_id=defective["id"])
    case_review_decide(case_id=case.pk, reviewer=memory_reviewer, decision="confirmed", reason="")
    case_senior_edit(
        case_id=case.pk,
        editor=senior,
        context=defective["context"],
        content_summary=defective["content_summary"],
        content_full=SENIOR_TEXT,
    )

    scenario_id = scenarios["scenarios"]["school_age"][0]["id"]
    for reviewer in scenario_reviewers:
        scenario_screen(
            scenario_id=scenario_id,
            reviewer=reviewer,
            decision="approve",
            logically_consistent=True,
            psychologically_plausible=True,
            character_agnostic=True,
        )
    for reviewer in scenario_reviewers:
        scenario_rate(scenario_id=scenario_id, reviewer=reviewer, scores=SCORES)
    assert ScenarioReview.objects.get(scenario__scenario_id=scenario_id).stage == "complete"
    return Reviewed(characters, scenarios, files, defective["id"], scenario_id, admin)


def changed_files(reviewed: Reviewed) -> list[tuple[str, bytes]]:
    """CHAR_01's description, the edited memory's narrative and another of its memories'
    intensity (audited, not edited), and the reviewed scenario's context all changed."""
    characters = copy.deepcopy(reviewed.characters)
    characters[0]["description"] = "A description from a corrected release."
    characters[0]["episodic_memory_set"][1]["content_full"] = "A corrected release narrative."
    characters[0]["episodic_memory_set"][0]["emotion_signature"]["intensity"] = 0.11
    scenarios = copy.deepcopy(reviewed.scenarios)
    scenarios["scenarios"]["school_age"][0]["context_text"] = "A corrected release context."
    return [("characters.json", as_json(characters)), ("scenarios.json", as_json(scenarios))]


def test_the_same_files_after_review_and_audit_change_nothing(reviewed):
    before = fingerprints()
    memory = Memory.objects.get(memory_id=reviewed.edited_memory)
    assert memory.content_full == SENIOR_TEXT

    summary = import_files(reviewed.files, source="again")

    assert not summary.changed
    counts = summary.as_dict()["counts"]
    assert counts["profile_versions"] == {"created": 0, "updated": 0, "unchanged": 2}
    assert counts["memories"] == {"created": 0, "updated": 0, "unchanged": 8}
    assert counts["scenarios"] == {"created": 0, "updated": 0, "unchanged": 64}
    assert changed_tables(before, fingerprints()) == []
    # What the issue saw undone: the senior's memory text and profile edit stay current.
    assert Memory.objects.get(memory_id=reviewed.edited_memory).content_full == SENIOR_TEXT
    assert MemoryVersion.objects.filter(memory__memory_id=reviewed.edited_memory).count() == 2
    versions = ProfileVersion.objects.filter(character__key="CHAR_01").order_by("number")
    assert [(v.number, v.description, v.is_frozen) for v in versions][1:] == [
        (2, EDITED_DESCRIPTION, True)
    ]
    assert versions.count() == 2


def test_a_change_to_reviewed_records_is_refused_naming_each_and_writes_nothing(reviewed):
    before = fingerprints()

    with pytest.raises(ImportRejected) as rejected:
        import_files(changed_files(reviewed))

    assert changed_tables(before, fingerprints()) == []
    messages = {(e.file, e.record): e.message for e in rejected.value.errors}
    profile = messages[("characters.json", "CHAR_01")]
    assert profile.startswith("CHAR_01 profile: v2 frozen by senior on ")
    assert "v2 edited by senior in profile review on " in profile
    assert "The file changes description; import as new versions to add it as v3" in profile
    edited = messages[("characters.json", f"CHAR_01 / memory {reviewed.edited_memory}")]
    assert edited.startswith(
        f"memory {reviewed.edited_memory}: edited in the memory audit "
        "(senior expert's edit, v2 by senior)"
    )
    assert "The file changes content_full" in edited
    audited_id = reviewed.characters[0]["episodic_memory_set"][0]["id"]
    audited = messages[("characters.json", f"CHAR_01 / memory {audited_id}")]
    assert audited.startswith(f"memory {audited_id}: ")
    assert "memory audit run #" in audited and "changes emotion_intensity" in audited
    scenario = next(m for (f, _), m in messages.items() if f == "scenarios.json")
    assert scenario.startswith(
        f"scenario {reviewed.scenario_id}: reviewed in scenario review (completed on "
    )
    assert "The file changes context_text" in scenario
    assert len(messages) == 4  # CHAR_02 and the other scenarios are unchanged


def test_a_profile_under_review_takes_no_new_version_even_when_asked(reviewed):
    UserFactory(roles=[Role.PRIMARY_ANNOTATOR])
    annotator = UserFactory(roles=[Role.PRIMARY_ANNOTATOR])
    profile_review_save(
        character_key="CHAR_02",
        reviewer=annotator,
        recommendation="accept",
        criteria=ALL_MEET,
        submit=True,
    )
    characters = copy.deepcopy(reviewed.characters)
    characters[1]["occupation"] = "lighthouse keeper"
    before = fingerprints()

    with pytest.raises(ImportRejected) as rejected:
        import_files([("characters.json", as_json(characters))], as_new_versions=True)

    (problem,) = rejected.value.errors
    assert problem.message == (
        "CHAR_02 profile: v1 under profile review (with the reviewers). The file changes "
        "occupation; a new version can be imported once its review case is frozen."
    )
    assert changed_tables(before, fingerprints()) == []


def test_the_command_imports_a_changed_frozen_profile_as_a_new_version(reviewed, tmp_path):
    characters = copy.deepcopy(reviewed.characters)
    characters[0]["description"] = "A description from a corrected release."
    path = tmp_path / "characters.json"
    path.write_bytes(as_json(characters))
    with pytest.raises(CommandError, match="1 problem"):
        call_command("import_corpus", str(path), stderr=StringIO(), stdout=StringIO())
    assert ProfileVersion.objects.filter(character__key="CHAR_01").count() == 2

    out = StringIO()
    call_command("import_corpus", str(path), "--as-new-versions", stdout=out)

    assert "CHAR_01 profile imported as v3, a draft for profile review; v2 stays" in out.getvalue()
    versions = list(ProfileVersion.objects.filter(character__key="CHAR_01").order_by("number"))
    assert [(v.number, v.is_frozen) for v in versions] == [(1, False), (2, True), (3, False)]
    assert versions[1].description == EDITED_DESCRIPTION
    assert versions[2].description == "A description from a corrected release."
    assert ProfileVersion.objects.filter(character__key="CHAR_02").count() == 1
    # The draft enters profile review from the start: a new case reviews v3.
    profile_review_save(
        character_key="CHAR_01",
        reviewer=UserFactory(roles=[Role.PRIMARY_ANNOTATOR]),
        recommendation="accept",
        criteria=ALL_MEET,
        submit=False,
    )
    case = ProfileReviewCase.objects.get(character__key="CHAR_01", status="reviewing")
    assert case.reviewed_version == versions[2]
    # Importing the same file again adds nothing: v3 is what was last imported.
    call_command("import_corpus", str(path), "--as-new-versions", stdout=StringIO())
    assert ProfileVersion.objects.filter(character__key="CHAR_01").count() == 3


def test_new_versions_never_replace_an_audited_memory_or_a_reviewed_scenario(reviewed):
    before = fingerprints()

    with pytest.raises(ImportRejected) as rejected:
        import_files(changed_files(reviewed), as_new_versions=True)

    assert changed_tables(before, fingerprints()) == []
    messages = [e.message for e in rejected.value.errors]
    assert len(messages) == 3  # the profile is accepted as a new version; nothing written
    assert sum("a memory has no imported versions" in m for m in messages) == 2
    assert sum("is reviewed as a new scenario" in m for m in messages) == 1


def test_the_api_and_the_page_carry_the_option_to_the_job(reviewed):
    characters = copy.deepcopy(reviewed.characters)
    characters[0]["description"] = "A description from a corrected release."
    content = as_json(characters)
    api = APIClient()
    api.force_authenticate(reviewed.admin)

    refused = api.post(
        reverse("corpus-api:import-list"),
        {"files": [SimpleUploadedFile("characters.json", content)]},
        format="multipart",
    )
    assert refused.status_code == 202 and refused.json()["as_new_versions"] is False
    job = import_job_run(job_id=refused.json()["id"])
    assert job.status == ImportJob.Status.FAILED
    assert job.errors[0]["record"] == "CHAR_01"
    assert job.errors[0]["message"].startswith("CHAR_01 profile: v2 frozen by senior on ")
    page = Client()
    page.force_login(reviewed.admin)
    detail = page.get(reverse("corpus:import-job", args=[job.pk])).content.decode()
    assert "CHAR_01 profile: v2 frozen by senior on " in detail

    accepted = api.post(
        reverse("corpus-api:import-list"),
        {"files": [SimpleUploadedFile("characters.json", content)], "as_new_versions": "true"},
        format="multipart",
    )
    assert accepted.json()["as_new_versions"] is True
    job = import_job_run(job_id=accepted.json()["id"])
    assert job.status == ImportJob.Status.SUCCEEDED, job.errors
    assert job.summary["counts"]["profile_versions"]["created"] == 1
    assert ProfileVersion.objects.filter(character__key="CHAR_01").count() == 3

    form = page.get(reverse("corpus:import")).content.decode()
    assert 'name="as_new_versions"' in form and "Import as new versions" in form
    response = page.post(
        reverse("corpus:import"),
        {"files": [SimpleUploadedFile("characters.json", content)], "as_new_versions": "on"},
    )
    job = ImportJob.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[1]))
    assert job.as_new_versions is True
    detail = page.get(response["Location"]).content.decode()
    assert "to import changed profiles as new versions" in detail
    # v3 is what was last imported: the same file again adds nothing.
    assert import_job_run(job_id=job.pk).summary["counts"]["profile_versions"] == {
        "created": 0,
        "updated": 0,
        "unchanged": 2,
    }


def test_a_new_character_joins_the_reviewed_corpus_beside_the_unchanged_ones(reviewed):
    three = small_characters(characters=3, memories=4)
    three[0]["episodic_memory_set"][1]["content_full"] += DRIFT
    assert three[:2] == reviewed.characters
    before = {
        "profiles": list(ProfileVersion.objects.order_by("pk").values()),
        "memories": list(Memory.objects.order_by("pk").values()),
        "memory_versions": MemoryVersion.objects.count(),
    }

    summary = import_files([("characters.json", as_json(three))])

    counts = summary.as_dict()["counts"]
    assert counts["characters"] == {"created": 1, "updated": 0, "unchanged": 2}
    assert counts["profile_versions"] == {"created": 1, "updated": 0, "unchanged": 2}
    assert counts["memories"] == {"created": 4, "updated": 0, "unchanged": 8}
    assert list(ProfileVersion.objects.exclude(character__key="CHAR_03").order_by("pk").values())
    assert before["profiles"] == list(
        ProfileVersion.objects.exclude(character__key="CHAR_03").order_by("pk").values()
    )
    assert before["memories"] == list(
        Memory.objects.exclude(character__key="CHAR_03").order_by("pk").values()
    )
    assert MemoryVersion.objects.count() == before["memory_versions"]
    new = Character.objects.get(key="CHAR_03")
    assert new.versions.get().number == 1 and new.memories.count() == 4
    assert Scenario.objects.count() == 64
