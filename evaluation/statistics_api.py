"""The evaluation analysis as tidy API rows (issue #23): the columns of the analysis page's
tidy CSV and Parquet downloads, over the same runs (``?run=`` as on the page)."""

from drf_spectacular.utils import OpenApiParameter

from core.report_downloads import FiguresBeingComputed, FiguresNotReady
from core.roles import Role
from core.tidy_tables import tidy_api

from . import statistics
from .analysis_views import stored_figures


def _analysis_rows(request):
    """The rows of the stored figures the page shows; 409 before the first computation."""
    try:
        figures = stored_figures(request)
    except FiguresNotReady as exc:
        raise FiguresBeingComputed() from exc
    return statistics.figures_table(figures, statistics.setting_names())


EvaluationAnalysisRowsApi = tidy_api(
    statistics.EVALUATION_ANALYSIS,
    _analysis_rows,
    roles=[Role.ADMIN],
    summary="The evaluation analysis as tidy rows",
    description=statistics.EVALUATION_ANALYSIS.description,
    parameters=[
        OpenApiParameter(
            "run",
            int,
            many=True,
            description="Evaluation run ids to analyse (repeat the parameter); by default "
            "the latest finished or imported run of each model and setting.",
        )
    ],
    example={
        "section": "accuracy",
        "model": "gpt-4o",
        "setting": "Naive-RAG",
        "group": None,
        "n_items": 673,
        "n_correct": 402,
        "value": 0.597,
        "ci_low": 0.55,
        "ci_high": 0.64,
        "p_value": None,
        "p_holm": None,
    },
)
