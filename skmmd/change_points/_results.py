"""The result of the change point family, named for its quantities: the
change points, a p-value and a squared MMD for each."""

import numpy as np


class ChangePointResult:
    """Result of a kernel change point analysis, shaped like scipy's results.

    Unpacks as ``change_points, pvalues = result``. Returned by
    :func:`change_point_test` and stored as ``result_`` by
    :class:`KernelChangePoints` (the same values as its fitted attributes).

    Parameters
    ----------
    change_points : ndarray of shape (n_changes,)
        The first row of each segment after the first, sorted.
    pvalues : ndarray of shape (n_changes,)
        Each change's p-value (see :class:`KernelChangePoints`): of ``H0``,
        no change in the segment the change was found in, against a change
        anywhere in it.
    alpha : float
        The level of the tests.
    mmd2 : ndarray of shape (n_changes,)
        The squared MMD (of the features) between the segments either side
        of each change.
    n_samples : int
        Number of rows.
    block_size : int or None
        Rows per block of the first test (None: rows exchangeable).

    Attributes
    ----------
    reject : ndarray of bool
        ``pvalues <= alpha``.
    segments : list of tuple
        ``(start, stop)`` of each segment.

    See Also
    --------
    KernelChangePoints : The estimator storing it.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import change_point_test
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(size=(300, 2)), rng.normal(2.0, size=(300, 2))]
    >>> change_points, pvalues = change_point_test(X, random_state=0)
    >>> change_points.tolist(), bool(pvalues[0] < 0.05)
    ([301], True)
    """

    def __init__(self, *, change_points, pvalues, alpha, mmd2, n_samples, block_size):
        self.change_points = np.asarray(change_points, dtype=np.int64)
        self.pvalues = np.asarray(pvalues, dtype=np.float64)
        self.alpha = alpha
        self.reject = self.pvalues <= alpha
        self.mmd2 = np.asarray(mmd2, dtype=np.float64)
        self.n_samples = int(n_samples)
        self.block_size = block_size

    @property
    def segments(self):
        """``(start, stop)`` of each segment, in order."""
        edges = [0, *self.change_points.tolist(), self.n_samples]
        return list(zip(edges[:-1], edges[1:]))

    def __iter__(self):
        return iter((self.change_points, self.pvalues))

    def __len__(self):
        return 2

    def __getitem__(self, index):
        return (self.change_points, self.pvalues)[index]

    def __repr__(self):
        return (
            f"ChangePointResult(change_points={self.change_points.tolist()}, "
            f"pvalues={np.round(self.pvalues, 4).tolist()}, "
            f"n_samples={self.n_samples})"
        )

    def to_dict(self):
        """The result as a dict of plain values (for JSON).

        Returns
        -------
        result : dict
            The change points, p-values, level, squared MMDs, number of rows
            and block size.
        """
        return {
            "change_points": self.change_points.tolist(),
            "pvalues": self.pvalues.tolist(),
            "alpha": self.alpha,
            "mmd2": self.mmd2.tolist(),
            "n_samples": self.n_samples,
            "block_size": self.block_size,
        }
