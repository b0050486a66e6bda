"""Accuracy of the matched-information human baseline and its comparison with models (App. J).

Inputs are per-item, per-annotator answers as option codes (``(n_items, n_annotators)``,
``MISSING`` for no answer) and the key per item, or the boolean correctness matrix that
:func:`correctness` derives from them. Accuracies are proportions in [0, 1].

Resampling (App. J): "10,000 bootstrap resamples that jointly resample items and
annotators". A resample draws ``n_items`` items and then ``n_annotators`` annotators, both with
replacement, in that order from one generator; the mean accuracy of a resample averages every
drawn annotator over every drawn item. Within a human–model difference the model side follows
the same item resample. :func:`joint_resample_indices` rebuilds the resamples of a seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ._core import (
    MISSING,
    AgreementInputError,
    BootstrapEstimate,
    as_category_matrix,
    as_correctness,
    bootstrap_estimate,
    check_bootstrap_args,
    check_count,
    group_codes,
    make_rng,
)
from .nominal import fleiss_kappa
from .resampling import bootstrap_unit_indices, resample_counts, resampled_row_sums

# --- scoring ----------------------------------------------------------------------------------


def correctness(answers, key, *, n_options: int, missing: str = "incorrect") -> np.ndarray:
    """Boolean ``(n_items, n_annotators)`` matrix: did each annotator choose the key?

    ``missing="incorrect"`` scores an unanswered item as wrong (as invalid model responses are,
    §3.1); ``missing="error"`` refuses missing answers instead.
    """
    if missing not in ("incorrect", "error"):
        raise AgreementInputError(f"missing must be 'incorrect' or 'error'; got {missing!r}")
    codes = as_category_matrix(
        answers,
        n_categories=n_options,
        name="answers",
        axes=("item", "annotator"),
        allow_missing=(missing == "incorrect"),
    )
    keys = _keys(key, n_options=n_options, n_items=codes.shape[0])
    return codes == keys[:, None]


def _keys(key, *, n_options: int, n_items: int) -> np.ndarray:
    keys = np.asarray(key)
    if keys.ndim != 1:
        raise AgreementInputError(f"key must be 1-D, one option per item; got shape {keys.shape}")
    if keys.size != n_items:
        raise AgreementInputError(f"key has {keys.size} entries; answers have {n_items} items")
    codes = as_category_matrix(
        keys[:, None],
        n_categories=n_options,
        name="key",
        axes=("item", "column"),
        allow_missing=False,
    )
    return codes[:, 0]


def _annotator_matrix(correct) -> np.ndarray:
    return as_correctness(correct, name="correct", ndim=(2,))


# --- summaries --------------------------------------------------------------------------------


def per_annotator_accuracy(correct) -> tuple[float, ...]:
    """Each annotator's accuracy over all items (App. J: "range from 76.0% to 86.0%")."""
    return tuple(float(a) for a in _annotator_matrix(correct).mean(axis=0))


def joint_resample_indices(
    key, n_annotators: int, n_boot: int, seed: int | np.random.Generator | None
) -> tuple[np.ndarray, np.ndarray]:
    """Item and annotator indices of each joint resample, for reference loops.

    ``key`` is the per-item rows the function resampled (``correct`` for
    :func:`mean_annotator_accuracy`; ``correct`` with the models' per-item correct count
    appended as a last column for :func:`human_model_difference`).
    """
    rng = make_rng(seed)
    items = bootstrap_unit_indices(key, n_boot, rng)
    return items, rng.integers(0, n_annotators, size=(n_boot, n_annotators))


def _joint_resample(rows: np.ndarray, n_annotators: int, n_boot: int, seed):
    """Per-resample sums of the drawn items' rows, and how often each annotator was drawn."""
    rng = make_rng(seed)
    item_sums = resampled_row_sums(rows, n_boot, rng)
    annotators = rng.integers(0, n_annotators, size=(n_boot, n_annotators))
    return item_sums, resample_counts(annotators, n_annotators)


