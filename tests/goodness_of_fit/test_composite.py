"""Composite nulls (issue 66, item 1): a family is fit to the rows and the
statistic against that fit is calibrated by a parametric bootstrap that
refits the family on every resample."""

import numpy as np
import pytest
from scipy import stats
from sklearn.mixture import GaussianMixture
from sklearn.neighbors import KernelDensity

import skmmd
from skmmd import AggregatedKernelSteinTest, KernelSteinTest
from skmmd.statistics._stein import stein_features


def _p(x, model, **options):
    options = {"n_resamples": 39, "random_state": 0, **options}
    return KernelSteinTest(model, **options).fit(x).p_value_


def _standard_normal_features(z, test):
    """The default kernel's Stein features of standardized rows ``z`` under
    the standard normal, by hand: those of the Gaussian kernel on ``z``
    (score ``-z``), then those of the one on ``u = Phi(z)``, ``-z phi(u) +
    p(z) phi'(u)`` with ``phi = L^{-1/2} [cos(u W), sin(u W)]``."""
    W = test._stream.transformers[0].pit.random_weights_
    u, p, L = stats.norm.cdf(z), stats.norm.pdf(z), W.shape[1]
    cos, sin = np.cos(u @ W) / np.sqrt(L), np.sin(u @ W) / np.sqrt(L)
    pit = np.hstack([-z * cos - p * W * sin, -z * sin + p * W * cos])
    return np.hstack([stein_features(z, -z, test.transformer_.random_weights_), pit])


def test_a_resample_is_a_draw_from_the_fit_refit_and_tested_against_its_refit():
    """The null's first statistic, recomputed by hand from the seed the
    loop draws first: rows from ``model_``, the family's MLE of them, the
    rows standardized by that refit and their Stein features under the
    standard normal (not the fused sums); and the rows' statistic, the same
    function of the rows and their fit."""
    x = np.random.default_rng(0).normal(3.0, 2.0, size=200)
    test = KernelSteinTest(stats.norm, n_resamples=5, random_state=0).fit(x)
    seed = np.random.default_rng(test._seed).integers(np.iinfo(np.int64).max)
    rows = test.model_.rvs(size=(200, 1), random_state=np.random.default_rng(seed))
    loc, scale = stats.norm.fit(rows.ravel())
    xi = _standard_normal_features((rows - loc) / scale, test)
    assert test.null_distribution_[0] == pytest.approx(xi.sum(0) @ xi.sum(0) / 200)
    assert test.model_.args == pytest.approx(stats.norm.fit(x))
    z = (x[:, None] - test.model_.mean()) / test.model_.std()
    xi = _standard_normal_features(z, test)
    assert test.statistic_ == pytest.approx(xi.sum(0) @ xi.sum(0) / 200)
    # the effect size: the unbiased statistic of the same features
    squares = (xi * xi).sum()
    ksd2 = (xi.sum(0) @ xi.sum(0) - squares) / (200 * 199)
    assert test.result_.ksd2 == pytest.approx(ksd2)


def test_the_default_kernel_of_a_location_scale_family_reads_the_pit_too():
    """A location-scale family on the line, one column, the default kernel:
    a kernel on the rows' probability-integral transform is added, the two
    sharing the frequencies; a bandwidth or a transformer given, a fixed
    law, or two columns: the one kernel asked for."""
    x = np.random.default_rng(2).normal(size=(120, 2))

    def stein_map(model, X, **options):
        test = KernelSteinTest(model, n_resamples=5, random_state=0, **options)
        return test.fit(X)._stream.transformers[0]

    default = stein_map(stats.norm, x[:, 0])
    assert default.pit is not None and default._n_features_out == 256
    assert default.pit.bandwidth_ == 0.5
    for model, X, options in (
        (stats.norm, x[:, 0], {"bandwidth": 2.0}),
        (stats.norm(), x[:, 0], {}),
        (stats.expon, np.exp(x[:, 0]), {"known_params": {"loc": 0}}),
        (stats.norm, x, {}),
    ):
        one = stein_map(model, X, **options)
        assert one.pit is None and one._n_features_out == 256 * X.ndim


