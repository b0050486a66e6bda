"""What the scenario endpoints share: the readers' and the reviewers' base views, the
review page as the caller may see it, fresh after an If-Match check, and the page's
refusal in the API's words.
"""

from rest_framework import status
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.profile_review.api.common import (
    answer,
    conflict,
    data_etag,
    error_response,
    not_found,
)
from annotation.scenario_review import selectors
from annotation.scenario_review.actions import ActionRefused
from core.api import form_error_response, require_fresh
from core.roles import HasRole, Role

from .serializers import ScenarioReviewPageSerializer


class ScenarioReadApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.SCENARIO_REVIEWER, Role.ADMIN)
    write_roles = (Role.SCENARIO_REVIEWER,)


def review_page_data(request, scenario_id) -> dict:
    """The scenario's review as the caller may see it (404 for an unknown scenario)."""
    page = not_found(
        lambda: selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    )
    return ScenarioReviewPageSerializer(page).data


class ReviewerWriteApi(ScenarioReadApi):
    allowed_roles = (Role.SCENARIO_REVIEWER,)


def fresh_page(request, scenario_id):
    """The caller's view of the review (404 if unknown), after the If-Match check."""
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    require_fresh(request, data_etag(ScenarioReviewPageSerializer(page).data))
    return page


def flat_scores(body: dict, key: str) -> dict:
    """The page's form fields from the API's nested ``{key: {dimension: value}}``."""
    nested = body.get(key) or {}
    if not isinstance(nested, dict):
        raise ParseError({key: ["Send an object of dimension: value."]})
    return {**nested, "note": body.get("note", "")}


def refused_response(refused: ActionRefused, *, final: bool = False) -> Response:
    """The page's refusal in the API's words: the form's errors; the service's message as
    a 400, or a 409 when the submit differs from a decision already recorded."""
    if refused.cause is None:
        return form_error_response(refused.form)
    return conflict(refused.cause) if final else error_response(refused.cause)


def page_answer(request, scenario_id, code=status.HTTP_201_CREATED) -> Response:
    return answer(review_page_data(request, scenario_id), code=code)
