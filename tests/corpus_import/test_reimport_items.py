"""Re-importing mcq.json after item review (issue 18 point 1): the file that still holds
what was imported changes nothing, and a file that changes a reviewed item is refused,
naming the item and the review, with the database unchanged."""

import pytest
from django.contrib.auth.models import Group

from adjudication.mcq.models import McqItem
from adjudication.mcq.services.item_review import mcq_review_decide
from annotation.corpus_import.importing import import_files
from annotation.corpus_import.problems import ImportRejected
from core.roles import Role
from tests.factories import UserFactory

from . import as_json, corpus_dump, release_files
from .test_import_rejects import mcq_subset

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def revised(release_dir):
    """Three release items imported; the first flagged and one distractor revised in
    item review."""
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    reviewer = UserFactory(username="item-reviewer", roles=[Role.ARBITRATOR])
    doc = mcq_subset(release_dir)
    import_files([*release_files(release_dir, ["scenarios.json"]), ("mcq.json", as_json(doc))])
    item = McqItem.objects.get(question_id=doc["questions"][0]["question_id"])
    McqItem.objects.filter(pk=item.pk).update(status=McqItem.Status.FLAGGED)
    label = item.options.filter(is_correct=False).order_by("label").first().label
    mcq_review_decide(
        item_id=item.pk,
        reviewer=reviewer,
        action="revise_distractor",
        version=item.version,
        label=label,
        content="I would rather keep it to myself and wait.",
        note="The distractor repeated the key's action.",
    )
    item.refresh_from_db()
    return doc, item, label


def test_the_same_file_again_keeps_the_revision(revised):
    doc, item, label = revised
    before = corpus_dump()

    import_files([("mcq.json", as_json(doc))])

    assert corpus_dump() == before
    after = McqItem.objects.get(pk=item.pk)
    assert after.version == item.version
    assert after.options.get(label=label).content == "I would rather keep it to myself and wait."


def test_a_changed_file_is_refused_naming_the_reviewed_item(revised):
    doc, item, _ = revised
    doc["questions"][0]["options"][0]["content"] += " Changed outside the platform."
    before = corpus_dump()

    with pytest.raises(ImportRejected) as refused:
        import_files([("mcq.json", as_json(doc))])

    message = str(refused.value)
    assert f"item {item.question_id}" in message
    assert "item review" in message and "item-reviewer" in message
    assert corpus_dump() == before
