"""GCWSSampler (skmmd/kernel_approximation/_gcws.py, its compiled kernels in
_gcws_numba.py) against a numpy transcription of its sampling.

Statistical bounds: a code collision of sample j is a Bernoulli variable,
independent over j, so a collision rate over k samples has standard error
``sqrt(p (1 - p) / k)``. Bounds are 4 standard errors (two-sided normal tail
6e-5 per comparison) or wider where many comparisons are made at once, so the
100-seed sweep (``SKMMD_SEED_SWEEP=1``) passes unless the sampler is wrong."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from skmmd import GCWSSampler
from skmmd.kernel_approximation import _gcws_numba
from skmmd.kernels import gmm_kernel
from tests.helpers.references import sign_split

# Pure-numpy reference of the spec's counter-based randomness (section 5b),
# independent of the numba code it checks.
PHI = 0x9E3779B97F4A7C15

U64 = np.uint64


def mix64(z):
    z = np.asarray(z, dtype=U64)
    with np.errstate(over="ignore"):  # arithmetic mod 2^64 is intended
        z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
    return z ^ (z >> U64(31))


def key(seed, stream, i, j):
    """``mix64(mix64(mix64(seed PHI + s) ^ i PHI) ^ (j + PHI))``, broadcast."""
    base = mix64(U64((seed * PHI + stream) % 2**64))
    i = np.asarray(i, dtype=U64)
    j = np.asarray(j, dtype=U64)
    with np.errstate(over="ignore"):
        return mix64(mix64(base ^ (i * U64(PHI))) ^ (j + U64(PHI)))


def uniform(seed, stream, i, j):
    return ((key(seed, stream, i, j) >> U64(11)).astype(np.float64) + 0.5) * 2.0**-53


def reference_icws(u, seed, k):
    """(i*, t*) of one dense row by the spec's formulas (section 2)."""
    w = sign_split(np.asarray(u, dtype=np.float64))
    idx = np.flatnonzero(w)[:, None]
    j = np.arange(k)[None, :]
    r = -np.log(uniform(seed, 0, idx, j)) - np.log(uniform(seed, 1, idx, j))
    lnc = np.log(-np.log(uniform(seed, 2, idx, j)) - np.log(uniform(seed, 3, idx, j)))
    beta = uniform(seed, 4, idx, j)
    t = np.floor(np.log(w[idx]) / r + beta)
    lna = lnc - r * (t + 1.0 - beta)
    best = np.argmin(lna, axis=0)
    return idx[best, 0], t[best, np.arange(k)].astype(np.int64)


def code_hash(seed, i_star, t_star, j, n_bits, include_t=True):
    h = key(seed, 5, i_star, j)
    if include_t:
        with np.errstate(over="ignore"):
            h = h ^ (t_star.astype(U64) * U64(PHI))
    return (mix64(h) & U64(2**n_bits - 1)).astype(np.int64)


def pair_rows(rng, n_features=200):
    """Rows 2p, 2p+1 form pair p: GMM spans (0, 0.05) to (0.95, 1)."""
    rows = []

    def add(u, v):
        for w in (u, v):
            x = np.zeros(n_features)
            x[: w.size] = w
            rows.append(x)

    u = rng.normal(size=20)
    for rho in (0.0, 0.6, 0.95):  # dense Gaussian, mixed sign
        add(u, rho * u + np.sqrt(1 - rho**2) * rng.normal(size=20))
    add(u, u + 0.002 * rng.normal(size=20))  # near-duplicate: GMM > 0.95
    a = np.abs(rng.normal(size=3))  # low dimension, mixed sign
    add(a, a * np.array([1.0, -0.5, 2.0]))
    w = np.abs(rng.normal(size=n_features))  # sparse, overlapping supports
    w1, w2 = w.copy(), w * rng.uniform(0.5, 1.5, size=n_features)
    w1[rng.random(n_features) < 0.9] = 0
    w2[rng.random(n_features) < 0.9] = 0
    add(w1, w2)
    s = np.zeros(n_features)  # almost disjoint: GMM < 0.05
    s[:10] = 1.0
    s2 = np.zeros(n_features)
    s2[9:60] = 3.0
    add(s, s2)
    for scale in (1.5, 4.0):  # scaled copies: GMM = 1 / scale exactly
        add(np.abs(u), scale * np.abs(u))
    X = np.array(rows)
    G = np.array(
        [gmm_kernel(X[p : p + 1], X[p + 1 : p + 2])[0, 0] for p in range(0, len(X), 2)]
    )
    return X, G


