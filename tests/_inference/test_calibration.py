"""The calibration loop every test uses (skmmd/_inference/_calibration.py): the
p-value's definition and ties, and the sequential option
``n_resamples="auto"``: the rule's guarantees (exact, from its tables), the
loop's stopping, and every test family using it."""

import numpy as np
import pytest
from scipy.stats import hypergeom

from skmmd import (
    AggregatedHSICTest,
    AggregatedMMDTest,
    ConditionalHSICTest,
    HSICTest,
    MMDTest,
    RandomFourierSampler,
)
from skmmd._inference._calibration import (
    AUTO_RESAMPLES,
    AggregatedRule,
    SequentialRule,
    _urn_step,
    p_value,
    resample_batches,
    run_batches,
    sequential_rule,
)
from skmmd._inference._explain import second_pass_decision


def test_p_value_definition_and_ties():
    null = np.array([0.1, 0.2, 0.3, 0.3, 0.5])
    assert p_value(0.3, null, 0.0) == pytest.approx(4 / 6)
    assert p_value(0.6, null, 0.0) == pytest.approx(1 / 6)  # never 0
    # A value equal up to the tolerance counts as a tie.
    assert p_value(0.3 + 1e-15, null, 1e-14) == pytest.approx(4 / 6)
    assert p_value(0.3 + 1e-15, null, 0.0) == pytest.approx(2 / 6)


ALPHA = 0.05


def _outcomes(rule):
    """Every outcome of the rule as ``(null probability, reported p-value,
    rejects)``, from the null masses (a Polya urn)."""
    early, futile, full = rule._null_mass()
    out = []
    for j, mass in enumerate(early):
        out += [(w, rule.p_early[j][k], True) for k, w in enumerate(mass)]
    for j, mass in enumerate(futile):
        out += [(w, rule.p_futile[j][i], False) for i, w in enumerate(mass)]
    out += [(w, rule.p_full[k], k <= rule.K) for k, w in enumerate(full)]
    return np.array(out, dtype=np.float64).T


def _walk(rule, exceed):
    """The stopping point and the reported p-value of a 0/1 sequence of
    exceedances, through the rule's public interface."""
    for L in rule.looks:
        p = (exceed[:L].sum() + 1) / (L + 1)
        if rule.settled(L, p):
            return L, rule.p_value(L, p)
    n = rule.n_max
    return n, rule.p_value(n, (exceed.sum() + 1) / (n + 1))


@pytest.mark.parametrize("reject_early", [True, False])
@pytest.mark.parametrize("alpha", [0.01, 0.021, 0.05, 0.1, 0.2])
def test_sequential_p_value_is_valid_and_decides_at_alpha(alpha, reject_early):
    rule = SequentialRule(alpha, reject_early=reject_early)
    # The level is used, not thrown away: within 10 % of alpha.
    _assert_valid_at(alpha, *_outcomes(rule), used=0.9)


def _assert_valid_at(alpha, mass, p, rejects, used):
    """Outcomes ``(null probability, reported p-value, rejects)``: they sum
    to 1, the test rejects exactly when its p-value is at most alpha, ``P(p
    <= u) <= u`` at every value ``u`` reported (finite-sample validity under
    exchangeability, where the counts are a Polya urn), and the rejections
    use at least ``used * alpha`` of the level."""
    assert mass.sum() == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_array_equal(p <= alpha, rejects.astype(bool))
    order = np.argsort(p, kind="stable")
    cdf = np.cumsum(mass[order])
    last = np.r_[p[order][1:] != p[order][:-1], True]
    assert np.all(cdf[last] <= p[order][last] + 1e-9)
    assert mass[rejects.astype(bool)].sum() > used * alpha


