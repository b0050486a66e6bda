"""Text limits and the control-character rule in annotation (issue #24 points 2-3), over
HTTP: the pages and the API refuse limit + 1 characters and NUL with a message naming the
field and the limit, and the database is unchanged; the services refuse them too; drafts
are refused whole ("Not saved: ..."), never cut or stripped."""

import pytest
from django.urls import reverse

from annotation.comparison import services as comparison_services
from annotation.comparison.models import ComparisonDraft, ComparisonJudgment
from annotation.profile_review.models import ChangeRequest, ProfileReview, ReviewError
from annotation.scenario_review import services as scenario_services
from annotation.scenario_review.models import DiamondsRating, ScenarioVersion
from core.drafts import FormDraft
from core.roles import Role
from core.text_rules import NOTE
from tests.api.conftest import token_client
from tests.comparison.helpers import assign, make_pair, people
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory
from tests.review.conftest import ALL_MEET, SCORES, approve, login

pytestmark = pytest.mark.django_db

SID = "SCN_SCHOOL_AGE_1"
MIB = 1_048_576
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def rating_open(db):
    ScenarioFactory(scenario_id=SID)
    a, b = (UserFactory(username=f"scn-{i}", roles=[Role.SCENARIO_REVIEWER]) for i in (1, 2))
    approve(SID, a)
    approve(SID, b)
    return a, b


# --- The DIAMONDS rating note ---------------------------------------------------------


def test_a_diamonds_note_of_a_mebibyte_is_refused_on_the_page_and_stores_nothing(rating_open):
    reviewer, _ = rating_open
    url = reverse("review:scenario-rate", args=[SID])
    page = login(reviewer).post(url, {**SCORES, "note": "x" * MIB, "rate": "Submit my ratings"})
    assert page.status_code == 200
    body = page.content.decode()
    assert "Note (optional) is limited to 4,000 characters; this one has 1,048,576." in body
    assert not DiamondsRating.objects.exists()
    nul = login(reviewer).post(url, {**SCORES, "note": "draft\x00note"})
    assert "Note (optional) contains a control character (NUL)" in nul.content.decode()
    assert not DiamondsRating.objects.exists()


def test_a_diamonds_note_of_a_mebibyte_is_refused_by_the_api_and_stores_nothing(rating_open):
    reviewer, _ = rating_open
    client = token_client(reviewer)
    url = reverse("review-api:scenario-rate", args=[SID])
    refused = client.post(url, {"scores": SCORES, "note": "x" * MIB}, format="json")
    assert refused.status_code == 400
    assert "is limited to 4,000 characters" in str(refused.json()["fields"]["note"])
    nul = client.post(url, {"scores": SCORES, "note": "a\x00b"}, format="json")
    assert nul.status_code == 400 and "control character" in str(nul.json()["fields"]["note"])
    assert not DiamondsRating.objects.exists()
    made = client.post(url, {"scores": SCORES, "note": "x" * NOTE}, format="json")
    assert made.status_code == 201, made.content
    assert len(DiamondsRating.objects.get().note) == NOTE


def test_the_rating_service_refuses_what_the_form_refuses(rating_open):
    reviewer, _ = rating_open
    with pytest.raises(ReviewError, match="Note is limited to 4,000 characters"):
        scenario_services.scenario_rate(
            scenario_id=SID, reviewer=reviewer, scores=SCORES, note="x" * MIB
        )
    with pytest.raises(ReviewError, match="control character"):
        scenario_services.scenario_rate(
            scenario_id=SID, reviewer=reviewer, scores=SCORES, note="a\x1bb"
        )
    assert not DiamondsRating.objects.exists()


def test_a_rating_draft_over_the_limit_or_with_nul_is_not_saved(rating_open):
    reviewer, _ = rating_open
    url = reverse("review:scenario-rating-draft", args=[SID])
    client = login(reviewer)
    assert client.post(url, {"duty": "6", "note": "kept"}, **HTMX).status_code == 200
    long = client.post(url, {"duty": "5", "note": "x" * (NOTE + 1)}, **HTMX)
    assert long.status_code == 200
    assert "Not saved: Note (optional) is limited to 4,000 characters" in long.content.decode()
    nul = client.post(url, {"duty": "5", "note": "draft\x00note"}, **HTMX)
    assert "Not saved: Note (optional) contains a control character (NUL)" in nul.content.decode()
    # Without htmx the refusal is a 400; the draft saved before is untouched.
    plain = client.post(url, {"note": "x" * MIB})
    assert plain.status_code == 400 and "Not saved:" in plain.content.decode()
    assert FormDraft.objects.get(user=reviewer).data == {"duty": "6", "note": "kept"}


# --- Scenario content (page and API) ----------------------------------------------------------

CONTENT = {
    "stage": "school_age",
    "age": 9,
    "age_range": "ages 6-11",
    "name": "The lost notebook",
    "category": "Peer conflict",
    "intensity": "Medium",
    "description_for_agent": "A classmate reads your notebook aloud.",
    "setting_location": "Classroom",
    "setting_time": "Monday morning",
    "setting_atmosphere": "Noisy",
    "context_text": "You left your notebook on the desk.",
    "trigger_sender": "Classmate",
    "trigger_message": "Listen to this!",
    "note": "From the workshop.",
}


