"""The team page: per person, the open and finished work of each queue equals a count made
here from the records, the construction involvement is the conflict rule's own count, the
query count does not grow with the team, and people are paged."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from adjudication.arbitration.models import ArbitrationDecision
from adjudication.mcq.models import McqReviewDecision
from annotation.comparison.models import PairAssignment
from annotation.profile_review.models import ProfileReview
from annotation.scenario_review.models import DiamondsRating, ScreeningDecision
from audit.memory_quality.models import MemoryCase
from audit.reference_labels.models import LabelAdjudication, LabelAuditItem, LabelSelection
from core.roles import Role
from core.team.selectors import PEOPLE_PER_PAGE
from humanbaseline.models import Participation
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
ROW = re.compile(r'<tr data-testid="person-row" data-username="([^"]+)">(.*?)</tr>', re.S)
QUEUE = re.compile(r'data-queue="([^"]+)" data-open="(\d*)" data-done="(\d+)"')
INVOLVEMENT = re.compile(r'data-testid="involvement" data-count="(\d+)"')


def expected_work(user) -> dict[str, tuple[int | None, int]]:
    """Each queue's (open, finished) for ``user``, counted straight from the records."""
    assignments = PairAssignment.objects.filter(annotator=user)
    selectable = LabelAuditItem.objects.filter(audit__experts__expert=user)
    submitted = LabelSelection.objects.filter(expert=user, submitted_at__isnull=False)
    reviews = ProfileReview.objects.filter(reviewer=user)
    participations = Participation.objects.filter(user=user)
    work = {
        "Profile reviews": (
            reviews.filter(submitted_at__isnull=True).count(),
            reviews.filter(submitted_at__isnull=False).count(),
        ),
        "Scenario screening decisions": (
            None,
            ScreeningDecision.objects.filter(reviewer=user).count(),
        ),
        "Scenario DIAMONDS ratings": (None, DiamondsRating.objects.filter(reviewer=user).count()),
        "Memory audit decisions": (
            None,
            MemoryCase.objects.filter(reviewer=user, decided_at__isnull=False).count(),
        ),
        "Comparison judgments": (
            assignments.filter(judgment__isnull=True, pair__status="annotating").count(),
            assignments.filter(judgment__isnull=False).count(),
        ),
        "Arbitration decisions": (
            None,
            ArbitrationDecision.objects.filter(arbitrator=user).count(),
        ),
        "Item review decisions": (None, McqReviewDecision.objects.filter(reviewer=user).count()),
        "Label audit selections": (
            selectable.filter(status="selecting")
            .exclude(pk__in=submitted.values("audit_item"))
            .count(),
            submitted.count(),
        ),
        "Label audit adjudications": (
            None,
            LabelAdjudication.objects.filter(adjudicator=user).count(),
        ),
        "Baseline study": (
            participations.filter(status__in=["invited", "consented", "started"]).count(),
            participations.filter(status="finalized").count(),
        ),
    }
    return {label: (o, d) for label, (o, d) in work.items() if o or d}


def shown_rows(client, **params) -> dict[str, tuple[dict, int]]:
    response = client.get(reverse("team:team"), params)
    assert response.status_code == 200
    rows = {}
    for username, body in ROW.findall(response.content.decode()):
        work = {q: (int(o) if o else None, int(d)) for q, o, d in QUEUE.findall(body)}
        rows[username] = (work, int(INVOLVEMENT.search(body).group(1)))
    return rows


def test_the_query_count_does_not_grow_with_the_team_and_people_are_paged(admin_client):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert admin_client.get(reverse("team:team")).status_code == 200
        return len(captured)

    UserFactory(roles=[Role.PRIMARY_ANNOTATOR])
    few = queries()
    for n in range(PEOPLE_PER_PAGE + 5):
        UserFactory(username=f"member-{n:02}", roles=[Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR])
    assert queries() == few
    assert len(shown_rows(admin_client)) == PEOPLE_PER_PAGE
    second = shown_rows(admin_client, page="2")
    assert len(second) == PEOPLE_PER_PAGE + 5 + 2 - PEOPLE_PER_PAGE


def test_study_participants_are_listed_only_when_asked(admin_client):
    UserFactory(username="participant-7", roles=[Role.BASELINE_PARTICIPANT])
    UserFactory(username="both-roles", roles=[Role.BASELINE_PARTICIPANT, Role.ARBITRATOR])
    assert set(shown_rows(admin_client)) == {"lab-admin", "both-roles"}
    assert "participant-7" in shown_rows(admin_client, participants="1")
