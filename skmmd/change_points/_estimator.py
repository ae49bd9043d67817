"""KernelChangePoints: where a series of rows in time order changes its
law, by the kernel cost of segments on random features, and a p-value for
each change."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state

from .._inference._base import (
    SHARED_CONSTRAINTS,
    StreamedResults,
    fit_indices,
    loop_options,
    order_features,
    unfitted_on_error,
    warn_if_ordered,
)
from .._inference._streaming import transformer_width
from .._utils import _budgets, _streams
from .._utils._compat import (
    HasMethods,
    Interval,
    StrOptions,
    fit_context,
    validate_data,
)
from ._cost import CumulativeSums, SegmentCost, default_map
from ._results import ChangePointResult
from ._search import binary_segmentation, dynamic_programming, pelt
from ._significance import SegmentTest, neighbour_p_values, tested_segmentation


class KernelChangePoints(StreamedResults, BaseEstimator):
    """Kernel change points of rows in time order, each with a p-value.

    Finds where the law of a series changes (its mean, its variance, its
    shape: whatever the kernel sees), from the kernel cost of segments on
    random features in time and memory linear in the rows, and gives each
    change a p-value from a test of a change anywhere in its segment, which
    stays valid on autocorrelated rows with ``block_size``. A long series
    may come in chunks, in time order (:meth:`partial_fit`), holding only the
    cumulative sums of its features.

    Read more in the :ref:`User Guide <change_points>`.

    Parameters
    ----------
    transformer : "auto" or object with ``fit`` and ``transform``, \
            default="auto"
        The feature map that replaces the kernel, cloned and fit to the rows
        (to a seeded subsample of 100 000 of them where there are more).
        ``"auto"``: a :class:`RandomFourierSampler` (Gaussian kernel) at
        ``bandwidth``, of 1024 features, fewer for long series (a power of
        two down to 64, keeping the cumulative sums within 1 GiB), its
        frequencies a scrambled Sobol sequence (``qmc="sobol"``; i.i.d. for
        more columns than the sequence has dimensions), whose costs are
        closer to the exact kernel's than those of i.i.d. draws.
    bandwidth : "median" or float, default="median"
        The Gaussian kernel's bandwidth of ``transformer="auto"``, ``exp(-||x
        - y||^2 / (2 bandwidth^2))`` (ruptures' ``gamma`` is ``1 / (2
        bandwidth^2)``); ``"median"``: the median distance between rows.
    n_changes : int or None, default=None
        Find this many changes (the least total cost). None: by ``penalty``
        or, without one, by significance at ``alpha``.
    penalty : float or None, default=None
        Find the changes of least total cost plus ``penalty`` per change, in
        the cost's units (a sum of squared feature distances, about the
        rows' number times a kernel distance).
    search : {"auto", "exact", "pelt", "binseg"}, default="auto"
        ``"exact"``: dynamic programming (``n_changes``; time quadratic in
        the rows); ``"pelt"``: PELT (``penalty``); ``"binseg"``: binary
        segmentation (either, or significance). ``"auto"``: exact for
        ``n_changes`` up to 20 000 rows and binary segmentation beyond,
        PELT for ``penalty``, binary segmentation by significance.
    alpha : float, default=0.05
        Level of the tests: by significance, a segment is split only when
        its test's p-value is at most ``alpha``.
    min_size : int, default=2
        The fewest rows of a segment.
    n_resamples : int, default=999
        Multiplier-bootstrap draws of each test.
    block_size : None, "auto" or int, default=None
        Rows in time order: the bootstrap draws one multiplier per block of
        this many consecutive rows, so that each p-value holds on
        autocorrelated rows. ``"auto"``: the library's rule, from the
        dependence of each tested segment's features. None: rows
        exchangeable under no change (a
        :class:`~skmmd.SerialDependenceWarning` when the rows of the
        longest segment look serially dependent).
    batch : int or None, default=None
        Bootstrap draws computed at once (None: within the library's memory
        budget).
    random_state : int, RandomState instance or None, default=None
        Determines the random feature map and the bootstrap draws. Pass an
        int for reproducible results across multiple function calls.
    n_jobs : int or None, default=None
        Threads of the bootstrap's batches.
    verbose : int, default=0
        Progress messages of the bootstrap.

    Attributes
    ----------
    change_points_ : ndarray of shape (`n_changes_`,)
        The first row of each segment after the first, sorted.
    n_changes_ : int
        Number of changes found.
    p_values_ : ndarray of shape (`n_changes_`,)
        Each change's p-value. By significance, that of the test that found
        it (of the segment it split); with ``n_changes`` or ``penalty``,
        that of the segment between its neighbouring changes. NaN for a
        segment too short to test.
    mmd2_ : ndarray of shape (`n_changes_`,)
        Squared MMD of the features between the segments either side of
        each change.
    block_size_ : int or None
        Rows per block of the first test (None without blocks).
    transformer_ : object
        The fitted feature map.
    result_ : ChangePointResult
        The same values as a result.
    n_features_in_ : int
        Number of columns seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names seen during ``fit``, for a DataFrame with string names.

    See Also
    --------
    change_point_test : The same in one call.
    OnlineMMDDetector : Drift in a stream, online.

    Notes
    -----
    With features ``z_t`` of the rows, a segment's cost is ``sum_t ||z_t -
    zbar||^2`` over its rows, read from cumulative sums of the features in
    ``O(D)`` (Harchaoui & Cappe 2007; Arlot, Celisse & Harchaoui 2019):
    the kernel cost of ruptures' ``KernelCPD`` and ``CostRbf``, with the
    kernel ``z(x)'z(y)``. A segment's test statistic is the largest cost
    one split removes, ``max_k k (m - k) / m`` times the squared MMD of its
    two parts, over the ends of its units; its null is the multiplier
    bootstrap of the same maximum (one weight per unit or block for all
    splits), so that the search over the location is accounted for. With
    no change at all, only the first test can reject.

    The cumulative sums hold ``8 (n + 1) D`` bytes; every other array is
    within the library's chunk and batch budgets. :meth:`partial_fit` keeps
    no more: the sums (with room to grow by half) and the rows of one
    incomplete chunk of ``_budgets.CHUNK_ENTRIES`` features; the tests read
    their units' sums from the cumulative sums, never from the rows. While
    a chunk is added its own sums are staged (so that a rejected chunk
    changes nothing), and while the results are computed, a copy of the
    sums centered at the mean feature.

    References
    ----------
    .. [1] Z. Harchaoui and O. Cappe, "Retrospective multiple change-point
       estimation with kernels", IEEE SSP 2007.
    .. [2] S. Arlot, A. Celisse and Z. Harchaoui, "A kernel multiple
       change-point algorithm via model selection", JMLR 20, 2019.
    .. [3] R. Killick, P. Fearnhead and I. A. Eckley, "Optimal detection of
       changepoints with a linear computational cost", JASA 107, 2012.
    .. [4] B. Bucchia and M. Wendler, "Change-point detection and bootstrap
       for Hilbert space valued random fields", J. Multivariate Anal. 155,
       2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import KernelChangePoints
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(size=(400, 1)), 2.0 * rng.normal(size=(400, 1))]
    >>> cp = KernelChangePoints(random_state=0).fit(X)
    >>> cp.change_points_.tolist(), bool(cp.p_values_[0] < 0.05)
    ([401], True)
    """

    _RESULTS = (
        "change_points_",
        "n_changes_",
        "p_values_",
        "mmd2_",
        "block_size_",
        "result_",
    )

    _parameter_constraints = {
        "transformer": [StrOptions({"auto"}), HasMethods(["fit", "transform"])],
        "bandwidth": [
            StrOptions({"median"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "n_changes": [None, Interval(Integral, 0, None, closed="left")],
        "penalty": [None, Interval(Real, 0, None, closed="left")],
        "search": [StrOptions({"auto", "exact", "pelt", "binseg"})],
        "alpha": SHARED_CONSTRAINTS["alpha"],
        "min_size": [Interval(Integral, 1, None, closed="left")],
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "block_size": SHARED_CONSTRAINTS["block_size"],
        "batch": SHARED_CONSTRAINTS["batch"],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        transformer="auto",
        bandwidth="median",
        n_changes=None,
        penalty=None,
        search="auto",
        alpha=0.05,
        min_size=2,
        n_resamples=999,
        block_size=None,
        batch=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.transformer = transformer
        self.bandwidth = bandwidth
        self.n_changes = n_changes
        self.penalty = penalty
        self.search = search
        self.alpha = alpha
        self.min_size = min_size
        self.n_resamples = n_resamples
        self.block_size = block_size
        self.batch = batch
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _search(self, n):
        """The search in effect, or a ValueError naming the parameters that
        do not go together."""
        if self.n_changes is not None and self.penalty is not None:
            raise ValueError(
                f"n_changes={self.n_changes} and penalty={self.penalty}: give one "
                "(or neither, for changes by significance at alpha)."
            )
        wants = {"exact": "n_changes", "pelt": "penalty"}
        if self.search in wants and getattr(self, wants[self.search]) is None:
            raise ValueError(
                f"search={self.search!r} needs {wants[self.search]}; "
                "search='binseg' takes any."
            )
        if self.search == "exact" and self.penalty is not None:
            raise ValueError("search='exact' takes n_changes, not penalty.")
        if self.search == "pelt" and self.n_changes is not None:
            raise ValueError("search='pelt' takes penalty, not n_changes.")
        if self.search != "auto":
            return self.search
        if self.n_changes is not None:
            return "exact" if n <= _budgets.EXACT_SEARCH_ROWS else "binseg"
        return "pelt" if self.penalty is not None else "binseg"

    def _map(self, X, seed):
        """The fitted feature map (on a seeded subsample of long series)."""
        if isinstance(self.transformer, str):
            transformer = default_map(self.bandwidth, *X.shape, seed)
        else:
            transformer = clone(self.transformer)
        rows = fit_indices(X.shape[0], seed)
        return transformer.fit(X if rows is None else X[rows])

    def _points(self, cost, test, search):
        """The change points and their p-values."""
        n, size = cost.n, self.min_size
        if self.n_changes is None and self.penalty is None:
            return tested_segmentation(cost, test, self.alpha, size)
        if search == "exact":
            points = dynamic_programming(cost, self.n_changes, size)
        elif search == "pelt":
            points = pelt(cost, float(self.penalty), size)
        else:
            points = binary_segmentation(cost, size, self.n_changes, self.penalty)
        if self.n_changes is not None and points.size < self.n_changes:
            raise ValueError(
                f"n_changes={self.n_changes}: only {points.size} changes fit "
                f"{n} rows with min_size={size}."
            )
        return points, neighbour_p_values(cost, test, points)

    def _check_order(self, X, points, seed):
        """Warn when ``block_size`` is None and the first rows of the
        longest segment (where no change was found) look serially
        dependent."""
        if self.block_size is not None:
            return
        edges = np.concatenate([[0], points, [X.shape[0]]])
        i = int(np.argmax(np.diff(edges)))
        stop = min(edges[i + 1], edges[i] + _budgets.ORDER_CHECK_ROWS)
        self._warn_if_ordered(X[edges[i] : stop], seed)

    def _warn_if_ordered(self, rows, seed):
        """The order check of ``rows`` (:func:`warn_if_ordered`)."""
        features = order_features(self.transformer_, rows, np.asarray, seed)
        warn_if_ordered([features], seed)

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Find the change points of ``X`` and test each.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows in time order, numeric.
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        search = self._search(X.shape[0])
        seed = _streams.draw_seed(check_random_state(self.random_state))
        self._stream, self._stale = None, False  # a new series
        self.transformer_ = self._map(X, seed)
        width = transformer_width(self.transformer_, X)
        cost = SegmentCost.of(self.transformer_.transform, X, width)
        points = self._found(cost, search, seed)
        self._check_order(X, points, seed)
        return self

    @fit_context(prefer_skip_nested_validation=False)
    @unfitted_on_error
    def partial_fit(self, X, y=None):
        """Add a chunk of rows, in time order, to the series.

        The first call starts a new series (after :meth:`fit` too) and fits
        the feature map to its rows (with ``bandwidth="median"``, at that
        chunk's median distance; with ``transformer="auto"``, of the width
        :meth:`fit` gives a series of that chunk's length). Each chunk is
        added to the cumulative sums of the features; the rows themselves
        are not kept (but those of the last, incomplete chunk of
        ``_budgets.CHUNK_ENTRIES`` features). The results (``change_points_``,
        ``p_values_``, ``mmd2_``, ``block_size_``, ``result_``) are those of
        the rows so far, searched and tested again on the sums when first
        read after a chunk. For the same seed and a map that does not depend
        on the rows (a float ``bandwidth`` within 131 071 rows, beyond which
        ``fit`` takes fewer features; or a ``transformer`` whose ``fit`` reads
        only the number of columns), they equal those of :meth:`fit` on all
        the rows so far bit for bit, whatever the chunks. A chunk that is
        rejected (other columns, NaN, rows the map rejects) adds nothing.

        With ``block_size=None``, the order check reads the first chunk's
        first rows (:meth:`fit` reads those of the longest segment found).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_chunk, n_features)
            The next rows of the series, numeric, with the columns of the
            first chunk.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The estimator, updated.

        Examples
        --------
        >>> import numpy as np
        >>> from skmmd import KernelChangePoints
        >>> X = np.random.default_rng(0).normal(size=(800, 1))
        >>> X[400:] *= 2.0  # the variance changes at row 400
        >>> cp = KernelChangePoints(bandwidth=1.0, random_state=0)
        >>> found = []  # the change points of the rows so far, after each chunk
        >>> for chunk in np.array_split(X, 8):  # chunks of 100 rows
        ...     found.append(cp.partial_fit(chunk).change_points_.tolist())
        >>> found
        [[], [], [], [], [401], [401], [401], [401]]
        >>> whole = KernelChangePoints(bandwidth=1.0, random_state=0).fit(X)
        >>> bool(np.array_equal(cp.p_values_, whole.p_values_))
        True
        """
        first = getattr(self, "_stream", None) is None
        try:
            X = validate_data(self, X, reset=first, dtype=[np.float64, np.float32])
        except (ValueError, TypeError) as error:
            if first:
                raise
            raise type(error)(
                f"partial_fit chunk after {self._stream.n} rows (nothing was "
                f"added): {error}"
            ) from error
        if first:
            self._search(0)  # options that do not go together fail now
            seed = _streams.draw_seed(check_random_state(self.random_state))
            self.transformer_ = self._map(X, seed)
            width = transformer_width(self.transformer_, X)
            self._stream = CumulativeSums(self.transformer_.transform, width)
            self._stream_seed = seed
            if self.block_size is None:
                self._warn_if_ordered(X[: _budgets.ORDER_CHECK_ROWS], seed)
        self._stream.add(X)
        self._mark_stale()
        return self

    def _calibrate(self):
        """The results of the rows so far (``partial_fit``)."""
        cost = self._stream.cost()
        self._found(cost, self._search(cost.n), self._stream_seed)
        self._stale = False

    def _found(self, cost, search, seed):
        """Search and test the rows of ``cost``, set the results and return
        the change points."""
        test = SegmentTest(cost, self.block_size, loop_options(self, seed, None), seed)
        points, p_values = self._points(cost, test, search)
        edges = np.concatenate([[0], points, [cost.n]])
        self.change_points_ = points
        self.n_changes_ = int(points.size)
        self.p_values_ = p_values
        self.mmd2_ = np.array(
            [cost.mmd2(*map(int, edges[i : i + 3])) for i in range(points.size)]
        )
        self.block_size_ = test.first_rows
        self.result_ = ChangePointResult(
            change_points=points,
            pvalues=p_values,
            alpha=self.alpha,
            mmd2=self.mmd2_,
            n_samples=cost.n,
            block_size=self.block_size_,
        )
        return points

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.non_deterministic = False
        return tags