def test_a_location_scale_family_s_statistic_does_not_see_its_location_and_scale():
    """Standardized by the fit, the rows' statistic and every resample's
    are the same for ``a + b x`` as for ``x``: the null law is free of the
    family's location and scale (the bootstrap is exact)."""
    x = np.random.default_rng(1).logistic(size=150)
    one = KernelSteinTest(stats.logistic, n_resamples=9, random_state=0).fit(x)
    two = KernelSteinTest(stats.logistic, n_resamples=9, random_state=0)
    two.fit(5.0 + 40.0 * x)
    assert two.statistic_ == pytest.approx(one.statistic_, rel=1e-6)
    assert two.bandwidth_ == pytest.approx(one.bandwidth_, rel=1e-6)
    assert two.model_.args[1] == pytest.approx(40.0 * one.model_.args[1])


def test_on_the_line_a_family_s_statistic_keeps_the_cross_terms_only():
    """A half-line law's rows on the log line: the rows' statistic is
    ``(||sum_i xi_i||^2 - sum_i ||xi_i||^2) / n`` of their Stein features
    under the pushforward of the fit (score ``1 - x / scale``)."""
    x = np.random.default_rng(5).exponential(2.0, size=200)
    test = KernelSteinTest(stats.expon, known_params={"loc": 0}, n_resamples=5)
    test.set_params(random_state=0).fit(x)
    y = np.log(x)[:, None]
    score = 1.0 - x[:, None] / test.model_.mean()
    xi = stein_features(y, score, test.transformer_.random_weights_)
    cross = (xi.sum(0) @ xi.sum(0) - np.sum(xi * xi)) / 200
    assert test.statistic_ == pytest.approx(cross)
    assert test.statistic_ < xi.sum(0) @ xi.sum(0) / 200


def test_a_family_s_default_kernel_is_twice_the_median_a_fixed_law_s_the_median():
    """``bandwidth="auto"``: a fit leaves misfits of higher order, which a
    wider kernel weighs more; a fixed law keeps the median."""
    x = np.random.default_rng(4).normal(size=300)
    median = KernelSteinTest(stats.norm, bandwidth="median", n_resamples=5)
    family = KernelSteinTest(stats.norm, n_resamples=5)
    fixed = KernelSteinTest(stats.norm(), n_resamples=5)
    m = median.set_params(random_state=0).fit(x).bandwidth_
    assert family.set_params(random_state=0).fit(x).bandwidth_ == pytest.approx(2 * m)
    # (a location-scale family's rows are standardized by the fit first)
    scale = stats.norm.fit(x)[1]
    assert fixed.set_params(random_state=0).fit(x).bandwidth_ == pytest.approx(
        m * scale
    )


def test_the_null_does_not_depend_on_the_batches():
    x = np.random.default_rng(1).normal(size=150)
    one = KernelSteinTest(stats.norm, n_resamples=20, batch=3, random_state=0).fit(x)
    two = KernelSteinTest(stats.norm, n_resamples=20, random_state=0).fit(x)
    np.testing.assert_array_equal(one.null_distribution_, two.null_distribution_)


def test_refits_make_the_fitted_law_s_test_exact_where_the_fixed_law_s_is_not():
    """Normal rows, a normal fitted to them: the composite null's p-values
    spread over (0, 1) (about 20 % at most 0.2), while the same fitted law
    tested as fixed almost never gets there (its null knows nothing of the
    fit: the test is conservative)."""
    composite, fixed = [], []
    for r in range(60):
        x = np.random.default_rng([2, r]).normal(size=100)
        composite.append(_p(x, stats.norm, random_state=r))
        fixed.append(_p(x, stats.norm(*stats.norm.fit(x)), random_state=r))
    assert 0.08 <= np.mean(np.array(composite) <= 0.2) <= 0.4
    assert np.mean(np.array(fixed) <= 0.2) < 0.05


def test_a_heavy_tail_is_no_member_of_the_normal_family():
    x = np.random.default_rng(3).standard_t(3, size=300)
    assert skmmd.goodness_of_fit_test(x, stats.norm, random_state=0).pvalue <= 0.01


def test_known_params_are_held_fixed_and_the_rest_fit():
    x = np.random.default_rng(4).exponential(2.0, size=200)
    test = KernelSteinTest(stats.expon, known_params={"loc": 0}, n_resamples=19)
    test.set_params(random_state=0).fit(x)
    assert test.model_.args == pytest.approx((0.0, x.mean()))
    gamma = np.random.default_rng(4).gamma(4.0, size=200)
    assert _p(gamma, stats.expon, known_params={"loc": 0}) <= 0.05


