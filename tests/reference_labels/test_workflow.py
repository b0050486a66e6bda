"""Blind selection, comparison with the key and adjudication (App. D.4): 3/3 on the key
is approved; anything else goes to the adjudicator, whose edits and key changes make
new item versions through the item-review path (re-screened), and whose removals take
the item out of the final set. The construction export records each audited item."""

import pytest

from adjudication.export.chain import chain_sections
from adjudication.mcq.celery_tasks import mcq_screen_item
from adjudication.mcq.models import McqItem, McqItemVersion
from audit.reference_labels import services
from audit.reference_labels.models import (
    LabelAdjudication,
    LabelAudit,
    LabelAuditError,
    LabelAuditItem,
    LabelSelection,
)
from audit.reference_labels.selectors import label_audit_chain_section
from tests.factories import UserFactory

from .conftest import small_final_set

pytestmark = pytest.mark.django_db
Decision = LabelAdjudication.Decision


@pytest.fixture
def audit(team):
    small_final_set(characters=1, stages=("school_age",), per_stratum=4)
    return services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=3,
        seed=11,
    )


def items(audit):
    return list(LabelAuditItem.objects.filter(audit=audit).select_related("item_version", "item"))


def submit_all(row, team, choices, notes=("", "", "")):
    for expert, choice, note in zip(team["experts"], choices, notes, strict=True):
        services.label_selection_submit(
            audit_item_id=row.pk, expert=expert, choice=choice, note=note
        )
    row.refresh_from_db()
    return row


def other(key, n=1):
    labels = [x for x in "ABCD" if x != key]
    return labels[n - 1]


def test_three_on_the_key_is_approved(audit, team):
    row = items(audit)[0]
    key = row.item_version.correct_answer
    services.label_selection_submit(audit_item_id=row.pk, expert=team["experts"][0], choice=key)
    row.refresh_from_db()
    assert row.status == LabelAuditItem.Status.SELECTING and row.n_on_key is None
    row = submit_all(row, team, [key, key, key])
    assert row.status == LabelAuditItem.Status.APPROVED
    assert row.n_on_key == 3 and row.outcome == "approved" and row.key_at_audit == key


def test_disagreement_goes_to_the_adjudicator(audit, team):
    row = items(audit)[0]
    key = row.item_version.correct_answer
    row = submit_all(row, team, [key, other(key), key])
    assert row.status == LabelAuditItem.Status.ADJUDICATING
    assert row.n_on_key == 2 and row.outcome == ""


def test_drafts_autosave_and_a_submitted_selection_is_final(audit, team):
    row = items(audit)[0]
    expert = team["experts"][0]
    services.label_selection_draft_save(audit_item_id=row.pk, expert=expert, choice="c", note="hm")
    draft = LabelSelection.objects.get(audit_item=row, expert=expert)
    assert (draft.choice, draft.note, draft.submitted_at) == ("C", "hm", None)
    services.label_selection_submit(audit_item_id=row.pk, expert=expert, choice="C", note="sure")
    # Submitting the same again changes nothing; another choice is refused.
    services.label_selection_submit(audit_item_id=row.pk, expert=expert, choice="C")
    assert LabelSelection.objects.get(audit_item=row, expert=expert).note == "sure"
    with pytest.raises(LabelAuditError, match="You submitted option C"):
        services.label_selection_submit(audit_item_id=row.pk, expert=expert, choice="A")
    with pytest.raises(LabelAuditError, match="selection is final"):
        services.label_selection_draft_save(audit_item_id=row.pk, expert=expert, choice="A")
    with pytest.raises(LabelAuditError, match="Select one of the options"):
        services.label_selection_submit(audit_item_id=items(audit)[1].pk, expert=expert, choice="")
    with pytest.raises(LabelAuditError, match="not an option"):
        services.label_selection_submit(audit_item_id=items(audit)[1].pk, expert=expert, choice="E")


def test_only_the_audit_s_experts_select(audit, team):
    outsider = UserFactory(username="outsider", roles=["audit_expert"])
    with pytest.raises(LabelAuditError, match="not in an audit you are an expert on"):
        services.label_selection_submit(
            audit_item_id=items(audit)[0].pk, expert=outsider, choice="A"
        )


def disagreed(audit, team, n=0):
    row = items(audit)[n]
    key = row.item_version.correct_answer
    return submit_all(row, team, [key, other(key), other(key, 2)], ("fits", "too loud", "hm"))


def test_usable_as_is_keeps_the_item(audit, team):
    row = disagreed(audit, team)
    services.label_item_adjudicate(
        audit_item_id=row.pk, adjudicator=team["adjudicator"], decision=Decision.USABLE_AS_IS
    )
    row.refresh_from_db()
    assert row.status == LabelAuditItem.Status.RESOLVED and row.outcome == "usable_as_is"
    item = McqItem.objects.get(pk=row.item_id)
    assert item.status == McqItem.Status.FINAL and item.version == row.item_version.number