def collision_rate(A, B):
    return (A == B).mean(axis=1)


# ---------------------------------------------------------------------------
# Exactness of the sampler


@pytest.mark.parametrize("max_table_bytes", [0, 2**26])
def test_matches_reference_implementation(rng, global_random_seed, max_table_bytes):
    """Differential test against the numpy transcription of the spec."""
    X = rng.normal(size=(4, 6))
    X[1, [0, 3]] = 0
    k = 64
    gcws = GCWSSampler(
        n_components=k, max_table_bytes=max_table_bytes, random_state=global_random_seed
    ).fit(X)
    i_star, t_star = gcws.hash_codes(X, raw=True)
    codes = gcws.hash_codes(X)
    for row, u in enumerate(X):
        ref_i, ref_t = reference_icws(u, gcws.seed_, k)
        np.testing.assert_array_equal(i_star[row], ref_i)
        np.testing.assert_array_equal(t_star[row], ref_t)
        np.testing.assert_array_equal(
            codes[row], code_hash(gcws.seed_, ref_i, ref_t, np.arange(k), 8)
        )


def test_uniformity_chi_square(global_random_seed):
    """P1: P[i* = i] = u~_i / ||u~||_1, here for u = [-5, 3, 0, 1, 0.5].

    Threshold p > 1e-5 rather than the spec's 1e-3, so that 100 seeds give a
    false alarm with probability 1e-3; a wrong sampler has p ~ 0 at k = 1e5.
    """
    u = np.array([[-5.0, 3.0, 0.0, 1.0, 0.5]])
    k = 100_000
    gcws = GCWSSampler(n_components=k, random_state=global_random_seed).fit(u)
    i_star, _ = gcws.hash_codes(u, raw=True)
    w = sign_split(u[0])
    support = np.flatnonzero(w)
    assert set(np.unique(i_star)) <= set(support)  # [-5, 3] -> slots 1 and 2
    observed = np.bincount(i_star[0], minlength=w.size)[support]
    expected = k * w[support] / w.sum()
    assert stats.chisquare(observed, expected).pvalue > 1e-5


@pytest.mark.parametrize("max_table_bytes", [0, 2**26])
def test_consistency_full_samples(rng, global_random_seed, max_table_bytes):
    """P2: P[(i*, t*)(u) = (i*, t*)(v)] = GMM(u, v) exactly; 4 SE at k = 2e4."""
    X, G = pair_rows(rng)
    assert G.min() < 0.05 and G.max() > 0.95
    assert np.any((G > 0.2) & (G < 0.8))
    k = 20_000
    gcws = GCWSSampler(
        n_components=k, max_table_bytes=max_table_bytes, random_state=global_random_seed
    ).fit(X)
    i_star, t_star = gcws.hash_codes(X, raw=True)
    same = (i_star[0::2] == i_star[1::2]) & (t_star[0::2] == t_star[1::2])
    P = same.mean(axis=1)
    se = np.sqrt(G * (1 - G) / k)
    assert np.all(np.abs(P - G) <= 4 * se + 1e-12), np.abs(P - G) / se


def _key_and_code_rates(X, seed, n_bits, include_t):
    k = 20_000
    gcws = GCWSSampler(
        n_components=k, n_bits=n_bits, include_t=include_t, random_state=seed
    ).fit(X)
    i_star, t_star = gcws.hash_codes(X, raw=True)
    key_same = i_star[0::2] == i_star[1::2]
    if include_t:
        key_same &= t_star[0::2] == t_star[1::2]
    codes = gcws.hash_codes(X)
    return (
        gcws,
        key_same.mean(axis=1),
        collision_rate(codes[0::2], codes[1::2]),
        i_star,
        t_star,
    )


