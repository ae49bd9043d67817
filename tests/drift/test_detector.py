import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.utils import get_tags

from skmmd import (
    LearnedFourierSampler,
    NystroemSampler,
    OnlineMMDDetector,
    RandomFourierSampler,
    TabularSampler,
)
from skmmd._utils._compat import InvalidParameterError
from skmmd.datasets import make_hdgm
from skmmd.drift import OnlineDriftResult


def _run_lengths(det, draw, n_streams, horizon, rng):
    """First-alarm times of ``n_streams`` fresh streams (censored at horizon)."""
    out = np.empty(n_streams)
    for s in range(n_streams):
        det.reset()
        flags = det.partial_fit(draw(rng, horizon)).last_result_.drift
        out[s] = flags.argmax() + 1 if flags.any() else horizon
    return out


def _gaussian(rng, n):
    return rng.normal(size=(n, 3))


def _exponential(rng, n):
    return rng.exponential(size=(n, 3))


@pytest.mark.parametrize(
    "draw, window_size",
    [(_gaussian, 10), (_exponential, 10), (_gaussian, [5, 20])],
)
def test_mean_run_length_matches_ert(draw, window_size):
    # Under no drift the run length R is roughly geometric with mean ERT, so
    # sd(R) ~ ERT; over 4 references x 100 streams the mean has sd ~ ERT / 20
    # from the streams, plus the calibration noise of each reference (about
    # 10% of ERT with 500 simulated streams). +-35% is over 4 sd of both.
    ert = 50
    rng = np.random.default_rng(0)
    lengths = []
    for seed in range(4):
        det = OnlineMMDDetector(
            RandomFourierSampler(n_components=64, random_state=seed),
            ert=ert, window_size=window_size, n_resamples=500, random_state=seed,
        ).fit(draw(rng, 600))  # fmt: skip
        assert abs(det.simulated_ert_ - ert) < 0.05 * ert
        lengths.append(_run_lengths(det, draw, 100, 20 * ert, rng))
    mean = np.mean(lengths)
    assert 0.65 * ert < mean < 1.35 * ert, mean


def test_detects_shift_and_records_time():
    rng = np.random.default_rng(1)
    det = OnlineMMDDetector(ert=200, window_size=20, random_state=0)
    det.fit(rng.normal(size=(1000, 3)))
    det.update(rng.normal(size=(100, 3)))
    before = det.detection_time_
    res = det.update(rng.normal(size=(60, 3)) + [1.5, 0.0, 0.0])
    assert isinstance(res, OnlineDriftResult)
    assert res.statistic.shape == (60, 1) and res.drift.shape == (60,)
    assert res.drift[20:].all()
    if before is None:
        assert 100 < det.detection_time_ <= 120
    assert det.t_ == 160
    det.reset()
    assert det.t_ == 0 and det.detection_time_ is None


def test_fast_path_matches_transform_path():
    rng = np.random.default_rng(2)
    for feature, D in [("cos_sin", 65), ("cos_phase", 32)]:
        rff = RandomFourierSampler(n_components=D, feature=feature, random_state=0)
        det = OnlineMMDDetector(rff, ert=100, window_size=[3, 8], random_state=0)
        det.fit(rng.normal(size=(400, 4)))
        X = rng.normal(size=(30, 4)) + 0.5
        batch = pickle.loads(pickle.dumps(det)).update(X)  # transform + loop
        single = [det.update(x) for x in X]  # compiled features of one point
        np.testing.assert_allclose(
            [r.statistic for r in single], batch.statistic, rtol=1e-9, atol=1e-12
        )
        np.testing.assert_array_equal([r.threshold for r in single], batch.threshold)
        assert [r.time for r in single] == list(batch.time)


def test_statistic_is_mmd_of_reference_part_and_window():
    # The statistic equals the V-statistic between the embedded reference and
    # the last w points, computed directly from the features.
    rng = np.random.default_rng(3)
    det = OnlineMMDDetector(ert=50, window_size=[4, 9], random_state=0)
    det.fit(rng.normal(size=(500, 2)))
    X = rng.normal(size=(15, 2))
    res = det.update(X)
    Z = det.transformer_.transform(X)
    for t in (2, 6, 14):
        for k, w in enumerate(det.windows_):
            window_mean = Z[max(0, t + 1 - w) : t + 1].mean(axis=0)
            expected = np.sum((det.reference_mean_ - window_mean) ** 2)
            assert res.statistic[t, k] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("transformer", ["auto", NystroemSampler(n_components=20)])