def test_aggregated_rule_is_valid_for_one_kernel_exactly():
    """With one kernel the counts are a Polya urn: every outcome of the
    aggregated rule and its reported p-value, enumerated."""
    rule = AggregatedRule(ALPHA)
    accept, L = rule.accept, rule.reject_look
    assert L == 399 and rule.spend == pytest.approx(1 / 400)
    mass, start, out = np.ones(1), 0, []
    for look, c in zip(accept.looks, accept.futile):
        mass = _urn_step(mass, start, look)
        out += [
            (w, rule.p_value(look, (k + 1) / (look + 1)), False)
            for k, w in enumerate(mass)
            if k >= c
        ]
        mass[c:] = 0.0
        start = look
    mass = _urn_step(mass, start, L)
    assert rule.settled(L, 1 / (L + 1)) and not rule.settled(L, 2 / (L + 1))
    out.append((mass[0], rule.p_value(L, 1 / (L + 1)), True))
    mass[0] = 0.0
    mass = _urn_step(mass, L, rule.n_max)
    n = rule.n_max
    out += [
        (w, rule.p_value(n, (k + 1) / (n + 1)), (k + 1) / (n + 1) <= ALPHA - rule.spend)
        for k, w in enumerate(mass)
    ]
    _assert_valid_at(ALPHA, *np.array(out, dtype=np.float64).T, used=0.85)


def test_aggregated_rule_on_min_p_of_three_kernels():
    """The counts of a min-p statistic over correlated kernels, recomputed at
    each look from the resamples drawn so far (not prefixes): the rate of
    rejection under exchangeability stays within alpha, and the test rejects
    exactly when its p-value is at most alpha."""
    rule = AggregatedRule(ALPHA)
    rng = np.random.default_rng(0)
    n, rejected, early = rule.n_max, 0, 0

    def min_p_count(T):
        # Per-kernel p-values of every member among all of them, their min,
        # and the count of resamples (rows 1..) at least as extreme as row 0.
        ranks = (T[None, :, :] >= T[:, None, :]).sum(axis=1)
        m = ranks.min(axis=1)
        return int((m[1:] <= m[0]).sum())

    for _ in range(600):
        z = rng.standard_normal((n + 1, 1))
        T = 0.7 * z + 0.7 * rng.standard_normal((n + 1, 3))
        stopped = None
        for look in rule.looks:
            p = (min_p_count(T[: look + 1]) + 1) / (look + 1)
            if rule.settled(look, p):
                stopped = (look, rule.p_value(look, p))
                break
        if stopped is None:
            stopped = (n, rule.p_value(n, (min_p_count(T) + 1) / (n + 1)))
        rejected += stopped[1] <= ALPHA
        early += stopped[0] == rule.reject_look
    # 600 draws: a valid test's count at 0.05 exceeds 45 with P < 0.002.
    assert rejected <= 45 and early <= 10


def test_urn_marginals_are_uniform():
    # Under the null the rank of T among L + 1 exchangeable values is uniform.
    mass = _urn_step(np.ones(1), 0, 16)
    mass = _urn_step(mass, 16, 40)
    np.testing.assert_allclose(mass, np.full(41, 1 / 41), rtol=1e-12)


def test_futility_risk_given_the_fixed_test_rejects():
    """Given the final count K (the largest that rejects at 999), the draws'
    order is uniform: the chance of stopping to accept is a hypergeometric
    path probability, computed here independently of the rule."""
    rule = sequential_rule(ALPHA)
    n, K = rule.n_max, rule.K
    mass, start, crossed = np.eye(K + 1)[0], 0, 0.0
    for L, c in zip(rule.looks, rule.futile):
        step = np.zeros(K + 1)
        for k in np.flatnonzero(mass):
            s = np.arange(min(L - start, K - k) + 1)
            step[k + s] += mass[k] * hypergeom.pmf(s, n - start, K - k, L - start)
        crossed += step[c:].sum()
        step[c:] = 0.0
        mass, start = step, L
    assert 0 < crossed <= 0.01


def test_decisions_equal_the_fixed_test_on_the_same_draws():
    rule = sequential_rule(ALPHA)
    rng = np.random.default_rng(0)
    # Exceedance rates around alpha, where the two can differ at all.
    rates = rng.uniform(0.02, 0.09, 3000)
    agree, used = 0, []
    for rate in rates:
        exceed = rng.random(AUTO_RESAMPLES) < rate
        L, p = _walk(rule, exceed)
        used.append(L)
        fixed = (exceed.sum() + 1) / (AUTO_RESAMPLES + 1) <= ALPHA
        agree += (p <= ALPHA) == fixed
    assert agree / rates.size >= 0.995
    # Null exceedance rates (uniform): few resamples on average.
    null_used = [_walk(rule, rng.random(999) < u)[0] for u in rng.random(2000)]
    assert np.mean(null_used) < 110  # 87 exactly (the urn); 999 without stopping


