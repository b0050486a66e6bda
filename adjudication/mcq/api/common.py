"""What the item endpoints share: an item's ETag, its review page or a 404, and the
plain ``{"detail"}`` answer of a refusal or a queued screening.
"""

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.models import McqItem
from core.api import etag


def item_etag(item: McqItem) -> str:
    """The item's version and status: a review action, a revision or a finished screening
    changes it."""
    return etag("mcq-item", item.pk, item.version, item.status)


def review_page_or_404(item_id: int):
    page = mcq_selectors.item_review_page(item_id=item_id)
    if page is None:
        raise NotFound("No such MCQ item.")
    return page


DETAIL = inline_serializer("McqDetail", {"detail": serializers.CharField()})


def detail_response(message: str, code: int) -> Response:
    return Response({"detail": message}, status=code)
