"""Assembly takes only adjudicated references (seed 000 §2.4 Stage 3): an imported one is
neither a key nor a distractor unless an admin overrides the gate with a reason, which is
recorded as a protocol deviation (listed in the export manifest)."""

import pytest
from django.urls import reverse

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqAssemblyRun, McqError, McqItem
from adjudication.mcq.services import item_assembly
from core.deviations import ProtocolDeviation, deviations_for_manifest
from core.roles import Role

from .conftest import reference

pytestmark = pytest.mark.django_db

IMPORTED = (
    "I ask our neighbour to water the class plants and go to the amusement park with Mom, "
    "phoning my teacher first."
)


@pytest.fixture
def imported(references, scenario):
    ref = reference("CHAR_08", scenario, IMPORTED)
    ReferenceResponse.objects.filter(pk=ref.pk).update(
        decision_type=ReferenceResponse.DecisionType.IMPORTED
    )
    return ref


def test_an_imported_reference_is_neither_key_nor_distractor(imported, references):
    awaiting = set(item_assembly.pairs_awaiting_assembly().values_list("pk", flat=True))
    assert imported.pk not in awaiting and len(awaiting) == 7
    with pytest.raises(
        McqError,
        match=rf"Q_CHAR_08_SCN_SCHOOL_AGE_1: the reference of CHAR_08 × SCN_SCHOOL_AGE_1 "
        rf"\(reference {imported.pk}\) is imported from a release, not adjudicated",
    ):
        item_assembly.mcq_item_assemble(reference_id=imported.pk, selector=False)
    assert not McqItem.objects.filter(character=imported.character).exists()
    item = item_assembly.mcq_item_assemble(reference_id=references["CHAR_01"].pk, selector=False)
    offered = {c["character"] for c in item.assembly_params["candidates"]}
    assert "CHAR_08" not in offered and not item.options.filter(content=IMPORTED).exists()


def test_only_an_admin_overrides_and_the_override_is_recorded(imported, person):
    with pytest.raises(McqError, match="Only an admin overrides"):
        item_assembly.mcq_item_assemble(
            reference_id=imported.pk,
            selector=False,
            user=person(Role.ARBITRATOR),
            gate_override_reason="Pilot items.",
        )
    assert not ProtocolDeviation.objects.exists()
    admin = person(Role.ADMIN, username="gate-admin")
    item = item_assembly.mcq_item_assemble(
        reference_id=imported.pk, selector=False, user=admin, gate_override_reason="Pilot items."
    )
    assert item.reference == imported
    (row,) = deviations_for_manifest()
    assert row["kind"] == "gate_override" and row["stage"] == "mcq_assembly"
    assert "Q_CHAR_08_SCN_SCHOOL_AGE_1" in row["subject"] and "imported" in row["subject"]
    assert "only references adjudicated" in row["rule"]
    assert row["reason"] == "Pilot items." and row["recorded_by"] == "gate-admin"


def test_a_run_overrides_the_gate_from_the_page_only_with_a_reason(
    client, imported, person, eager_celery, django_capture_on_commit_callbacks
):
    client.force_login(person(Role.ADMIN))
    page = client.get(reverse("mcq:runs")).content.decode()
    assert "7 now; 1 more have only an imported reference" in page
    form = {"measure": "tfidf_cosine", "similarity_max": "0.75", "relevance_min": "0.01"}
    refused = client.post(reverse("mcq:runs"), {**form, "include_unadjudicated": "on"})
    assert "Give the reason for overriding the gate." in refused.content.decode()
    assert not McqAssemblyRun.objects.exists() and not ProtocolDeviation.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("mcq:runs"),
            {**form, "include_unadjudicated": "on", "gate_override_reason": "Release pilot."},
        )
    run = McqAssemblyRun.objects.get()
    assert run.status == "done" and run.processed == 8
    assert run.gate_override_reason == "Release pilot."
    assert McqItem.objects.filter(reference=imported).exists()
    deviation = ProtocolDeviation.objects.get()
    assert deviation.kind == "gate_override" and f"assembly run {run.pk}" in deviation.subject
    assert "gate overridden" in client.get(reverse("mcq:runs")).content.decode()
