"""The move of MCQ screening onto screening runs (issue #33) on a database that already
holds screenings: every row stays, with its outcome, output and attempt errors; they
become the units of one run whose state follows them, and a screening still waiting is
screened through that run once its old message arrives."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from adjudication.mcq.models import McqItem, McqItemVersion, McqScreening, McqScreeningRun
from adjudication.mcq.services import item_assembly
from adjudication.mcq.services.item_screening import mcq_screening_run
from llm.testing.replies import json_reply

from .conftest import verdict

BEFORE = [("adjudication", "0011_history_state_here")]


def leaves(executor):
    return executor.loader.graph.leaf_nodes()


@pytest.mark.django_db(transaction=True)
def test_screenings_stored_before_runs_are_kept_in_one_run(references, judge):
    items = [
        item_assembly.mcq_item_assemble(
            reference_id=references[key].pk, selector=False, dispatch=False
        )
        for key in ("CHAR_01", "CHAR_05")
    ]
    versions = [McqItemVersion.objects.get(item=i, number=i.version) for i in items]
    output = verdict(items[0])
    errors = [{"error_kind": "invalid_json", "problems": ["invalid_json: not JSON"]}]

    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    Screening = old.get_model("adjudication", "McqScreening")
    passed = Screening.objects.create(
        item_id=items[0].pk,
        item_version_id=versions[0].pk,
        outcome="passed",
        output=output,
        attempts=1,
        judge_family="anthropic",
        judge_model="judge-1",
        prompt_sha256="a" * 64,
    )
    failed = Screening.objects.create(
        item_id=items[0].pk,
        item_version_id=versions[0].pk,
        outcome="technical_failure",
        attempts=3,
        attempt_errors=errors * 3,
        needs_human_review=True,
    )
    waiting = Screening.objects.create(
        item_id=items[1].pk, item_version_id=versions[1].pk, outcome="pending"
    )

    executor = MigrationExecutor(connection)
    executor.migrate(leaves(executor))

    run = McqScreeningRun.objects.get()
    assert run.status == McqScreeningRun.Status.RUNNING  # a screening still waits
    assert "before screening runs" in run.note
    rows = {s.pk: s for s in McqScreening.objects.all()}
    assert set(rows) == {passed.pk, failed.pk, waiting.pk}
    assert {s.run_id for s in rows.values()} == {run.pk}
    assert rows[passed.pk].status == McqScreening.Status.DONE
    assert rows[passed.pk].output == output and rows[passed.pk].judge_model == "judge-1"
    assert rows[passed.pk].prompt_sha256 == "a" * 64 and rows[passed.pk].attempts == 1
    assert rows[failed.pk].status == McqScreening.Status.FAILED
    assert rows[failed.pk].attempt_errors == errors * 3 and rows[failed.pk].attempts == 3
    assert rows[failed.pk].outcome == McqScreening.Outcome.TECHNICAL_FAILURE
    assert rows[waiting.pk].status == McqScreening.Status.PENDING
    assert run.created_at == min(s.created_at for s in rows.values())

    # The old message of the waiting screening arrives: it is screened in its run, which
    # then finishes (with failures: the technical failure above).
    judge.enqueue(json_reply(verdict(items[1])))
    screened = mcq_screening_run(item_id=items[1].pk)
    assert screened.pk == waiting.pk and screened.status == McqScreening.Status.DONE
    run.refresh_from_db()
    assert run.status == McqScreeningRun.Status.FINISHED_WITH_FAILURES
    assert McqItem.objects.get(pk=items[1].pk).status == McqItem.Status.FINAL
