"""Statistics as tidy tables (issue #23): one row per observation, snake_case columns, the
same table behind a page's "Download CSV" / "Download Parquet" pair, its API endpoint
(paginated JSON rows with exactly these column names) and the statistics export
(``adjudication.export.statistics``).

A workflow writes one builder per statistic that returns a :class:`TidyTable`; the views
here serve it. Bytes are deterministic: the same rows give the same CSV and the same
Parquet file (no timestamps, no pandas index metadata, a fixed writer configuration).
"""

import csv
import io
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.parquet as pq
from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer, BrowsableAPIRenderer, JSONRenderer
from rest_framework.views import APIView

from .api import (
    ERROR,
    ListFilter,
    filter_and_order,
    list_parameters,
    list_response,
    paginated_schema,
)
from .roles import HasRole

#: A column's type: what the Parquet schema, the CSV and the API agree on.
ARROW_TYPES = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}
FIELDS = {
    str: serializers.CharField,
    int: serializers.IntegerField,
    float: serializers.FloatField,
    bool: serializers.BooleanField,
}
CONTENT_TYPES = {"csv": "text/csv; charset=utf-8", "parquet": "application/vnd.apache.parquet"}
FORMATS = tuple(CONTENT_TYPES)


@dataclass(frozen=True)
class TidySpec:
    """A table's name (its file stem) and its columns in order, ``name -> type``."""

    name: str
    columns: Mapping[str, type]
    description: str = ""

    def table(self, rows: Iterable[Mapping]) -> "TidyTable":
        return TidyTable(self, [self.row(r) for r in rows])

    def row(self, values: Mapping) -> dict:
        """``values`` as a row of this table: every column, in order, with its type (a
        numpy number becomes a Python one; NaN, an empty text and a missing value become
        None, so the CSV, the Parquet file and the API rows agree)."""
        unknown = set(values) - set(self.columns)
        if unknown:
            raise ValueError(f"{self.name}: no column {', '.join(sorted(unknown))}")
        return {name: _cast(values.get(name), kind) for name, kind in self.columns.items()}


@dataclass
class TidyTable:
    spec: TidySpec
    rows: list[dict] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def columns(self) -> list[str]:
        return list(self.spec.columns)

    def extend(self, other: "TidyTable") -> None:
        assert other.spec.columns == self.spec.columns
        self.rows.extend(other.rows)


def _cast(value, kind):
    if value is None:
        return None
    if kind is float:
        value = float(value)
        return None if value != value else value  # NaN is a missing value
    if kind is int:
        return int(value)
    if kind is bool:
        return bool(value)
    # An empty text is a missing value: a CSV cannot tell the two apart.
    return str(value) or None


# --- Bytes --------------------------------------------------------------------------------


def csv_bytes(table: TidyTable) -> bytes:
    """UTF-8 CSV, header first; a missing value is an empty cell, a float its shortest
    round-trip text, a boolean ``true``/``false`` (pandas reads those as booleans)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([_csv_cell(v) for v in row.values()])
    return out.getvalue().encode("utf-8")


def _csv_cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def arrow_table(table: TidyTable) -> pa.Table:
    schema = pa.schema([(name, ARROW_TYPES[kind]) for name, kind in table.spec.columns.items()])
    return pa.Table.from_pylist(table.rows, schema=schema)


def parquet_bytes(table: TidyTable) -> bytes:
    """A Parquet file with the table's typed schema (the same one however many rows)."""
    out = io.BytesIO()
    pq.write_table(
        arrow_table(table),
        out,
        compression="zstd",
        write_statistics=False,
        store_schema=False,
    )
    return out.getvalue()


def table_bytes(table: TidyTable, fmt: str) -> bytes:
    return csv_bytes(table) if fmt == "csv" else parquet_bytes(table)


# --- Pages --------------------------------------------------------------------------------


