"""The named random streams drawn from a test's seed, in one place.

Every use of randomness derived from one seed draws from its own stream,
``numpy.random.default_rng([seed, STREAM, *key])`` (:func:`generator`), so two
uses never share draws and each is reproducible on its own, whatever the
order, the chunks or the number of workers. A causal search derives each
test's seeds from its ``random_state`` and the variables tested, one
``SEARCH_*`` stream per use (:func:`search_seed`).
"""

import numpy as np

# Streams of a test's seed.
UNIT_SHUFFLE = 1  # the pipeline's shuffle of row positions into units
FIT_ROWS = 2  # the subsample the feature maps are fit on
TRAIN_SPLIT = 3  # the train/test split of a learned kernel
FOLDS = 4  # the conditional test's cross-fitting folds
WILD_SIGNS = 5  # the signs of the conditional test's wild re-fits
GRID_ROWS = 6  # the rows of explain's per-column quantile grids
ORDER_CHECK = 7  # the projection of the features the order check reads
TABLE_ROWS = 8  # the rows behind a table map's medians, quartiles, bandwidth
CHANGE_TESTS = 9  # the signs of each segment's test of a change

# Streams of a causal search's random_state.
SEARCH_COLUMN = 0  # each column's features
SEARCH_Z_MAP = 1  # each conditioning set's map of z
SEARCH_TEST = 2  # each test's units and signs
SEARCH_WEIGHTS = 3  # each conditioning set's weights g(z)
SEARCH_FOLDS = 4  # each conditioning set's folds
SEARCH_SCREEN_ROWS = 5  # the rows the screens of conditioning sets run on
SEARCH_SCREEN = 6  # each screen's features


def generator(seed, stream, *key):
    """The generator of ``stream`` of ``seed`` (and of ``key``, e.g. a block)."""
    return np.random.default_rng([seed, stream, *key])


def subsample(n_rows, size, seed, stream):
    """Sorted positions of ``size`` of ``n_rows`` rows drawn from ``stream``
    of ``seed``, or None (all rows) when there are at most ``size``."""
    if n_rows <= size:
        return None
    return np.sort(generator(seed, stream).choice(n_rows, size, replace=False))


def search_seed(random_state, stream, *key):
    """An int seed of ``stream`` of a search's ``random_state`` and ``key``
    (the variables tested)."""
    sequence = np.random.SeedSequence([random_state, stream, *key])
    return int(sequence.generate_state(1)[0] >> 1)


def draw_seed(rng):
    """The int seed that ``rng`` (a :class:`numpy.random.RandomState`, as
    :func:`sklearn.utils.check_random_state` returns) draws for a test or a
    map: the root of every stream above, in ``[0, 2**31 - 1)``."""
    return rng.randint(np.iinfo(np.int32).max)
