"""The table map's numeric blocks give scikit-learn's transformers' exact
outputs: the imputer's medians, the robust scaler's centre and scale, the
missingness indicators and their names."""

import numpy as np
import pytest
from sklearn.impute import MissingIndicator, SimpleImputer
from sklearn.preprocessing import RobustScaler

from skmmd.kernel_approximation._table_blocks import (
    MedianFill,
    MissingFlags,
    Quartiles,
)


def _block(n, rng):
    """Columns with ties (counts), heavy tails, a constant and gaps."""
    X = np.column_stack(
        [
            rng.poisson(3.0, n).astype(float),
            rng.standard_t(3, n),
            np.full(n, 2.5),
            rng.lognormal(size=n),
        ]
    )
    X[rng.random(X.shape) < 0.05] = np.nan
    return X


@pytest.mark.parametrize("n", [7, 120, 601, 5000])
def test_median_fill_and_quartiles_are_sklearn_s_bit_for_bit(n):
    X = _block(n, np.random.default_rng(n))
    imputer = SimpleImputer(strategy="median", keep_empty_features=True).fit(X)
    filled = MedianFill().fit(X).transform(X)
    np.testing.assert_array_equal(filled, imputer.transform(X))
    ours, theirs = Quartiles().fit(filled), RobustScaler().fit(filled)
    np.testing.assert_array_equal(ours.center_, theirs.center_)
    np.testing.assert_array_equal(ours.scale_, theirs.scale_)
    np.testing.assert_array_equal(ours.transform(filled), theirs.transform(filled))
    # With missing values or other options, scikit-learn's own fit.
    gappy = Quartiles().fit(X)
    np.testing.assert_array_equal(gappy.scale_, RobustScaler().fit(X).scale_)
    wide = Quartiles(quantile_range=(10.0, 90.0)).fit(filled)
    np.testing.assert_array_equal(
        wide.scale_, RobustScaler(quantile_range=(10.0, 90.0)).fit(filled).scale_
    )


def test_missing_flags_are_missing_indicator_s_columns_and_names():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = _block(300, rng)
    frame = pd.DataFrame(X, columns=["count", "t3", "flat", "lognormal"])
    frame["lognormal"] = frame["lognormal"].astype("Float64")  # pd.NA missing
    for table in (X, frame):
        ours, theirs = MissingFlags().fit(table), MissingIndicator(features="all")
        theirs.fit(table)
        np.testing.assert_array_equal(ours.transform(table), theirs.transform(table))
        np.testing.assert_array_equal(
            ours.get_feature_names_out(), theirs.get_feature_names_out()
        )
        groups = rng.integers(0, 9, size=300)
        S, q = ours.grouped_sums(table, groups, 9)
        Z = theirs.transform(table).astype(float)
        expected = np.zeros((9, 4))
        np.add.at(expected, groups, Z)
        np.testing.assert_array_equal(S, expected)
        np.testing.assert_array_equal(q, np.bincount(groups, Z.sum(axis=1), 9))