def test_level_of_the_rule_on_null_sequences():
    rule = sequential_rule(ALPHA)
    rng = np.random.default_rng(1)
    rejected = [_walk(rule, rng.random(999) < u)[1] <= ALPHA for u in rng.random(4000)]
    # Binomial(4000, <= 0.05): 3 standard deviations above is 0.0603.
    assert np.mean(rejected) <= 0.0603


def test_loop_stops_at_a_look_and_batches_do_not_matter():
    calls = []

    def draw(s):
        calls.append(s)
        return (np.arange(s.start, s.stop),)

    def work(start, idx):
        return idx.astype(float)

    looks = (16, 32, 64)
    stop = (looks, lambda results: sum(map(len, results)) >= 32)
    for batch in (5, 16, 1000):
        calls.clear()
        out = run_batches(
            resample_batches(100, batch, looks), draw, work, 1, 0, None, stop
        )
        np.testing.assert_array_equal(np.concatenate(out), np.arange(32))
        assert max(s.stop for s in calls) == 32
    assert list(resample_batches(40, 12, looks)) == [
        slice(0, 12),
        slice(12, 16),
        slice(16, 28),
        slice(28, 32),
        slice(32, 40),
    ]


def _null_xy(seed, n=200):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 2)), rng.normal(size=(n, 2))


def _families():
    rff = RandomFourierSampler(n_components=32, random_state=0)
    return {
        "mmd": MMDTest(rff, random_state=0),
        "mmd_exact": MMDTest(None, random_state=0),
        "mmd_bootstrap": MMDTest(rff, calibration="bootstrap", random_state=0),
        "aggregated_mmd": AggregatedMMDTest(
            n_bandwidths=3, n_components=16, random_state=0
        ),
        "hsic": HSICTest(random_state=0),
        "aggregated_hsic": AggregatedHSICTest(random_state=0),
        "conditional": ConditionalHSICTest(random_state=0),
    }


@pytest.mark.parametrize("name", list(_families()))
def test_every_family_stops_on_null_data_and_agrees_with_999(name):
    X, Y = _null_xy(3)
    auto = _families()[name].set_params(n_resamples="auto").fit(X, Y)
    fixed = _families()[name].fit(X, Y)
    assert auto.n_resamples_used_ < AUTO_RESAMPLES == fixed.n_resamples_used_
    assert auto.n_resamples_used_ == auto.result_.n_resamples_used
    assert auto.result_.to_dict()["n_resamples_used"] == auto.n_resamples_used_
    assert auto.null_distribution_.shape[0] == auto.n_resamples_used_
    assert auto.reject_ == fixed.reject_ == (auto.p_value_ <= ALPHA)
    # The same draws, in the same order: the first resamples of the fixed test
    # (an aggregated statistic depends on every row: compare each kernel's).
    attr = "null_distributions_" if "aggregated" in name else "null_distribution_"
    used = auto.n_resamples_used_
    np.testing.assert_allclose(
        getattr(auto, attr), getattr(fixed, attr)[:used], rtol=1e-9
    )
    assert auto.p_value_ == pytest.approx(fixed.p_value_, abs=0.15)


def _decided_with_column_report(test, X, Y):
    """``test`` fit and decided with its column report, as ``mmd_test`` and
    ``hsic_test`` decide with ``explain_columns=True``: in MMDTest's own
    fit, else in a second pass (``explain``, then ``second_pass_decision``,
    the functions' path for the aggregated tests and HSICTest)."""
    if "explain_columns" in test.get_params():
        return test.set_params(explain_columns=True).fit(X, Y)
    test.fit(X, Y)
    second_pass_decision(test, test.explain(X, Y))
    return test