def _human_replicates(item_sums: np.ndarray, annotator_counts: np.ndarray, n_items: int):
    n_annotators = annotator_counts.shape[1]
    # Σ over drawn items i and drawn annotators j of C[i, j]
    #   = Σ_j (Σ_i C[i, j]) · (times annotator j was drawn).
    return (item_sums[:, :n_annotators] * annotator_counts).sum(axis=1) / (n_items * n_annotators)


def mean_annotator_accuracy(
    correct,
    *,
    n_boot: int = 0,
    seed: int | np.random.Generator | None = None,
    ci_level: float = 0.95,
) -> BootstrapEstimate:
    """Mean annotator accuracy with a CI from joint item × annotator resampling (App. J)."""
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    matrix = _annotator_matrix(correct)
    replicates = None
    if n_boot:
        item_sums, annotator_counts = _joint_resample(matrix, matrix.shape[1], n_boot, seed)
        replicates = _human_replicates(item_sums, annotator_counts, matrix.shape[0])
    return bootstrap_estimate(matrix.mean(), replicates, ci_level)


def share_correct_by_at_least(correct, min_correct: int) -> float:
    """Share of items that at least ``min_correct`` annotators answered correctly."""
    matrix = _annotator_matrix(correct)
    n_annotators = matrix.shape[1]
    min_correct = check_count(min_correct, "min_correct", minimum=1)
    if min_correct > n_annotators:
        raise AgreementInputError(
            f"min_correct is {min_correct} but there are only {n_annotators} annotators"
        )
    if not np.isin(matrix, (0.0, 1.0)).all():
        raise AgreementInputError("correct must be 0/1 per annotator and item to count votes")
    return float((matrix.sum(axis=1) >= min_correct).mean())


@dataclass(frozen=True, slots=True)
class PluralityVote:
    """Per-item plurality vote against the key (App. J).

    An item counts as correct only when the key gets strictly more votes than every other
    option; ``n_tied`` items where the key shares the top count are incorrect.
    """

    accuracy: float
    n_correct: int
    n_tied: int
    n_outvoted: int
    n_items: int
    item_correct: np.ndarray = field(repr=False)


def plurality_vote_accuracy(answers, key, *, n_options: int) -> PluralityVote:
    """Plurality-vote accuracy; missing answers cast no vote."""
    codes = as_category_matrix(
        answers,
        n_categories=n_options,
        name="answers",
        axes=("item", "annotator"),
        allow_missing=True,
    )
    keys = _keys(key, n_options=n_options, n_items=codes.shape[0])
    n_items = codes.shape[0]
    votes = np.zeros((n_items, n_options), dtype=np.int64)
    rows, cols = np.nonzero(codes != MISSING)
    np.add.at(votes, (rows, codes[rows, cols]), 1)
    key_votes = votes[np.arange(n_items), keys]
    others = votes.copy()
    others[np.arange(n_items), keys] = -1
    best_other = others.max(axis=1)
    correct = key_votes > best_other
    tied = key_votes == best_other
    return PluralityVote(
        accuracy=float(correct.mean()),
        n_correct=int(correct.sum()),
        n_tied=int(tied.sum()),
        n_outvoted=int((key_votes < best_other).sum()),
        n_items=n_items,
        item_correct=correct,
    )


@dataclass(frozen=True, slots=True)
class ReweightedAccuracy:
    """Accuracy with each source's items weighted by that source's share of a target set."""

    estimate: float
    per_source: Mapping[str, float]
    weights: Mapping[str, float]


def _item_accuracy(correct) -> np.ndarray:
    array = as_correctness(correct, name="correct")
    return array if array.ndim == 1 else array.mean(axis=1)