def _bbit_z(P_key, P_code, n_bits, k=20_000):
    """z-scores of P_code - (P_key + (1 - P_key) 2^-b).

    Given the keys, each of the k (1 - P_key) differing keys adds a code
    collision with probability 2^-b, independently: binomial standard error.
    """
    q = 2.0**-n_bits
    predicted = P_key + (1 - P_key) * q
    se = np.sqrt((1 - P_key) * q * (1 - q) / k)
    return (P_code - predicted) / np.maximum(se, 1e-12)


def low_dim_pairs(rng, n_pairs=5, d=10):
    u = np.abs(rng.normal(size=(n_pairs, d)))
    v = np.abs(u + 0.7 * rng.normal(size=(n_pairs, d)))
    X = np.empty((2 * n_pairs, d))
    X[0::2], X[1::2] = u, v
    return X


@pytest.mark.parametrize("n_bits", [1, 2, 4, 8])
@pytest.mark.parametrize("include_t", [True, False])
def test_bbit_collision_formula(rng, global_random_seed, n_bits, include_t):
    """P_b = P_key + (1 - P_key) 2^-b with a fresh hash per sample."""
    X = low_dim_pairs(rng)
    _, P_key, P_code, _, _ = _key_and_code_rates(
        X, global_random_seed, n_bits, include_t
    )
    assert np.all(np.abs(_bbit_z(P_key, P_code, n_bits)) <= 4), _bbit_z(
        P_key, P_code, n_bits
    )


def test_shared_code_hash_fails_the_formula(rng, global_random_seed):
    """Regression: a code hash shared by all samples j (or the raw low bits of
    i*) breaks the b-bit formula on low-dimensional data (spec section 3);
    the same measurement passes with the per-sample hash."""
    X = low_dim_pairs(rng)
    gcws, P_key, P_code, i_star, t_star = _key_and_code_rates(
        X, global_random_seed, 1, False
    )
    assert np.all(np.abs(_bbit_z(P_key, P_code, 1)) <= 4)
    shared = code_hash(gcws.seed_, i_star, t_star, 0, 1, include_t=False)
    z_shared = _bbit_z(P_key, collision_rate(shared[0::2], shared[1::2]), 1)
    assert np.abs(z_shared).max() > 4, z_shared
    low_bits = i_star & 1
    z_low = _bbit_z(P_key, collision_rate(low_bits[0::2], low_bits[1::2]), 1)
    assert np.abs(z_low).max() > 4, z_low


# ---------------------------------------------------------------------------
# Feature map and kernel estimate


def _sd(G, n_bits, k):
    q = 2.0**-n_bits
    P = G + (1 - G) * q
    return np.sqrt(P * (1 - P) / k) / (1 - q)


def test_feature_map_structure(rng, global_random_seed):
    X = rng.normal(size=(30, 8))
    k, b = 64, 4
    gcws = GCWSSampler(n_components=k, n_bits=b, random_state=global_random_seed)
    Xt = gcws.fit_transform(X)
    assert sp.issparse(Xt) and Xt.format == "csr" and Xt.dtype == np.float64
    assert Xt.shape == (30, k * 2**b)
    np.testing.assert_array_equal(np.diff(Xt.indptr), k)
    np.testing.assert_array_equal(Xt.data, 1 / np.sqrt(k))
    codes = gcws.hash_codes(X)
    assert codes.min() >= 0 and codes.max() < 2**b
    # Column of sample j is j 2^b + code_j.
    np.testing.assert_array_equal(
        Xt.indices.reshape(30, k), codes + (np.arange(k) << b)
    )
    P = (Xt @ Xt.T).toarray()
    agree = (codes[:, None, :] == codes[None, :, :]).sum(axis=2)
    np.testing.assert_array_equal(np.rint(P * k).astype(int), agree)
    np.testing.assert_allclose(P, agree / k, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.diag(P), 1.0, atol=1e-12)
    # PSD by construction.
    assert np.linalg.eigvalsh(P).min() >= -1e-10


