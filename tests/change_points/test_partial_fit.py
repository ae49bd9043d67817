"""KernelChangePoints.partial_fit: a series in chunks gives the results of
fit on all its rows, bit for bit; a rejected chunk adds nothing; the stream
keeps the cumulative sums, not the rows."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import signal as scipy_signal
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.validation import check_is_fitted

from skmmd import KernelChangePoints, RandomFourierSampler
from skmmd._utils import _budgets
from skmmd.change_points._cost import CumulativeSums, SegmentCost

# Rows mapped at once by a map of 64 features: with the budget at 64 * 37
# entries, chunks of 37 rows, so that a few hundred rows cross many of them.
_STEP = 37


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(_budgets, "CHUNK_ENTRIES", 64 * _STEP)


def _series(seed=0, n=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[n // 3 :] *= 2.0
    X[2 * n // 3 :] += 1.5
    return X


def _pieces(X, rng, n_cuts):
    """X cut at random rows (chunks of one row, of several chunks' rows)."""
    cuts = np.sort(rng.choice(np.arange(1, X.shape[0]), n_cuts, replace=False))
    return np.split(X, cuts)


def _streamed(estimator, pieces):
    for piece in pieces:
        estimator.partial_fit(piece)
    return estimator


def _assert_same_results(streamed, fitted):
    # Bit for bit: the rows are mapped in the same chunks and summed in the
    # same order (CumulativeSums), so every float is the same.
    assert np.array_equal(streamed.change_points_, fitted.change_points_)
    assert np.array_equal(streamed.p_values_, fitted.p_values_, equal_nan=True)
    assert np.array_equal(streamed.mmd2_, fitted.mmd2_)
    assert streamed.n_changes_ == fitted.n_changes_
    assert streamed.block_size_ == fitted.block_size_
    assert streamed.result_.n_samples == fitted.result_.n_samples


def _rff(n_components=64):
    return RandomFourierSampler(
        n_components=n_components, bandwidth=1.0, random_state=0
    )


def test_cumulative_sums_of_chunks_equal_those_of_all_rows(small_chunks):
    rng = np.random.default_rng(0)
    X = _series()
    rff = _rff().fit(X)
    whole = SegmentCost.of(rff.transform, X, 64)
    for n_cuts in (1, 5, 60, X.shape[0] - 1):  # the last: one row at a time
        sums = CumulativeSums(rff.transform, 64)
        for piece in _pieces(X, rng, n_cuts) + [X[:0]]:
            sums.add(piece)
        assert sums.step == _STEP and sums.n == X.shape[0]
        # The rows of the last, incomplete chunk only.
        assert sums.pending.shape[0] == X.shape[0] % _STEP
        cost = sums.cost()
        assert np.array_equal(cost.C, whole.C) and np.array_equal(cost.Q, whole.Q)


@pytest.mark.parametrize(
    "options",
    [
        {},  # by significance
        {"n_changes": 2},  # exact dynamic programming
        {"penalty": 5.0},  # PELT
        {"n_changes": 2, "search": "binseg"},
        {"block_size": "auto"},
        {"block_size": 20, "min_size": 5},
    ],
)
def test_chunks_give_the_results_of_fit(small_chunks, options):
    rng = np.random.default_rng(1)
    X = _series(1)
    params = {"transformer": _rff(), "n_resamples": 99, "random_state": 0}
    fitted = KernelChangePoints(**params, **options).fit(X)
    assert fitted.n_changes_ >= 1
    for n_cuts in (0, 7, 80):
        streamed = _streamed(
            KernelChangePoints(**params, **options), _pieces(X, rng, n_cuts)
        )
        _assert_same_results(streamed, fitted)


def test_the_default_map_at_a_float_bandwidth_and_default_budgets():
    # 2 500 rows cross a chunk of the default map (1024 features, 4096 rows)
    # only with a wider map: 2048 features map 2048 rows at once.
    rng = np.random.default_rng(2)
    X = _series(2, n=2500)
    params = {"bandwidth": 1.0, "n_resamples": 19, "random_state": 0}
    fitted = KernelChangePoints(**params).fit(X)
    streamed = _streamed(KernelChangePoints(**params), _pieces(X, rng, 6))
    _assert_same_results(streamed, fitted)
    params["transformer"] = _rff(2048)
    fitted = KernelChangePoints(**params).fit(X)
    streamed = _streamed(KernelChangePoints(**params), _pieces(X, rng, 6))
    assert streamed._stream.summed == 2048
    _assert_same_results(streamed, fitted)


def test_results_are_those_of_the_rows_so_far(small_chunks):
    X = _series(3, n=300)
    params = {"transformer": _rff(), "n_resamples": 99, "random_state": 0}
    streamed, start = KernelChangePoints(**params), 0
    for stop in (60, 150, 230, 300):
        streamed.partial_fit(X[start:stop])
        _assert_same_results(streamed, KernelChangePoints(**params).fit(X[:stop]))
        start = stop


def test_float32_chunks(small_chunks):
    X = _series(4).astype(np.float32)
    params = {"transformer": _rff(), "n_resamples": 99, "random_state": 0}
    fitted = KernelChangePoints(**params).fit(X)
    streamed = _streamed(KernelChangePoints(**params), np.array_split(X, 9))
    _assert_same_results(streamed, fitted)


def test_the_stream_keeps_sums_not_rows(small_chunks):
    X = _series(5, n=1000)
    streamed = _streamed(
        KernelChangePoints(transformer=_rff(), random_state=0),
        np.array_split(X, 10),
    )
    stream = streamed._stream
    # The sums of the rows, with room to grow by half, and the rows of one
    # incomplete chunk.
    assert stream.C.shape == stream.Q.shape + (64,)
    assert stream.C.shape[0] <= 1.5 * (X.shape[0] + 1) + _STEP
    assert stream.pending.shape[0] == X.shape[0] % _STEP < _STEP
    rows = [
        value
        for value in vars(streamed).values()
        if isinstance(value, np.ndarray) and value.shape[0] >= _STEP
    ]
    assert rows == []


class _Clipped(FunctionTransformer):
    """Features that are infinite for rows above 100."""

    def __init__(self):
        super().__init__(func=lambda X: np.where(X > 100, np.inf, X))


@pytest.mark.parametrize("size", [5, 80])  # left pending, or mapped at once
def test_a_rejected_chunk_adds_nothing(small_chunks, size):
    X = _series(6, n=300)
    params = {"transformer": _rff(), "n_resamples": 99, "random_state": 0}
    streamed = _streamed(KernelChangePoints(**params), [X[:100], X[100:150]])
    good = X[150:].copy()
    bad = good[:size].copy()
    after = "partial_fit chunk after 150 rows \\(nothing was added\\)"
    nan, inf = bad.copy(), bad.copy()
    nan[-1, 0], inf[0, 1] = np.nan, np.inf
    rejected = [
        (ValueError, "X has 3 features, but KernelChangePoints is expecting 2", None),
        (ValueError, "Input X contains NaN", nan),
        (ValueError, "Input X contains infinity", inf),
        (ValueError, "Expected 2D array", bad[:, 0]),
        (ValueError, "Found array with 0 sample", bad[:0]),
        (TypeError, "dense data is required", sp.csr_matrix(bad)),
    ]
    for error, match, chunk in rejected:
        if chunk is None:
            chunk = np.c_[bad, bad[:, :1]]
        before = pickle.dumps(streamed)
        with pytest.raises(error, match=f"{after}: .*({match})"):
            streamed.partial_fit(chunk)
        assert pickle.dumps(streamed) == before  # every attribute as it was
    strings = bad.astype(str).astype(object)
    strings[0, 0] = "a"
    with pytest.raises(ValueError, match=after):
        streamed.partial_fit(strings)
    streamed.partial_fit(good[:size]).partial_fit(good[size:])
    _assert_same_results(streamed, KernelChangePoints(**params).fit(X))


@pytest.mark.parametrize("size", [5, 80])
def test_a_chunk_the_map_rejects_adds_nothing(small_chunks, size):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 2))
    X[150:] += 2.0
    params = {"transformer": _Clipped(), "n_changes": 1, "n_resamples": 19}
    streamed = _streamed(KernelChangePoints(**params, random_state=0), [X[:150]])
    bad = X[150 : 150 + size].copy()
    bad[-1, 1] = 1000.0
    with pytest.raises(
        ValueError, match=f"non-finite features of rows .* {149 + size}"
    ):
        streamed.partial_fit(bad)
    streamed.partial_fit(X[150:])
    fitted = KernelChangePoints(**params, random_state=0).fit(X)
    _assert_same_results(streamed, fitted)
    assert streamed.change_points_.tolist() == [150]