def test_a_location_fit_to_the_edge_names_known_params():
    """Rows tied at the smallest value: the rows above it keep one on the
    edge."""
    x = np.random.default_rng(5).exponential(size=100)
    x[:2] = x.min() - 1.0
    with pytest.raises(ValueError, match=r"edge of its support.*known_params"):
        _p(x, stats.expon)


@pytest.mark.parametrize(
    "model, known, match",
    [
        (stats.expon, {"mu": 0}, r"\['mu'\], not parameters of scipy.stats.expon"),
        (stats.norm(), {"loc": 0}, r"known_params names parameters of an unfrozen"),
    ],
)
def test_known_params_must_name_a_family_s_parameters(model, known, match):
    with pytest.raises(ValueError, match=match):
        _p(np.ones(50) + np.arange(50) / 50, model, known_params=known)


def test_fit_params_set_the_law_of_the_draws_and_every_statistic_refits():
    """As scipy's goodness_of_fit takes them: the rows' MLE given as
    fit_params changes nothing; other values change the law the resamples
    are drawn from (the null), not the rows' statistic, which refits."""
    x = np.random.default_rng(6).normal(3.0, 2.0, size=200)
    loc, scale = stats.norm.fit(x)
    options = {"n_resamples": 39, "random_state": 0}
    plain = KernelSteinTest(stats.norm, **options).fit(x)
    same = KernelSteinTest(
        stats.norm, fit_params={"loc": loc, "scale": scale}, **options
    ).fit(x)
    assert same.p_value_ == plain.p_value_ and same.statistic_ == plain.statistic_
    np.testing.assert_array_equal(same.null_distribution_, plain.null_distribution_)
    moved = KernelSteinTest(stats.norm, fit_params={"scale": 3 * scale}, **options)
    moved.fit(x)
    assert moved.statistic_ == plain.statistic_
    assert moved.model_.args == plain.model_.args
    assert not np.array_equal(moved.null_distribution_, plain.null_distribution_)
    assert moved._null_law.args == pytest.approx((loc, 3 * scale))


def test_guessed_params_start_every_fit_and_stay_free():
    """A guess at the rows' own fit leaves the fit where it was; a guess is
    no fixed value; names are checked as known_params' are."""
    x = np.random.default_rng(7).gamma(2.5, 1.5, size=200)
    a, _, scale = stats.gamma.fit(x, floc=0)
    options = {"known_params": {"loc": 0}, "n_resamples": 19, "random_state": 0}
    plain = KernelSteinTest(stats.gamma, **options).fit(x)
    guessed = KernelSteinTest(
        stats.gamma, guessed_params={"a": 1.0, "scale": 5.0}, **options
    ).fit(x)
    assert guessed.model_.args == pytest.approx(plain.model_.args, rel=1e-3)
    assert guessed.model_.args[0] != 1.0
    with pytest.raises(ValueError, match=r"guessed_params has \['b'\]"):
        KernelSteinTest(stats.gamma, guessed_params={"b": 1.0}).fit(x)
    with pytest.raises(ValueError, match=r"\['loc'\] are known_params"):
        KernelSteinTest(stats.gamma, fit_params={"loc": 0.0}, **options).fit(x)
    with pytest.raises(ValueError, match="fit_params names parameters"):
        KernelSteinTest(stats.gamma(2.0), fit_params={"a": 2.0}).fit(x)


def test_a_mixture_is_refit_with_explicitly_seeded_draws():
    """An unfitted GaussianMixture is the family of 2-component mixtures:
    fit to X (``model_``), its draws seeded by the test, not by its own
    ``random_state`` (which would give the same rows at every resample),
    and the same seed gives the same p-value."""
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(-2, 1, (150, 2)), rng.normal(2, 1, (150, 2))])
    gm = GaussianMixture(2, random_state=0)
    test = KernelSteinTest(gm, n_resamples=19, random_state=0).fit(X)
    assert test.model_.converged_ and not hasattr(gm, "means_")
    assert np.unique(test.null_distribution_).size == 19
    assert test.model_.random_state == 0
    again = KernelSteinTest(gm, n_resamples=19, random_state=0).fit(X)
    assert again.p_value_ == test.p_value_


