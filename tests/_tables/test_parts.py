"""The table map's numeric parts (skmmd/_tables/_parts.py) give
scikit-learn's transformers' exact outputs: the imputer's medians, the
robust scaler's centre and scale, the missingness indicators and their
names; the column transformer of the parts fitted without its fit rows'
features is the one ``fit`` makes; a DataFrame's test compiles one small
loop."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.impute import MissingIndicator, SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import RobustScaler

from skmmd import TabularSampler
from skmmd._tables._parts import MedianFill, MedianQuartiles, MissingFlags, fit_parts
from skmmd._utils import _budgets
from skmmd.kernel_approximation._ufunc_fourier import UfuncFourier


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


@pytest.mark.parametrize("n", [2, 3, 7, 120, 601, 4096, 5000])
def test_median_fill_and_quartiles_are_sklearn_s_bit_for_bit(n, monkeypatch):
    """MedianFill is SimpleImputer's medians; MedianQuartiles is SimpleImputer
    then RobustScaler (medians, centre, scale and values), also with the
    columns taken a few at a time and with columns of every value missing."""
    X = _block(n, np.random.default_rng(n))
    imputer = SimpleImputer(strategy="median", keep_empty_features=True).fit(X)
    filled = MedianFill().fit(X).transform(X)
    np.testing.assert_array_equal(filled, imputer.transform(X))
    scaler = RobustScaler().fit(filled)
    wide = np.column_stack([X, np.full(n, np.nan), X[:, ::-1]])
    for entries in (_budgets.SLICE_ENTRIES, 2 * n):
        monkeypatch.setattr(_budgets, "SLICE_ENTRIES", entries)
        ours = MedianQuartiles().fit(X)
        np.testing.assert_array_equal(ours.statistics_, imputer.statistics_)
        np.testing.assert_array_equal(ours.center_, scaler.center_)
        np.testing.assert_array_equal(ours.scale_, scaler.scale_)
        np.testing.assert_array_equal(ours.transform(X), scaler.transform(filled))
        np.testing.assert_array_equal(
            MedianQuartiles().fit_transform(X), scaler.transform(filled)
        )
        theirs = make_pipeline(
            SimpleImputer(strategy="median", keep_empty_features=True),
            RobustScaler(),
        ).fit(wide)
        np.testing.assert_array_equal(
            MedianQuartiles().fit(wide).transform(wide), theirs.transform(wide)
        )


def test_the_table_map_never_changes_its_input(rng):
    """MedianFill gives a new array whether or not a value is missing (the
    scaler after it scales that array in place): a float array given to the
    table map is left as it was, and mapped as before."""
    X = _block(500, rng)
    full = np.nan_to_num(X)
    for values in (X, full):
        kept = values.copy()
        out = MedianFill().fit(values).transform(values)
        assert not np.shares_memory(out, values)
        Z = TabularSampler(random_state=0).fit(values).transform(values)
        np.testing.assert_array_equal(values, kept)
        again = TabularSampler(random_state=0).fit(kept).transform(kept)
        np.testing.assert_array_equal(Z, again)


def test_median_fill_fills_new_arrays_of_every_input_kind(rng):
    """MedianFill reads a DataFrame's values once and fills them in place
    where they are a new array, and a copy where they are the input's own
    memory (an array; a DataFrame of one float64 block, whose values may be
    a view of it): the caller's data never changes, and ``fit_transform``
    is ``fit().transform()``, SimpleImputer's values."""
    pd = pytest.importorskip("pandas")
    X = _block(300, rng)
    frames = [
        pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])]),
        pd.DataFrame({"a": X[:, 0], "b": rng.integers(0, 9, 300), "c": X[:, 2]}),
        pd.DataFrame({"a": pd.array(X[:, 0], dtype="Float64")}),
    ]
    for values in (X, *frames):
        kept = values.copy()
        imputer = SimpleImputer(strategy="median", keep_empty_features=True)
        expected = imputer.fit_transform(values)
        for out in (
            MedianFill().fit_transform(values),
            MedianFill().fit(values).transform(values),
        ):
            np.testing.assert_array_equal(out, expected)
            out[...] = -1.0  # a later step's in-place scaling
            if isinstance(values, np.ndarray):
                np.testing.assert_array_equal(values, kept)
            else:
                pd.testing.assert_frame_equal(values, kept)


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


