"""The memory and work budgets every part of skmmd shares, in one place.

Each bounds what one step holds or computes at once, so that memory depends
on these budgets and not on the number of rows. Modules read them as
``_budgets.NAME`` at call time (tests shrink them to exercise chunking).
"""

# Entries of one chunk of features or kernel values computed at once
# (float64: 32 MB): the samplers' transform chunks, exact kernel rows.
MAP_CHUNK_ENTRIES = 2**22
# Entries of the features of one chunk of rows in the pipeline (32 MB).
CHUNK_ENTRIES = 2**22
# The same on an accelerator (256 MB in float32): each chunk there pays a
# validation and its kernel launches whatever its size, a fixed cost that
# chunks of the host's size would repeat too often (benchmarks/bench_gpu.py).
DEVICE_CHUNK_ENTRIES = 2**26
# Count entries of one batch of resamples (64 MB).
BATCH_ENTRIES = 2**23
# Rows of every matrix product over resamples: enough for each product to
# run near the BLAS peak.
RESAMPLE_ROWS = 256
# Multiply-adds of the feature GEMMs of a resampled test before its rows are
# grouped into units of several (resample_unit="auto"): within it the products
# of every row stay small beside the resampling.
GEMM_BUDGET = 2**34
# Units of the two samples together beyond which the permutation null
# estimates the spread of a quadratic form of effective rank r better than the
# power needs (relative excess about r / G, whatever n);
# benchmarks/bench_mmd_validity.py --parts 4 checks it.
POWER_UNITS = 512
# Units of a goodness-of-fit test's multiplier bootstrap beyond which more
# only cost time: its null, a quadratic form in the unit sums, is estimated
# from this many to a few percent, where its Stein features (2 L d per row)
# would make every unit costly.
STEIN_UNITS = 2**10
# Entries of the unit-sum matrix U (float64: 256 MB).
UNIT_ENTRIES = 2**25
# Gram matrices up to this many entries are computed once and kept (512 MB).
GRAM_ENTRIES = 2**26
# Entries of each temporary of a computation done column by column, a slice
# of columns at a time (float64: 256 kB): the fitted tails of a column report,
# the columns' median distances. Whole, their dozen temporaries would be a
# wide table's largest arrays.
SLICE_ENTRIES = 2**15
# Entries of the values of one part of a wide table's columns read at once
# where a fit needs each column's values several times (2 MB in float64),
# and of the rows of one block of the random pairs behind a median distance.
PART_ENTRIES = 2**18

# Random pairs of rows behind a table's median distances: the bandwidth of
# TabularSampler's numeric part and each column's in a report. Independent
# pairs of all the fit rows set a median as well as every pair of a
# subsample, in time linear in the rows.
MEDIAN_PAIRS = 4096
# Random pairs of rows behind the Stein tests' median bandwidth (its
# relative error about 1 / sqrt(2^16), far below what moves a test).
STEIN_MEDIAN_PAIRS = 2**16
# Rows of the conditional test's screen's median bandwidths (every pair of
# a subsample of this many): a rough scale is all its features need, and
# the medians' cost grows with the square of the rows, in every test of a
# causal search.
SCREEN_MEDIAN_ROWS = 300