def test_kernel_density_and_multivariate_normal_families():
    X = np.random.default_rng(7).normal(size=(120, 2))
    kde = KernelDensity(bandwidth=0.5)
    assert 0 < _p(X, kde, n_resamples=9) <= 1
    test = KernelSteinTest(stats.multivariate_normal, n_resamples=9, random_state=0)
    np.testing.assert_allclose(test.fit(X).model_.mean, X.mean(axis=0))


@pytest.mark.parametrize(
    "options, match",
    [
        ({"block_size": 10}, r"block_size=10"),
        ({"transformer": None}, r"exact test"),
        ({"support": (0, 1)}, r"support applies to a score function"),
    ],
)
def test_what_a_composite_null_does_not_combine_with(options, match):
    x = np.random.default_rng(8).normal(size=100)
    with pytest.raises((TypeError, ValueError), match=match):
        _p(x, stats.norm, **options)


def test_a_family_needs_every_row_at_once():
    x = np.random.default_rng(9).normal(size=100)
    with pytest.raises(TypeError, match=r"give all the rows to fit"):
        KernelSteinTest(stats.norm).partial_fit(x)


def test_the_aggregated_test_refits_every_kernel_on_the_same_resamples():
    """Each kernel's null statistics are those of KernelSteinTest with that
    kernel's sampler, on the same seeds: one draw and refit per resample
    serves the whole grid."""
    x = np.random.default_rng(11).normal(size=150)
    agg = AggregatedKernelSteinTest(stats.norm, n_bandwidths=3, n_resamples=9)
    agg.set_params(random_state=0).fit(x)
    assert agg.null_distributions_.shape == (9, 3)
    sampler = agg.transformers_[1]
    one = KernelSteinTest(stats.norm, transformer=sampler, n_resamples=9)
    one.set_params(random_state=0).fit(x)
    assert one.bandwidth_ == sampler.bandwidth_
    np.testing.assert_allclose(one.null_distribution_, agg.null_distributions_[:, 1])
    assert (
        0
        < skmmd.goodness_of_fit_test(
            x, stats.norm, aggregate=True, n_resamples=19, random_state=0
        ).pvalue
        <= 1
    )


def test_with_train_size_a_family_is_fit_on_the_training_part_and_held_fixed():
    x = np.random.default_rng(10).normal(size=200)
    test = KernelSteinTest(stats.norm, train_size=0.5, n_resamples=19)
    test.set_params(random_state=0).fit(x)
    assert test.n_train_ == 100 and test.n_samples_ == 100
    assert test.model_.args != pytest.approx(stats.norm.fit(x))


@pytest.mark.parametrize(
    "dist, known, x",
    [
        (stats.norm, {}, np.random.default_rng(12).normal(2, 3, 200)),
        (stats.gamma, {"loc": 0}, np.random.default_rng(12).gamma(2, 3, 200)),
        (stats.genpareto, {"loc": 0}, stats.genpareto(-0.3).rvs(200, random_state=1)),
    ],
)
def test_a_refit_law_is_the_law_scipy_freezes(dist, known, x):
    """Resamples' laws are copies of the first fit with new parameters (no
    new distribution object): the same densities, support (a shape-dependent
    one too) and moments as scipy's own frozen law."""
    from skmmd.goodness_of_fit._composite import ScipyFamily

    family = ScipyFamily(dist, known)
    family.fit(x[:100], 0)
    law = family.fit(x, 0)
    fixed = {f"f{k}": v for k, v in known.items()}
    scipy_law = dist(*dist.fit(x, **fixed))
    grid = np.linspace(0.05, 2.0, 9)
    np.testing.assert_allclose(law.logpdf(grid), scipy_law.logpdf(grid))
    assert law.support() == scipy_law.support()
    np.testing.assert_allclose([law.a, law.b], [scipy_law.a, scipy_law.b])
    assert law.mean() == pytest.approx(scipy_law.mean())


def test_a_fitted_family_test_keeps_no_copy_of_its_rows():
    """The tested rows serve the calibration, then go: no attribute of the
    fitted test holds them."""
    x = np.random.default_rng(6).normal(size=(2000, 1))
    test = KernelSteinTest(stats.norm, n_resamples=19, random_state=0).fit(x)
    held = [
        name
        for name, value in vars(test).items()
        if isinstance(value, np.ndarray) and value.shape == x.shape
    ]
    assert held == []