def test_estimate_kernel_accuracy(rng, global_random_seed):
    """Full mode is unbiased: max error <= 5 SD over the 1225 pairs
    (Bonferroni: 1225 x 5.7e-7), mean error <= 1.5 mean SD (E|e| ~ 0.8 SD)."""
    X = rng.normal(size=(50, 10))
    k, b = 4096, 8
    gcws = GCWSSampler(n_components=k, n_bits=b, random_state=global_random_seed)
    K_hat = gcws.estimate_kernel(gcws.fit_transform(X))
    G = gmm_kernel(X)
    iu = np.triu_indices(50, k=1)
    err, sd = (K_hat - G)[iu], _sd(G[iu], b, k)
    assert np.all(np.abs(err) <= 5 * sd), np.max(np.abs(err) / sd)
    assert np.abs(err).mean() <= 1.5 * sd.mean()
    np.testing.assert_allclose(np.diag(K_hat), 1.0)
    Xt2 = gcws.transform(X[:5])
    np.testing.assert_allclose(gcws.estimate_kernel(Xt2, gcws.transform(X)), K_hat[:5])
    np.testing.assert_allclose(gcws.estimate_kernel(Xt2.toarray()), K_hat[:5, :5])


def test_zero_bit_mode_bias_is_not_negative(rng, global_random_seed):
    """0-bit GCWS: P[i*(u) = i*(v)] >= GMM, so the estimate is >= GMM - 4 SE."""
    X = low_dim_pairs(rng, n_pairs=20, d=5)
    k, b = 4096, 8
    gcws = GCWSSampler(
        n_components=k, n_bits=b, include_t=False, random_state=global_random_seed
    )
    K_hat = gcws.estimate_kernel(gcws.fit_transform(X))
    G = gmm_kernel(X)
    iu = np.triu_indices(len(X), k=1)
    # 190 pairs at 4 SE one-sided (3e-5 each): 6e-3 per seed.
    assert np.all((K_hat - G)[iu] >= -4 * _sd(G[iu], b, k))


# ---------------------------------------------------------------------------
# Determinism and layouts


def test_codes_do_not_depend_on_layout(rng, global_random_seed):
    X = rng.normal(size=(40, 12))
    X[rng.random(X.shape) < 0.5] = 0
    X[3] = 0
    gcws = GCWSSampler(n_components=32, random_state=global_random_seed).fit(X)
    codes = gcws.hash_codes(X)
    perm = rng.permutation(40)
    np.testing.assert_array_equal(gcws.hash_codes(X[perm]), codes[perm])
    np.testing.assert_array_equal(
        np.vstack([gcws.hash_codes(X[:7]), gcws.hash_codes(X[7:])]), codes
    )
    for layout in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        np.testing.assert_array_equal(gcws.hash_codes(layout(X)), codes)
    np.testing.assert_array_equal(
        gcws.hash_codes(X.astype(np.float32).astype(np.float64)),
        gcws.hash_codes(X.astype(np.float32)),
    )
    # Unsorted indices, duplicates summing to the value, explicit (+-) zeros.
    A = sp.csr_matrix(X)
    rows = np.repeat(np.arange(40), np.diff(A.indptr))
    order = rng.permutation(A.nnz)
    half = 0.5 * A.data[order]
    ragged = sp.csr_matrix(
        (
            np.concatenate([half, half, [0.0, -0.0]]),
            (
                np.concatenate([rows[order]] * 2 + [[3, 5]]),
                np.concatenate([A.indices[order]] * 2 + [[0, 1]]),
            ),
        ),
        shape=X.shape,
    )
    ragged.has_canonical_format = False
    np.testing.assert_array_equal(gcws.hash_codes(ragged), codes)
    # Table and hash paths, and a table covering only some indices.
    for cap in (0, 24 * 32 * 5):
        other = GCWSSampler(
            n_components=32, max_table_bytes=cap, random_state=global_random_seed
        ).fit(X)
        assert other.n_table_indices_ == cap // (24 * 32)
        np.testing.assert_array_equal(other.hash_codes(X), codes)