def column_slices(n_columns, n_rows, entries=None):
    """Slices covering the columns of an ``(n_rows, n_columns)`` array, each
    within ``entries`` entries (``SLICE_ENTRIES`` by default) and none of a
    single column unless there is only one: NumPy reduces two or more
    columns over their rows in one order whatever their number, but a
    column alone pairwise, so results computed slice by slice equal those
    of the whole array bit for bit."""
    entries = SLICE_ENTRIES if entries is None else entries
    step = max(2, entries // max(n_rows, 1))
    starts = list(range(0, n_columns, step))
    if len(starts) > 1 and n_columns - starts[-1] == 1:
        starts.pop()  # the last column joins the slice before it
    return [slice(lo, hi) for lo, hi in zip(starts, starts[1:] + [n_columns])]


# Fewest resampling units a test runs on at all (the jackknife of the
# unbiased HSIC needs 5).
MIN_UNITS = 5


def smallest_unit(fits, start=1):
    """The unit rule of every test's ``resample_unit="auto"``: the smallest
    power of two (times ``start``) for which ``fits(unit)`` holds.

    Each family says what must fit (its units within a resampling cost, the
    unit sums or Gram matrices within memory). With ``fits`` monotone in the
    unit and in the rows, the rule is nondecreasing in the rows, so a stream
    can double its unit as rows come (merging pairs of units) and end where a
    single pass over all rows would.
    """
    unit = start
    while not fits(unit):
        unit *= 2
    return unit


# Rows in time order (block_size="auto"): the fewest blocks of each sample
# (a null of fewer is too coarse to reject at usual levels), the relative
# bias of a block variance the block length is chosen to stay within (the
# correction of the null takes up the rest; a larger bias leaves the
# corrected level above alpha: the benchmarks page, bench_time_series.py),
# and the leading principal directions of the features whose dependence is
# read besides their trace.
MIN_BLOCKS = 5
# Units of each sample a stream in time order sums its rows into before its
# blocks are chosen (bounded by UNIT_ENTRIES too): the dependence between
# neighbouring rows is read from their sums in order, and with a few hundred
# units a correlation of 0.2 between neighbours (blocks a third too narrow)
# is within the noise.
ORDER_UNITS = 2**12
BLOCK_BIAS = 0.05
BLOCK_DIRECTIONS = 3
# The check that warns when rows tested as exchangeable look ordered: the
# first rows of each sample it reads, the fewest it reads at all, the widest
# features it reads (wider ones are projected), and the inflation of the
# null's spread it warns from (exchangeable rows stay far below it:
# benchmarks/bench_time_series.py --warning).
ORDER_CHECK_ROWS = 2048
ORDER_CHECK_MIN = 64
ORDER_CHECK_WIDTH = 64
ORDER_INFLATION = 1.25
# The independent draws (a Fourier map's frequencies) the check reads of a map
# that computes a sample of its columns alone (transform_columns): each
# draw's columns are the features of a smaller map of the same kernel, so a
# sample of draws shows the rows' dependence as a projection of all columns
# does, without computing the others.
ORDER_CHECK_DRAWS = 16

# A causal search's tests of fewer rows than this run on one BLAS thread:
# their products and eigendecompositions are small, and threads would wait
# for each other more than they work; larger ones keep BLAS's threads for
# the regressions' products of all rows.
SEARCH_ONE_THREAD_ROWS = 2**13

# Subsamples and sizes of single steps.
# Above this many pooled points the transformers are fit on a seeded uniform
# subsample of this size (what their data-dependent parts need: a median
# bandwidth, landmarks), the same rows in memory and on Dask.
FIT_SUBSAMPLE_ROWS = 100_000
# Unit sums of one part of a report's columns (128 MB): a pass over the rows
# per part, each part's sums dropped before the next.
REPORT_PART_ENTRIES = 2**24
# Fit rows behind the columnwise map's grids and bandwidths.
COLUMN_GRID_ROWS = 4096
# Rows behind the numeric block's medians, quartiles and bandwidth (a
# seeded subsample above it); the categories come from every row.
TABLE_STATISTIC_ROWS = 4096
# Random pairs of rows behind the default maps' median bandwidth.
HSIC_MEDIAN_PAIRS = 2**20
# Pairings times observations^2 (the permutation null's cost) at most this:
# about a second on two cores.
PAIRING_ENTRIES = 2**30
# Rows the default z map is fit on, at most (a seeded subsample): its means,
# scales and medians; fitting a ColumnTransformer also transforms its rows.
Z_FIT_ROWS = 10_000

# Change points (skmmd.change_points): entries of the cumulative sums of the
# features every segment's cost is read from (float64: 1 GiB), which bound
# the width of the default map (a power of two from 64 to 1024 features); the
# most units a segment's test resamples (its maximum over the splits is read
# at each unit's end, and more units only cost time); the most rows of the
# exact dynamic programming of search="auto" (its time grows as the rows'
# square: past this, binary segmentation).
CUMSUM_ENTRIES = 2**27
CHANGE_UNITS = 2**8
EXACT_SEARCH_ROWS = 20_000