def test_scenario_content_over_its_limits_is_refused_by_page_api_and_service():
    user = UserFactory(roles=[Role.SCENARIO_REVIEWER])
    page = login(user).post(reverse("review:scenario-new"), {**CONTENT, "name": "n" * 301})
    assert page.status_code == 200
    assert "Name is limited to 300 characters; this one has 301." in page.content.decode()
    api = token_client(user).post(
        reverse("review-api:scenario-new"), {**CONTENT, "context_text": "c" * MIB}, format="json"
    )
    assert api.status_code == 400
    assert "limited to 20,000 characters" in str(api.json()["fields"]["context_text"])
    with pytest.raises(ReviewError, match="Trigger sender contains a control character"):
        scenario_services.scenario_create_manual(
            user=user, content={**CONTENT, "trigger_sender": "Class\x00mate"}
        )
    assert not ScenarioVersion.objects.exists()


# --- The comparison draft ---------------------------------------------------------------------


@pytest.fixture
def assignment():
    who = people()
    pair = make_pair()
    return next(iter(assign(pair, who["annotators"], who["admin"]).values()))


def test_a_comparison_draft_is_refused_whole_on_the_page(client, assignment):
    client.force_login(assignment.annotator)
    url = reverse("comparison:draft", kwargs={"assignment": assignment.public_id})
    client.post(url, {"selection_rationale": "kept"}, **HTMX)
    long = client.post(url, {"selection_rationale": "x" * (NOTE + 1)}, **HTMX)
    assert (
        "Not saved: Selection rationale is limited to 4,000 characters; this one has 4,001."
        in long.content.decode()
    )
    nul = client.post(url, {"memory_grounding_note": "a\x00b"}, **HTMX)
    assert "Not saved: Memory grounding note contains a control character (NUL)" in (
        nul.content.decode()
    )
    assert ComparisonDraft.objects.get(assignment=assignment).data == {
        "selection_rationale": "kept"
    }


def test_a_comparison_draft_is_refused_by_the_api_naming_the_field(assignment):
    client = token_client(assignment.annotator)
    url = reverse("comparison-api:draft", args=[assignment.public_id])
    long = client.put(url, {"selection_rationale": "x" * MIB}, format="json")
    assert long.status_code == 400
    assert "limited to 4,000 characters" in str(long.json()["fields"]["selection_rationale"])
    nul = client.put(url, {"revision_guidance": "a\x00b"}, format="json")
    assert nul.status_code == 400
    assert "control character" in str(nul.json()["fields"]["revision_guidance"])
    assert not ComparisonDraft.objects.exists()
    assert client.put(url, {"selection_rationale": "x" * NOTE}, format="json").status_code == 200


def test_the_comparison_services_refuse_over_long_texts(assignment):
    with pytest.raises(comparison_services.ComparisonError, match="limited to 4,000"):
        comparison_services.comparison_draft_save(
            public_id=assignment.public_id,
            annotator=assignment.annotator,
            data={"suitability_reason": "x" * MIB},
        )
    with pytest.raises(comparison_services.ComparisonError, match="Selection rationale"):
        comparison_services.comparison_submit(
            public_id=assignment.public_id,
            annotator=assignment.annotator,
            content={
                "suitability": "suitable",
                "selected_letter": "A",
                "rating": "as_is",
                "selection_rationale": "x" * MIB,
            },
        )
    assert not ComparisonDraft.objects.exists() and not ComparisonJudgment.objects.exists()


# --- Profile review ---------------------------------------------------------------------------


@pytest.fixture
def profile(db):
    return ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)


def test_profile_review_texts_are_refused_by_page_and_api(profile):
    me = UserFactory(roles=[Role.PRIMARY_ANNOTATOR])
    page = login(me).post(
        reverse("review:change-request-add", args=["CHAR_01"]),
        {
            "field": "description",
            "passage": "reads every situation",
            "concern": "c" * (NOTE + 1),
            "suggested_correction": "Say 'tends to read'.",
        },
    )
    assert "Concern is limited to 4,000 characters; this one has 4,001." in page.content.decode()
    assert not ChangeRequest.objects.exists()
    api = token_client(me).post(
        reverse("review-api:profile-review", args=["CHAR_01"]),
        {"criteria": ALL_MEET, "recommendation": "accept", "explanation": "x" * MIB},
        format="json",
    )
    assert api.status_code == 400
    assert "limited to 4,000 characters" in str(api.json()["fields"]["explanation"])
    assert not ProfileReview.objects.filter(reviewer=me).exclude(explanation="").exists()
    draft = login(me).post(
        reverse("review:profile-review-draft", args=["CHAR_01"]),
        {"explanation": "a\x00b"},
        **HTMX,
    )
    assert "Not saved: Explanation contains a control character (NUL)" in draft.content.decode()
    assert not FormDraft.objects.exists()


def test_a_shared_draft_is_refused_whole_and_the_api_names_the_field():
    from core.api import domain_error_body
    from core.drafts import DraftRefused, form_draft_save

    user = UserFactory()
    form_draft_save(user=user, key="k", data={"note": ["kept"]}, fields=["note"])
    with pytest.raises(DraftRefused) as refused:
        form_draft_save(
            user=user,
            key="k",
            data={"note": ["fine"], "other": ["a\x00b"]},
            fields=["note", "other"],
            limits={"note": ("Note", NOTE)},
        )
    assert domain_error_body(refused.value)["fields"] == {
        "other": [
            "Other contains a control character (NUL) at character 2; remove it "
            "(only tabs and line breaks are allowed)."
        ]
    }
    with pytest.raises(DraftRefused, match="Note is limited to 4,000 characters"):
        form_draft_save(
            user=user,
            key="k",
            data={"note": ["x" * (NOTE + 1)]},
            fields=["note"],
            limits={"note": ("Note", NOTE)},
        )
    assert FormDraft.objects.get(user=user).data == {"note": "kept"}
