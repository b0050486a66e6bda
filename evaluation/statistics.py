"""The evaluation analysis (seed 000 §3.1, App. G, I, K) as a tidy table
(core.tidy_tables): one row per estimate, in eleven columns, for the analysis
page's CSV (its long-standing layout, ``value`` named ``accuracy`` there) and Parquet
downloads, the API rows and the statistics export. Admins only, as the page."""

from core.tidy_tables import TidySpec, TidyTable

from . import analysis_figures, analysis_k
from .models import Setting

#: Setting names of the paper's memory backends the platform has no runner for yet.
SETTING_NAMES = {
    "mem0": "Mem0",
    "personadb": "PersonaDB",
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


def analysis_rows(figures: analysis_figures.AnalysisFigures, settings) -> list[list]:
    """The rows of the analysis (its computed figures) in ``CSV_HEADER``'s columns, ""
    for an empty cell."""
    writer = _Rows()
    for row in figures.accuracy:
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
    for family, rows in figures.comparisons.items():
        for c in rows:
            section = f"paired_{family}" if c.holm else f"paired_{family}_uncorrected"
            writer.writerow(
                [
                    section,
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
                    "" if c.p_holm is None else c.p_holm,
                ]
            )
    for _, by in analysis_figures.BREAKDOWNS:
        groups, rows = figures.breakdowns[by]
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
    for d in figures.diagnostics:
        writer.writerow(
            ["delta_profile", d.label, "", "", d.n_items, "", d.delta_profile, "", "", "", ""]
        )
        writer.writerow(
            ["delta_memory", d.label, "", "", d.n_items, "", d.delta_memory, "", "", "", ""]
        )
    for m in figures.matrices:
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
    _k_csv_rows(writer, figures, settings)
    return writer


def _k_csv_rows(writer, figures, settings):
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

    for m in figures.memory_averages:
        row("memory_augmented_avg", m.label, "", "", "", "", m.average)
    source_table = figures.source_table
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
    provenance = figures.provenance
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
    if figures.fixed_effects is not None:
        for t in figures.fixed_effects.terms:
            row(
                "k1_fixed_effect",
                "",
                "",
                t.family,
                t.n_home_items,
                "",
                t.coefficient,
                t.ci_low,
                t.ci_high,
                t.p_value,
                t.p_holm,
            )
    distractors = figures.distractors
    if distractors is not None:
        for family, n, share in distractors.families:
            row("k1_distractor_family", "", "", family, distractors.n_distractors, n, share)
        for family, n in distractors.own_family_items.items():
            n_items = distractors.items_by_source[family]
            row("k1_own_family_distractor", "", "", family, n_items, n, n / n_items)
    for by, section, groups in (
        ("stage", "k3_life_stage", figures.stages),
        ("character", "k4_character", figures.characters),
    ):
        for g in groups:
            value = g.accuracy if by == "stage" else analysis_k.setting_mean(g)
            row(section, "", "", g.group, g.n, g.correct, value)


def figures_table(figures: analysis_figures.AnalysisFigures, settings) -> TidyTable:
    """The tidy table of computed figures (the stored ones, for the page's downloads)."""
    columns = list(EVALUATION_ANALYSIS.columns)
    return EVALUATION_ANALYSIS.table(
        {c: None if v == "" else v for c, v in zip(columns, row, strict=True)}
        for row in analysis_rows(figures, settings)
    )


def evaluation_analysis_table(table, settings) -> TidyTable:
    """The tidy table computed here from a prediction table (the statistics export,
    which runs on a worker)."""
    return figures_table(analysis_figures.compute(table), settings)
