"""Character drafting over REST, admin only, read-only: jobs, their drafts and every
call (prompt, model, output). Launching and redrafting are on the pages."""

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics

from annotation.character_drafting import selectors
from annotation.character_drafting.models import CharacterDraft, DraftingCall
from annotation.character_drafting.serializers import (
    DraftingJobListSerializer,
    DraftingJobSerializer,
)
from annotation.corpus.api import CorpusAdminApi


@extend_schema_view(get=extend_schema(summary="Drafting jobs, newest first, with draft counts"))
class DraftingJobListApi(CorpusAdminApi, generics.ListAPIView):
    serializer_class = DraftingJobListSerializer

    def get_queryset(self):
        return selectors.drafting_job_list()


@extend_schema_view(
    get=extend_schema(summary="A drafting job with each draft, its problems and its calls")
)
class DraftingJobDetailApi(CorpusAdminApi, generics.RetrieveAPIView):
    serializer_class = DraftingJobSerializer
    lookup_url_kwarg = "job_id"

    def get_queryset(self):
        return selectors.drafting_job_list().prefetch_related(
            Prefetch(
                "drafts",
                queryset=CharacterDraft.objects.select_related(
                    "profile_version", "redraft_of"
                ).prefetch_related(
                    Prefetch("calls", queryset=DraftingCall.objects.order_by("attempt", "pk"))
                ),
            )
        )
