"""An observer run records the corpus version it read (issue 37): per character the
frozen profile version compared, the audit its memories came from and a hash of each
passage shown. The report page and the pipeline page name that version, and mark the
report out of date once the corpus changed: a memory audited again, a profile version
frozen after it, a shown memory's text changed."""

import hashlib
import json

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.corpus.models import Memory
from audit.memory_quality.models import AuditRun
from audit.observers.models import ObserverRun
from audit.observers.services import observer_run_create
from tests.factories import ProfileVersionFactory, UserFactory
from tests.pipeline_ready import memories_audited

from .helpers import character_written_for, inventory, vector

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(observer_families):
    first, _ = character_written_for("CHAR_01", vector(N=0.95))
    second, _ = character_written_for("CHAR_02", vector(C=0.10))
    made = observer_run_create(
        user=UserFactory(),
        inventory_id=inventory().pk,
        character_ids=[first.pk, second.pk],
        sample_size=5,
        seed=7,
    )
    ObserverRun.objects.filter(pk=made.pk).update(
        status=ObserverRun.Status.FINISHED, finished_at=timezone.now()
    )
    return ObserverRun.objects.get(pk=made.pk)


def expected_version(run) -> str:
    """The fingerprint recomputed here from the records, without the module's helpers."""
    state = {}
    for unit in run.units.select_related("character", "profile_version").order_by("pk"):
        key = unit.character.key
        audit = (
            AuditRun.objects.filter(finalized_at__isnull=False, character_keys__contains=[key])
            .order_by("-finalized_at", "-pk")
            .first()
        )
        texts = {
            m.memory_id: hashlib.sha256(f"{m.timeline}\n{m.content_full}".encode()).hexdigest()[:16]
            for m in Memory.objects.filter(memory_id__in=unit.material)
        }
        state[key] = {
            "profile": [unit.profile_version_id, unit.profile_version.number],
            "audit": audit.pk,
            "material": {m: texts[m] for m in unit.material},
        }
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def report(client, run) -> str:
    url = reverse("audit:observers:report", kwargs={"observer_run_id": run.pk})
    return client.get(url).content.decode()


def corpus_state(html: str) -> str:
    after = html.split('data-testid="corpus-version"', 1)[1]
    return after.split('data-state="', 1)[1].split('"', 1)[0]


def pipeline(client) -> str:
    return client.get(reverse("pipeline")).content.decode()


def test_the_run_records_the_version_of_what_it_read(run, admin_client):
    assert run.corpus_version == expected_version(run)
    assert set(run.corpus) == {"CHAR_01", "CHAR_02"}
    assert all(len(c["material"]) == 5 for c in run.corpus.values())
    shown = run.corpus_version[:12]
    html = report(admin_client, run)
    assert corpus_state(html) == "current" and shown in html
    assert f"corpus version {shown}" in pipeline(admin_client)
    assert "is out of date" not in pipeline(admin_client)


def test_a_memory_audited_again_marks_the_report_out_of_date(run, admin_client):
    character = run.units.get(character__key="CHAR_01", observer="claude").character
    memories_audited(character)
    html = report(admin_client, run)
    assert corpus_state(html) == "out-of-date"
    assert "Character 1: its memories were audited again" in html
    assert "Character 2" not in html.split('data-testid="corpus-changes"', 1)[1].split("</ul>")[0]
    page = pipeline(admin_client)
    assert f"(run {run.pk}, corpus version {run.corpus_version[:12]}) is out of date" in page
    assert "Character 1: its memories were audited again" in page


def test_a_profile_frozen_again_marks_the_report_out_of_date(run, admin_client):
    character = run.units.get(character__key="CHAR_02", observer="claude").character
    newer = ProfileVersionFactory(character=character, number=2, conscientiousness=0.9)
    html = report(admin_client, run)
    assert corpus_state(html) == "current"  # a draft is not in force yet
    newer.frozen_at = timezone.now()
    newer.save()
    html = report(admin_client, run)
    assert corpus_state(html) == "out-of-date"
    assert "Character 2: a newer profile version was frozen" in html
    assert "Character 2: a newer profile version was frozen" in pipeline(admin_client)


def test_a_shown_memory_rewritten_marks_the_report_out_of_date(run, admin_client):
    unit = run.units.filter(character__key="CHAR_01").first()
    shown = unit.material[0]
    Memory.objects.filter(memory_id=shown).update(content_full="A different day entirely.")
    html = report(admin_client, run)
    assert corpus_state(html) == "out-of-date"
    assert "Character 1: 1 of the passages shown has changed" in html


def test_a_memory_not_shown_changes_nothing(run, admin_client):
    shown = set(run.units.filter(character__key="CHAR_01").first().material)
    other = Memory.objects.filter(character__key="CHAR_01").exclude(memory_id__in=shown).first()
    other.content_full = "Rewritten, but never shown to the observers."
    other.save()
    assert corpus_state(report(admin_client, run)) == "current"
