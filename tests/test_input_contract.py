"""The input contract (doc/user_guide/input_contract.rst): each bad input gets
a clear error naming it, or a finite, documented answer; a rejected chunk
leaves a stream exactly as it was."""

import json
import pickle
import warnings

import numpy as np
import pytest

from skmmd import (
    AggregatedMMDTest,
    HSICTest,
    MMDTest,
    OnlineMMDDetector,
    RandomFourierSampler,
    TabularSampler,
    mmd_test,
)
from skmmd.__main__ import main

pd = pytest.importorskip("pandas", reason="the table contract needs pandas")


# Tables --------------------------------------------------------------------


def test_integer_labels_are_labels_not_positions():
    rng = np.random.default_rng(0)
    cities = rng.choice(["Kyiv", "Lviv"], 40)
    amounts = rng.normal(size=40)
    labelled = pd.DataFrame({1: cities, 0: amounts})  # labels [1, 0]
    named = pd.DataFrame({"city": cities, "amount": amounts})
    a = TabularSampler(n_components=16, random_state=0).fit(labelled)
    b = TabularSampler(n_components=16, random_state=0).fit(named)
    assert (a.numeric_columns_, a.categorical_columns_) == ([0], [1])
    np.testing.assert_array_equal(a.transform(labelled), b.transform(named))


@pytest.mark.parametrize(
    "columns, error, match",
    [
        (["a", "a"], ValueError, r"X has duplicate column labels \['a'\]"),
        (
            pd.MultiIndex.from_tuples([("a", "x"), ("a", "y")]),
            ValueError,
            "X has MultiIndex columns",
        ),
        (["a", 1], TypeError, "X mixes string and non-string column labels"),
    ],
)
def test_bad_column_labels_are_named(columns, error, match):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(30, 2)), columns=columns)
    with pytest.raises(error, match=match):
        mmd_test(X, X + 1, random_state=0)
    with pytest.raises(error, match=match):
        TabularSampler().fit(X)


def test_string_and_datetime_columns_are_read_as_documented():
    rng = np.random.default_rng(0)
    values = rng.choice(["a", "b", None], 60)
    strings = pd.DataFrame({"c": pd.array(values, dtype="string")})
    objects = pd.DataFrame({"c": values.astype(object)})
    # pd.NA in a ``string`` column is a missing value, a category of its own.
    Z = TabularSampler(random_state=0).fit_transform(strings)
    np.testing.assert_array_equal(Z, TabularSampler().fit_transform(objects))
    assert Z.shape == (60, 3)
    # Datetimes are numbers (seconds), NaT missing: a numeric column.
    times = pd.Series(pd.date_range("2024-01-01", periods=60, freq="h"))
    times[3] = pd.NaT
    frame = pd.DataFrame({"t": times})
    sampler = TabularSampler(n_components=8, random_state=0).fit(frame)
    assert sampler.numeric_columns_ == ["t"]
    seconds = pd.DataFrame({"t": (times - pd.Timestamp(0)).dt.total_seconds()})
    other = TabularSampler(n_components=8, random_state=0).fit(seconds)
    np.testing.assert_allclose(sampler.transform(frame), other.transform(seconds))


def test_unseen_category_maps_to_zeros_beside_an_infrequent_column():
    df = pd.DataFrame({"c": [f"v{i % 5}" for i in range(100)]})
    sampler = TabularSampler(max_categories=3, random_state=0).fit(df)
    np.testing.assert_array_equal(
        sampler.transform(pd.DataFrame({"c": ["never seen"]})), [[0.0, 0.0, 0.0]]
    )


def test_mixed_value_types_in_a_column_are_named():
    X = pd.DataFrame({"c": ["a", 1, "b", 2] * 10})
    with pytest.raises(TypeError, match="column 'c' mixes value types"):
        TabularSampler().fit(X)


# Streams -------------------------------------------------------------------


# Scratch buffers, overwritten before they are read (the detector's feature
# row of the point being added): not state.
_SCRATCH = {"_z"}


def _same(a, b, path="", depth=0):
    """Recursive equality of two estimators' states (arrays bit for bit)."""
    if depth > 6 or path.rsplit(".", 1)[-1] in _SCRATCH:
        return
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=path)
        assert np.asarray(a).dtype == np.asarray(b).dtype, path
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{i}]", depth + 1)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _same(a[k], b[k], f"{path}.{k}", depth + 1)
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        assert type(a) is type(b), path
        _same(vars(a), vars(b), path, depth + 1)
    elif isinstance(a, np.random.RandomState):
        _same(a.get_state(legacy=False), b.get_state(legacy=False), path, depth + 1)
    elif hasattr(a, "equals"):  # DataFrames kept in a stream's buffers
        assert a.equals(b), path
    else:
        assert a == b or (a != a and b != b), path