def test_a_rejected_first_chunk_leaves_the_estimator_unfitted():
    X = _series(8, n=200)
    params = {"bandwidth": 1.0, "n_resamples": 19, "random_state": 0}
    streamed = KernelChangePoints(**params)
    bad = X[:50].copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        streamed.partial_fit(bad)
    with pytest.raises(NotFittedError):
        check_is_fitted(streamed)
    with pytest.raises(ValueError, match="n_changes=1 and penalty=1.0"):
        KernelChangePoints(n_changes=1, penalty=1.0).partial_fit(X)
    _streamed(streamed, [X[:50], X[50:]])
    _assert_same_results(streamed, KernelChangePoints(**params).fit(X))


def test_too_few_rows_so_far_for_n_changes():
    X = _series(9, n=200)
    streamed = KernelChangePoints(bandwidth=1.0, n_changes=3, random_state=0)
    streamed.partial_fit(X[:5])
    with pytest.raises(ValueError, match="n_changes=3 with min_size=2 needs"):
        streamed.change_points_
    streamed.partial_fit(X[5:])
    assert streamed.n_changes_ == 3


def test_dataframe_chunks():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(10)
    frame = pd.DataFrame(_series(10, n=300), columns=["a", "b"])
    params = {"bandwidth": 1.0, "n_resamples": 99, "random_state": 0}
    fitted = KernelChangePoints(**params).fit(frame)
    streamed = KernelChangePoints(**params)
    for piece in _pieces(np.arange(300), rng, 4):
        streamed.partial_fit(frame.iloc[piece])
    assert streamed.feature_names_in_.tolist() == ["a", "b"]
    _assert_same_results(streamed, fitted)
    with pytest.raises(ValueError, match="after 300 rows .* feature names"):
        streamed.partial_fit(frame.rename(columns={"b": "c"}))
    # Numeric columns of a frame with others: select them.
    mixed = frame.assign(label=["x"] * 300)
    with pytest.raises(ValueError, match="could not convert"):
        KernelChangePoints(**params).fit(mixed)
    numeric = mixed.select_dtypes("number")
    _assert_same_results(KernelChangePoints(**params).fit(numeric), fitted)