def table_download(table: TidyTable, request, *, filename: str | None = None) -> HttpResponse:
    """The table as an attachment in ``?format=csv`` (the default) or ``?format=parquet``;
    404 for another format."""
    fmt = request.GET.get("format", "csv")
    if fmt not in CONTENT_TYPES:
        raise Http404("Download a statistics table as csv or parquet.")
    response = HttpResponse(table_bytes(table, fmt), content_type=CONTENT_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{filename or table.name}.{fmt}"'
    return response


@dataclass(frozen=True)
class TableLinks:
    """What a template needs for the pair of links: ``{% include
    "partials/table_downloads.html" with table=... %}``."""

    name: str
    csv_url: str
    parquet_url: str
    api_url: str = ""


def table_links(url: str, *, name: str, api_url: str = "") -> TableLinks:
    """The download links of a table view at ``url`` (which may carry a query string)."""
    joiner = "&" if "?" in url else "?"
    return TableLinks(name, f"{url}{joiner}format=csv", f"{url}{joiner}format=parquet", api_url)


# --- API ----------------------------------------------------------------------------------


class _FileRenderer(BaseRenderer):
    """Selects a file format by ``?format=`` (the view writes the bytes itself); an error
    answered in that format is its JSON body."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, bytes):
            return data
        return JSONRenderer().render(data)


class CsvRenderer(_FileRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"


class ParquetRenderer(_FileRenderer):
    media_type = CONTENT_TYPES["parquet"]
    format = "parquet"
    charset = None


def row_serializer(spec: TidySpec):
    name = "".join(part.title() for part in spec.name.split("_")) + "Row"
    fields = {
        column: FIELDS[kind](allow_null=True, read_only=True)
        for column, kind in spec.columns.items()
    }
    return type(name, (serializers.Serializer,), fields)


def tidy_filters(spec: TidySpec) -> list[ListFilter]:
    """One exact-match filter per text, whole-number and boolean column."""
    return [
        ListFilter(name, name, kind, f"Only rows whose {name} is this value.")
        for name, kind in spec.columns.items()
        if kind in (str, int, bool)
    ]


def tidy_api(
    spec: TidySpec,
    build: Callable[..., TidyTable],
    *,
    roles,
    summary: str,
    description: str,
    example: dict,
    parameters: list[OpenApiParameter] = (),
    not_found: bool = False,
) -> type[APIView]:
    """An API view listing ``build(request, **url_kwargs)``'s rows, paginated, filtered
    (an exact match on any text, whole-number or boolean column) and ordered by any column:
    the JSON twin of the page's CSV and Parquet downloads."""
    filters = tidy_filters(spec)
    orderings = list(spec.columns)
    serializer = row_serializer(spec)
    responses = {200: paginated_schema(serializer), 400: ERROR, 403: ERROR}
    if not_found:
        responses[404] = ERROR

    class TidyTableApi(APIView):
        permission_classes = [HasRole]
        allowed_roles = list(roles)
        renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CsvRenderer, ParquetRenderer]

        @extend_schema(
            operation_id=f"statistics_{spec.name}",
            summary=summary,
            description=description
            + f"\n\nThe same columns as `{spec.name}.csv` and `{spec.name}.parquet`: "
            + ", ".join(f"`{c}`" for c in spec.columns)
            + ". With `?format=csv` or `?format=parquet` the whole table (filtered and "
            "ordered, not paginated) comes as that file.",
            parameters=[
                *parameters,
                *list_parameters(filters, orderings),
                OpenApiParameter(
                    "format",
                    str,
                    enum=["json", "csv", "parquet"],
                    description="json (default): a page of rows; csv or parquet: the file.",
                ),
            ],
            responses=responses,
            examples=[
                OpenApiExample(
                    "A page of rows",
                    value={"count": 1, "next": None, "previous": None, "results": [example]},
                    response_only=True,
                )
            ],
        )
        def get(self, request, **kwargs):
            table = build(request, **kwargs)
            fmt = request.accepted_renderer.format
            if fmt in FORMATS:
                # The whole table (filtered and ordered, not paginated) as a file.
                rows = filter_and_order(request, table.rows, filters=filters, orderings=orderings)
                chosen = TidyTable(spec, list(rows))
                response = HttpResponse(table_bytes(chosen, fmt), content_type=CONTENT_TYPES[fmt])
                response["Content-Disposition"] = f'attachment; filename="{spec.name}.{fmt}"'
                return response
            return list_response(
                request,
                self,
                table.rows,
                serializer,
                filters=filters,
                orderings=orderings,
                serialize=list,
            )

    TidyTableApi.__name__ = TidyTableApi.__qualname__ = (
        "".join(p.title() for p in spec.name.split("_")) + "Api"
    )
    return TidyTableApi
