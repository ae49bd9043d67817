"""The input contract (doc/user_guide/input_contract.rst): each bad input gets
a clear error naming it, or a finite, documented answer; a rejected chunk
leaves a stream exactly as it was."""

import json
import os
import pickle
import warnings

import numpy as np
import pytest

from skmmd import (
    AggregatedMMDTest,
    FastfoodSampler,
    GCWSSampler,
    HSICTest,
    MMDTest,
    NystroemSampler,
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


def test_arrays_of_strings_and_empty_samples_are_named():
    rff = RandomFourierSampler(n_components=8, random_state=0)
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="Y could not be read as an array of numb"):
        MMDTest(rff).fit(X, np.array([["a", "b"]] * 3))
    with pytest.raises(ValueError, match="^Each sample needs at least 2 points; "):
        MMDTest(rff).fit(X, np.zeros((0, 2)))


def test_mixed_value_types_in_a_column_are_named():
    X = pd.DataFrame({"c": ["a", 1, "b", 2] * 10})
    with pytest.raises(TypeError, match="column 'c' mixes value types"):
        TabularSampler().fit(X)


def test_a_1d_sample_is_one_variable_as_in_scipy():
    # scipy.stats.ks_2samp(x, y) takes two 1-D samples: so do mmd_test and
    # hsic_test, each a sample of one variable (a column).
    from skmmd import hsic_test

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=80), rng.normal(size=60) + 1.0
    columns = mmd_test(x[:, None], y[:, None], n_resamples=99, random_state=0)
    for X, Y in [(x, y), (list(x), list(y)), (x, y[:, None]), (pd.Series(x), y)]:
        result = mmd_test(X, Y, n_resamples=99, random_state=0)
        assert (result.statistic, result.pvalue) == tuple(columns)
    exact = mmd_test(x, y, transformer=None, n_resamples=99, random_state=0)
    assert exact.pvalue == 0.01
    test = MMDTest(n_resamples=99, random_state=0).fit(x, y)
    assert test.n_features_in_ == 1 and test.p_value_ == columns.pvalue
    z = x[:60] + 0.1 * rng.normal(size=60)
    paired = hsic_test(x[:60], z, n_resamples=99, random_state=0)
    columns = hsic_test(x[:60, None], z[:, None], n_resamples=99, random_state=0)
    assert tuple(paired) == tuple(columns)
    # A pooled sample with labels keeps a 2-D X; errors never list the values.
    with pytest.raises(ValueError) as error:
        mmd_test(x[:, None], rng.normal(size=80), n_resamples=9)
    assert "1-D y is read as the labels" in str(error.value)
    assert "array=[" not in str(error.value)


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


@pytest.mark.parametrize("frames_first", [True, False])
def test_a_stream_keeps_the_kind_of_its_first_chunk(frames_first):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(50, 2)), rng.normal(size=(50, 2)) + 1
    frames = [pd.DataFrame(V, columns=["a", "b"]) for V in (X, Y)]
    first, later = (frames, (X, Y)) if frames_first else ((X, Y), frames)
    rff = RandomFourierSampler(bandwidth=1.0, n_components=16, random_state=0)
    test = MMDTest(rff, n_resamples=19, random_state=0).partial_fit(*first)
    kind = "DataFrames" if frames_first else "arrays, not DataFrames"
    with pytest.raises(ValueError, match=f"but MMDTest was fitted on {kind}"):
        test.partial_fit(*later)


@pytest.mark.parametrize("fourier", [True, False])
def test_detector_rejects_overflowing_points_and_stays_usable(fourier):
    rng = np.random.default_rng(0)
    transformer = "auto" if fourier else TabularSampler(n_components=32, random_state=0)
    detector = OnlineMMDDetector(transformer, ert=50, window_size=10,
                                 n_resamples=100, random_state=0)  # fmt: skip
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
            with pytest.raises(
                ValueError, match="overflow|NaN|infinity|DataFrame|feature names"
            ):
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
    plain = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert plain["standard_error"] is None
    assert plain["confidence_interval"] == [0.0, None]


# The CLI ---------------------------------------------------------------------