@pytest.mark.slow
def test_a_dataframe_s_test_compiles_one_small_loop_and_a_small_one_none():
    """No compiler on a table's first screen: explaining a DataFrame's test
    of a few hundred columns imports no numba at all (its cells are counted
    and its permutations drawn by NumPy; skmmd's import does not import
    it), a wide one's reaches the cells' counter only (under a second to
    compile), never the Fourier kernels or parallel loops (tens of seconds
    in a fresh environment). Read from every dispatcher of a fresh
    process."""
    script = textwrap.dedent(
        """
        import gc, sys
        import numpy as np, pandas as pd
        from skmmd import mmd_test
        rng = np.random.default_rng(0)
        def table(n, width):
            frame = pd.DataFrame(rng.normal(size=(n, width)))
            frame.columns = [f"x{j}" for j in range(width)]
            frame["c"] = rng.choice(["x", "y", None], n)
            return frame
        def used():  # skmmd's dispatchers, in a module's names or in a table
            if "numba" not in sys.modules:
                return "no numba"
            from numba.core.registry import CPUDispatcher
            return sorted(
                f"{d.py_func.__module__}.{d.py_func.__qualname__}"
                for d in gc.get_objects()
                if isinstance(d, CPUDispatcher)
                and d.signatures
                and d.py_func.__module__.startswith("skmmd")
            )
        print(used())
        for n, m in [(2000, 3), (9000, 300), (9000, 600)]:
            mmd_test(table(n, m), table(n, m), explain_columns=True, random_state=0)
            print(used())
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=True,
    )
    imported, small, medium, wide = out.stdout.split("\n")[:4]
    assert imported == small == medium == "no numba"
    assert wide == "['skmmd._tables._columnwise_cells._count_cells']"


def test_parts_fitted_without_their_features_are_those_fit_fits(rng):
    """fit_parts fits every part as ColumnTransformer.fit does (the same
    fitted state, the same features and names) and leaves the transformer
    as fit leaves it: its parts themselves, dense output; a second fit of
    it (a clone) works as usual."""
    pd = pytest.importorskip("pandas")
    values = _block(300, rng)
    numbers = [f"v{j}" for j in range(values.shape[1])]
    X = pd.DataFrame(values, columns=numbers)
    X["g"] = rng.choice(["x", "y", None], 300)

    def blocks():
        return ColumnTransformer(
            [
                (
                    "numeric",
                    make_pipeline(MedianFill(), UfuncFourier(random_state=0)),
                    numbers,
                ),
                ("missing", MissingFlags(), numbers),
                ("categorical", clone(_encoder()), ["g"]),
            ],
            transformer_weights={"numeric": 0.5, "missing": 2.0},
        )

    ours, theirs = fit_parts(blocks(), X), blocks().fit(X)
    np.testing.assert_array_equal(ours.transform(X), theirs.transform(X))
    assert ours.sparse_output_ is False
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    assert ours.output_indices_ == theirs.output_indices_
    for (name, a, columns), (_, b, _) in zip(ours.transformers_, theirs.transformers_):
        assert type(a) is type(b), name
    assert [type(t) for _, t, _ in ours.transformers] == [
        type(t) for _, t, _ in theirs.transformers
    ]
    again = clone(ours).fit_transform(X)
    np.testing.assert_array_equal(again, theirs.transform(X))


def _encoder():
    from skmmd._tables._one_hot import OneHotLevels

    return OneHotLevels(max_categories=3)
