"""The admin's erasure of a participant's data (issue #36): afterwards no text column of
any table holds their username, pool ids, name or email (the decision history, login
records and the admin log included), nor does a backup taken with the documented command
(``pg_dump -Fc``); the record that it was done names nobody. "All their data" deletes
their answers and the history of them too."""

import subprocess

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.urls import reverse

from humanbaseline import services
from humanbaseline.models import (
    AnswerEvent,
    BaselineReport,
    ItemResponse,
    ParticipantErasure,
    Participation,
)
from tests.factories import DEFAULT_PASSWORD, UserFactory

from .conftest import answer_practice, enrol, make_study

pytestmark = pytest.mark.django_db(transaction=True)

PERSON = {
    "username": "zelda-quokka-77",
    "email": "zelda.quokka@example.org",
    "first_name": "Zeldaquokka",
}
POOL = {
    "pool": "prolific",
    "pool_id": "5f9c1e2bquokka77",
    "pool_study_id": "studyquokka01",
    "pool_session_id": "sessionquokka01",
}
BROWSER = "QuokkaBrowser/7.7"
NEEDLES = [
    PERSON["username"],
    PERSON["email"],
    PERSON["first_name"],
    *(POOL[k] for k in ("pool_id", "pool_study_id", "pool_session_id")),
    BROWSER,
]


def text_columns():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND data_type IN "
            "('text', 'character varying', 'json', 'jsonb', 'character') ORDER BY 1, 2"
        )
        return cursor.fetchall()


def found_in_database() -> list[tuple[str, str, str]]:
    """(table, column, value) for every text column of every table holding a needle."""
    hits = []
    with connection.cursor() as cursor:
        for table, column in text_columns():
            for needle in NEEDLES:
                cursor.execute(
                    f'SELECT count(*) FROM "{table}" WHERE "{column}"::text LIKE %s',
                    [f"%{needle}%"],
                )
                if cursor.fetchone()[0]:
                    hits.append((table, column, needle))
    return hits


def backup_text(tmp_path) -> str:
    """A backup as the README takes it (``pg_dump -Fc``), read back as SQL."""
    db = connection.settings_dict
    args = ["-h", db["HOST"], "-p", str(db["PORT"]), "-U", db["USER"]]
    dump = tmp_path / "after-erasure.dump"
    subprocess.run(["pg_dump", *args, "-Fc", "-f", str(dump), db["NAME"]], check=True)
    return subprocess.run(
        ["pg_restore", "-f", "-", str(dump)], check=True, capture_output=True, text=True
    ).stdout


def finalize_all(p, choice="A"):
    for response in ItemResponse.objects.filter(participation=p):
        services.answer_save(participation=p, position=response.position, choice=choice)
    return services.baseline_finalize(participation=p)


def the_person_in_a_study(role_groups):
    """A study where Zelda (from Prolific) answered and finalized, signed in (a session, a
    login record with her browser), failed a login once, and an admin edited her
    participation in the Django admin (its log names her)."""
    from core.roles import Role

    study, _, _ = make_study(n_items=4, n_practice=1, n_characters=4)
    user = UserFactory(roles=[Role.BASELINE_PARTICIPANT], **PERSON)
    p = services.participant_enrol(study=study, user=user, via="invitation", pool=POOL)
    p = services.consent_decide(participation=p, agree=True, version=study.consent_version)
    services.briefing_complete(participation=p)
    answer_practice(p)
    p = finalize_all(services.baseline_session_start(participation=p))
    other = finalize_all(enrol(study, "p-stays"), choice="B")
    browser = Client(HTTP_USER_AGENT=BROWSER)
    browser.post(reverse("login"), {"username": PERSON["username"], "password": "wrong"})
    browser.post(reverse("login"), {"username": PERSON["username"], "password": DEFAULT_PASSWORD})
    assert browser.get(reverse("baseline:home")).status_code == 200
    admin = UserFactory(roles=[Role.ADMIN])
    LogEntry.objects.create(
        user=admin,
        content_type=ContentType.objects.get_for_model(Participation),
        object_id=str(p.pk),
        object_repr=str(p),
        action_flag=CHANGE,
        change_message=f"Checked {PERSON['username']}'s pool id",
    )
    report = services.report_request(study=study, user=admin, seed=1, n_boot=50, n_permutations=50)
    services.report_compute(report_id=report.pk)
    return study, p, other, admin, browser