def test_a_key_change_makes_a_new_version_that_is_screened_again(
    audit, team, django_capture_on_commit_callbacks, monkeypatch
):
    row = disagreed(audit, team)
    key = row.item_version.correct_answer
    new_key = other(key)
    queued = []
    # The re-screen is queued once the revision commits (revise_item → mcq_screen_item).
    monkeypatch.setattr(mcq_screen_item, "delay", queued.append)
    with pytest.raises(LabelAuditError, match="Say why"):
        services.label_item_adjudicate(
            audit_item_id=row.pk,
            adjudicator=team["adjudicator"],
            decision=Decision.KEY_CHANGE,
            new_key=new_key,
        )
    with pytest.raises(LabelAuditError, match="already the key"):
        services.label_item_adjudicate(
            audit_item_id=row.pk,
            adjudicator=team["adjudicator"],
            decision=Decision.KEY_CHANGE,
            new_key=key,
            note="x",
        )
    with django_capture_on_commit_callbacks(execute=True):
        adjudication = services.label_item_adjudicate(
            audit_item_id=row.pk,
            adjudicator=team["adjudicator"],
            decision=Decision.KEY_CHANGE,
            new_key=new_key,
            note="Two experts read the profile the other way; option fits better.",
        )
    item = McqItem.objects.get(pk=row.item_id)
    assert item.correct_answer == new_key
    assert item.status == McqItem.Status.SCREENING
    version = adjudication.result_version
    assert version.origin == McqItemVersion.Origin.LABEL_AUDIT
    assert version.number == row.item_version.number + 1
    assert version.created_by == team["adjudicator"]
    assert queued == [item.pk]
    row.refresh_from_db()
    assert row.outcome == "key_changed"


def test_a_wording_edit_and_a_removal(audit, team):
    edit_row = disagreed(audit, team, 0)
    options = [
        {"label": o["label"], "content": o["content"]} for o in edit_row.item_version.options
    ]
    with pytest.raises(LabelAuditError, match="changes nothing"):
        services.label_item_adjudicate(
            audit_item_id=edit_row.pk,
            adjudicator=team["adjudicator"],
            decision=Decision.WORDING_EDIT,
            options=options,
            note="n",
        )
    options[1]["content"] = "I answer plainly and leave."
    services.label_item_adjudicate(
        audit_item_id=edit_row.pk,
        adjudicator=team["adjudicator"],
        decision=Decision.WORDING_EDIT,
        options=options,
        note="Option B was ambiguous.",
    )
    item = McqItem.objects.get(pk=edit_row.item_id)
    assert item.options.get(label="B").content == "I answer plainly and leave."
    assert item.correct_answer == edit_row.item_version.correct_answer
    assert item.status == McqItem.Status.SCREENING

    removal_row = disagreed(audit, team, 1)
    services.label_item_adjudicate(
        audit_item_id=removal_row.pk,
        adjudicator=team["adjudicator"],
        decision=Decision.REMOVAL,
        note="No option is defensible for this character.",
    )
    assert McqItem.objects.get(pk=removal_row.item_id).status == McqItem.Status.REMOVED


def test_only_this_audit_s_adjudicator_decides_an_open_item(audit, team):
    row = items(audit)[0]
    with pytest.raises(LabelAuditError, match="not awaiting adjudication"):
        services.label_item_adjudicate(
            audit_item_id=row.pk, adjudicator=team["adjudicator"], decision="usable_as_is"
        )
    row = disagreed(audit, team)
    with pytest.raises(LabelAuditError, match="Only this audit's adjudicator"):
        services.label_item_adjudicate(
            audit_item_id=row.pk, adjudicator=team["experts"][0], decision="usable_as_is"
        )


def test_an_item_changed_elsewhere_is_not_adjudicated_over(audit, team):
    from adjudication.mcq.versions import revise_item

    row = disagreed(audit, team)
    revise_item(row.item, user=None, origin="review", correct_answer=other(row.key_at_audit))
    with pytest.raises(LabelAuditError, match="changed elsewhere"):
        services.label_item_adjudicate(
            audit_item_id=row.pk, adjudicator=team["adjudicator"], decision="usable_as_is"
        )


def test_the_audit_completes_and_the_export_records_each_audited_item(audit, team):
    rows = items(audit)
    keys = [r.item_version.correct_answer for r in rows]
    submit_all(rows[0], team, [keys[0]] * 3)
    submit_all(rows[1], team, [keys[1]] * 3)
    row = disagreed(audit, team, 2)
    assert LabelAudit.objects.get(pk=audit.pk).status == LabelAudit.Status.SELECTING
    services.label_item_adjudicate(
        audit_item_id=row.pk,
        adjudicator=team["adjudicator"],
        decision=Decision.USABLE_AS_IS,
        note="The key holds on the profile's low extraversion.",
    )
    assert LabelAudit.objects.get(pk=audit.pk).status == LabelAudit.Status.COMPLETE

    assert ("label_audit", label_audit_chain_section) in chain_sections()
    all_items = list(McqItem.objects.order_by("pk"))
    section = label_audit_chain_section(all_items)
    assert set(section) == {r.item_id for r in rows}
    record = section[row.item_id][0]
    assert record["outcome"] == "usable_as_is"
    assert record["experts_on_key"] == 1
    assert [s["expert"] for s in record["selections"]] == [1, 2, 3]
    assert [s["note"] for s in record["selections"]] == ["fits", "too loud", "hm"]
    assert record["adjudication"]["decision"] == "usable_as_is"
    assert record["adjudication"]["adjudicator"] == team["adjudicator"].username
    assert section[rows[0].item_id][0]["outcome"] == "approved"
    assert section == label_audit_chain_section(all_items)  # deterministic