def reweighted_accuracy(
    correct, sources: Sequence, *, target_counts: Mapping[str, int]
) -> ReweightedAccuracy:
    """Σ_s (target_s / Σ target) · accuracy on items from source s.

    App. J reweights the 150-item subset (50 per source) to the full benchmark's 497/126/50
    (``agreement.constants.FULL_BENCHMARK_SOURCE_COUNTS``). ``correct`` is per item or
    ``(n_items, n_annotators)``; ``sources`` labels each item.
    """
    item_accuracy = _item_accuracy(correct)
    labels, codes = group_codes(sources, name="sources", n_items=item_accuracy.size)
    if not target_counts:
        raise AgreementInputError("target_counts is empty")
    unknown = [label for label in labels if label not in target_counts]
    if unknown:
        raise AgreementInputError(
            f"sources {unknown!r} have items but no target count in {dict(target_counts)!r}"
        )
    absent = [label for label in target_counts if label not in labels]
    if absent:
        raise AgreementInputError(
            f"target_counts give weight to {absent!r} but no item comes from them"
        )
    if any(count < 0 for count in target_counts.values()) or sum(target_counts.values()) <= 0:
        raise AgreementInputError("target_counts must be non-negative with a positive total")
    total = float(sum(target_counts.values()))
    per_source = {
        label: float(item_accuracy[codes == index].mean()) for index, label in enumerate(labels)
    }
    weights = {label: target_counts[label] / total for label in target_counts}
    estimate = sum(weights[label] * per_source[label] for label in target_counts)
    return ReweightedAccuracy(float(estimate), per_source, weights)


@dataclass(frozen=True, slots=True)
class SourcePermutationTest:
    """Range of per-source accuracy and its permutation p-value (plus-one Monte Carlo)."""

    per_source: Mapping[str, float]
    observed_range: float
    p_value: float
    n_permutations: int


def source_permutation_test(
    correct,
    sources: Sequence,
    *,
    n_permutations: int,
    seed: int | np.random.Generator | None,
) -> SourcePermutationTest:
    """Is the spread of accuracy across answer-key sources larger than chance? (App. J)

    The statistic is max − min of the per-source accuracy; the null shuffles the source
    labels over items (each item keeps its annotators' answers). The p-value is
    (1 + #{permuted range ≥ observed}) / (1 + n_permutations).
    """
    n_permutations = check_count(n_permutations, "n_permutations", minimum=1)
    rng = make_rng(seed)
    item_accuracy = _item_accuracy(correct)
    labels, codes = group_codes(sources, name="sources", n_items=item_accuracy.size)
    if len(labels) < 2:
        raise AgreementInputError(
            f"a test across sources needs at least two sources; every item is {labels[0]!r}"
        )
    n_items, n_groups = item_accuracy.size, len(labels)
    sizes = np.bincount(codes, minlength=n_groups).astype(np.float64)

    def ranges(group_of_item: np.ndarray) -> np.ndarray:
        rows = group_of_item.shape[0]
        flat = (group_of_item + (np.arange(rows) * n_groups)[:, None]).ravel()
        sums = np.bincount(
            flat,
            weights=np.broadcast_to(item_accuracy, group_of_item.shape).ravel(),
            minlength=rows * n_groups,
        ).reshape(rows, n_groups)
        means = sums / sizes
        return means.max(axis=1) - means.min(axis=1)

    observed = float(ranges(codes[None, :])[0])
    shuffled = rng.permuted(np.broadcast_to(codes, (n_permutations, n_items)), axis=1)
    null = ranges(shuffled)
    # Ranges are differences of means of the same values; allow for rounding in the sums.
    exceed = int((null >= observed - 1e-12).sum())
    per_source = {
        label: float(item_accuracy[codes == index].mean()) for index, label in enumerate(labels)
    }
    return SourcePermutationTest(
        per_source=per_source,
        observed_range=observed,
        p_value=(1 + exceed) / (1 + n_permutations),
        n_permutations=n_permutations,
    )