def test_fit_and_partial_fit_each_start_a_series():
    X = _series(11, n=300)
    params = {"bandwidth": 1.0, "n_resamples": 19, "random_state": 0}
    estimator = KernelChangePoints(**params).fit(X[:100])
    estimator.partial_fit(X[100:200]).partial_fit(X[200:])
    assert estimator.result_.n_samples == 200  # a new series, from row 100
    _assert_same_results(estimator, KernelChangePoints(**params).fit(X[100:]))
    estimator.fit(X)
    assert estimator._stream is None
    _assert_same_results(estimator, KernelChangePoints(**params).fit(X))


def test_the_first_chunk_is_checked_for_order():
    from skmmd import SerialDependenceWarning

    rng = np.random.default_rng(12)
    X = scipy_signal.lfilter([1.0], [1.0, -0.9], rng.normal(size=(600, 1)), axis=0)
    with pytest.warns(SerialDependenceWarning):
        KernelChangePoints(n_changes=0, random_state=0).partial_fit(X)
    # With blocks, no check.
    estimator = KernelChangePoints(n_changes=0, block_size="auto", random_state=0)
    estimator.partial_fit(X)
    assert estimator.n_changes_ == 0


def test_command_line_in_chunks(tmp_path, capsys):
    from skmmd.cli import main

    path = tmp_path / "series.csv"
    np.savetxt(path, _series(13, n=300), delimiter=",", header="a,b", comments="")
    args = ["change-points", str(path), "--bandwidth", "1.0", "--json"]
    assert main(args) == 1
    whole = capsys.readouterr().out
    assert main(args + ["--chunk-rows", "70"]) == 1
    assert capsys.readouterr().out == whole
    empty = tmp_path / "empty.csv"
    empty.write_text("a,b\n")
    assert main(["change-points", str(empty), "--chunk-rows", "70"]) == 2
    assert "holds no rows" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse's usage error
        main(["change-points", str(path), "--bandwidth", "-1"])
    assert "expected 'median' or a positive number" in capsys.readouterr().err
