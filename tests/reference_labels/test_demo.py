"""The label audit's demo: at the selection stage, with something waiting for each
demo account, and idempotent."""

import pytest

from audit.reference_labels.demo import DEMO_NOTE, seed_label_audit_demo
from audit.reference_labels.models import LabelAudit, LabelAuditItem, LabelSelection
from audit.reference_labels.selectors import label_audit_home_queues
from core.roles import Role
from tests.factories import UserFactory

from .conftest import small_final_set

pytestmark = pytest.mark.django_db


def test_the_demo_waits_at_the_selection_stage_and_runs_twice_unchanged():
    small_final_set(characters=2, stages=("school_age", "adolescence"), per_stratum=3)
    users = {
        Role.ADMIN.value: UserFactory(username="admin", roles=[Role.ADMIN], is_superuser=True),
        Role.AUDIT_EXPERT.value: UserFactory(username="auditor", roles=[Role.AUDIT_EXPERT]),
        Role.AUDIT_ADJUDICATOR.value: UserFactory(
            username="adjudicator", roles=[Role.AUDIT_ADJUDICATOR]
        ),
    }
    accounts = seed_label_audit_demo(users=users)
    assert [name for name, _, _ in accounts] == ["auditor2", "auditor3"]
    audit = LabelAudit.objects.get(note=DEMO_NOTE)
    assert audit.items.count() == 8
    statuses = list(audit.items.order_by("position").values_list("status", flat=True))
    assert statuses[:2] == [LabelAuditItem.Status.APPROVED, LabelAuditItem.Status.ADJUDICATING]
    assert set(statuses[2:]) == {LabelAuditItem.Status.SELECTING}

    auditor = users[Role.AUDIT_EXPERT.value]
    assert label_audit_home_queues(user=auditor)["label_audit"]["count"] == 6
    adjudicator = users[Role.AUDIT_ADJUDICATOR.value]
    assert label_audit_home_queues(user=adjudicator)["label_audit_adjudication"]["count"] == 1
    assert label_audit_home_queues(user=users[Role.ADMIN.value])["label_audit_admin"]["count"] == 1
    assert set(label_audit_home_queues(user=auditor)) == {"label_audit"}

    selections = LabelSelection.objects.count()
    seed_label_audit_demo(users=users)
    assert LabelAudit.objects.count() == 1
    assert LabelSelection.objects.count() == selections
