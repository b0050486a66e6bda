"""The demo's human baseline: on the release and the stand-in memories, a feasible subset,
a study with its retrieval sets, the demo participant at the consent page and simulated
participants whose report computes; running it again changes nothing."""

import json

import pytest

from annotation.corpus_import.importing import import_files
from core.roles import Role
from heartbench_site.demo import standin_characters
from humanbaseline import services
from humanbaseline.demo import DEMO_STUDY_NAME, seed_baseline_demo
from humanbaseline.models import BaselineReport, BaselineStudy, Participation, StudyItem
from tests.factories import UserFactory

from .helpers import constraint_violations

pytestmark = pytest.mark.django_db

RELEASE_FILES = ("scenarios.json", "ground_truth.json", "mcq.json")


def test_the_demo_makes_a_study_ready_for_the_demo_participant(release_dir, role_groups):
    files = [(name, (release_dir / name).read_bytes()) for name in RELEASE_FILES]
    files.append(
        ("demo_standin_characters.json", json.dumps(standin_characters(release_dir)).encode())
    )
    import_files(files, source="demo")
    users = {
        Role.ADMIN.value: UserFactory(username="admin", roles=[Role.ADMIN]),
        Role.BASELINE_PARTICIPANT.value: UserFactory(
            username="participant", roles=[Role.BASELINE_PARTICIPANT]
        ),
    }
    study = seed_baseline_demo(users=users)
    assert study is not None and study.name == DEMO_STUDY_NAME
    assert study.selection.feasible
    from humanbaseline.models import ItemSourceFamily

    families = dict(ItemSourceFamily.objects.values_list("item_id", "family"))
    chosen = list(study.selection.items.values_list("item_id", flat=True))
    assert constraint_violations(chosen, families) == []
    assert StudyItem.objects.filter(study=study, is_practice=False).count() == 150
    assert StudyItem.objects.filter(study=study, is_practice=True).count() == 2
    scenarios = {
        practice: set(
            StudyItem.objects.filter(study=study, is_practice=practice).values_list(
                "item__scenario_id", flat=True
            )
        )
        for practice in (True, False)
    }
    assert scenarios[True] and not scenarios[True] & scenarios[False]
    assert study.selection.parameters["held_out_scenarios"]
    assert all(
        si.retrieval_set.entries.count() > 0
        for si in StudyItem.objects.filter(study=study).select_related("retrieval_set")[:10]
    )
    demo = Participation.objects.get(study=study, user__username="participant")
    assert demo.status == Participation.Status.INVITED
    # A new user finalizing the demo study sees a completion code, as on Prolific.
    assert study.completion_code == "HBDEMO2026" and study.completion_url == ""
    assert Participation.objects.filter(study=study, status="finalized").count() == 4
    # One simulated participant withdrew part-way: the admin sees how it shows, and the
    # report leaves their 20 answers out.
    withdrawn = Participation.objects.get(study=study, status="withdrawn")
    assert withdrawn.withdrawn_at is not None
    assert withdrawn.responses.exclude(choice="").count() == 20
    report = BaselineReport.objects.get(study=study)
    report = services.report_compute(report_id=report.pk)
    assert report.status == "done" and report.results["n_annotators"] == 4
    assert 0.7 < report.results["mean_accuracy"]["estimate"] < 0.9
    # Reweighted to the final set it finds (the stand-in families), the counts shown.
    assert report.results["target_counts"] == {"gemini": 497, "claude": 126, "gpt": 50}
    # The best model was named by the admin before anyone answered.
    basis = report.results["best_model_basis"]
    assert report.results["best_model"] == "simulated model A (demo)"
    assert basis["method"] == "admin" and basis["chosen_by"] == "admin"
    assert basis["changes_after_answers"] == []

    assert seed_baseline_demo(users=users) == study
    assert BaselineStudy.objects.count() == 1