def _frames(rng, n, shift=0.0):
    return pd.DataFrame(
        {"x": rng.normal(size=n) + shift, "c": rng.choice(["u", "v"], n)}
    )


def _stream_cases():
    rff = RandomFourierSampler(bandwidth=1.0, n_components=32, random_state=0)
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(60, 2)) + s for s in (0, 0.5, 0, 0.5)]
    frames = [_frames(rng, 60, s) for s in (0, 0.5, 0, 0.5)]
    bad_arrays = [
        np.full((5, 2), np.nan),
        np.full((5, 2), np.inf),
        np.full((5, 2), 1e308),
        np.ones((5, 3)),
        pd.DataFrame(np.ones((5, 2)), columns=["a", "b"]),
        np.array([["a", "b"]] * 5),
    ]
    bad_frames = [
        frames[0].to_numpy(),
        frames[0].rename(columns={"c": "d"}),
        frames[0][["c", "x"]],
        frames[0].assign(x=np.inf),
        frames[0].set_axis(["x", "x"], axis=1),
    ]
    mmd = MMDTest(rff, n_resamples=19, random_state=0)
    tab = MMDTest(TabularSampler(n_components=16, random_state=0), n_resamples=19,
                  random_state=0)  # fmt: skip
    agg = AggregatedMMDTest(n_resamples=19, random_state=0)
    hsic = HSICTest(rff, rff, n_resamples=19, random_state=0)
    return [
        ("MMDTest", mmd, arrays, bad_arrays),
        ("MMDTest-tables", tab, frames, bad_frames),
        ("AggregatedMMDTest", agg, arrays, bad_arrays),
        ("HSICTest", hsic, arrays, bad_arrays),
    ]


@pytest.mark.parametrize("name, test, chunks, bad", _stream_cases(),
                         ids=lambda v: v if isinstance(v, str) else "")  # fmt: skip
def test_rejected_chunk_leaves_the_stream_as_it_was(name, test, chunks, bad):
    """After any rejected partial_fit, every attribute and every later result
    equal those of a stream that never saw the bad chunk."""
    from sklearn.base import clone

    def feed(stream, pairs):
        for X, Y in pairs:
            stream.partial_fit(X, Y)
        return stream

    good = [(chunks[0], chunks[1]), (chunks[2], chunks[3])]
    reference = feed(clone(test), good)
    for chunk in bad:
        stream = feed(clone(test), good[:1])
        before = pickle.dumps(stream)
        with pytest.raises((ValueError, TypeError)):
            stream.partial_fit(chunk, chunks[1][: len(chunk)])
        _same(pickle.loads(before), stream)
        feed(stream, good[1:])
        # Reading a result computes them all (lazily, once): then compare.
        assert np.isfinite(stream.statistic_) and 0 < stream.p_value_ <= 1
        assert stream.p_value_ == reference.p_value_
        _same(reference, stream)


@pytest.mark.parametrize("fourier", [True, False])
def test_detector_rejects_overflowing_points_and_stays_usable(fourier):
    rng = np.random.default_rng(0)
    transformer = None if fourier else TabularSampler(n_components=32, random_state=0)
    detector = OnlineMMDDetector(transformer, ert=50, window_size=10,
                                 n_bootstraps=100, random_state=0)  # fmt: skip
    ref = rng.normal(size=(400, 3))
    if not fourier:
        ref = pd.DataFrame(ref, columns=["a", "b", "c"])
    detector.fit(ref)
    clean = pickle.loads(pickle.dumps(detector))
    stream = rng.normal(size=(60, 3))
    if fourier:
        bad = [np.full((2, 3), 1e308), np.full((2, 3), np.nan), np.full(3, 1e308),
               np.full(3, -np.inf)]  # fmt: skip
    else:  # the table map imputes NaN and scales 1e308 down: those are accepted
        stream = pd.DataFrame(stream, columns=["a", "b", "c"])
        bad = [
            pd.DataFrame(np.full((2, 3), np.inf), columns=["a", "b", "c"]),
            pd.DataFrame(np.zeros((2, 3)), columns=["a", "b", "d"]),
            np.zeros((2, 3)),  # an array after a DataFrame reference
        ]
    for x in bad:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the overflow itself
            with pytest.raises(ValueError, match="overflow|NaN|infinity|DataFrame|feature names"):
                detector.update(x)
        _same(clean, detector)
    ours, theirs = detector.update(stream), clean.update(stream)
    assert np.isfinite(ours.statistic).all()
    np.testing.assert_array_equal(ours.statistic, theirs.statistic)


