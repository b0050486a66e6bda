"""The evaluation analysis (seed 000 §3.1, App. G, I, K) as a tidy table
(core.tidy_tables): one row per estimate, in eleven columns, for the analysis
page's CSV (its long-standing layout, ``value`` named ``accuracy`` there) and Parquet
downloads, the API rows and the statistics export. Admins only, as the page."""

from core.life_stages import LIFE_STAGE_KEYS
from core.tidy_tables import TidySpec, TidyTable

from . import analysis, analysis_k
from .models import Setting

#: Setting names of the paper's memory backends the platform has no runner for yet.
SETTING_NAMES = {
    "mem0": "Mem0",
    "persona_db": "PersonaDB",
    analysis_k.MEMORY_AVG: "Memory-Aug. Avg.",
}


def setting_names() -> dict:
    """Setting key → the name the analysis shows (the runners' and the paper's others)."""
    return {**SETTING_NAMES, **dict(Setting.choices)}


#: The analysis page's CSV header (kept as it was before the tidy table: scripts read it).
CSV_HEADER = [
    "section",
    "model",
    "setting",
    "group",
    "n_items",
    "n_correct",
    "accuracy",
    "ci_low",
    "ci_high",
    "p_value",
    "p_holm",
]

EVALUATION_ANALYSIS = TidySpec(
    "evaluation_analysis",
    {
        "section": str,
        "model": str,
        "setting": str,
        "group": str,
        "n_items": int,
        "n_correct": int,
        "value": float,
        "ci_low": float,
        "ci_high": float,
        "p_value": float,
        "p_holm": float,
    },
    "One row per estimate of the evaluation analysis over the latest finished or imported "
    "run of each model and setting (or the runs named by ?run=): accuracy with its "
    "scenario-cluster bootstrap interval, paired differences with permutation p-values "
    "(Holm-corrected), breakdowns by character, life stage and key source family, "
    "disclosure diagnostics, pairwise agreement and the App. K rows. value is the "
    "section's estimate (an accuracy, a difference, a rate or a correlation).",
)


class _Rows(list):
    writerow = list.append


def analysis_rows(table, settings) -> list[list]:
    """The rows of the analysis in ``CSV_HEADER``'s columns, "" for an empty cell."""
    writer = _Rows()
    for row in analysis.accuracy_rows(table):
        writer.writerow(
            [
                "accuracy",
                row.label,
                settings[row.setting],
                "",
                row.n_items,
                row.n_correct,
                row.accuracy,
                row.ci_low,
                row.ci_high,
                "",
                "",
            ]
        )
    for family, rows in analysis.paired_comparisons(table).items():
        for c in rows:
            writer.writerow(
                [
                    f"paired_{family}",
                    f"{c.a.label} − {c.b.label}" if family == "models" else c.a.label,
                    settings[c.a.setting]
                    if family == "models"
                    else f"{settings[c.a.setting]} − {settings[c.b.setting]}",
                    "",
                    c.n_items,
                    "",
                    c.difference,
                    "",
                    "",
                    c.p_value,
                    c.p_holm,
                ]
            )
    for by in ("character", "stage", "source_family"):
        groups, rows = analysis.breakdown(table, by)
        for row in rows:
            for g in groups:
                cell = row["cells"].get(g)
                if cell:
                    writer.writerow(
                        [
                            by,
                            row["column"].label,
                            settings[row["column"].setting],
                            g,
                            cell["n"],
                            cell["correct"],
                            cell["accuracy"],
                            "",
                            "",
                            "",
                            "",
                        ]
                    )
    for d in analysis.disclosure_diagnostics(table):
        writer.writerow(
            ["delta_profile", d.label, "", "", d.n_items, "", d.delta_profile, "", "", "", ""]
        )
        writer.writerow(
            ["delta_memory", d.label, "", "", d.n_items, "", d.delta_memory, "", "", "", ""]
        )
    for m in analysis.agreement_matrices(table):
        for i, a in enumerate(m.labels):
            for j, b in enumerate(m.labels):
                if i < j:
                    writer.writerow(
                        [
                            "agreement",
                            f"{a} · {b}",
                            settings[m.setting],
                            "",
                            int(m.jointly_valid[i, j]),
                            int(m.agree[i, j]),
                            float(m.rate[i, j]),
                            "",
                            "",
                            "",
                            "",
                        ]
                    )
    _k_csv_rows(writer, table, settings)
    return writer


def _k_csv_rows(writer, table, settings):
    """App. K rows of the CSV, in the same eleven columns."""

    def row(
        section,
        model="",
        setting="",
        group="",
        n="",
        correct="",
        value="",
        low="",
        high="",
        p="",
        p_holm="",
    ):
        writer.writerow([section, model, setting, group, n, correct, value, low, high, p, p_holm])

    for m in analysis_k.memory_averages(table):
        row("memory_augmented_avg", m.label, "", "", "", "", m.average)
    source_table = analysis_k.source_stratified(table)
    for r in source_table.rows:
        for (source, setting), cell in r.cells.items():
            row(
                "k1_source",
                r.label,
                settings.get(setting, setting),
                source,
                cell.n or "",
                cell.correct if cell.n else "",
                cell.accuracy,
            )
    provenance = analysis_k.provenance_analysis(table)
    if provenance is not None:
        if provenance.stability is not None:
            members = " + ".join(provenance.stability.members)
            for source, share in provenance.stability.shares.items():
                row(
                    f"k1_top{provenance.stability.k}",
                    members,
                    "",
                    source,
                    provenance.stability.n_defined[source],
                    "",
                    share,
                )
        for c in provenance.correlations:
            row(
                "k1_spearman",
                "",
                "",
                f"{c.a} vs {c.b}",
                c.n_models,
                "",
                c.rho.estimate,
                c.rho.ci_low,
                c.rho.ci_high,
            )
        for i in provenance.interactions:
            e = i.estimate
            row(
                "k1_interaction",
                "",
                "",
                i.family,
                i.n_home_items,
                "",
                e.estimate,
                e.ci_low,
                e.ci_high,
                i.p_value,
                i.p_holm,
            )
    for by, section in (("stage", "k3_life_stage"), ("character", "k4_character")):
        for g in analysis_k.group_accuracy(
            table, by, order=LIFE_STAGE_KEYS if by == "stage" else None
        ):
            value = g.accuracy if by == "stage" else analysis_k.setting_mean(g)
            row(section, "", "", g.group, g.n, g.correct, value)


def evaluation_analysis_table(table, settings) -> TidyTable:
    columns = list(EVALUATION_ANALYSIS.columns)
    return EVALUATION_ANALYSIS.table(
        {c: None if v == "" else v for c, v in zip(columns, row, strict=True)}
        for row in analysis_rows(table, settings)
    )