def _cli(capsys, *argv):
    """``(status, out, err)``; a test that ran has status 0, or 1 when it
    rejected H0 (checked here against its JSON), and reports 0 for both."""
    status = main(["test", *map(str, argv), "--n-resamples", "19", "--json"])
    captured = capsys.readouterr()
    if status in (0, 1):
        assert status == int(json.loads(captured.out)["reject"])
        status = 0
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
    assert status == 0 and result["n_train"] == 0
    assert (result["n_samples_x"], result["n_samples_y"]) == (300, 200)
    # Batches asked for: the held-out rows leave none, and the error says why.
    status, _, err = _cli(capsys, a, b, "--chunk-rows", "1000")
    assert status == 2 and "pass --bandwidth" in err


def test_cli_damaged_parquet_is_one_line(tmp_path, capsys):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"v": rng.normal(size=5000), "w": rng.normal(size=5000)})
    a = _write(tmp_path / "a.parquet", frame)
    data = bytearray(a.read_bytes())
    data[4:200] = bytes(196)  # the first page header and values
    b = tmp_path / "b.parquet"
    b.write_bytes(bytes(data))
    for argv in ((a, b), (a, b, "--chunk-rows", "1000")):
        status, out, err = _cli(capsys, *argv)
        assert status == 2 and out == ""
        assert err.count("\n") == 1 and "b.parquet" in err and "Traceback" not in err
    with pytest.raises(ValueError, match="b.parquet"):  # --debug: the traceback
        main(["test", str(a), str(b), "--debug"])


def _ages(rng, n, shift=0.0):
    return pd.DataFrame({"age": (rng.normal(40, 10, n) + shift).round(1),
                         "city": rng.choice(["x", "y"], n)})  # fmt: skip


def test_cli_a_stray_text_value_in_a_numeric_csv_column_is_missing(tmp_path, capsys):
    # One typo in a numeric column of a CSV: the column stays numeric, the
    # value is missing (the table map's median imputation and missingness
    # indicator), and a warning names the file, the column, the count and
    # the first value; in one file or in both.
    rng = np.random.default_rng(4)
    A, B = _ages(rng, 400), _ages(rng, 300, shift=4.0)
    clean = [_write(tmp_path / f"{n}.csv", f) for n, f in (("a", A), ("b", B))]
    typo = []
    for name, frame, at, value in (("a", A, 7, "12,5"), ("b", B, 3, "oops")):
        frame = frame.astype({"age": object})
        frame.loc[at, "age"] = value
        typo.append(_write(tmp_path / f"{name}_typo.csv", frame))
    expected = json.loads(_cli(capsys, *clean)[1])
    for pair in ([typo[0], clean[1]], typo):
        with pytest.warns(UserWarning) as caught:
            status, out, err = _cli(capsys, *pair)
        assert status == 0, err
        messages = [str(w.message) for w in caught]
        assert any(
            "a_typo.csv: column 'age' holds numbers but for 1 of its 400 values" in m
            and "'12,5' in data row 8" in m
            for m in messages
        ), messages
        result = json.loads(out)
        assert result["n_features"] == 2  # not thousands of categories
        assert abs(result["statistic"] - expected["statistic"]) < 0.2 * abs(
            expected["statistic"]
        )
    assert any("b_typo.csv: column 'age'" in m and "'oops'" in m for m in messages)
    # Many of them in one file only: an error naming that file, the column,
    # how many and the first.
    many = B.astype({"age": object})
    many.loc[10:69, "age"] = "?"
    many = _write(tmp_path / "many.csv", many)
    status, _, err = _cli(capsys, clean[0], many)
    assert status == 2
    assert "many.csv: column 'age' holds numbers in" in err
    assert (
        "60 of its 300 values here are not numbers, the first '?' in data row 11" in err
    )
    # A column of text stays categorical, without a warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _cli(capsys, *clean)[0] == 0


