"""The analysis's figures survive their stored form (issue #34): what the page and the
downloads read back from the database gives the same rows as the figures computed in
place, the JSON is strict (PostgreSQL's jsonb takes no NaN), and a stored result naming
a class outside the analysis is refused."""

import json

import pytest

from core import figure_json
from evaluation import analysis_figures, selectors, statistics

from .test_analysis import RUNS, imported  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def test_stored_figures_give_the_rows_of_the_computed_ones(imported):  # noqa: F811
    table = selectors.prediction_table(selectors.analysis_runs())
    computed = analysis_figures.compute(table)
    stored = json.loads(json.dumps(analysis_figures.to_json(computed), allow_nan=False))
    read = analysis_figures.from_json(stored)
    settings = statistics.setting_names()
    rows = statistics.analysis_rows(computed, settings)
    assert statistics.analysis_rows(read, settings) == rows
    assert sum(r[0] == "accuracy" for r in rows) == len(RUNS)
    assert read.provenance.matrix.items == computed.provenance.matrix.items
    # What only the computation needed is not stored: a run's answers per item.
    assert read.comparisons["models"][0].a.answers == {}
    assert computed.comparisons["models"][0].a.answers


def test_non_finite_numbers_and_tuple_keys_come_back():
    value = {("a", "b"): [float("nan"), float("inf")], "t": (1, frozenset({2}))}
    back = figure_json.from_json(
        json.loads(json.dumps(figure_json.to_json(value), allow_nan=False)), trusted_modules=()
    )
    assert back["t"] == (1, frozenset({2}))
    nan, inf = back[("a", "b")]
    assert nan != nan and inf == float("inf")


def test_a_stored_result_naming_another_class_is_refused():
    forged = {"__dataclass__": "subprocess:CompletedProcess", "fields": {"args": "x"}}
    with pytest.raises(ValueError, match="unexpected class"):
        analysis_figures.from_json(forged)
