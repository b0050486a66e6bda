"""The corpus over REST, read-only, for the roles that may see it. ``CorpusAdminApi``
is the permission of the admin-only endpoints built on the corpus (imports, generation)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics

from annotation.corpus import selectors
from annotation.corpus.serializers import (
    CharacterDetailSerializer,
    CharacterSerializer,
    MemoryFilterSerializer,
    MemorySerializer,
    ScenarioFilterSerializer,
    ScenarioSerializer,
)
from core.life_stages import LIFE_STAGE_KEYS
from core.roles import CORPUS_ADMINS, CORPUS_READERS, HasRole


class CorpusReadApi:
    permission_classes = [HasRole]
    allowed_roles = CORPUS_READERS


class CorpusAdminApi:
    permission_classes = [HasRole]
    allowed_roles = CORPUS_ADMINS


@extend_schema_view(get=extend_schema(summary="Characters with their current profile version"))
class CharacterListApi(CorpusReadApi, generics.ListAPIView):
    serializer_class = CharacterSerializer

    def get_queryset(self):
        return selectors.character_list()


@extend_schema_view(get=extend_schema(summary="A character with every profile version"))
class CharacterDetailApi(CorpusReadApi, generics.RetrieveAPIView):
    serializer_class = CharacterDetailSerializer
    lookup_field = "key"

    def get_queryset(self):
        return selectors.character_list()


@extend_schema_view(
    get=extend_schema(
        summary="Memories, optionally of one character and one life stage",
        parameters=[
            OpenApiParameter("character", str, description="Character key, e.g. CHAR_06."),
            OpenApiParameter("life_stage", str, enum=LIFE_STAGE_KEYS),
        ],
    )
)
class MemoryListApi(CorpusReadApi, generics.ListAPIView):
    serializer_class = MemorySerializer

    def get_queryset(self):
        params = MemoryFilterSerializer(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        return selectors.memory_list(
            character_key=params.validated_data.get("character"),
            life_stage=params.validated_data.get("life_stage"),
        )


@extend_schema_view(get=extend_schema(summary="One memory with its ten schema fields"))
class MemoryDetailApi(CorpusReadApi, generics.RetrieveAPIView):
    serializer_class = MemorySerializer
    lookup_field = "memory_id"

    def get_queryset(self):
        return selectors.memory_list()


@extend_schema_view(
    get=extend_schema(
        summary="Scenarios, optionally of one life stage",
        parameters=[OpenApiParameter("stage", str, enum=LIFE_STAGE_KEYS)],
    )
)
class ScenarioListApi(CorpusReadApi, generics.ListAPIView):
    serializer_class = ScenarioSerializer

    def get_queryset(self):
        params = ScenarioFilterSerializer(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        return selectors.scenario_list(stage=params.validated_data.get("stage"))


@extend_schema_view(get=extend_schema(summary="One scenario in the four-component schema"))
class ScenarioDetailApi(CorpusReadApi, generics.RetrieveAPIView):
    serializer_class = ScenarioSerializer
    lookup_field = "scenario_id"

    def get_queryset(self):
        return selectors.scenario_list()