# Every family, and every family that has a column report (all but the
# conditional test) decided with it.
REPORTED = [
    "mmd",
    "mmd_exact",
    "mmd_bootstrap",
    "aggregated_mmd",
    "hsic",
    "aggregated_hsic",
]
DECISIONS = [(name, False) for name in _families()] + [
    (name, True) for name in REPORTED
]


@pytest.mark.parametrize("n_resamples", [199, "auto"])
@pytest.mark.parametrize("name, explain", DECISIONS)
def test_every_family_decides_by_its_p_value_and_its_threshold(
    name, explain, n_resamples
):
    # One decision: p_value_ <= alpha iff reject_, and statistic_ above
    # threshold_ iff reject_, on null data and on data it rejects. Decided
    # with the column report, threshold_ is None (no threshold of
    # statistic_ alone makes the verdict) and the table's own p-value and
    # threshold agree with each other.
    rng = np.random.default_rng(5)
    for shift in (0.0, 1.0):
        X = rng.normal(size=(200, 2))
        Y = (X if name in ("hsic", "aggregated_hsic", "conditional") else 0.0) * shift
        Y = Y + rng.normal(size=(200, 2)) + (shift if "mmd" in name else 0.0)
        test = _families()[name].set_params(n_resamples=n_resamples)
        if explain:
            test = _decided_with_column_report(test, X, Y)
        else:
            test.fit(X, Y)
        assert test.reject_ == (test.p_value_ <= test.alpha) == (shift > 0)
        assert test.result_.pvalue == test.p_value_
        assert test.result_.reject == test.reject_
        if not explain:
            assert test.reject_ == (test.statistic_ > test.threshold_)
            continue
        assert test.threshold_ is None
        table_reject = test.table_p_value_ <= test.alpha
        assert table_reject == (test.statistic_ > test.table_threshold_)
        assert test.result_.table_pvalue == test.table_p_value_
        report = test.result_.column_report
        assert report.attrs["decision_p_value"] == test.p_value_
        assert report[report.flag].any() <= test.reject_


@pytest.mark.parametrize("name", ["mmd", "hsic", "aggregated_mmd", "aggregated_hsic"])
def test_clear_dependence_is_rejected_early(name):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 2))
    Y = X + 0.5 * rng.normal(size=(300, 2)) if "hsic" in name else X + 0.8
    test = _families()[name].set_params(n_resamples="auto").fit(X, Y)
    assert test.reject_ and test.p_value_ <= ALPHA
    # Aggregated tests reject early at one look only (AggregatedRule).
    if "aggregated" in name:
        assert test.n_resamples_used_ == 399 and test.p_value_ == 1 / 400
    else:
        assert test.n_resamples_used_ < AUTO_RESAMPLES


@pytest.mark.slow
def test_mean_resamples_on_null_data_is_small():
    used = [
        HSICTest(n_resamples="auto", random_state=s).fit(*_null_xy(s, 100))
        for s in range(30)
    ]
    # 87 expected; 999 without stopping. 30 tests: one running to 999 adds 33.
    assert np.mean([t.n_resamples_used_ for t in used]) < 200
    assert sum(t.reject_ for t in used) <= 5


def test_batch_and_n_jobs_do_not_change_the_result():
    X, Y = _null_xy(5)
    rff = RandomFourierSampler(n_components=32, random_state=0)
    ref = MMDTest(rff, n_resamples="auto", random_state=1).fit(X, Y)
    for params in ({"batch": 7}, {"batch": 40, "n_jobs": 2}):
        test = MMDTest(rff, n_resamples="auto", random_state=1, **params).fit(X, Y)
        assert test.n_resamples_used_ == ref.n_resamples_used_
        assert test.p_value_ == ref.p_value_
        np.testing.assert_array_equal(test.null_distribution_, ref.null_distribution_)


