"""Mean-map embedding of sets of samples under any vector feature map."""

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from .._utils._compat import HasMethods, fit_context
from ._bags import BagTransformerMixin
from ._fourier import RandomFourierSampler

# Points transformed at once (bounds the (points x n_components) temporary).
_CHUNK_POINTS = 2**16


class MeanEmbedding(BagTransformerMixin, BaseEstimator):
    """Mean-map embedding of sets: the average feature vector of each set.

    With a sampler ``z`` approximating a kernel ``k``, the embedding of a set
    ``X = {x_1..x_n}`` is ``m(X) = (1/n) sum_i z(x_i)``, so
    ``m(X)^T m(Y)`` approximates the mean kernel ``(1/(n m)) sum k(x_i, y_j)``
    and ``||m(X) - m(Y)||^2`` the (biased) squared MMD between the sets.

    Parameters
    ----------
    sampler : transformer or None, default=None
        Any estimator with ``fit`` and ``transform`` on 2-D arrays (an skmmd
        sampler, scikit-learn's ``RBFSampler``, ``Nystroem``, ...). It is
        cloned and fitted on the pooled points of the training sets. ``None``
        means ``RandomFourierSampler()``.

    Attributes
    ----------
    sampler_ : transformer
        The fitted clone of ``sampler``.
    n_features_in_ : int
        Dimension of the points.

    See Also
    --------
    HDDSampler : Features for kernels on the sets' densities (JS, Hellinger, TV).

    Notes
    -----
    Transform time is that of the sampler on all the points plus one
    accumulation per set: linear in the total number of points.

    References
    ----------
    .. [1] K. Muandet, K. Fukumizu, F. Dinuzzo and B. Schoelkopf. Learning
       from distributions via support measure machines. NIPS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from skmmd import MeanEmbedding, RandomFourierSampler
    >>> rng = np.random.default_rng(0)
    >>> bags = [rng.normal(size=(n, 2)) for n in (10, 20, 30)]
    >>> emb = MeanEmbedding(RandomFourierSampler(n_components=64, random_state=0))
    >>> emb.fit_transform(bags).shape
    (3, 64)
    """

    _parameter_constraints: dict = {
        "sampler": [None, HasMethods(["fit", "transform"])],
    }

    def __init__(self, sampler=None):
        self.sampler = sampler

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit the sampler on the pooled points of the training sets.

        Parameters
        ----------
        X : sequence of array-like of shape (n_i, n_features)
            Training sets.
        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted embedding.
        """
        bags, _ = self._check_bags(X, reset=True)
        sampler = RandomFourierSampler() if self.sampler is None else self.sampler
        self.sampler_ = clone(sampler).fit(np.concatenate(bags))
        return self

    def transform(self, X):
        """Average the sampler's features over each set.

        Parameters
        ----------
        X : sequence of array-like of shape (n_i, n_features)
            Sets of any sizes ``n_i >= 1``.

        Returns
        -------
        M : ndarray of shape (n_sets, n_features_out)
            Mean feature vector of each set.
        """
        check_is_fitted(self)
        bags, _ = self._check_bags(X, reset=False)
        sizes = np.array([b.shape[0] for b in bags])
        out = None
        start = 0
        while start < len(bags):
            # a group of whole sets with about _CHUNK_POINTS points
            stop = start + max(
                1, int(np.searchsorted(np.cumsum(sizes[start:]), _CHUNK_POINTS))
            )
            Z = self.sampler_.transform(np.concatenate(bags[start:stop]))
            if hasattr(Z, "toarray"):
                Z = Z.toarray()
            if out is None:
                out = np.empty((len(bags), Z.shape[1]), dtype=Z.dtype)
            offsets = np.concatenate([[0], np.cumsum(sizes[start:stop])[:-1]])
            out[start:stop] = np.add.reduceat(Z, offsets, axis=0)
            out[start:stop] /= sizes[start:stop, None]
            start = stop
        return out

    @property
    def _n_features_out(self):
        return self.sampler_.transform(np.zeros((1, self.n_features_in_))).shape[1]