def test_serial_and_parallel_kernels_agree(rng):
    """Small inputs run on one thread, batches in parallel: same codes."""
    X = sp.csr_matrix(rng.normal(size=(50, 30)))
    gcws = GCWSSampler(n_components=16, random_state=0).fit(X)
    out = []
    for kernel in (_gcws_numba._gcws_rows_serial, _gcws_numba._gcws_rows_parallel):
        codes = np.empty((50, 16), dtype=np.int64)
        no_raw = np.empty((0, 0), dtype=np.int64)
        kernel(
            X.indptr,
            X.indices,
            X.data,
            gcws._streams(),
            gcws._table,
            16,
            8,
            True,
            codes,
            no_raw,
            no_raw,
        )
        out.append(codes)
    np.testing.assert_array_equal(out[0], out[1])
    np.testing.assert_array_equal(out[0], gcws.hash_codes(X))


def test_extreme_magnitudes(rng):
    """Logs keep tiny and huge values usable: GMM is scale invariant, so
    rescaling both rows of a pair keeps the collision rate near GMM."""
    X = np.abs(rng.normal(size=(2, 6)))
    G = gmm_kernel(X)[0, 1]
    k = 20_000
    for scale in (1e-300, 1e300):
        gcws = GCWSSampler(n_components=k, random_state=0).fit(X)
        i_star, t_star = gcws.hash_codes(scale * X, raw=True)
        P = ((i_star[0] == i_star[1]) & (t_star[0] == t_star[1])).mean()
        assert abs(P - G) <= 4 * np.sqrt(G * (1 - G) / k)


def test_seeds(global_random_seed):
    X = np.abs(np.random.default_rng(0).normal(size=(5, 30)))
    a = GCWSSampler(n_components=64, random_state=global_random_seed).fit(X)
    b = GCWSSampler(n_components=64, random_state=global_random_seed).fit(X)
    c = GCWSSampler(n_components=64, random_state=global_random_seed + 1).fit(X)
    assert a.seed_ == b.seed_ != c.seed_
    np.testing.assert_array_equal(a.hash_codes(X), b.hash_codes(X))
    assert (a.hash_codes(X) != c.hash_codes(X)).mean() > 0.5


def test_float32_and_float64_inputs_give_identical_codes(rng):
    X32 = rng.normal(size=(20, 6)).astype(np.float32)
    gcws = GCWSSampler(n_components=128, random_state=0).fit(X32)
    np.testing.assert_array_equal(
        gcws.hash_codes(X32), gcws.hash_codes(X32.astype(np.float64))
    )
    Xt = gcws.transform(X32)
    assert Xt.dtype == np.float64
    assert (Xt != gcws.transform(X32.astype(np.float64))).nnz == 0


# ---------------------------------------------------------------------------
# Edge cases


def test_zero_rows():
    X = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.0], [-0.0, 0.0, 0.0]])
    gcws = GCWSSampler(n_components=16, random_state=0).fit(X)
    Xt = gcws.transform(X)
    np.testing.assert_array_equal(np.diff(Xt.indptr), [0, 16, 0])
    codes = gcws.hash_codes(X)
    np.testing.assert_array_equal(codes[[0, 2]], -1)
    assert codes[1].min() >= 0
    i_star, t_star = gcws.hash_codes(X, raw=True)
    np.testing.assert_array_equal(i_star[0], -1)
    np.testing.assert_array_equal(t_star[0], 0)
    assert set(i_star[1]) <= {0, 3}  # sign-split slots of +1 and -2
    K = gcws.estimate_kernel(Xt)
    np.testing.assert_array_equal(K[0], 0.0)
    np.testing.assert_array_equal(K[:, 2], 0.0)
    assert K[1, 1] == 1.0
    strict = GCWSSampler(n_components=16, zero_row="error", random_state=0).fit(X)
    with pytest.raises(ValueError, match=r"2 all-zero row\(s\) \(first: row 0\)"):
        strict.transform(X)
    with pytest.raises(ValueError, match="all-zero row"):
        strict.hash_codes(sp.csr_matrix(X))
    strict.transform(X[1:2])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_raises(bad):
    X = np.ones((3, 2))
    gcws = GCWSSampler(n_components=8, random_state=0).fit(X)
    X[1, 0] = bad
    with pytest.raises(ValueError, match="Input X contains (NaN|infinity)"):
        gcws.transform(X)
    with pytest.raises(ValueError, match="Input X contains (NaN|infinity)"):
        GCWSSampler().fit(X)


