"""The item-review demo on top of `make demo`: on the real release references, four
labelled demo items await the demo arbitrator (two flagged, one technical failure, one
needing completion), the 673 release items stay final, and a second call changes nothing."""

import pytest

from adjudication.mcq.demo import DEMO_PREFIX, seed_mcq_demo
from adjudication.mcq.models import McqItem, McqScreening
from adjudication.mcq.selectors import mcq_home_queues
from tests.demo_data import load_demo

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(release_dir, demo_providers, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        load_demo(release_dir)


def test_the_demo_puts_items_at_every_review_stage(demo, django_capture_on_commit_callbacks):
    from django.contrib.auth import get_user_model

    with django_capture_on_commit_callbacks(execute=True):
        items = seed_mcq_demo(users={"admin": get_user_model().objects.get(username="admin")})
    assert [i.question_id.startswith(DEMO_PREFIX) for i in items] == [True] * 4
    assert [i.status for i in items] == ["flagged", "flagged", "flagged", "needs_completion"]
    outcomes = [s.outcome for i in items[:3] for s in McqScreening.objects.filter(item=i)]
    assert outcomes == ["flagged", "flagged", "technical_failure"]
    assert items[3].options.count() == 3  # two valid distractors: not padded
    assert McqItem.objects.filter(status="final").count() == 673
    arbitrator = get_user_model().objects.get(username="arbitrator")
    assert mcq_home_queues(user=arbitrator)["mcq_item_review"]["count"] == 4

    again = seed_mcq_demo(users={})
    assert sorted(i.pk for i in again) == sorted(i.pk for i in items)
    assert McqItem.objects.filter(question_id__startswith=DEMO_PREFIX).count() == 4
