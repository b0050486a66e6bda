"""The memory generation run pages: list, detail with progress per character and bin,
the polled fragment, batch detail and the storage download (seed 000 App. B.5)."""

import re

import pytest
from django.urls import reverse

from annotation.corpus.models import Memory
from annotation.corpus_import.corpus import ParsedCorpus
from annotation.corpus_import.memory_storage import parse_memory_storage
from annotation.memory_generation.models import MemoryBatch, MemoryRun
from core.roles import Role
from tests.factories import UserFactory

from .run_rows import make_run

pytestmark = pytest.mark.django_db


def test_run_list_shows_each_run_with_its_memories_and_batches(admin_client):
    run = make_run()
    body = admin_client.get(reverse("memory_generation:run-list")).content.decode()
    row = re.search(rf'<tr data-run="{run.pk}">.*?</tr>', body, re.S).group(0)
    assert 'data-status="running"' in row
    assert "4 / 6" in row  # memories stored / slots asked for
    assert "2 / 2" in row  # batches done (a failed one is terminal too) / all
    assert "Character 12" in row  # the run's character, by name


def test_run_list_query_count_does_not_grow_with_runs(admin_client, django_assert_max_num_queries):
    make_run(("CHAR_12",))
    url = reverse("memory_generation:run-list")
    admin_client.get(url)
    with django_assert_max_num_queries(99) as one:
        admin_client.get(url)
    make_run(("CHAR_13", "CHAR_14"))
    make_run(("CHAR_15",), status=MemoryRun.Status.FINISHED)
    with django_assert_max_num_queries(len(one.captured_queries)):
        assert admin_client.get(url).status_code == 200


def test_run_detail_counts_slots_per_character_and_bin(admin_client):
    run = make_run(("CHAR_12", "CHAR_13"))
    body = admin_client.get(reverse("memory_generation:run-detail", args=[run.pk])).content.decode()
    row = re.search(r'<tr data-character="CHAR_13">.*?</tr>', body, re.S).group(0)
    assert re.search(r'data-bin="adolescence">\s*<span[^>]*>3 / 3<', row)
    assert re.search(r'data-bin="early_adult_transition">\s*<span[^>]*>1 / 3<', row)
    assert re.search(r'data-bin="school_age">\s*<span class="text-body-secondary">—', row)
    assert re.search(r'data-testid="character-total">4 / 6<', row)
    totals = re.search(r'data-testid="run-totals">.*?</tr>', body, re.S).group(0)
    assert re.search(r'data-bin="adolescence">6 / 6<', totals)
    assert "8 / 12" in totals
    assert 'data-testid="slots-filled">8<' in body
    assert "4,000 tokens in / 2,000 out" in body
    assert "$0.0500" in body


def test_run_detail_lists_failed_batches_with_their_error(admin_client):
    run = make_run()
    failed = MemoryBatch.objects.get(run=run, status="failed")
    body = admin_client.get(reverse("memory_generation:run-detail", args=[run.pk])).content.decode()
    table = re.search(r'data-testid="failed-batches">.*?</table>', body, re.S).group(0)
    assert f'data-batch="{failed.pk}"' in table
    assert "slot 1: content_full is shorter than 2000 characters after 3 attempts" in table
    assert "schema_invalid" in table
    assert reverse("memory_generation:batch-detail", args=[run.pk, failed.pk]) in table


@pytest.mark.parametrize(
    ("status", "polls", "buttons"),
    [
        (MemoryRun.Status.RUNNING, True, {"run-cancel"}),
        (MemoryRun.Status.CANCELLING, True, set()),
        (MemoryRun.Status.CANCELLED, False, {"run-resume"}),
        (MemoryRun.Status.FINISHED_WITH_FAILURES, False, {"run-retry"}),
        (MemoryRun.Status.FINISHED, False, set()),
    ],
)
def test_the_page_polls_while_the_run_is_active_and_offers_what_its_state_allows(
    admin_client, status, polls, buttons
):
    run = make_run(status=status)
    body = admin_client.get(reverse("memory_generation:run-detail", args=[run.pk])).content.decode()
    progress = reverse("memory_generation:run-progress", args=[run.pk])
    assert (f'hx-get="{progress}"' in body) is polls
    assert f'data-polling="{str(polls).lower()}"' in body
    shown = {b for b in ("run-cancel", "run-resume", "run-retry") if f'id="{b}"' in body}
    assert shown == buttons
    for button in buttons:  # each action asks before it posts
        form = re.search(rf'<form[^>]*>\s*<input[^>]*>\s*<button[^>]*id="{button}"', body)
        assert form and "hx-confirm=" in form.group(0)