def test_partial_fit_and_dask_equal_memory():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(6)
    X, Y = rng.normal(size=(3000, 2)), rng.normal(size=(2500, 2)) + 0.02

    def make(prefit=False):
        rff = RandomFourierSampler(bandwidth=1.5, n_components=32, random_state=0)
        return MMDTest(
            rff.fit(X[:1]) if prefit else rff, n_resamples="auto", random_state=0
        )

    ref = make().fit(X, Y)
    lazy = make().fit(da.from_array(X, chunks=700), da.from_array(Y, chunks=900))
    stream = make(prefit=True)
    for x, y in zip(np.array_split(X, 4), np.array_split(Y, 4)):
        stream.partial_fit(x, y)
    assert ref.n_resamples_used_ < AUTO_RESAMPLES
    for test in (lazy, stream):
        assert test.n_resamples_used_ == ref.n_resamples_used_
        assert test.p_value_ == ref.p_value_
        assert test.statistic_ == pytest.approx(ref.statistic_, rel=1e-10)
    x, y = _null_xy(7, 600)

    def hsic(prefit=False):
        maps = [
            RandomFourierSampler(bandwidth=1.0, n_components=16, random_state=s)
            for s in (0, 1)
        ]
        if prefit:
            maps = [maps[0].fit(x[:1]), maps[1].fit(y[:1])]
        return HSICTest(*maps, n_resamples="auto", random_state=0)

    ref = hsic().fit(x, y)
    lazy = hsic().fit(da.from_array(x, chunks=250), da.from_array(y, chunks=250))
    stream = hsic(prefit=True)
    for a, b in zip(np.array_split(x, 3), np.array_split(y, 3)):
        stream.partial_fit(a, b)
    assert ref.n_resamples_used_ < AUTO_RESAMPLES
    for test in (lazy, stream):
        assert test.n_resamples_used_ == ref.n_resamples_used_
        assert test.p_value_ == ref.p_value_


@pytest.mark.parametrize(
    "family", ["mmd", pytest.param("hsic", marks=pytest.mark.slow)]
)
def test_explain_stops_only_when_no_column_is_flagged(family):
    rng = np.random.default_rng(8)
    X, Y = rng.normal(size=(300, 3)), rng.normal(size=(300, 3))
    if family == "mmd":
        rff = RandomFourierSampler(n_components=32, random_state=0)
        make = lambda n: MMDTest(rff, n_resamples=n, random_state=0)  # noqa: E731
        moved = Y + [0.0, 0.6, 0.0]
    else:
        make = lambda n: HSICTest(n_resamples=n, random_state=0)  # noqa: E731
        Y = Y[:, :1]
        moved = Y + X[:, 1:2]
    calls = []
    for data, flagged in ((Y, False), (moved, True)):
        auto, fixed = make("auto").fit(X, data), make(999).fit(X, data)
        a, f = auto.explain(X, data), fixed.explain(X, data)
        assert (a.adjusted_p_value <= ALPHA).any() == flagged
        assert ((a.adjusted_p_value <= ALPHA) == (f.adjusted_p_value <= ALPHA)).all()
        # The same report; z up to rounding: the last resamples, drawn alike,
        # come in a batch of another size, whose products BLAS may round
        # differently in the last bit.
        same = a.drop(columns="z").equals(f.drop(columns="z")) and np.allclose(
            a.z, f.z, rtol=1e-12, atol=0
        )
        calls.append((a.attrs["n_resamples_used"] < AUTO_RESAMPLES, same))
    # Nothing moved: stopped early (coarser p-values than the fixed report's);
    # a moved column: all 999 drawn, the fixed report.
    assert calls == [(True, False), (False, True)]


def test_bad_n_resamples():
    X, Y = _null_xy(9, 50)
    for bad in ("fast", 0, 2.5):
        with pytest.raises(ValueError, match="n_resamples"):
            HSICTest(n_resamples=bad).fit(X, Y)
        with pytest.raises(ValueError, match="n_resamples"):
            MMDTest(n_resamples=bad).fit(X, Y)


def test_the_shared_rule_is_read_only():
    # One rule per level is cached and shared by every test: none may change it.
    rule = sequential_rule(ALPHA)
    assert rule is sequential_rule(ALPHA)
    with pytest.raises(TypeError):
        rule.early[0] = 5
    with pytest.raises(ValueError, match="read-only"):
        rule.p_full[0] = 0.0
    with pytest.raises(ValueError, match="read-only"):
        rule.p_early[0][0] = 0.0
