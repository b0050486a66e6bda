"""`make demo`'s loader: release data + labelled stand-ins + one account per role."""

import pytest
from django.core.management import call_command
from django.test import Client

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem
from annotation.corpus.models import Character, Memory, ProfileVersion, Scenario
from annotation.generation.models import Candidate
from core.roles import Role, user_roles
from heartbench_site.demo import STANDIN
from heartbench_site.management.commands.demo_setup import DEMO_ACCOUNTS

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(demo_built, db):
    """The demo, built once for this module (tests/conftest.py)."""


def counts():
    return (
        Scenario.objects.count(),
        ReferenceResponse.objects.count(),
        McqItem.objects.count(),
        Character.objects.count(),
        ProfileVersion.objects.count(),
        Memory.objects.count(),
        Candidate.objects.count(),
    )


def test_demo_loads_the_release_and_labelled_standins(demo, release_dir):
    import json

    stages = json.loads((release_dir / "scenarios.json").read_text())["scenarios"]
    release_ids = {s["id"] for scenarios in stages.values() for s in scenarios}
    assert len(release_ids) == 64
    assert Scenario.objects.filter(scenario_id__in=release_ids).count() == 64
    # Plus the one the demo's scenario blueprint was expanded into.
    assert Scenario.objects.count() == 65
    # The release's references; the comparison demo may supersede one with its own.
    assert ReferenceResponse.objects.filter(decision_type="imported").count() == 673
    # The release's items, plus the item-review demo's labelled DEMO_Q_ items.
    assert McqItem.objects.exclude(source="demo").count() == 673
    demo_items = McqItem.objects.filter(source="demo")
    assert demo_items.count() == 4
    assert all(item.question_id.startswith("DEMO_Q_") for item in demo_items)
    release = [f"CHAR_{n:02d}" for n in range(1, 12)]
    # The release's eleven, two drafted on the platform and one whose memories were
    # generated on it (the corpus construction demo).
    keys = set(Character.objects.values_list("key", flat=True))
    assert keys == {*release, "CHAR_12", "CHAR_13", "CHAR_14"}
    for version in ProfileVersion.objects.all():
        assert version.is_demo_standin
        assert len(version.core_patterns) == 8
        if version.character.key in release:
            assert STANDIN in version.description
    memories = Memory.objects.filter(character__key__in=release)
    assert memories.count() == 11 * 24
    assert all(m.is_demo_standin and m.content_full.startswith(STANDIN) for m in memories)
    generated = Memory.objects.exclude(character__key__in=release)
    assert set(generated.values_list("character__key", flat=True)) == {"CHAR_14"}
    assert generated.count() == 40 and all(m.is_demo_standin for m in generated)
    assert all(m.source.startswith("generated: run ") for m in generated)


def test_demo_memories_respect_the_scenario_age_eligibility(demo):
    from annotation.corpus.models import ActivationSet

    ages = dict(Memory.objects.values_list("memory_id", "event_age"))
    checked = 0
    for activation in ActivationSet.objects.filter(step=2):
        for memory_id in activation.memory_ids:
            if memory_id in ages:
                assert ages[memory_id] <= activation.scenario_age
                checked += 1
    assert checked > 0


def test_running_the_demo_twice_changes_nothing(
    demo, release_dir, demo_providers, django_capture_on_commit_callbacks
):
    before = counts()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("demo_setup", release=release_dir, stdout=open("/dev/null", "w"))
    assert counts() == before


def test_the_demo_has_a_finished_generation_run_and_reviews_to_try(demo):
    from annotation.generation.models import Candidate, GenerationRun
    from annotation.profile_review.models import ProfileReviewCase
    from annotation.scenario_review.models import ScenarioReview

    run = GenerationRun.objects.get()
    assert run.status == "finished"
    assert Candidate.objects.filter(run=run).count() == run.units.count() == 12
    assert ProfileReviewCase.objects.exists()
    assert ScenarioReview.objects.exists()
    # The generation run's characters are frozen; profile review works on others.
    frozen = set(
        ProfileVersion.objects.filter(frozen_at__isnull=False).values_list(
            "character__key", flat=True
        )
    )
    reviewed = set(ProfileReviewCase.objects.values_list("character__key", flat=True))
    assert frozen and reviewed and not (frozen & reviewed)


def test_the_demo_has_comparisons_at_telling_stages(demo):
    from annotation.comparison.models import ComparisonJudgment, ComparisonPair

    run_pairs = ComparisonPair.objects.filter(candidates__run__isnull=False).distinct()
    statuses = sorted(run_pairs.values_list("status", flat=True))
    assert statuses == ["adopted", "annotating", "annotating", "escalated"]
    adopted = ComparisonPair.objects.get(status="adopted")
    current = ReferenceResponse.objects.get(
        character=adopted.character, scenario=adopted.scenario, superseded_at__isnull=True
    )
    assert current.decision_type == "unanimous" and current.source_family
    # One pair awaits the demo annotator: the two others submitted, they did not.
    waiting = [
        p
        for p in ComparisonPair.objects.filter(status="annotating")
        if ComparisonJudgment.objects.filter(assignment__pair=p).count() == 2
    ]
    assert len(waiting) == 1
    assert not ComparisonJudgment.objects.filter(
        assignment__pair=waiting[0], assignment__annotator__username="annotator"
    ).exists()
    client = Client()
    client.post("/accounts/login/", {"username": "annotator", "password": "annotator-demo-pass"})
    assert "2 pairs awaiting your comparison" in client.get("/").content.decode()
    client.post("/accounts/login/", {"username": "arbitrator", "password": "arbitrator-demo-pass"})
    assert "1 escalated comparison awaiting" in client.get("/").content.decode()