def test_pickle_resume_gives_same_flags(transformer):
    rng = np.random.default_rng(4)
    det = OnlineMMDDetector(transformer, ert=50, window_size=[5, 20], random_state=0)
    det.fit(rng.normal(size=(600, 3)))
    stream = rng.normal(size=(600, 3))
    stream[400:] += 0.7
    for x in stream[:300]:
        det.update(x)
    restored = pickle.loads(pickle.dumps(det))
    a = [det.update(x) for x in stream[300:]]
    b = [restored.update(x) for x in stream[300:]]
    assert [r.drift for r in a] == [r.drift for r in b]
    assert any(r.drift for r in a)
    np.testing.assert_array_equal([r.statistic for r in a], [r.statistic for r in b])
    assert det.detection_time_ == restored.detection_time_


def test_clone_and_params():
    det = OnlineMMDDetector(
        RandomFourierSampler(n_components=16), ert=300, window_size=[10, 30]
    )
    params = det.get_params()
    assert params["ert"] == 300 and params["window_size"] == [10, 30]
    assert params["transformer__n_components"] == 16
    cloned = clone(det)
    assert cloned.get_params()["ert"] == 300
    det.fit(np.random.default_rng(0).normal(size=(2000, 2)))
    assert not hasattr(clone(det), "thresholds_")
    assert det.thresholds_.shape == (30, 2)
    # the steady thresholds are the last row; the filling ones vary
    assert np.all(np.isfinite(det.thresholds_))


def test_tabular_transformer_with_dataframe():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {"a": rng.normal(size=700), "c": rng.choice(["x", "y"], size=700)}
    )
    det = OnlineMMDDetector(
        TabularSampler(n_components=32, random_state=0), ert=50, window_size=10,
        random_state=0,
    ).fit(frame)  # fmt: skip
    shifted = frame.iloc[:100].assign(c="x")
    res = det.update(shifted)
    assert res.drift.shape == (100,) and res.drift[30:].any()


def test_block_size_raises_thresholds_on_autocorrelated_reference():
    # AR(1) with phi = 0.9: window means vary far more than for i.i.d. points;
    # calibrating on blocks sees that, calibrating on shuffled points does not.
    rng = np.random.default_rng(6)
    n, phi = 3000, 0.9
    X = np.empty((n, 2))
    X[0] = rng.normal(size=2)
    for i in range(1, n):
        X[i] = phi * X[i - 1] + np.sqrt(1 - phi**2) * rng.normal(size=2)
    kw = {"ert": 100, "window_size": 20, "n_resamples": 300, "random_state": 0}
    iid = OnlineMMDDetector(**kw).fit(X)
    blocks = OnlineMMDDetector(block_size=50, **kw).fit(X)
    assert blocks.thresholds_[-1, 0] > 2 * iid.thresholds_[-1, 0]


def test_errors():
    rng = np.random.default_rng(7)
    det = OnlineMMDDetector(ert=50, window_size=10, random_state=0)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        det.update(np.zeros(3))
    with pytest.raises(NotFittedError, match="not fitted yet"):
        det.partial_fit(np.zeros((2, 3)))
    n_min = det.min_reference_size()
    with pytest.raises(ValueError, match=f"needs at least {n_min} samples"):
        det.fit(rng.normal(size=(n_min - 1, 3)))
    big = OnlineMMDDetector(ert=10**5, window_size=10)
    with pytest.raises(ValueError, match=f"at least {big.min_reference_size()} "):
        big.fit(rng.normal(size=(n_min, 3)))
    assert big.min_reference_size() > n_min  # a larger ERT needs more data
    det.fit(rng.normal(size=(n_min, 3)))
    det.update(rng.normal(size=(5, 3)))
    state = pickle.dumps(det)
    with pytest.raises(ValueError, match="x has 2 features.*fitted with 3"):
        det.update(np.zeros(2))
    with pytest.raises(ValueError, match="NaN"):
        det.update(np.array([0.0, np.nan, 0.0]))
    with pytest.raises(
        ValueError, match="2 features, but OnlineMMDDetector is expecting 3"
    ):
        det.partial_fit(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="NaN"):
        det.partial_fit(np.array([[0.0, 1.0, 0.0], [np.nan, 0.0, 0.0]]))
    with pytest.raises(ValueError, match="2-D batch"):
        det.partial_fit(np.zeros(3))
    assert pickle.dumps(det) == state  # bad input left the state untouched
    with pytest.raises(ValueError, match="window_size"):
        OnlineMMDDetector(window_size=[5, 5]).fit(rng.normal(size=(2000, 3)))
    with pytest.raises(ValueError, match="ert"):
        OnlineMMDDetector(ert=0.5).fit(rng.normal(size=(2000, 3)))


