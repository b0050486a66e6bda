"""An expert's autosave and their submit of the same item arriving together (the page
saves the draft as the expert presses Submit, or as it is left) end one after the other:
neither fails with a database deadlock, and the submitted selection is what is kept."""

import threading
import time

import pytest
from django.db import close_old_connections, connection, transaction

from audit.reference_labels import services
from audit.reference_labels.models import LabelAuditError, LabelAuditItem, LabelSelection

from .conftest import make_team, small_final_set

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_autosave_beside_the_submit_waits_for_it(role_groups):
    team = make_team("cc")
    small_final_set(characters=1, stages=("school_age",), per_stratum=2)
    audit = services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=1,
        seed=5,
    )
    row = LabelAuditItem.objects.filter(audit=audit).first()
    expert = team["experts"][0]
    key = row.item_version.correct_answer
    submit_holds_the_item = threading.Event()
    errors: dict[str, BaseException] = {}

    def submit():
        try:
            with transaction.atomic():
                # The submit's first step: the item's row lock. It then waits a moment,
                # as a busy server would, while the autosave arrives.
                LabelAuditItem.objects.select_for_update(of=("self",)).get(pk=row.pk)
                submit_holds_the_item.set()
                time.sleep(1.5)
                services.label_selection_submit(
                    audit_item_id=row.pk, expert=expert, choice=key, note="final"
                )
        except BaseException as error:  # noqa: BLE001 - reported below
            errors["submit"] = error
        finally:
            connection.close()

    def autosave():
        submit_holds_the_item.wait(10)
        try:
            services.label_selection_draft_save(
                audit_item_id=row.pk, expert=expert, choice="A", note="draft"
            )
        except LabelAuditError as refusal:
            errors["autosave refused"] = refusal  # after the submit: final, as it should be
        except BaseException as error:  # noqa: BLE001 - reported below
            errors["autosave"] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=submit), threading.Thread(target=autosave)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    close_old_connections()
    assert "submit" not in errors, errors
    assert "autosave" not in errors, errors
    assert "final" in str(errors.get("autosave refused", "")), errors
    kept = LabelSelection.objects.get(audit_item=row, expert=expert)
    assert (kept.choice, kept.note) == (key, "final") and kept.submitted_at is not None
