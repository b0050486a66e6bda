"""Recruitment pools (Prolific, SONA): the participant id an invitation link carries is
stored with the participant and shown to admins only; finalizing shows the study's
completion code and sends the participant to its completion URL; the time-on-task CSV
carries the pool id for credit or payment."""

import csv
import io

import pytest
from django.urls import reverse

from core.roles import Role
from humanbaseline import services
from humanbaseline.models import ItemResponse, Participation
from tests.factories import UserFactory

from .conftest import answer_practice, enrol

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-study-password-42"
PID = "5f1e2d3c4b5a69788796a5b4"


def join_url(study, query=""):
    return reverse("baseline:join", args=[study.invitation_token]) + query


def sign_up(client, study, query, username="pooled"):
    page = client.get(join_url(study, query))
    assert page.status_code == 200
    response = client.post(join_url(study), {"username": username, "password": PASSWORD})
    assert response.status_code == 302, response.content.decode()[:2000]
    return Participation.objects.get(study=study, user__username=username)


def finish(p):
    for response in ItemResponse.objects.filter(participation=p):
        services.answer_save(participation=p, position=response.position, choice="A")
    return services.baseline_finalize(participation=p)


def test_a_prolific_link_stores_the_participant_study_and_session_ids(small_study, client):
    study, _, _ = small_study
    p = sign_up(client, study, f"?PROLIFIC_PID={PID}&STUDY_ID=study77&SESSION_ID=sess-9")
    assert (p.pool, p.pool_id, p.pool_study_id, p.pool_session_id) == (
        "prolific",
        PID,
        "study77",
        "sess-9",
    )
    assert p.enrolled_via == "invitation"


def test_a_sona_link_uses_the_configured_parameter(small_study, client, settings):
    study, _, _ = small_study
    p = sign_up(client, study, "?sona_id=48213", username="sona-default")
    assert (p.pool, p.pool_id) == ("sona", "48213")
    settings.HEARTBENCH_SONA_ID_PARAM = "survey_code"
    client.logout()
    p = sign_up(client, study, "?survey_code=777&sona_id=1", username="sona-custom")
    assert (p.pool, p.pool_id) == ("sona", "777")


def test_an_unfilled_or_malformed_id_is_refused_with_a_warning_and_not_stored(small_study, client):
    study, _, _ = small_study
    page = client.get(join_url(study, "?PROLIFIC_PID={{%PROLIFIC_PID%}}"))
    assert "The link&#x27;s PROLIFIC_PID is not a participant id" in page.content.decode()
    response = client.post(join_url(study), {"username": "nopid", "password": PASSWORD})
    assert response.status_code == 302
    p = Participation.objects.get(user__username="nopid")
    assert (p.pool, p.pool_id) == ("", "")


def test_a_signed_in_participant_keeps_the_id_they_enrolled_with(small_study, client):
    study, _, _ = small_study
    user = UserFactory(username="returning", roles=[Role.BASELINE_PARTICIPANT])
    client.force_login(user)
    client.get(join_url(study, "?PROLIFIC_PID=first1"))
    assert client.post(join_url(study)).status_code == 302
    client.get(join_url(study, "?PROLIFIC_PID=second2"))
    assert client.post(join_url(study)).status_code == 302
    p = Participation.objects.get(study=study, user=user)
    assert p.pool_id == "first1"


def test_finalizing_shows_the_code_and_sends_to_the_completion_url(small_study, client):
    study, _, _ = small_study
    services.study_completion_set(
        study=study,
        code="C1A2B3",
        url="https://app.prolific.example/submissions/complete?cc={code}&pid={pool_id}",
    )
    p = sign_up(client, study, f"?PROLIFIC_PID={PID}")
    p = services.consent_decide(participation=p, agree=True, version="v1")
    services.briefing_complete(participation=p)
    answer_practice(p)
    p = services.baseline_session_start(participation=p)
    finalize = reverse("baseline:finalize", args=[study.pk])
    before = client.get(finalize).content.decode()
    assert "C1A2B3" not in before and "http-equiv" not in before
    finish(p)
    body = client.get(finalize).content.decode()
    target = f"https://app.prolific.example/submissions/complete?cc=C1A2B3&amp;pid={PID}"
    assert 'data-testid="completion-code">C1A2B3<' in body
    assert f'<meta http-equiv="refresh" content="10;url={target}">' in body
    assert f'href="{target}"' in body and "Continue to app.prolific.example now" in body


