"""The goodness-of-fit test in one call."""

import numpy as np

from ._aggregated import AggregatedKernelSteinTest
from ._stein import KernelSteinTest

# The parameters of KernelSteinTest's one kernel: given, they ask for it.
_ONE_KERNEL = ("bandwidth", "transformer")


def _aggregates(aggregate, model, options):
    """Whether ``aggregate`` (True, False or "auto") runs the aggregated
    test: "auto" for a Gaussian mixture, fitted or a family, unless the
    options set one kernel."""
    from sklearn.mixture import BayesianGaussianMixture, GaussianMixture

    if aggregate == "auto" and not isinstance(aggregate, bool):
        mixture = isinstance(model, (GaussianMixture, BayesianGaussianMixture))
        return mixture and not any(name in options for name in _ONE_KERNEL)
    if not isinstance(aggregate, (bool, np.bool_)):
        raise ValueError(f'aggregate must be True, False or "auto"; got {aggregate!r}.')
    return bool(aggregate)


def goodness_of_fit_test(X, model, *, aggregate="auto", **options):
    """Kernel Stein test of ``H0: the rows of X are drawn from model``.

    Fits :class:`KernelSteinTest` and returns its ``result_``:
    ``statistic, pvalue = goodness_of_fit_test(X, model)``, linear in the
    number of rows, from the model's score alone (no normalizing constant,
    no sample from the model).

    Parameters
    ----------
    X : DataFrame, array-like of shape (n,) or (n, d), or MCMC chains
        The rows tested (a 1-D array: a sample of one variable, as in
        :func:`scipy.stats.goodness_of_fit`), or unthinned chains: a 3-D
        array ``(chains, draws, d)`` or ``(draws, chains, d)`` (the option
        ``chain_axis`` says which) or ArviZ ``InferenceData``
        (:meth:`KernelSteinTest.fit`).
    model : object
        The model: a score function ``score(X) -> (n, d)``, a frozen
        continuous ``scipy.stats`` distribution, or a fitted
        ``GaussianMixture``, ``BayesianGaussianMixture`` or Gaussian
        ``KernelDensity`` (see :class:`KernelSteinTest`). A model fitted on
        DataFrame columns takes a DataFrame ``X`` of the same columns in the
        same order (else a ValueError names both; arrays are read by
        position). An unfitted estimator is fit on a held-out part of the
        rows with ``train_size``.
    aggregate : bool or "auto", default="auto"
        True: fit :class:`AggregatedKernelSteinTest` instead, a grid of
        kernels on the same multipliers, one valid p-value (as
        ``hsic_test``'s ``aggregate``). ``"auto"``: aggregated where the
        model is a Gaussian mixture (``GaussianMixture`` or
        ``BayesianGaussianMixture``, fitted or a family) and the options do
        not set one kernel (``bandwidth``, ``transformer``), one kernel
        otherwise. The median distance of rows from separated components is
        a distance between components, a scale at which one kernel does not
        see a component's shape or a missing component; the grid spans the
        components' own scale too, and is also applied on the mixture's
        leading principal subspaces (``views``), where a misfit in a few of
        many coordinates is seen without the others' noise.
    **options : dict
        Parameters of :class:`KernelSteinTest` (or of
        :class:`AggregatedKernelSteinTest`), e.g. ``n_resamples``,
        ``random_state``, ``block_size`` (rows in time order, MCMC chains:
        :ref:`time_ordered`), ``chain_axis`` (the axis of a 3-D array of
        chains that indexes them).

    Returns
    -------
    result : KernelSteinTestResult
        ``statistic``, ``pvalue``, ``null_distribution``, and the effect size
        ``ksd2`` (the squared kernel Stein discrepancy) with its jackknife
        ``standard_error`` and
        :meth:`~KernelSteinTestResult.confidence_interval`.

    See Also
    --------
    KernelSteinTest : The estimator behind it.
    scipy.stats.goodness_of_fit : Univariate tests by a parametric bootstrap.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> import skmmd
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_t(5, size=1000)
    >>> bool(skmmd.goodness_of_fit_test(x, stats.t(5), random_state=0).pvalue > 0.05)
    True
    >>> skmmd.goodness_of_fit_test(x, stats.norm(), random_state=0).reject
    True
    """
    aggregated = _aggregates(aggregate, model, options)
    test = AggregatedKernelSteinTest if aggregated else KernelSteinTest
    return test(model, **options).fit(X).result_