def test_cli_files_and_options_do_what_the_contract_page_says(tmp_path, capsys):
    rng = np.random.default_rng(5)
    A, B = _ages(rng, 400), _ages(rng, 300)
    a, b = (_write(tmp_path / f"{n}.csv", f) for n, f in (("a", A), ("b", B)))
    # A header and no rows: an error naming the file.
    empty = _write(tmp_path / "empty.csv", A.iloc[:0])
    status, _, err = _cli(capsys, empty, b)
    assert status == 2 and "empty.csv: the file holds a header but no data" in err
    # --columns reads only those columns, in CSV as in Parquet.
    for suffix in (".csv", ".parquet"):
        pa, pb = (_write(tmp_path / f"{n}{suffix}", f) for n, f in (("p", A), ("q", B)))
        status, out, err = _cli(capsys, pa, pb, "--transformer", "exact",
                                "--columns", "age")  # fmt: skip
        assert status == 0, err
        assert json.loads(out)["n_features"] == 1
    # An error listing a file's columns says how many it left out.
    wide = pd.DataFrame(rng.normal(size=(30, 25)), columns=[f"c{i}" for i in range(25)])
    w1, w2 = _write(tmp_path / "w1.csv", wide), _write(tmp_path / "w2.csv", wide)
    status, _, err = _cli(capsys, w1, w2, "--columns", "nope")
    assert status == 2 and "'c19'] and 5 more (25 in all)" in err
    # --chunk-rows holds out the first 1000 rows of each file at any batch
    # size, and reads every file in batches (text columns are an error).
    X = pd.DataFrame(rng.normal(size=(2500, 2)), columns=["u", "v"])
    x, y = _write(tmp_path / "x.parquet", X), _write(tmp_path / "y.parquet", X + 0.1)
    runs = [json.loads(_cli(capsys, x, y, "--chunk-rows", rows)[1])
            for rows in ("64", "1000", "4096")]  # fmt: skip
    assert {r["n_train"] for r in runs} == {2000}
    assert len({(r["statistic"], r["p_value"]) for r in runs}) == 1
    tables = [_write(tmp_path / f"t{n}.parquet", f) for n, f in (("a", A), ("b", B))]
    status, _, err = _cli(capsys, *tables, "--chunk-rows", "100")
    assert status == 2 and "ta.parquet: column 'city' holds" in err
    status, _, err = _cli(capsys, a, b, "--chunk-rows", "100", "--transformer", "exact")
    assert status == 2 and "--chunk-rows reads the files in chunks" in err


# Fuzzing ----------------------------------------------------------------------
# Random tables, chunk sequences and magnitudes: every outcome is a finite
# result or a ValueError / TypeError raised by the package or by scikit-learn's
# input validation (which names the input), never a NaN, a traceback from
# inside pandas or numpy, or a state changed by a rejected chunk.

hypothesis = pytest.importorskip("hypothesis", reason="fuzzing needs hypothesis")
st = pytest.importorskip("hypothesis.strategies")

# SKMMD_FUZZ_EXAMPLES=2000 for a longer, randomized run.
_EXAMPLES = int(os.environ.get("SKMMD_FUZZ_EXAMPLES", 0))
_FUZZ = hypothesis.settings(
    max_examples=_EXAMPLES or 100,
    deadline=None,
    derandomize=not _EXAMPLES,
    suppress_health_check=list(hypothesis.HealthCheck),
)
_VALIDATORS = ("skmmd", "sklearn/utils/validation.py",
               "sklearn/utils/_param_validation.py")  # fmt: skip


def _clean_error(error):
    """Whether ``error`` is a clear input error: a ValueError or TypeError
    raised in the package or by scikit-learn's input checks."""
    import traceback

    if not isinstance(error, (ValueError, TypeError)):
        return False
    raised = traceback.extract_tb(error.__traceback__)[-1].filename
    return any(part in raised.replace("\\", "/") for part in _VALIDATORS)


