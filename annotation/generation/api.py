"""Candidate generation over REST, admin only: launch, watch, cancel and retry runs.

!!! BLINDING !!!  Families and model names: CORPUS_ADMINS only, reads and writes.
"""

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import generics, status
from rest_framework import serializers as drf_serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.corpus.api import CorpusAdminApi
from annotation.generation import actions, selectors
from annotation.generation.forms import GenerationRunForm
from annotation.generation.models import GenerationUnit
from annotation.generation.serializers import (
    GenerationGatesQuerySerializer,
    GenerationGatesSerializer,
    GenerationRunCreateSerializer,
    GenerationRunListSerializer,
    GenerationRunSerializer,
    GenerationUnitFilterSerializer,
    GenerationUnitSerializer,
)
from annotation.generation.services.calls import generation_family_configs
from annotation.generation.services.runs import GenerationBlocked
from core.api import form_error_response


def _run_response(run_id: int, status_code=status.HTTP_200_OK) -> Response:
    run = selectors.generation_run_get(run_id=run_id)
    return Response(GenerationRunSerializer(run).data, status=status_code)


@extend_schema_view(
    get=extend_schema(
        summary="Generation runs, newest first, with their unit counts",
        responses=GenerationRunListSerializer(many=True),
    ),
    post=extend_schema(
        summary="Launch a generation run",
        description=(
            "Creates a run over every chosen (character, scenario) pair × family (omit "
            "`characters`/`scenarios` for all) and queues its units. Every pair must pass "
            "the gates (frozen profile, scenario review complete, memory audit finalized; "
            "see /api/generation/gates/) and each family needs a configured provider; "
            "otherwise nothing is created and the 400 response says why (`blocked` lists "
            "what each blocked character or scenario waits for). `override_gates` with an "
            "`override_reason` takes blocked pairs too and records each as a protocol "
            "deviation. Poll the run for progress."
        ),
        request=GenerationRunCreateSerializer,
        responses={201: GenerationRunSerializer},
    ),
)
class GenerationRunListApi(CorpusAdminApi, generics.ListAPIView):
    serializer_class = GenerationRunListSerializer

    def get_queryset(self):
        return selectors.generation_run_list()

    def post(self, request):
        # The page's form validates the launch (``GenerationRunCreateSerializer``
        # documents it); a JSON body is not a QueryDict, so lists pass as they are.
        if not hasattr(request.data, "get"):
            raise ValidationError({"detail": 'Send an object such as {"families": ["gpt"]}.'})
        form = GenerationRunForm(request.data, configured=list(generation_family_configs()))
        try:
            run = actions.generation_run_launch(form, user=request.user)
        except actions.ActionRefused as refused:
            blocked = refused.cause
            if isinstance(blocked, GenerationBlocked):
                raise ValidationError({"detail": str(blocked), "blocked": blocked.blocks}) from None
            if blocked is not None:
                raise ValidationError({"detail": str(blocked)}) from None
            return form_error_response(refused.form)
        return _run_response(run.pk, status.HTTP_201_CREATED)


@extend_schema_view(
    get=extend_schema(summary="A generation run with its progress per family and stage")
)
class GenerationRunDetailApi(CorpusAdminApi, generics.RetrieveAPIView):
    serializer_class = GenerationRunSerializer

    def get_object(self):
        run = selectors.generation_run_get(run_id=self.kwargs["run_id"])
        self.check_object_permissions(self.request, run)
        return run


class GenerationRunActionApi(CorpusAdminApi, APIView):
    """POST-only: one run-level service call; 409 when the run's state refuses it."""

    action = None

    def post(self, request, run_id):
        selectors.generation_run_get(run_id=run_id)  # 404 first
        try:
            type(self).action(run_id=run_id)
        except actions.ActionRefused as refused:
            return Response({"detail": " ".join(refused.messages)}, status=status.HTTP_409_CONFLICT)
        return _run_response(run_id)


_conflict = OpenApiResponse(
    inline_serializer("GenerationConflict", {"detail": drf_serializers.CharField()}),
    description="The run's state does not allow this action; `detail` says why.",
)


@extend_schema_view(
    post=extend_schema(
        summary="Cancel a pending or running generation run",
        description="Waiting units are cancelled at once; units in flight stop at their next "
        "stage boundary. Finished candidates are kept.",
        request=None,
        responses={200: GenerationRunSerializer, 409: _conflict},
    )
)
class GenerationRunCancelApi(GenerationRunActionApi):
    action = staticmethod(actions.generation_run_cancel)


@extend_schema_view(
    post=extend_schema(
        summary="Queue a run's failed units again",
        description="Only failed units are retried; each resumes at the stage it reached.",
        request=None,
        responses={200: GenerationRunSerializer, 409: _conflict},
    )
)
class GenerationRunRetryApi(GenerationRunActionApi):
    action = staticmethod(actions.generation_run_retry)


@extend_schema_view(
    get=extend_schema(
        summary="A run's units, optionally of one status (e.g. the failed ones)",
        parameters=[OpenApiParameter("status", str, enum=[s.value for s in GenerationUnit.Status])],
    )
)
class GenerationUnitListApi(CorpusAdminApi, generics.ListAPIView):
    serializer_class = GenerationUnitSerializer

    def get_queryset(self):
        selectors.generation_run_get(run_id=self.kwargs["run_id"])
        params = GenerationUnitFilterSerializer(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        return selectors.generation_unit_list(
            run_id=self.kwargs["run_id"], status=params.validated_data.get("status")
        )


@extend_schema_view(
    get=extend_schema(
        summary="What blocks generation for the chosen pairs, and whom it waits for",
        description=(
            "Generation takes a (character, scenario) pair only when the profile is frozen, "
            "the scenario has completed review and the character's memory audit is "
            "finalized. Repeat `characters`/`scenarios` to choose; omit them for all."
        ),
        parameters=[GenerationGatesQuerySerializer],
        responses=GenerationGatesSerializer,
    )
)
class GenerationGatesApi(CorpusAdminApi, APIView):
    def get(self, request):
        params = GenerationGatesQuerySerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        gates = selectors.generation_pair_gates(
            characters=params.validated_data.get("characters"),
            scenarios=params.validated_data.get("scenarios"),
        )
        return Response(
            GenerationGatesSerializer(
                {
                    "pairs": gates.pairs,
                    "blocked_pairs": gates.blocked_pairs,
                    "blocks": [b.as_dict() for b in gates.blocks],
                }
            ).data
        )