def test_the_completion_url_appends_the_code_or_stays_as_configured(small_study):
    study, _, _ = small_study
    p = enrol(study, "urls")
    p.pool, p.pool_id = "sona", "a b/1"
    p.save()
    cases = [
        ("C0DE", "https://pool.example/done", "https://pool.example/done?cc=C0DE"),
        ("C0DE", "https://pool.example/done?x=1", "https://pool.example/done?x=1&cc=C0DE"),
        ("", "https://pool.example/done", "https://pool.example/done"),
        (
            "",
            "https://sona.example/webstudy_credit.aspx?survey_code={pool_id}&pool={pool}",
            "https://sona.example/webstudy_credit.aspx?survey_code=a%20b%2F1&pool=sona",
        ),
        ("C0DE", "", ""),
    ]
    for code, url, expected in cases:
        services.study_completion_set(study=study, code=code, url=url)
        p.refresh_from_db()
        assert services.completion_url(p) == expected, (code, url)


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"completion_url": "javascript:alert(1)"}, "completion_url", "Enter an http:// or"),
        ({"completion_url": "ftp://pool.example/x"}, "completion_url", "Enter an http:// or"),
        ({"completion_url": "pool.example/done"}, "completion_url", "Enter an http:// or"),
        (
            {"completion_url": "https://pool.example/?x={participant}"},
            "completion_url",
            "Unknown placeholder {participant}",
        ),
        (
            {"completion_url": "https://pool.example/?cc={code}"},
            "completion_url",
            "uses {code} but the study has no completion code",
        ),
        ({"completion_code": "AB CD<"}, "completion_code", "Use letters, digits"),
    ],
)
def test_the_admin_form_refuses_bad_settings_naming_the_field(
    small_study, admin_user, client, data, field, message
):
    study, _, _ = small_study
    client.force_login(admin_user)
    response = client.post(
        reverse("baseline:study-completion", args=[study.pk]),
        {"completion_code": "", "completion_url": ""} | data,
    )
    assert response.status_code == 200
    assert message in response.context["completion_form"].errors[field][0]
    assert f'id="error_1_id_{field}"' in response.content.decode()
    study.refresh_from_db()
    assert (study.completion_code, study.completion_url) == ("", "")


def test_the_admin_sets_the_code_and_url_on_the_study_page(small_study, admin_user, client):
    study, _, _ = small_study
    client.force_login(admin_user)
    page = client.get(reverse("baseline:study-detail", args=[study.pk])).content.decode()
    assert 'id="completion-form"' in page and "?PROLIFIC_PID={{%PROLIFIC_PID%}}" in page
    response = client.post(
        reverse("baseline:study-completion", args=[study.pk]),
        {"completion_code": " HB2026 ", "completion_url": "https://pool.example/c?cc={code}"},
    )
    assert response.status_code == 302
    study.refresh_from_db()
    assert (study.completion_code, study.completion_url) == (
        "HB2026",
        "https://pool.example/c?cc={code}",
    )
    # Blank clears them.
    client.post(
        reverse("baseline:study-completion", args=[study.pk]),
        {"completion_code": "", "completion_url": ""},
    )
    study.refresh_from_db()
    assert (study.completion_code, study.completion_url) == ("", "")


def test_only_an_admin_sets_the_completion(small_study, client):
    study, _, _ = small_study
    url = reverse("baseline:study-completion", args=[study.pk])
    for role in (Role.BASELINE_PARTICIPANT, Role.PRIMARY_ANNOTATOR):
        client.force_login(UserFactory(roles=[role]))
        response = client.post(url, {"completion_code": "X", "completion_url": ""})
        assert response.status_code == 403
    study.refresh_from_db()
    assert study.completion_code == ""


def test_the_time_csv_carries_the_pool_id_and_admins_alone_see_it(small_study, admin_user, client):
    study, _, _ = small_study
    p = sign_up(client, study, f"?PROLIFIC_PID={PID}")
    p = services.consent_decide(participation=p, agree=True, version="v1")
    services.briefing_complete(participation=p)
    answer_practice(p)
    p = services.baseline_session_start(participation=p)
    finish(p)
    other = enrol(study, "other-participant")
    # Another participant's pages, and other roles, never show the pool id.
    client.force_login(other.user)
    for name, args in [
        ("baseline:home", []),
        ("baseline:finalize", [study.pk]),
        ("baseline:item", [study.pk, 1]),
    ]:
        body = client.get(reverse(name, args=args)).content.decode()
        assert PID not in body, name
    for role in (Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR):
        client.force_login(UserFactory(roles=[role]))
        for name in ("baseline:study-detail", "baseline:time-csv"):
            assert client.get(reverse(name, args=[study.pk])).status_code == 403
    # The participant's own pages do not show it either: it is for the pool's records.
    client.force_login(p.user)
    assert PID not in client.get(reverse("baseline:finalize", args=[study.pk])).content.decode()

    client.force_login(admin_user)
    detail = client.get(reverse("baseline:study-detail", args=[study.pk])).content.decode()
    assert f"Prolific <code>{PID}</code>" in detail
    rows = list(
        csv.DictReader(
            io.StringIO(client.get(reverse("baseline:time-csv", args=[study.pk])).content.decode())
        )
    )
    mine = [r for r in rows if r["participant"] == "pooled"]
    assert mine and all((r["pool"], r["pool_id"]) == ("prolific", PID) for r in mine)
    assert {r["kind"] for r in mine} == {"item", "session"}
    theirs = [r for r in rows if r["participant"] == "other-participant"]
    assert theirs and all((r["pool"], r["pool_id"]) == ("", "") for r in theirs)
