"""DIAMONDS coverage over REST (/api/review/scenario-coverage/): final ratings, scenarios
per bin and agreement.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from annotation.scenario_review import selectors

from . import examples
from .common import ScenarioReadApi


class CoverageSerializer(serializers.Serializer):
    n_final = serializers.IntegerField()
    distribution = serializers.SerializerMethodField()
    life_stages = serializers.SerializerMethodField()
    agreement = serializers.SerializerMethodField()

    def get_distribution(self, c) -> dict[str, list[int]]:
        return {r.field: r.counts for r in c.distribution}

    def get_life_stages(self, c) -> dict[str, int]:
        return {s.key: s.total for s in c.stages}

    def get_agreement(self, c) -> list[dict]:
        return [
            {
                "dimension": a.label,
                "units": a.n_units,
                "krippendorff_alpha_ordinal": a.alpha.value,
                "cohen_kappa_linear": a.kappa_linear.value,
                "cohen_kappa_quadratic": a.kappa_quadratic.value,
            }
            for a in c.agreement
        ]


class ScenarioCoverageApi(ScenarioReadApi):
    @extend_schema(
        summary="DIAMONDS coverage, scenarios per bin and agreement",
        description="The coverage page's numbers: final ratings per bin, life stages, agreement.",
        responses=CoverageSerializer,
        examples=examples.SCENARIO_COVERAGE_GET,
    )
    def get(self, request):
        return Response(CoverageSerializer(selectors.scenario_coverage()).data)