def test_detector_infinite_ert_is_an_error_not_an_overflow():
    with pytest.raises(ValueError, match="'ert' parameter"):
        OnlineMMDDetector(ert=np.inf).min_reference_size()


# Tiny samples ----------------------------------------------------------------


def test_two_rows_per_sample_give_an_infinite_interval_with_a_warning():
    with pytest.warns(UserWarning, match="standard error of MMD\\^2 is undefined"):
        result = mmd_test([[0.0], [1.0]], [[2.0], [3.0]], random_state=0)
    assert result.standard_error == np.inf and np.isfinite(result.mmd2)
    assert tuple(result.confidence_interval()) == (0.0, np.inf)
    assert 0 < result.pvalue <= 1


# The CLI ---------------------------------------------------------------------


def _cli(capsys, *argv):
    status = main(["test", *map(str, argv), "--n-resamples", "19", "--json"])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _write(path, frame):
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        pytest.importorskip("pyarrow", reason="Parquet needs pyarrow")
        frame.to_parquet(path)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_cli_columns_by_name_or_position_and_every_one_present(
    tmp_path, capsys, suffix
):
    rng = np.random.default_rng(0)
    a = _write(tmp_path / f"a{suffix}", pd.DataFrame(rng.normal(size=(80, 3)),
                                                     columns=list("xyz")))  # fmt: skip
    b = _write(tmp_path / f"b{suffix}", pd.DataFrame(rng.normal(size=(90, 3)) + 1,
                                                     columns=list("xyz")))  # fmt: skip
    by_name = _cli(capsys, a, b, "--columns", "x,z")
    by_position = _cli(capsys, a, b, "--columns", "0,2")
    assert by_name[0] == by_position[0] == 0
    first, second = json.loads(by_name[1]), json.loads(by_position[1])
    assert first["statistic"] == second["statistic"] and first["n_features"] == 2
    status, _, err = _cli(capsys, a, b, "--columns", "x,nope")
    assert status == 2 and "--columns names columns ['nope']" in err
    # Header names are compared: x,y,z against x,y,w is two different tables.
    w = _write(tmp_path / f"w{suffix}", pd.DataFrame(rng.normal(size=(90, 3)),
                                                     columns=list("xyw")))  # fmt: skip
    status, _, err = _cli(capsys, a, w)
    assert status == 2 and "only in the first ['z'], only in the second ['w']" in err


def test_cli_csv_and_parquet_give_the_same_answer(tmp_path, capsys):
    rng = np.random.default_rng(1)
    A = pd.DataFrame(rng.normal(size=(70, 2)), columns=["p", "q"])
    B = pd.DataFrame(rng.normal(size=(60, 2)) + 0.3, columns=["q", "p"])  # reordered
    runs = []
    for suffix in (".csv", ".parquet"):
        a, b = _write(tmp_path / f"a{suffix}", A), _write(tmp_path / f"b{suffix}", B)
        status, out, _ = _cli(capsys, a, b)
        assert status == 0
        runs.append(json.loads(out))
    assert runs[0]["statistic"] == runs[1]["statistic"]
    assert runs[0]["p_value"] == runs[1]["p_value"]


def test_cli_small_parquet_files_hold_nothing_out(tmp_path, capsys):
    rng = np.random.default_rng(2)
    a = _write(tmp_path / "a.parquet", pd.DataFrame({"v": rng.normal(size=300)}))
    b = _write(tmp_path / "b.parquet", pd.DataFrame({"v": rng.normal(size=200)}))
    status, out, _ = _cli(capsys, a, b)
    result = json.loads(out)
    assert status == 0 and result["n_held_out"] == 0
    assert (result["n_samples_x"], result["n_samples_y"]) == (300, 200)
    # Batches asked for: the held-out rows leave none, and the error says why.
    status, _, err = _cli(capsys, a, b, "--batch-rows", "1000")
    assert status == 2 and "pass --bandwidth" in err


def test_cli_damaged_parquet_is_one_line(tmp_path, capsys):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"v": rng.normal(size=5000), "w": rng.normal(size=5000)})
    a = _write(tmp_path / "a.parquet", frame)
    data = bytearray(a.read_bytes())
    data[4:200] = bytes(196)  # the first page header and values
    b = tmp_path / "b.parquet"
    b.write_bytes(bytes(data))
    for argv in ((a, b), (a, b, "--batch-rows", "1000")):
        status, out, err = _cli(capsys, *argv)
        assert status == 2 and out == ""
        assert err.count("\n") == 1 and "b.parquet" in err and "Traceback" not in err
    with pytest.raises(ValueError, match="b.parquet"):  # --debug: the traceback
        main(["test", str(a), str(b), "--debug"])