def test_the_progress_fragment_is_the_section_alone_and_stops_polling_when_terminal(admin_client):
    run = make_run()
    url = reverse("memory_generation:run-progress", args=[run.pk])
    body = admin_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert body.lstrip().startswith('<section id="run-progress"')
    assert "<html" not in body
    assert f'hx-get="{url}"' in body
    MemoryRun.objects.filter(pk=run.pk).update(status=MemoryRun.Status.FINISHED_WITH_FAILURES)
    body = admin_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "hx-get" not in body and 'data-status="finished_with_failures"' in body


def test_run_detail_query_count_does_not_grow_with_characters_and_batches(
    admin_client, django_assert_max_num_queries
):
    small = make_run(("CHAR_12",))
    big = make_run(
        ("CHAR_13", "CHAR_14", "CHAR_15"),
        windows=((6, 8, "succeeded", 4, 4), (12, 14, "running", 4, 2), (29, 33, "failed", 3, 0)),
    )
    counts = []
    for run in (small, big):
        for name in ("run-detail", "run-progress"):
            url = reverse(f"memory_generation:{name}", args=[run.pk])
            with django_assert_max_num_queries(99) as captured:
                assert admin_client.get(url).status_code == 200
            counts.append((name, len(captured.captured_queries)))
    assert counts[0] == counts[2] and counts[1] == counts[3], counts


def test_batch_detail_shows_slots_calls_problems_and_memories(
    admin_client, django_assert_max_num_queries
):
    run = make_run()
    failed = MemoryBatch.objects.get(run=run, status="failed")
    url = reverse("memory_generation:batch-detail", args=[run.pk, failed.pk])
    body = admin_client.get(url).content.decode()
    assert 'data-testid="batch-filled">1 / 3<' in body
    assert body.count('data-filled="true"') == 1 and body.count('data-filled="false"') == 2
    assert "content_full: &#x27;Too short.&#x27; is too short" in body
    assert "fake-memory-model" in body and "Target age: 19" in body
    memory = failed.memories.get().memory
    assert f'data-memory="{memory.memory_id}"' in body
    succeeded = MemoryBatch.objects.get(run=run, status="succeeded")
    with django_assert_max_num_queries(99) as one:
        admin_client.get(url)
    with django_assert_max_num_queries(len(one.captured_queries)):
        admin_client.get(reverse("memory_generation:batch-detail", args=[run.pk, succeeded.pk]))


def test_a_batch_of_another_run_is_not_found(admin_client):
    run, other = make_run(("CHAR_12",)), make_run(("CHAR_13",))
    batch = other.batches.first()
    url = reverse("memory_generation:batch-detail", args=[run.pk, batch.pk])
    assert admin_client.get(url).status_code == 404


