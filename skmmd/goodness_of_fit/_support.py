"""Laws with a bounded or half-bounded support: the rows mapped onto the real
line by a fixed bijection, tested against the pushforward law.

The Stein identity ``E_p[A_p f] = 0`` needs ``p f`` to vanish on the
boundary of the support. The exponential, uniform, half-normal or a
truncated law keep a positive density at an edge, so a test on the raw rows
rejects them when they are true. Mapped coordinate by coordinate onto the
line (``y = log(x - a)`` above a lower bound ``a``, ``y = log(b - x)`` below
an upper bound ``b``, ``y = log(x - a) - log(b - x)`` between both), the
rows follow the pushforward law, of density ``p(x(y)) |dx/dy|``, which
vanishes at infinity like any density on the line: the test of ``y`` against
it is the test of ``x`` against ``p``.
"""

import numpy as np


class ToLine:
    """The coordinate-wise bijection of the support ``(low, high)`` (one of
    them may be infinite) onto the real line."""

    def __init__(self, low, high):
        self.low, self.high = float(low), float(high)

    def outside(self, X):
        """The indices of the in-memory rows on or outside the support
        (none for lazy rows, checked as they are mapped)."""
        if not isinstance(X, np.ndarray):
            return np.zeros(0, dtype=np.intp)
        return np.flatnonzero(~((X > self.low) & (X < self.high)).all(axis=1))

    def forward(self, X):
        """The rows mapped onto the line; a ValueError naming the rows on
        or outside the support (in-memory rows)."""
        low, high = self.low, self.high
        outside = self.outside(X)
        if len(outside):
            raise ValueError(
                f"X has {outside.size} rows on or outside the model's support "
                f"({low:g}, {high:g}) (the first at row {outside[0]}: "
                f"{X[outside[0]].tolist()}): the model gives them no density; "
                "drop them, or test a model whose support holds them."
            )
        with np.errstate(divide="ignore", invalid="ignore"):
            if np.isinf(high):
                return np.log(X - low)
            if np.isinf(low):
                return np.log(high - X)
            return np.log(X - low) - np.log(high - X)

    def inverse(self, Y):
        """The points of the support of the line's points ``Y``."""
        low, high = self.low, self.high
        if np.isinf(high):
            return low + np.exp(Y)
        if np.isinf(low):
            return high - np.exp(Y)
        return low + (high - low) / (1.0 + np.exp(-Y))

    def dx_dy(self, Y):
        """``dx/dy`` at the line's points ``Y``."""
        if np.isinf(self.high):
            return np.exp(Y)
        if np.isinf(self.low):
            return -np.exp(Y)
        s = 1.0 / (1.0 + np.exp(-Y))
        return (self.high - self.low) * s * (1.0 - s)

    def dlog_jacobian(self, Y):
        """``d/dy log |dx/dy|`` at the line's points ``Y``."""
        if np.isinf(self.high) or np.isinf(self.low):
            return np.ones_like(Y)
        return 1.0 - 2.0 / (1.0 + np.exp(-Y))

    def log_jacobian(self, Y):
        """``log |dx/dy|`` at the line's points ``Y``."""
        if np.isinf(self.high) or np.isinf(self.low):
            return Y
        # (b - a) s(y) (1 - s(y)), s the logistic function, in logs.
        return np.log(self.high - self.low) - np.logaddexp(0, Y) - np.logaddexp(0, -Y)


class LineLogPdf:
    """``log`` of the pushforward density of a univariate law on the line,
    at the first column of rows."""

    def __init__(self, frozen, line):
        self.frozen, self.line = frozen, line

    def __call__(self, Y):
        y = Y[:, 0]
        return self.frozen.logpdf(self.line.inverse(y)) + self.line.log_jacobian(y)


class ScoreOnLine:
    """The pushforward's score on the line of a score function on the
    support: ``score(x(y)) dx/dy + d/dy log |dx/dy|``, coordinate by
    coordinate."""

    def __init__(self, score, line):
        self.score, self.line = score, line

    def __call__(self, Y):
        S = np.asarray(self.score(self.line.inverse(Y)), dtype=np.float64)
        return S * self.line.dx_dy(Y) + self.line.dlog_jacobian(Y)


class LineLogDensity:
    """A log-density of rows on the support, as the pushforward's on the
    line (its score by differences on the line, which never leave the
    support)."""

    def __init__(self, log_density, line):
        self.log_density, self.line = log_density, line

    def __call__(self, Y):
        x = self.line.inverse(Y)
        return np.asarray(self.log_density(x), np.float64).reshape(-1) + (
            self.line.log_jacobian(Y).sum(axis=1)
        )


def checked_support(support):
    """The :class:`ToLine` of ``support`` (``(low, high)``, one end
    finite), or None for None; a ValueError naming it otherwise."""
    if support is None:
        return None
    try:
        low, high = (float(v) for v in support)
    except (TypeError, ValueError):
        low = high = np.nan
    if not (low < high) or (np.isinf(low) and np.isinf(high)):
        raise ValueError(
            "support must be (low, high) with low < high and at least one end "
            f"finite, e.g. (0, np.inf) for the positive half-line; got {support!r}."
        )
    return ToLine(low, high)


def support_line(frozen):
    """The :class:`ToLine` of a frozen univariate law whose support has a
    finite end, or None for a law on the whole line."""
    low, high = (float(v) for v in frozen.support())
    if np.isinf(low) and np.isinf(high):
        return None
    return ToLine(low, high)
