"""Published worked examples and the values their authors (or standard software) report.

Each dataset is typed in from its source; the expected values are the published ones, not
outputs of agreement/.
"""

import numpy as np

nan = np.nan

# Fleiss (1971), "Measuring nominal scale agreement among many raters": 30 patients, 6
# psychiatrists each, 5 diagnoses (1 depression, 2 personality disorder, 3 schizophrenia,
# 4 neurosis, 5 other). As distributed in R's irr package (`diagnoses`), whose kappam.fleiss
# gives κ = 0.4302445; Fleiss reports κ = 0.430.
FLEISS_1971_DIAGNOSES = np.array(
    [
        [4, 4, 4, 4, 4, 4],
        [2, 2, 2, 5, 5, 5],
        [2, 3, 3, 3, 3, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4],
        [1, 1, 3, 3, 3, 3],
        [3, 3, 3, 3, 5, 5],
        [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4],
        [5, 5, 5, 5, 5, 5],
        [1, 4, 4, 4, 4, 4],
        [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3],
        [1, 4, 4, 4, 4, 4],
        [2, 2, 4, 4, 4, 5],
        [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5],
        [1, 1, 1, 1, 1, 2],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 4, 4, 4, 4, 4],
        [2, 2, 4, 5, 5, 5],
        [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5],
        [2, 2, 2, 2, 2, 4],
        [1, 1, 1, 1, 5, 5],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3],
        [5, 5, 5, 5, 5, 5],
    ]
)
FLEISS_1971_KAPPA = 0.4302445

# The 10 subjects × 14 raters × 5 categories count table of the Fleiss' kappa article on
# Wikipedia (and statsmodels' test suite): P̄ = 0.378, P̄e = 0.213, κ = 0.210. The last
# column of the source table lists each subject's P_i.
WIKIPEDIA_14_RATERS = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)
WIKIPEDIA_14_RATERS_P_I = [1.000, 0.253, 0.308, 0.440, 0.330, 0.462, 0.242, 0.176, 0.286, 0.286]
WIKIPEDIA_14_RATERS_KAPPA = 0.210

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers
# (rows A-D) × 12 units with missing values. Published: α_nominal = 0.743,
# α_ordinal = 0.815, α_interval = 0.849, α_ratio = 0.797.
KRIPPENDORFF_2011_C = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
)
KRIPPENDORFF_2011_C_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}

# Krippendorff (2011), section A: two observers, ten units, binary data: α = 0.095.
KRIPPENDORFF_2011_A = np.array(
    [
        [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
        [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
    ]
)
KRIPPENDORFF_2011_A_ALPHA = 0.095

# The computational example of the Krippendorff's alpha article on Wikipedia: 3 coders ×
# 15 units, values 1-4, missing data. α_nominal = 0.691, α_interval = 0.811.
WIKIPEDIA_ALPHA_EXAMPLE = np.array(
    [
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]
)
WIKIPEDIA_ALPHA_NOMINAL = 0.691
WIKIPEDIA_ALPHA_INTERVAL = 0.811

# Shrout & Fleiss (1979), "Intraclass correlations: uses in assessing rater reliability",
# Table 2: 6 targets × 4 judges. Their Table 4 gives ICC(1,1) = .17, ICC(2,1) = .29,
# ICC(3,1) = .71, ICC(1,4) = .44, ICC(2,4) = .62, ICC(3,4) = .91. The F statistics, p-values
# and 95% bounds are as printed by R's psych::ICC for the same data.
SHROUT_FLEISS_1979 = np.array(
    [
        [9, 2, 5, 8],
        [6, 1, 3, 2],
        [8, 4, 6, 8],
        [7, 1, 2, 6],
        [10, 5, 6, 9],
        [6, 2, 4, 7],
    ],
    dtype=float,
)
SHROUT_FLEISS_1979_ICC = {
    # form: (ICC, F, df1, df2, p, lower, upper), psych::ICC's rounding
    "ICC1": (0.17, 1.8, 5, 18, 0.16477, -0.133, 0.72),
    "ICC2": (0.29, 11.0, 5, 15, 0.00013, 0.019, 0.76),
    "ICC3": (0.71, 11.0, 5, 15, 0.00013, 0.342, 0.95),
    "ICC1k": (0.44, 1.8, 5, 18, 0.16477, -0.884, 0.91),
    "ICC2k": (0.62, 11.0, 5, 15, 0.00013, 0.071, 0.93),
    "ICC3k": (0.91, 11.0, 5, 15, 0.00013, 0.676, 0.99),
}
