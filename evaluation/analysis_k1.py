"""Two App. K.1 checks beside the provenance analysis of :mod:`evaluation.analysis_k`.

* The item-fixed-effect linear probability model (the paper's robustness check): every
  memory-augmented prediction is one observation, correct = 1; item fixed effects, one
  fixed effect per model × setting run, and the three home-family interactions (a model
  of family f answering an item whose reference came from family f) fitted jointly. The
  coefficient of each interaction is that family's provenance interaction, with a 95%
  interval and p-value from scenario-clustered standard errors, Holm over the families
  fitted.
* Distractor provenance: the source families of the distractors (a distractor is another
  character's adjudicated response, so it has the provenance of that reference), and per
  source family how many of its items carry at least one distractor of the same family.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from statsmodels.regression.linear_model import OLS

import agreement
from agreement import constants

from .analysis import MEMORY_AUGMENTED_SETTINGS, SOURCE_FAMILIES, PredictionTable

# --- the item-fixed-effect linear probability model ------------------------------------------


@dataclass(frozen=True)
class FixedEffectTerm:
    """One home-family interaction: its coefficient (a share; ×100 for points)."""

    family: str
    n_models_in: int
    n_home_items: int
    coefficient: float
    ci_low: float
    ci_high: float
    p_value: float
    p_holm: float
    reject: bool


@dataclass(frozen=True)
class FixedEffectCheck:
    n_observations: int
    n_items: int
    n_runs: int  # model × setting fixed effects
    n_clusters: int
    terms: tuple  # FixedEffectTerm, in SOURCE_FAMILIES order


def item_fixed_effect_check(table: PredictionTable) -> FixedEffectCheck | None:
    """App. K.1's robustness check on every memory-augmented run (a model of no family is
    outside every family), over the items of a known source every one of those runs answered (so the
    panel is balanced and the two sets of fixed effects are removed exactly by
    subtracting item and run means). A family enters when it has models inside and
    outside it and items of its source and of others. None when no family can enter."""
    runs = [c for c in table.columns if c.setting in MEMORY_AUGMENTED_SETTINGS]
    if len({c.label for c in runs}) < 2:
        return None
    items = [
        i
        for i in table.item_ids
        if table.source_family[i] in SOURCE_FAMILIES and all(i in c.answers for c in runs)
    ]
    if not items:
        return None
    y = np.array([[1.0 if c.answers[i] == table.key[i] else 0.0 for c in runs] for i in items])
    source = np.array([table.source_family[i] for i in items])
    model_family = np.array([c.family for c in runs])
    families, regressors = [], []
    for family in SOURCE_FAMILIES:
        labels_in = {c.label for c in runs if c.family == family}
        labels_out = {c.label for c in runs if c.family != family}
        home = source == family
        if not labels_in or not labels_out or home.all() or not home.any():
            continue
        families.append((family, len(labels_in), int(home.sum())))
        regressors.append(np.outer(home, model_family == family).astype(np.float64))
    if not regressors:
        return None
    clusters = np.unique([table.scenario[i] for i in items], return_inverse=True)[1]
    groups = np.repeat(clusters, len(runs))  # observations in (item, run) order
    x = np.column_stack([_within(r).ravel() for r in regressors])
    fit = OLS(_within(y).ravel(), x).fit(cov_type="cluster", cov_kwds={"groups": groups})
    low, high = np.asarray(fit.conf_int(alpha=0.05)).T
    holm = agreement.holm_correction(list(fit.pvalues), alpha=constants.HOLM_ALPHA)
    terms = tuple(
        FixedEffectTerm(
            family,
            n_in,
            n_home,
            float(fit.params[k]),
            float(low[k]),
            float(high[k]),
            float(fit.pvalues[k]),
            float(holm.adjusted[k]),
            bool(holm.reject[k]),
        )
        for k, (family, n_in, n_home) in enumerate(families)
    )
    return FixedEffectCheck(y.size, len(items), len(runs), int(clusters.max()) + 1, terms)


def _within(values: np.ndarray) -> np.ndarray:
    """An (items × runs) array less its item means and run means, plus the grand mean:
    on a balanced panel, the part the item and run fixed effects do not explain."""
    return (
        values
        - values.mean(axis=1, keepdims=True)
        - values.mean(axis=0, keepdims=True)
        + values.mean()
    )


# --- distractor provenance -------------------------------------------------------------------


@dataclass(frozen=True)
class DistractorProvenance:
    n_items: int
    n_distractors: int
    by_family: dict  # distractor source family -> distractors
    items_by_source: dict  # key source family -> items
    own_family_items: dict  # key source family -> items with a distractor of that family

    @property
    def families(self) -> list[tuple[str, int, float]]:
        """(family, distractors, share of all distractors), in family order."""
        return [(f, n, n / self.n_distractors) for f, n in self.by_family.items()]


def distractor_provenance(table: PredictionTable) -> DistractorProvenance | None:
    """App. K.1's distractor counts over the table's items (those the analysed runs
    answered); None when no item's distractors are known."""
    items = [i for i in table.item_ids if table.distractor_family.get(i)]
    if not items:
        return None
    by_family = Counter(f for i in items for f in table.distractor_family[i])
    items_by_source = Counter(table.source_family[i] for i in items)
    own = Counter(
        table.source_family[i]
        for i in items
        if table.source_family[i] in table.distractor_family[i]
    )
    others = (set(by_family) | set(items_by_source)) - set(SOURCE_FAMILIES)
    order = [*SOURCE_FAMILIES, *sorted(others)]
    return DistractorProvenance(
        len(items),
        sum(by_family.values()),
        {f: by_family[f] for f in order if by_family[f]},
        {f: items_by_source[f] for f in order if items_by_source[f]},
        {f: own[f] for f in SOURCE_FAMILIES if items_by_source[f]},
    )