def test_huge_sparse_dimension():
    """10^7 features, 5 nonzeros per row: hashed randomness, table capped."""
    d = 10**7
    rng = np.random.default_rng(0)
    cols = rng.choice(d, size=(3, 5), replace=False)
    X = sp.csr_matrix((rng.normal(size=15), cols.ravel(), [0, 5, 10, 15]), shape=(3, d))
    k = 256
    gcws = GCWSSampler(n_components=k, max_table_bytes=2**20, random_state=0).fit(X)
    assert gcws.n_table_indices_ == 2**20 // (24 * k)
    i_star, _ = gcws.hash_codes(X, raw=True)
    assert set(np.unique(i_star // 2)) <= set(cols.ravel())
    assert np.unique(i_star).size > 5  # the large indices are sampled
    Xt = gcws.transform(X)
    assert Xt.shape == (3, k * 256) and Xt.nnz == 3 * k


def test_more_columns_than_int32():
    """k 2^b = 2^32 columns: int64 indices, and estimate_kernel does not
    allocate per column."""
    X = np.array([[1.0, 2.0, 0.0], [0.5, 0.0, 3.0]])
    k = 2**12
    gcws = GCWSSampler(n_components=k, n_bits=20, random_state=0).fit(X)
    Xt = gcws.transform(X)
    assert Xt.shape == (2, 2**32) and Xt.indices.dtype == np.int64
    G = gmm_kernel(X)
    assert np.all(np.abs(gcws.estimate_kernel(Xt) - G) <= 4 * _sd(G, 20, k) + 1e-12)


def test_invalid_parameters_and_inputs():
    X = np.ones((3, 4))
    with pytest.raises(ValueError, match="'n_bits' parameter of GCWSSampler"):
        GCWSSampler(n_bits=0).fit(X)
    with pytest.raises(ValueError, match="'n_bits' parameter of GCWSSampler"):
        GCWSSampler(n_bits=25).fit(X)
    with pytest.raises(ValueError, match="'zero_row' parameter of GCWSSampler"):
        GCWSSampler(zero_row="skip").fit(X)
    with pytest.raises(ValueError, match="'max_table_bytes' parameter"):
        GCWSSampler(max_table_bytes=-1).fit(X)
    gcws = GCWSSampler(n_components=8, n_bits=2, random_state=0).fit(X)
    with pytest.raises(
        ValueError, match="X has 5 features, but GCWSSampler is expecting 4"
    ):
        gcws.transform(np.ones((3, 5)))
    with pytest.raises(
        ValueError, match=r"Xt must be the output of transform, with .* = 32 columns"
    ):
        gcws.estimate_kernel(np.ones((3, 4)))
    with pytest.raises(ValueError, match="Yt must be the output of transform"):
        gcws.estimate_kernel(gcws.transform(X), sp.csr_matrix((3, 31)))


def test_feature_names_out():
    gcws = GCWSSampler(n_components=2, n_bits=1, random_state=0).fit(np.ones((2, 3)))
    np.testing.assert_array_equal(
        gcws.get_feature_names_out(), [f"gcwssampler{i}" for i in range(4)]
    )


def test_linear_model_pipeline():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    X, y = load_digits(return_X_y=True)
    model = make_pipeline(GCWSSampler(n_components=128, random_state=0), LinearSVC())
    # About 0.95 (benchmarks/bench_gcws_classification.py); below 0.9 means
    # the features lost the kernel.
    assert cross_val_score(model, X, y, cv=3).mean() > 0.9
