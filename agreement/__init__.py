"""The statistics of the HEART-Bench papers: agreement, accuracy and their uncertainty.

Pure numpy/scipy/statsmodels; no Django. Selectors turn rows into arrays, these functions
compute, services persist. Every random procedure takes an explicit ``seed`` (an int or a
``numpy.random.Generator``) and returns the same numbers for the same seed.
"""

from . import constants
from ._core import (
    MISSING,
    AgreementInputError,
    BootstrapEstimate,
    UndefinedStatisticError,
    encode_categories,
)
from .edits import WordEdits, mean_word_edit_rate, word_edit_rate, words
from .human_baseline import (
    HumanBaselineSummary,
    PluralityVote,
    ReweightedAccuracy,
    SourcePermutationTest,
    correctness,
    human_baseline_summary,
    human_model_difference,
    joint_resample_indices,
    mean_annotator_accuracy,
    per_annotator_accuracy,
    plurality_vote_accuracy,
    reweighted_accuracy,
    share_correct_by_at_least,
    source_permutation_test,
)
from .icc import IntraclassCorrelation, intraclass_correlation
from .judge import JudgeHumanAgreement, judge_human_agreement
from .krippendorff import coincidence_matrix, krippendorff_alpha
from .model_accuracy import (
    HolmCorrection,
    PairedPermutationTest,
    SharedClusterBootstrap,
    cluster_bootstrap_accuracy,
    cluster_resample_labels,
    holm_correction,
    paired_cluster_permutation_test,
    shared_cluster_bootstrap,
    top_k_membership,
)
from .nominal import (
    PairwiseAgreement,
    cohen_kappa,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    fleiss_kappa_replicates,
    pairwise_agreement,
    rating_counts,
)
from .provenance import (
    FamilyInteraction,
    RankCorrelation,
    SignFlipTest,
    StratifiedClusterBootstrap,
    difference_in_differences,
    family_interactions,
    spearman_between_strata,
    stratified_cluster_bootstrap,
    wild_sign_flip_test,
)
from .resampling import bootstrap_unit_indices, resample_counts, resampled_row_sums

__all__ = [
    "FamilyInteraction",
    "RankCorrelation",
    "SignFlipTest",
    "StratifiedClusterBootstrap",
    "difference_in_differences",
    "family_interactions",
    "spearman_between_strata",
    "stratified_cluster_bootstrap",
    "wild_sign_flip_test",
    "MISSING",
    "AgreementInputError",
    "BootstrapEstimate",
    "HolmCorrection",
    "HumanBaselineSummary",
    "IntraclassCorrelation",
    "JudgeHumanAgreement",
    "PairedPermutationTest",
    "PairwiseAgreement",
    "PluralityVote",
    "ReweightedAccuracy",
    "SharedClusterBootstrap",
    "SourcePermutationTest",
    "UndefinedStatisticError",
    "WordEdits",
    "bootstrap_unit_indices",
    "cluster_bootstrap_accuracy",
    "cluster_resample_labels",
    "constants",
    "coincidence_matrix",
    "cohen_kappa",
    "correctness",
    "encode_categories",
    "fleiss_kappa",
    "fleiss_kappa_from_counts",
    "fleiss_kappa_replicates",
    "holm_correction",
    "human_baseline_summary",
    "human_model_difference",
    "intraclass_correlation",
    "joint_resample_indices",
    "judge_human_agreement",
    "krippendorff_alpha",
    "mean_annotator_accuracy",
    "mean_word_edit_rate",
    "paired_cluster_permutation_test",
    "pairwise_agreement",
    "per_annotator_accuracy",
    "plurality_vote_accuracy",
    "rating_counts",
    "resample_counts",
    "resampled_row_sums",
    "reweighted_accuracy",
    "share_correct_by_at_least",
    "shared_cluster_bootstrap",
    "source_permutation_test",
    "top_k_membership",
    "word_edit_rate",
    "words",
]