@pytest.mark.parametrize(("username", "role", "password"), DEMO_ACCOUNTS)
def test_each_demo_account_logs_in_and_sees_its_role_home(demo, username, role, password):
    client = Client()
    response = client.post("/accounts/login/", {"username": username, "password": password})
    assert response.status_code == 302, f"{username} could not log in with {password}"
    home = client.get("/")
    assert home.status_code == 200
    assert role in user_roles(home.wsgi_request.user)
    assert role.label in home.content.decode()


def test_the_demo_participant_holds_only_the_baseline_role(demo):
    from django.contrib.auth import get_user_model

    participant = get_user_model().objects.get(username="participant")
    assert user_roles(participant) == {Role.BASELINE_PARTICIPANT}


def test_the_demo_memory_audit_has_items_at_each_telling_stage(demo):
    from audit.memory_quality.demo import DEMO_NOTE, PLANTED
    from audit.memory_quality.models import AuditRun, MemoryCase, MemoryVersion

    run = AuditRun.objects.get(note=DEMO_NOTE)
    assert run.status == "finished"
    assert "criterion 4 off" in run.settings_version.note
    by_criterion = {tuple(c): s for c, s in run.cases.values_list("initial_criteria", "status")}
    assert by_criterion == {
        (3,): MemoryCase.Status.REPAIRED,  # the offline provider rewrote the context
        (1,): MemoryCase.Status.REVIEW,  # awaiting the memory reviewer
        (2,): MemoryCase.Status.SENIOR,  # confirmed, awaiting the senior's edit
    }
    # The narrative defects went to manual review without automated rewriting.
    assert all(case.attempts.count() == 0 for case in run.cases.exclude(status="repaired"))
    # The repaired one shows its defect with the attempts it took (App. B.6: per defect).
    [defect] = run.cases.get(status="repaired").defects.all()
    assert (defect.criterion, defect.status, defect.attempts_used) == (3, "repaired", 1)
    # (The fact check's demo run plants a fourth: tests/fact_preservation/test_demo.py.)
    planted = MemoryVersion.objects.filter(origin="demo_defect", memory__audit_cases__run=run)
    assert planted.count() == 3 and all(v.memory.is_demo_standin for v in planted)
    assert all(PLANTED in " ".join(v.fields.values()) for v in planted)
    # The override needs the whole reviewing team (three by default): the demo has three
    # memory reviewers a new user can log in as.
    from django.contrib.auth import get_user_model

    reviewers = get_user_model().objects.filter(groups__name=Role.MEMORY_REVIEWER.value)
    assert sorted(reviewers.values_list("username", flat=True)) == [
        "memory",
        "memory2",
        "memory3",
    ]
    assert get_user_model().objects.get(username="memory3").check_password("memory3-demo-pass")


def test_the_demo_analysis_page_shows_the_reference_source_tables(demo):
    """`make demo` shows App. K.1: simulated runs of the three families over items whose
    stand-in source families the baseline demo assigned."""
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.get(username="admin"))
    html = client.get("/evaluation/analysis/").content.decode()
    for testid in ("source-table", "own-source-table", "spearman-table", "interaction-table"):
        assert f'data-testid="{testid}"' in html, testid
    assert html.count('data-testid="did"') == 3
    families = ReferenceResponse.objects.filter(superseded_at__isnull=True).exclude(
        source_family=""
    )
    assert set(families.values_list("source_family", flat=True)) == {"gemini", "claude", "gpt"}


def test_the_demo_shows_the_blinding_checks(demo):
    from annotation.blinding.models import FamilyGuess
    from annotation.blinding.selectors import blinding_report
    from annotation.candidate_screening.models import CandidateCleaning, LeakFlag
    from annotation.comparison.models import ComparisonPair

    # A pair waits on an open leak flag (a planted markdown header); another flag on it
    # was cleaned, the edit recorded.
    (open_flag,) = LeakFlag.objects.filter(status="open")
    assert [f["rule"] for f in open_flag.findings] == ["markdown_header"]
    (cleaned,) = LeakFlag.objects.filter(status="cleaned")
    cleaning = CandidateCleaning.objects.get(flag=cleaned)
    assert "OpenAI" in cleaning.before["summary"] and "OpenAI" not in cleaning.after["summary"]
    waiting = ComparisonPair.objects.get(candidates=open_flag.candidate)
    assert waiting.candidates.filter(pk=cleaned.candidate_id).exists()
    assert not waiting.assignments.exists()
    # Family guesses of the two extra annotators on the routed pairs; the demo
    # "annotator" is left to try the question.
    guesses = FamilyGuess.objects.select_related("assignment__annotator")
    assert {g.assignment.annotator.username for g in guesses} == {"annotator2", "annotator3"}
    assert guesses.count() == 4
    letters = [v for g in guesses for v in g.guesses.values()]
    report = blinding_report()
    no_idea = sum(v == "unknown" for v in letters)
    assert report.overall.no_idea == no_idea and report.overall.named == 12 - no_idea
    assert report.overall.right > 0
    client = Client()
    client.post("/accounts/login/", {"username": "admin", "password": "admin-demo-pass"})
    flags_page = client.get("/screening/").content.decode()
    assert f"Leak flag {open_flag.pk}" in flags_page
    report_page = client.get("/blinding/report/").content.decode()
    assert "4 assignments with an answer." in report_page


def test_the_demo_has_a_finished_export_job_to_download(demo):
    import hashlib

    from adjudication.export import jobs
    from adjudication.export.models import ExportJob

    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.FINISHED and job.created_by.username == "admin"
    stored = jobs.job_file(job).read_bytes()
    assert hashlib.sha256(stored).hexdigest() == job.sha256