def human_model_difference(
    human_correct,
    model_correct,
    *,
    n_boot: int,
    seed: int | np.random.Generator | None,
    ci_level: float = 0.95,
) -> BootstrapEstimate:
    """Mean human accuracy minus model accuracy on the same items, with a joint bootstrap CI.

    ``model_correct`` is one model's per-item correctness ``(n_items,)`` or several models'
    ``(n_items, n_models)``, compared through their mean (App. J: "the 16-model mean"). Models
    are fixed; items and annotators are resampled as in :func:`mean_annotator_accuracy`, with
    a model's items following the same item resample.
    """
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    human = _annotator_matrix(human_correct)
    model = as_correctness(model_correct, name="model_correct", n_items=human.shape[0])
    n_items, n_annotators = human.shape
    n_models = 1 if model.ndim == 1 else model.shape[1]
    # The models' per-item correct count (an integer for 0/1 input) rides along with the
    # human row, so one item resample serves both sides of the difference.
    model_count = model if model.ndim == 1 else model.sum(axis=1)
    estimate = human.mean() - model_count.mean() / n_models
    replicates = None
    if n_boot:
        rows = np.column_stack([human, model_count])
        item_sums, annotator_counts = _joint_resample(rows, n_annotators, n_boot, seed)
        human_reps = _human_replicates(item_sums, annotator_counts, n_items)
        replicates = human_reps - item_sums[:, -1] / (n_items * n_models)
    return bootstrap_estimate(estimate, replicates, ci_level)


# --- everything App. J reports, in one call ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class HumanBaselineSummary:
    n_items: int
    n_annotators: int
    mean_accuracy: BootstrapEstimate
    per_annotator: tuple[float, ...]
    min_correct: int
    share_correct_by_min: float
    plurality: PluralityVote
    fleiss_kappa: BootstrapEstimate
    reweighted: ReweightedAccuracy | None
    source_test: SourcePermutationTest | None
    model_differences: Mapping[str, BootstrapEstimate]


def human_baseline_summary(
    answers,
    key,
    *,
    n_options: int,
    seed: int,
    n_boot: int,
    ci_level: float = 0.95,
    min_correct: int = 3,
    sources: Sequence | None = None,
    target_counts: Mapping[str, int] | None = None,
    n_permutations: int = 0,
    model_correct: Mapping[str, np.ndarray] | None = None,
) -> HumanBaselineSummary:
    """The App. J table in one call.

    Each part is the function of the same name called with the same integer ``seed``, so the
    numbers equal separate calls (App. J uses one seed, 20261012, for all of them). Every
    annotator must answer every item. ``model_correct`` maps a name to per-item correctness
    ``(n_items,)`` or to a group's ``(n_items, n_models)`` matrix (compared through the group
    mean).
    """
    if isinstance(seed, np.random.Generator) or isinstance(seed, bool) or seed is None:
        raise AgreementInputError(
            "human_baseline_summary needs an integer seed so that every part reuses the same "
            "resamples (App. J uses 20261012)"
        )
    correct = correctness(answers, key, n_options=n_options, missing="error")
    reweighted = None
    source_test = None
    if sources is not None:
        if target_counts is not None:
            reweighted = reweighted_accuracy(correct, sources, target_counts=target_counts)
        if n_permutations:
            source_test = source_permutation_test(
                correct, sources, n_permutations=n_permutations, seed=seed
            )
    differences = {
        name: human_model_difference(correct, model, n_boot=n_boot, seed=seed, ci_level=ci_level)
        for name, model in (model_correct or {}).items()
    }
    return HumanBaselineSummary(
        n_items=correct.shape[0],
        n_annotators=correct.shape[1],
        mean_accuracy=mean_annotator_accuracy(correct, n_boot=n_boot, seed=seed, ci_level=ci_level),
        per_annotator=per_annotator_accuracy(correct),
        min_correct=min_correct,
        share_correct_by_min=share_correct_by_at_least(correct, min_correct),
        plurality=plurality_vote_accuracy(answers, key, n_options=n_options),
        fleiss_kappa=fleiss_kappa(
            answers, n_categories=n_options, n_boot=n_boot, seed=seed, ci_level=ci_level
        ),
        reweighted=reweighted,
        source_test=source_test,
        model_differences=differences,
    )