def _outcome(kind, call):
    """Run ``call``: its value, or None if it raised a clean error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call()
    except Exception as error:  # noqa: BLE001 -- classified below
        assert _clean_error(error), f"{kind}: {type(error).__name__}: {error}"
        return None


_MAGNITUDES = [0.0, 1e-150, 1e-5, 1.0, 1e5, 1e150, 1e300]


@st.composite
def _column(draw, n, scale):
    kind = draw(st.sampled_from(["float", "float32", "int", "Int64", "Float64",
                                 "bool", "boolean", "object", "string",
                                 "category", "datetime", "mixed"]))  # fmt: skip
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    missing = rng.random(n) < draw(st.sampled_from([0.0, 0.2, 1.0]))
    if kind in ("float", "float32", "Float64"):
        values = rng.normal(size=n) * scale
        values[missing] = np.nan
        if draw(st.booleans()) and n:
            values[rng.integers(n)] = draw(st.sampled_from([np.inf, -np.inf, 1e308]))
        dtype = {"float": "float64", "float32": "float32"}.get(kind, "Float64")
        with np.errstate(over="ignore"):
            return pd.Series(values).astype(dtype)
    if kind in ("int", "Int64"):
        values = pd.Series(rng.integers(-5, 5, n), dtype="Int64")
        if kind == "Int64":
            values[missing] = pd.NA
        return values if kind == "Int64" else values.astype("int64")
    if kind in ("bool", "boolean"):
        values = pd.Series(rng.random(n) < 0.5, dtype="boolean")
        if kind == "boolean":
            values[missing] = pd.NA
        return values if kind == "boolean" else values.astype(bool)
    if kind == "datetime":
        seconds = pd.to_timedelta(rng.integers(0, 10**6, n), "s")
        values = pd.Series(pd.Timestamp("2024-01-01") + seconds)
        values[missing] = pd.NaT
        return values
    if kind == "mixed":
        return pd.Series([["a", 1, None][i % 3] for i in range(n)], dtype=object)
    values = pd.Series(rng.choice(["a", "b", "c"], n), dtype=object)
    values[missing] = None
    return values.astype({"object": object, "string": "string",
                          "category": "category"}[kind])  # fmt: skip


@st.composite
def _tables(draw):
    """Two tables (X, Y) of one schema, or of two slightly different ones."""
    p = draw(st.integers(1, 3))
    labels = draw(st.sampled_from(["names", "ints", "shuffled", "mixed", "dup"]))
    columns = {
        "names": [f"c{i}" for i in range(p)],
        "ints": list(range(p)),
        "shuffled": list(range(p))[::-1],
        "mixed": ["c0", *range(1, p)],
        "dup": ["c"] * p,
    }[labels]
    scale = draw(st.sampled_from(_MAGNITUDES))
    seeds = draw(st.integers(0, 2**16))
    sizes = draw(st.tuples(st.integers(0, 25), st.integers(0, 25)))
    tables = []
    for i, n in enumerate(sizes):
        local = np.random.default_rng(seeds)  # the same column kinds in X and Y
        kinds = [draw(_column(n, scale)) for _ in range(p)] if i == 0 else None
        if kinds is None:
            kinds = [
                draw(_column(n, scale)) if draw(st.booleans()) else
                tables[0].iloc[local.integers(0, max(len(tables[0]), 1), n), j]
                .reset_index(drop=True) if len(tables[0]) else draw(_column(n, scale))
                for j in range(p)
            ]  # fmt: skip
        tables.append(pd.concat(kinds, axis=1, ignore_index=True).set_axis(
            columns, axis=1))  # fmt: skip
    return tables


def _finite_result(result):
    assert np.isfinite(result.statistic) and 0 < result.pvalue <= 1
    assert np.isfinite(result.mmd2) and not np.isnan(result.standard_error)
    low, high = result.confidence_interval()
    assert not (np.isnan(low) or np.isnan(high))


@_FUZZ
@hypothesis.given(_tables())
def test_fuzz_tables_through_the_sampler_and_the_test(tables):
    X, Y = tables
    sampler = TabularSampler(n_components=8, random_state=0)
    Z = _outcome("TabularSampler", lambda: sampler.fit_transform(X))
    if Z is not None:
        assert np.isfinite(Z).all()
    result = _outcome("mmd_test", lambda: mmd_test(X, Y, n_resamples=19,
                                                   random_state=0))  # fmt: skip
    if result is not None:
        _finite_result(result)


@_FUZZ
@hypothesis.given(_tables(), st.lists(st.integers(1, 12), min_size=1, max_size=4))
def test_fuzz_streams_of_chunks(tables, cuts):
    """partial_fit on chunks of two tables, with the ones it rejects: the
    stream ends where a stream of the accepted chunks alone ends."""
    from sklearn.base import clone

    X, Y = tables
    test = MMDTest(TabularSampler(n_components=8, random_state=0), n_resamples=19,
                   random_state=0)  # fmt: skip
    bounds = np.cumsum([0, *cuts])
    chunks = [(X.iloc[a:b], Y.iloc[a:b]) for a, b in zip(bounds, bounds[1:])]
    chunks.insert(1, (X.iloc[:3].to_numpy(), Y.iloc[:3].to_numpy()))  # kind switch
    ours, accepted = clone(test), clone(test)
    for chunk in chunks:
        before = pickle.dumps(ours)
        if _outcome("partial_fit", lambda c=chunk: ours.partial_fit(*c)) is None:
            _same(pickle.loads(before), ours)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                accepted.partial_fit(*chunk)
    if hasattr(ours, "_stream"):
        value = _outcome("partial_fit results", lambda: ours.p_value_)
        if value is not None:
            assert 0 < value <= 1 and np.isfinite(ours.statistic_)
            assert value == _outcome("partial_fit results", lambda: accepted.p_value_)


@_FUZZ
@hypothesis.given(
    st.lists(st.tuples(st.integers(1, 4), st.sampled_from(_MAGNITUDES),
                       st.sampled_from([None, np.nan, np.inf, 1e308])),
             min_size=1, max_size=6),
    st.booleans(),
)  # fmt: skip
def test_fuzz_detector_updates(batches, single):
    """The detector on batches of any magnitude: a rejected one changes
    nothing, an accepted one leaves finite statistics."""
    rng = np.random.default_rng(0)
    detector = _fitted_detector()
    for rows, scale, poison in batches:
        x = rng.normal(size=(rows, 2)) * scale
        if poison is not None:
            x[0, 0] = poison
        if single:
            x = x[0]
        before = pickle.dumps(detector)
        out = _outcome("OnlineMMDDetector", lambda x=x: detector.update(x))
        if out is None:
            _same(pickle.loads(before), detector)
        else:
            assert np.isfinite(out.statistic).all()
            assert np.isfinite(out.threshold).all()


# Every front door on numeric arrays of any scale, dtype and shape, with NaN
# and infinity anywhere, as arrays or DataFrames: a finite result or an error
# that names the input (X, Y, a column, the bandwidth to pass).
_MAPS = {
    "auto": lambda: "auto",
    "exact": lambda: None,
    "rff": lambda: RandomFourierSampler(n_components=16, random_state=0),
    "fastfood": lambda: FastfoodSampler(n_components=16, random_state=0),
    "nystroem": lambda: NystroemSampler(n_components=8, random_state=0),
    "gcws": lambda: GCWSSampler(n_components=8, random_state=0),
    "tabular": lambda: TabularSampler(n_components=8, random_state=0),
}
_NAMED = ("X", "Y", "y", "column", "sample", "bandwidth", "labels")


@st.composite
def _arrays(draw):
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64]))
    scale = draw(st.sampled_from([1e-150, 1e-20, 1.0, 1e20, 1e150, 1e160]))
    p = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    samples = []
    for n in draw(st.tuples(st.integers(0, 20), st.integers(0, 20))):
        with np.errstate(over="ignore", invalid="ignore"):
            values = (rng.normal(size=(n, p)) * scale).astype(dtype)
        if n and dtype is not np.int64 and draw(st.booleans()):
            poison = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
            values[rng.integers(n), rng.integers(p)] = poison
        samples.append(values)
    form = draw(st.sampled_from(["arrays", "frames", "frame+array", "labels"]))
    X, Y = samples
    if form in ("frames", "frame+array"):
        X = pd.DataFrame(X, columns=[f"c{i}" for i in range(p)])
        if form == "frames":
            Y = pd.DataFrame(Y, columns=X.columns)
    elif form == "labels":
        X, Y = np.vstack([X, Y]), np.repeat([0, 1], [len(X), len(Y)])
    return X, Y


@_FUZZ
@hypothesis.given(_arrays(), st.sampled_from(list(_MAPS)))
def test_fuzz_arrays_through_every_front_door(samples, name):
    X, Y = samples

    def named(call):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return call()
        except (ValueError, TypeError) as error:
            assert _clean_error(error), f"{name}: {type(error).__name__}: {error}"
            assert any(word in str(error) for word in _NAMED), f"{name}: {error}"
            return None

    test = MMDTest(_MAPS[name](), n_resamples=19, random_state=0)
    fitted = named(lambda: test.fit(X, Y))
    if fitted is not None:  # the results are computed when first read
        _finite_result(named(lambda: fitted.result_))
    if name == "auto":
        result = named(lambda: mmd_test(X, Y, n_resamples=19, random_state=0))
        assert (result is None) == (fitted is None)
        if result is not None:
            assert result.pvalue == fitted.p_value_
    elif name == "rff" and np.ndim(Y) == 2 and not isinstance(X, pd.DataFrame):
        detector = OnlineMMDDetector(ert=20, window_size=3, n_resamples=50,
                                     random_state=0)  # fmt: skip
        if named(lambda: detector.fit(X)) is not None:
            out = named(lambda: detector.update(np.asarray(Y, dtype=float)[:4]))
            if out is not None:
                assert np.isfinite(out.statistic).all()


_DETECTOR = []


def _fitted_detector():
    if not _DETECTOR:
        _DETECTOR.append(
            OnlineMMDDetector(ert=50, window_size=5, n_resamples=100,
                              random_state=0).fit(
                np.random.default_rng(1).normal(size=(300, 2)))
        )  # fmt: skip
    return pickle.loads(pickle.dumps(_DETECTOR[0]))


def _corpus(tmp_path):
    """Good, damaged and mismatched sample files."""
    pytest.importorskip("pyarrow", reason="Parquet needs pyarrow")
    rng = np.random.default_rng(5)
    good = pd.DataFrame(rng.normal(size=(300, 2)), columns=["x", "y"])
    files = {}

    def put(name, data):
        path = tmp_path / name
        if isinstance(data, bytes):
            path.write_bytes(data)
        elif isinstance(data, str):
            path.write_text(data)
        elif name.endswith(".npy"):
            np.save(path, data)
        else:
            _write(path, data)
        files[name] = path

    put("good.parquet", good)
    put("good.csv", good + 0.2)
    put("good.npy", good.to_numpy())
    raw = files["good.parquet"].read_bytes()
    put("truncated.parquet", raw[: len(raw) // 2])
    for i, at in enumerate(np.random.default_rng(0).integers(4, len(raw) - 8, 4)):
        damaged = bytearray(raw)
        damaged[at : at + 16] = bytes(rng.integers(0, 256, 16).astype(np.uint8))
        put(f"damaged{i}.parquet", bytes(damaged))
    put("empty.parquet", b"")
    put("empty.csv", "")
    put("header.csv", "x,y\n")
    put("ragged.csv", "x,y\n1,2\n3\n")
    put("junk.csv", bytes(rng.integers(0, 256, 500).astype(np.uint8)))
    put("nan.csv", "x,y\n1,nan\n2,3\ninf,4\n5,6\n")
    npy = files["good.npy"].read_bytes()
    put("truncated.npy", npy[: len(npy) // 2])
    put("objects.npy", b"")
    (tmp_path / "objects.npy").unlink()
    np.save(tmp_path / "objects.npy", np.array([["a", 1]], dtype=object),
            allow_pickle=True)  # fmt: skip
    put("renamed.parquet", good.set_axis(["x", "z"], axis=1))
    put("wide.csv", pd.DataFrame(rng.normal(size=(50, 3)), columns=list("xyz")))
    put("strings.csv", pd.DataFrame({"x": ["a", "b"] * 20, "y": range(40)}))
    put("nulls.parquet", pd.DataFrame({"x": [None] * 40, "y": rng.normal(size=40)},
                                      dtype=float))  # fmt: skip
    put("target.csv", good.assign(t=rng.choice(["u", "v"], 300)))
    return files


@pytest.mark.slow
def test_cli_corpus_of_bad_files_gives_one_line_errors(tmp_path, capsys):
    files = _corpus(tmp_path)
    (tmp_path / "folder.csv").mkdir()
    names = [*files, "folder.csv", "missing.csv"]
    options = [[], ["--chunk-rows", "50", "--bandwidth", "1"], ["--explain"],
               ["--transformer", "tabular"]]  # fmt: skip
    runs = 0
    for name in names:
        for first in ("good.parquet", "good.csv"):
            for extra in options:
                argv = ["test", str(tmp_path / first), str(tmp_path / name),
                        "--n-resamples", "9", "--json", *extra]  # fmt: skip
                runs += 1
                with warnings.catch_warnings():  # e.g. tiny samples' intervals
                    warnings.simplefilter("ignore")
                    status = main(argv)
                out, err = capsys.readouterr()
                assert status in (0, 1, 2), (argv, err)
                if status == 2:
                    assert out == "" and err.count("\n") == 1, (argv, err)
                    assert err.startswith("python -m skmmd test: error:"), err
                else:
                    result = json.loads(out)
                    assert 0 < result["p_value"] <= 1, argv
                    assert np.isfinite(result["statistic"]), argv
        argv = ["independence", str(tmp_path / name), "--target", "x",
                "--n-resamples", "9", "--json"]  # fmt: skip
        runs += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            status = main(argv)
        out, err = capsys.readouterr()
        assert status in (0, 1, 2) and (status < 2 or err.count("\n") == 1), err
    print("CLI corpus runs:", runs)
    assert runs == len(names) * (2 * len(options) + 1)


# A newcomer's first hour (issue 28) -------------------------------------------


def test_overflowing_median_distance_is_an_error_not_p_one():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(100, 3)) * 1e160, rng.normal(size=(100, 3)) * 1e160
    for call in (
        lambda: MMDTest(random_state=0).fit(X, Y),
        lambda: mmd_test(X, Y, random_state=0),
        lambda: MMDTest(RandomFourierSampler(random_state=0)).fit(X, Y),
    ):
        with pytest.raises(ValueError, match="median distance between the rows"):
            call()


def test_mmdtest_default_takes_tables_like_mmd_test():
    rng = np.random.default_rng(1)
    A = pd.DataFrame(
        {"city": rng.choice(["Kyiv", "Oslo"], 80), "v": rng.normal(size=80)}
    )
    B = pd.DataFrame(
        {"city": rng.choice(["Kyiv", "Rome"], 90), "v": rng.normal(size=90)}
    )
    test = MMDTest(n_resamples=99, random_state=0).fit(A, B)
    assert isinstance(test.transformer_, TabularSampler)
    result = mmd_test(A, B, n_resamples=99, random_state=0)
    assert (result.statistic, result.pvalue) == (test.statistic_, test.p_value_)


@pytest.mark.parametrize(
    "make, match",
    [
        (
            lambda X, Y: (X, Y.to_numpy()),
            r"^X is a DataFrame and Y a ndarray of shape \(40, 2\): pass both",
        ),
        (
            lambda X, Y: (X, Y.assign(b=np.r_[np.inf, Y.b[1:]])),
            r"^Input Y contains infinity in columns \['b'\]",
        ),
        (lambda X, Y: (X.to_numpy(), Y.to_numpy()[:0]), "got 30 in X and 0 in Y"),
        (lambda X, Y: (X, Y.iloc[:0]), "got 30 in X and 0 in Y"),
        (
            lambda X, Y: (["a", "b", "c"] * 10, ["b", "c"] * 10),
            "X holds strings, not numbers.*pass DataFrames",
        ),
        (
            lambda X, Y: (X.to_numpy()[:, :1], Y.to_numpy()[:30, 0]),
            r"1-D y is read as the labels.*Y.reshape\(-1, 1\)",
        ),
    ],
)
def test_errors_name_the_input(make, match):
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(30, 2)), columns=["a", "b"])
    Y = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    X, Y = make(X, Y)
    with pytest.raises(ValueError, match=match):
        mmd_test(X, Y, n_resamples=9)
    with pytest.raises(ValueError, match=match):
        MMDTest(n_resamples=9).fit(X, Y)


def test_explain_in_the_tests_own_pass_equals_explain_afterwards():
    rng = np.random.default_rng(3)
    A = pd.DataFrame({"a": rng.normal(size=600), "b": rng.normal(size=600),
                      "c": rng.choice(list("xyz"), 600)})  # fmt: skip
    B = A.assign(a=rng.normal(size=600) + 0.5)
    result = mmd_test(A, B, explain_columns=True, n_resamples=99, random_state=0)
    test = MMDTest(n_resamples=99, random_state=0).fit(A, B)
    pd.testing.assert_frame_equal(result.column_report, test.explain(A, B))
    assert result.column_report.column[0] == "a" and result.pvalue == test.p_value_
    # Streamed: the report is gathered chunk by chunk, the first chunk held out.
    streamed = MMDTest(n_resamples=99, random_state=0, explain_columns=True)
    for lo in range(0, 600, 150):
        streamed.partial_fit(A.iloc[lo : lo + 150], B.iloc[lo : lo + 150])
    report = streamed.column_report_
    assert list(report.column)[0] == "a" and report.adjusted_p_value[0] <= 0.05
    assert (report.adjusted_p_value[1:] > 0.05).all()
    assert streamed.result_.column_report is report
    with pytest.raises(TypeError, match="columns"):  # the groups: explain_columns
        mmd_test(A, B, columns=["a"])
