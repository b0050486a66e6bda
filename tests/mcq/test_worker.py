"""Assembly and screening on a real `celery worker` process: an admin's run assembles
every pair, each assembled item is screened by the worker's judge (the fake provider
server over loopback, configured through the worker's own environment), and an item
revised afterwards is screened again in full, as its new version."""

import json
import time

import pytest

from adjudication.mcq.models import McqAssemblyRun, McqItem, McqScreening
from adjudication.mcq.services import item_assembly
from adjudication.mcq.versions import revise_item
from core.roles import Role
from llm.testing.replies import json_reply


def wait_for(predicate, timeout=90.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.25)
    return False


class Key:
    def __init__(self, data):
        self.question_id = data["item_id"]
        self.version = data["item_version"]
        self.correct_answer = data["answer_key"]


def honest_judge(request):
    """Passes every item's key, except a version whose options mention origami."""
    from .conftest import verdict

    prompt = [t for role, t in request.turns() if role == "user"][-1]
    data = json.loads(prompt.split("<item_data>\n", 1)[1].rsplit("\n</item_data>", 1)[0])
    texts = " ".join(o["text"] for o in data["options"])
    checks = {"R3": "flag"} if "origami" in texts else {}
    return json_reply(verdict(Key(data), checks=checks))


@pytest.mark.django_db(transaction=True)
def test_a_worker_assembles_screens_and_rescreens_a_revised_item(
    celery_worker_factory, fake_server, references, person
):
    fake_server.responder = honest_judge
    celery_worker_factory(
        extra_env={
            "HEARTBENCH_MCQ_SCREENER_KIND": "anthropic",
            "HEARTBENCH_MCQ_SCREENER_BASE_URL": fake_server.base_url("anthropic"),
            "HEARTBENCH_MCQ_SCREENER_MODEL": "fake-judge",
            "HEARTBENCH_MCQ_SCREENER_API_KEY": "test-key",
            "HEARTBENCH_MCQ_SCREENER_MAX_RETRIES": "1",
        },
        name="mcq",
    )
    admin = person(Role.ADMIN)
    run = item_assembly.mcq_assembly_run_start(started_by=admin)  # autocommit: queued at once

    assert wait_for(lambda: McqAssemblyRun.objects.get(pk=run.pk).status == "done")
    run.refresh_from_db()
    assert run.processed == run.total == 7
    assert wait_for(lambda: not McqItem.objects.filter(status="screening").exists())
    screened = McqItem.objects.exclude(status="needs_completion")
    assert screened.count() == run.assembled
    assert set(screened.values_list("status", flat=True)) == {"final"}
    requests_before = len(fake_server.requests)
    assert requests_before == run.assembled  # one call per complete item

    item = McqItem.objects.get(question_id="Q_CHAR_01_SCN_SCHOOL_AGE_1")
    label = next(o.label for o in item.options.order_by("label") if not o.is_correct)
    revise_item(
        item,
        user=admin,
        origin="review",
        note="a worse distractor",
        options=[
            {
                "label": o.label,
                "content": "I fold origami cranes." if o.label == label else o.content,
            }
            for o in item.options.order_by("label")
        ],
    )

    def rescreened():
        return (
            McqScreening.objects.filter(item=item, item_version__number=2)
            .exclude(outcome="pending")
            .first()
        )

    assert wait_for(lambda: rescreened() is not None)
    assert rescreened().outcome == McqScreening.Outcome.FLAGGED
    item.refresh_from_db()
    assert item.status == McqItem.Status.FLAGGED and item.version == 2
    assert len(fake_server.requests) == requests_before + 1