def test_storage_download_is_the_characters_memories_read_back_exactly(admin_client):
    make_run(("CHAR_12", "CHAR_13"))
    response = admin_client.get(reverse("memory_generation:storage-download", args=["CHAR_12"]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert "CHAR_12_memories.txt" in response["Content-Disposition"]
    corpus = ParsedCorpus()
    count = parse_memory_storage("m.txt", response.content.decode(), corpus)
    stored = Memory.objects.filter(character__key="CHAR_12").order_by("sequence")
    assert corpus.problems == [] and count == stored.count() == 4
    for memory in stored:
        back = corpus.memories[memory.memory_id][0]
        assert back["content_full"] == memory.content_full
        assert back["event_age"] == memory.event_age
        assert back["emotion_secondary"] == ""


def test_storage_download_refuses_by_name_what_the_format_cannot_carry(admin_client):
    make_run()
    memory = Memory.objects.filter(character__key="CHAR_12").order_by("sequence").last()
    Memory.objects.filter(pk=memory.pk).update(content_full="Fine.\n===MEM_X===\nmore")
    response = admin_client.get(reverse("memory_generation:storage-download", args=["CHAR_12"]))
    assert response.status_code == 409
    assert memory.memory_id in response.content.decode()
    assert "header" in response.content.decode()


def test_storage_download_of_an_unknown_character_is_not_found(admin_client):
    url = reverse("memory_generation:storage-download", args=["CHAR_99"])
    assert admin_client.get(url).status_code == 404


@pytest.mark.parametrize("role", [Role.MEMORY_REVIEWER, Role.ARBITRATOR, Role.PRIMARY_ANNOTATOR])
def test_the_run_pages_are_admin_only(client, role):
    run = make_run()
    batch = run.batches.first()
    client.force_login(UserFactory(roles=[role]))
    for name, args in [
        ("run-list", []),
        ("run-new", []),
        ("run-detail", [run.pk]),
        ("run-progress", [run.pk]),
        ("batch-detail", [run.pk, batch.pk]),
        ("storage-download", ["CHAR_12"]),
    ]:
        assert client.get(reverse(f"memory_generation:{name}", args=args)).status_code == 403, name
    for name in ("run-cancel", "run-resume", "run-retry"):
        url = reverse(f"memory_generation:{name}", args=[run.pk])
        assert client.post(url).status_code == 403, name
    assert MemoryRun.objects.get(pk=run.pk).status == MemoryRun.Status.RUNNING


def test_the_run_actions_take_posts_only_and_a_known_run(admin_client):
    run = make_run()
    for name in ("run-cancel", "run-resume", "run-retry"):
        assert (
            admin_client.get(reverse(f"memory_generation:{name}", args=[run.pk])).status_code == 405
        )
        assert (
            admin_client.post(reverse(f"memory_generation:{name}", args=[999999])).status_code
            == 404
        )
    assert MemoryRun.objects.get(pk=run.pk).status == MemoryRun.Status.RUNNING


def test_the_memory_audit_shows_where_a_generated_memory_came_from(
    admin_user, django_capture_on_commit_callbacks
):
    """App. B.5 → B.6: a generated memory reaches the audit's queue and case page with
    its provenance (run, batch, slot, prompt version, model), read from its own row."""
    from django.test import Client

    from audit.memory_quality.models import MemoryCase
    from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
    from tests.memory_quality.conftest import DRIFT

    run = make_run(windows=((14, 15, "succeeded", 1, 1),))
    memory = Memory.objects.get(generation__batch__run=run)
    Memory.objects.filter(pk=memory.pk).update(content_full=DRIFT)
    audit = audit_run_start(created_by=admin_user)
    audit_run_execute(run_id=audit.pk)
    case = MemoryCase.objects.get(run=audit, memory=memory)
    client = Client()
    client.force_login(UserFactory(roles=[Role.MEMORY_REVIEWER]))
    source = f"generated: run {run.pk}, batch 0, slot 0, memory prompt v1, fake-memory-model"
    assert memory.source == source
    page = client.get(reverse("audit:case-detail", args=[case.pk])).content.decode()
    assert f'data-testid="memory-source">Source: {source}<' in page
    queue = client.get(reverse("audit:queue") + f"?status={case.status}").content.decode()
    assert source in queue


def test_the_django_admin_shows_every_memory_generation_row_read_only(admin_client):
    from annotation.memory_generation.models import (
        GeneratedMemory,
        MemoryCallRecord,
        MemoryPlan,
        MemoryPromptVersion,
        QuotaWeights,
    )

    run = make_run()
    rows = [
        QuotaWeights.objects.first(),
        MemoryPlan.objects.first(),
        MemoryPromptVersion.objects.first(),
        run,
        run.batches.first(),
        MemoryCallRecord.objects.first(),
        GeneratedMemory.objects.first(),
    ]
    for row in rows:
        name = row._meta.model_name
        change = admin_client.get(reverse(f"admin:annotation_{name}_change", args=[row.pk]))
        assert change.status_code == 200, name
        assert 'name="_save"' not in change.content.decode(), name
        assert admin_client.get(reverse(f"admin:annotation_{name}_add")).status_code == 403, name