def erase(admin, study, p, scope):
    client = Client()
    client.force_login(admin)
    url = reverse("baseline:participant-erase", args=[study.pk, p.pk])
    page = client.get(url).content.decode()
    # The page asks first: the shared confirmation dialog, saying it is final.
    assert "data-confirm=" in page and "cannot be undone" in page
    assert client.post(url, {"scope": scope}).status_code == 302
    return client


def test_erasing_personal_data_leaves_no_copy_in_the_database_or_a_backup(role_groups, tmp_path):
    study, p, other, admin, browser = the_person_in_a_study(role_groups)
    before = found_in_database()
    # The scan sees every kind of copy: the account, the participation and its history,
    # the login records and the admin log.
    tables = {table for table, _, _ in before}
    for table in (
        "auth_user",
        "humanbaseline_participation",
        "history_humanbaseline_participation",
        "axes_accesslog",
        "django_admin_log",
    ):
        assert table in tables, (table, sorted(tables))
    assert PERSON["username"] in backup_text(tmp_path)

    erase(admin, study, p, "personal")

    assert found_in_database() == []
    dumped = backup_text(tmp_path)
    assert [n for n in NEEDLES if n in dumped] == []
    # The person is signed out and cannot sign in again.
    assert browser.get(reverse("baseline:home")).status_code == 302
    again = Client().post(
        reverse("login"), {"username": PERSON["username"], "password": DEFAULT_PASSWORD}
    )
    assert again.status_code == 200 and "_auth_user_id" not in again.client.session
    # Her answers stay, under the placeholder, still counted (she did not withdraw).
    p.refresh_from_db()
    record = ParticipantErasure.objects.get()
    assert p.user.username == record.placeholder and p.user.username.startswith("erased-")
    assert p.status == "finalized" and ItemResponse.objects.filter(participation=p).count() == 4
    assert (record.scope, record.erased_by, record.study) == ("personal", admin, study)
    # The decision history is still append-only outside an erasure.
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        Participation.history.filter(id=other.pk).update(pool_id="x")
    page = Client()
    page.force_login(admin)
    detail = page.get(reverse("baseline:study-detail", args=[study.pk])).content.decode()
    assert 'data-testid="erasures"' in detail and record.placeholder in detail


def test_erasing_all_their_data_deletes_their_answers_and_their_history(role_groups, tmp_path):
    study, p, other, admin, _ = the_person_in_a_study(role_groups)
    response_ids = list(ItemResponse.objects.filter(participation=p).values_list("pk", flat=True))
    assert response_ids and AnswerEvent.objects.filter(response_id__in=response_ids).exists()

    erase(admin, study, p, "all")

    assert not Participation.objects.filter(pk=p.pk).exists()
    assert not ItemResponse.objects.filter(pk__in=response_ids).exists()
    assert not AnswerEvent.objects.filter(response_id__in=response_ids).exists()
    assert not Participation.history.filter(id=p.pk).exists()
    assert not ItemResponse.history.filter(id__in=response_ids).exists()
    assert found_in_database() == []
    assert [n for n in NEEDLES if n in backup_text(tmp_path)] == []
    # The other participant is untouched; the report that counted Zelda is set aside.
    assert ItemResponse.objects.filter(participation=other).exclude(choice="").count() == 4
    assert Participation.history.filter(id=other.pk).exists()
    assert not BaselineReport.objects.filter(study=study, status="done").exists()
    assert ParticipantErasure.objects.get().scope == "all"