def test_sparse_reference_and_batches_match_dense():
    # The default map takes sparse input: fit, update and partial_fit give the
    # same results as on the dense arrays (batches used to fail in np.asarray).
    rng = np.random.default_rng(8)
    X_ref = rng.normal(size=(400, 3)) * (rng.random((400, 3)) < 0.5)
    X = rng.normal(size=(30, 3)) * (rng.random((30, 3)) < 0.5) + 0.5
    kw = {"ert": 50, "window_size": [3, 8], "random_state": 0}
    dense = OnlineMMDDetector(**kw).fit(X_ref)
    sparse = OnlineMMDDetector(**kw).fit(sp.csr_matrix(X_ref))
    # sparse products round differently: equal to a few ulps
    np.testing.assert_allclose(dense.thresholds_, sparse.thresholds_, rtol=1e-12)
    expected = dense.update(X)
    for result in (
        sparse.update(sp.csr_array(X[:10])),
        sparse.partial_fit(sp.csr_matrix(X[10:])).last_result_,
    ):
        rows = slice(result.time[0] - 1, result.time[-1])
        np.testing.assert_allclose(
            result.statistic, expected.statistic[rows], rtol=1e-9, atol=1e-12
        )
        np.testing.assert_array_equal(result.drift, expected.drift[rows])
    assert get_tags(dense).input_tags.sparse
    # the input tags are the transformer's: TabularSampler takes NaN, not sparse
    tabular = OnlineMMDDetector(TabularSampler())
    assert get_tags(tabular).input_tags.allow_nan
    assert not get_tags(tabular).input_tags.sparse


def test_bad_reference_gets_its_own_message_before_the_size():
    # A too-small reference that is also invalid is reported for its content
    # (the row and the fix), not for its size.
    det = OnlineMMDDetector(ert=50, window_size=10)
    X = np.zeros((20, 3))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="Input X_ref contains NaN.*row 3.*drop"):
        det.fit(X)
    with pytest.raises(ValueError, match="0 sample"):
        det.fit(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="Complex data not supported"):
        det.fit(np.zeros((20, 3), dtype=complex))


def test_partial_fit_validates_parameters_before_fit():
    with pytest.raises(InvalidParameterError, match="ert"):
        OnlineMMDDetector(ert=0.5).partial_fit(np.zeros((2, 3)))


def test_default_transformer_is_auto_and_none_is_refused():
    # "auto" (the default) is 256 random Fourier features; the windows are
    # compared through features, so None (elsewhere the exact kernel) is
    # refused, naming the parameter.
    X = np.random.default_rng(3).normal(size=(2000, 3))
    default = OnlineMMDDetector(ert=50, window_size=10, random_state=0).fit(X)
    assert default.transformer == "auto"
    assert isinstance(default.transformer_, RandomFourierSampler)
    assert default.transformer_.n_components == 256
    auto = OnlineMMDDetector("auto", ert=50, window_size=10, random_state=0)
    np.testing.assert_array_equal(auto.fit(X).thresholds_, default.thresholds_)
    with pytest.raises(ValueError, match="transformer=None.*no exact-kernel"):
        OnlineMMDDetector(None, ert=50, window_size=10).fit(X)
    with pytest.raises(InvalidParameterError, match="transformer"):
        OnlineMMDDetector("exact", ert=50, window_size=10).fit(X)


def test_learned_kernel_from_reference_against_an_early_window():
    # A kernel learned on other reference data against an early window of the
    # stream, passed frozen: the detector keeps it as it is, and its
    # statistic is the MMD in the learned features.
    rng = np.random.default_rng(0)
    X_ref = make_hdgm(500, random_state=0)[0]
    learn_ref = make_hdgm(250, random_state=1)[0]
    drifted = rng.permutation(make_hdgm(500, random_state=2)[1])  # modes mixed
    early, stream = drifted[:500], drifted[500:520]
    labels = np.repeat([0, 1], [len(learn_ref), len(early)])
    learned = LearnedFourierSampler(n_components=64, random_state=0).fit(
        np.vstack([learn_ref, early]), labels
    )
    det = OnlineMMDDetector(
        transformer=FrozenEstimator(learned), ert=50, window_size=10, random_state=0
    ).fit(X_ref)
    res = det.update(stream)
    Z = learned.transform(stream)
    np.testing.assert_array_equal(det.transformer_.transform(stream), Z)
    expected = np.sum((det.reference_mean_ - Z[-10:].mean(axis=0)) ** 2)
    assert res.statistic[-1, 0] == pytest.approx(expected, rel=1e-9)
    # Unfitted, it has no labels to learn from: the message says what to do.
    with pytest.raises(ValueError, match="FrozenEstimator"):
        OnlineMMDDetector(transformer=LearnedFourierSampler()).fit(X_ref)
