"""Speed of the MMD tests, as ratios against named baselines measured in the same run.

(a) Exact quadratic test (``MMDTest(transformer=None)``) vs a plain numpy GEMM
    exact permutation test vs ``hyppo.ksample.MMD(...).test(auto=False)``, and the
    linear-time test (RFF, D=1024) vs hyppo, at n = 500, 1000, 2000 per sample,
    B = 999. hyppo runs in its own interpreter (``--hyppo-python``, by default
    this one if it imports hyppo, else /tmp/venv-hyppo/bin/python); its time
    for B = 999 is extrapolated linearly from two small rep counts unless
    ``--hyppo-full`` (its cost is linear in the reps: one O(N^2) statistic
    per rep). The column is skipped, with a note, if hyppo is not importable.
(b) Linear-time test, each transformer of TRANSFORMERS (D=1024), at N = 10^3 ..
    10^6 pooled points, d = 10, B = 999: seconds and peak resident memory, each
    size in a fresh process (target at N = 10^6: <= 60 s and <= 2 GB).
(c) The FastMMD Table 1 shape (N = 9963 = 4015 + 5948, d = 21504, L = 1024,
    sparse nonnegative L1-normalized rows, bandwidth 10^-2.2): the statistic,
    exact vs each transformer, seconds and relative error.
(d) The N = 10^6 pooled test (d = 10, D = 1024, B = 999, RFF) stage by stage,
    in a fresh process after a small warm-up fit (numba's cached kernels
    loaded): each stage's time next to its lower bound from GEMM, sincos and
    memory throughput measured in the same process, their ratio, and the
    process's peak resident memory.
(e) RFF transform (N = 10^5, d = 100, D = 1024): float64 against its GEMM +
    sincos + output-write bound, float32 against scikit-learn's RBFSampler.

Timings are the minimum over ``--repeats`` runs, interleaved. On a shared
machine absolute times are noisy: read the ratios, and re-run on an idle one.

    python benchmarks/bench_mmd_speed.py            # a few minutes
    python benchmarks/bench_mmd_speed.py --quick    # smaller sizes
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

import numpy as np
import scipy.sparse as sp

from skmmd import MMDTest, RandomFourierSampler
from skmmd.kernels import median_bandwidth
from skmmd.statistics import mmd2_exact, mmd2_features

# Transformers of the linear-time rows: name -> factory(n_components, seed).
TRANSFORMERS = {
    "rff": lambda n_components, seed: RandomFourierSampler(
        n_components=n_components, random_state=seed
    ),
}


def _in_fresh_process(*args):
    """Run this script with ``args`` in a new process (its own peak RSS) and
    return the JSON of its last output line."""
    proc = subprocess.run(
        [sys.executable, __file__, *map(str, args)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def numpy_exact_permutation_test(X, Y, bandwidth, n_resamples, seed):
    """Baseline: the whole Gram matrix, all permutations as one 0/1 GEMM."""
    P = np.vstack([X, Y])
    N, m = P.shape[0], X.shape[0]
    n = N - m
    sq = np.einsum("ij,ij->i", P, P)
    K = np.exp(-(sq[:, None] + sq[None, :] - 2 * P @ P.T) / (2 * bandwidth**2))
    rng = np.random.default_rng(seed)
    A = np.zeros((n_resamples + 1, N))
    A[0, :m] = 1
    for b in range(1, n_resamples + 1):
        A[b, rng.permutation(N)[:m]] = 1
    KA = K @ A.T
    r = K.sum(axis=1)
    P_xx = np.einsum("bi,ib->b", A, KA)
    ar, total, d_x = A @ r, r.sum(), A @ np.diag(K)
    stat = (
        (P_xx - d_x) / (m * (m - 1))
        + (total - 2 * ar + P_xx - (np.trace(K) - d_x)) / (n * (n - 1))
        - 2 * (ar - P_xx) / (m * n)
    )
    return stat[0], (1 + np.sum(stat[1:] >= stat[0])) / (n_resamples + 1)


_HYPPO_SNIPPET = """
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from hyppo.ksample import MMD
x, y = np.load(sys.argv[1]), np.load(sys.argv[2])
MMD().test(x[:20], y[:20], reps=2, auto=False, random_state=0)  # JIT warm-up
out = {}
for reps in map(int, sys.argv[3:]):
    start = time.perf_counter()
    MMD().test(x, y, reps=reps, auto=False, random_state=0)
    out[reps] = time.perf_counter() - start
print(json.dumps(out))
"""


def _hyppo_python(requested):
    candidates = (
        [requested] if requested else [sys.executable, "/tmp/venv-hyppo/bin/python"]
    )
    for python in candidates:
        if python and Path(python).exists():
            ok = (
                subprocess.run(
                    [python, "-c", "import hyppo"], capture_output=True
                ).returncode
                == 0
            )
            if ok:
                return python
    return None


def hyppo_seconds(python, X, Y, n_resamples, full):
    """hyppo's time for n_resamples reps (extrapolated unless full)."""
    with tempfile.TemporaryDirectory() as tmp:
        fx, fy = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
        np.save(fx, X)
        np.save(fy, Y)
        reps = [n_resamples] if full else [5, 15]
        proc = subprocess.run(
            [python, "-c", _HYPPO_SNIPPET, fx, fy, *map(str, reps)],
            capture_output=True,
            text=True,
            check=True,
        )
    times = {int(k): v for k, v in json.loads(proc.stdout).items()}
    if full:
        return times[n_resamples], "full"
    (r1, t1), (r2, t2) = sorted(times.items())
    slope = (t2 - t1) / (r2 - r1)
    return t1 + slope * (n_resamples - r1), f"extrapolated from {r1},{r2} reps"


def _best(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        start = perf_counter()
        fn()
        best = min(best, perf_counter() - start)
    return best


def bench_exact(sizes, n_resamples, repeats, hyppo_python, hyppo_full):
    print(
        "\n(a) exact permutation test vs plain numpy GEMM test vs hyppo, d=10, "
        f"B={n_resamples}"
    )
    if hyppo_python is None:
        print(
            "    note: hyppo is not importable (pass --hyppo-python PATH); "
            "hyppo columns skipped"
        )
    header = (
        f"{'n/sample':>8} {'numpy (s)':>10} {'skmmd exact':>11} {'ratio':>6} "
        f"{'skmmd RFF':>10} {'hyppo (s)':>10} {'hyppo/exact':>11} "
        f"{'hyppo/RFF':>10}"
    )
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    for n in sizes:
        X, Y = rng.normal(size=(n, 10)), rng.normal(size=(n, 10))
        bw = median_bandwidth(np.vstack([X, Y]), random_state=0)
        times = {"numpy": np.inf, "exact": np.inf, "rff": np.inf}
        for _ in range(repeats):  # interleaved
            times["numpy"] = min(
                times["numpy"],
                _best(
                    lambda: numpy_exact_permutation_test(X, Y, bw, n_resamples, 0), 1
                ),
            )
            times["exact"] = min(
                times["exact"],
                _best(
                    lambda: MMDTest(
                        None, bandwidth=bw, n_resamples=n_resamples, random_state=0
                    ).fit(X, Y),
                    1,
                ),
            )
            times["rff"] = min(
                times["rff"],
                _best(
                    lambda: MMDTest(
                        TRANSFORMERS["rff"](1024, 0),
                        n_resamples=n_resamples,
                        random_state=0,
                    ).fit(X, Y),
                    1,
                ),
            )
        row = (
            f"{n:>8} {times['numpy']:>10.3f} {times['exact']:>11.3f} "
            f"{times['exact'] / times['numpy']:>6.2f} {times['rff']:>10.3f}"
        )
        if hyppo_python is not None:
            t_h, how = hyppo_seconds(hyppo_python, X, Y, n_resamples, hyppo_full)
            row += (
                f" {t_h:>10.1f} {t_h / times['exact']:>11.0f} "
                f"{t_h / times['rff']:>10.0f}  ({how})"
            )
        print(row, flush=True)
    print(
        "ratio = skmmd exact / numpy baseline (target <= 1.2); hyppo/RFF: "
        "speed-up of the linear-time test (target >= 1000 at n=2000)"
    )


def _one_linear(name, N, n_resamples, n_components):
    """Child process: time one linear-time test, report seconds and peak RSS."""
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(N // 2, 10)), rng.normal(size=(N - N // 2, 10))
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = perf_counter()
    test = MMDTest(
        TRANSFORMERS[name](n_components, 0), n_resamples=n_resamples, random_state=0
    ).fit(X, Y)
    seconds = perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "seconds": seconds,
                "peak_mb": rss,
                "before_mb": rss0,
                "unit": test.resample_unit_,
                "p": test.p_value_,
            }
        )
    )


def bench_linear(sizes, n_resamples, n_components):
    print(
        f"\n(b) linear-time test, d=10, D={n_components}, B={n_resamples} "
        "(fresh process per row; peak RSS includes the data and the interpreter)"
    )
    header = (
        f"{'transformer':<12} {'N':>9} {'seconds':>8} {'us/point':>9} "
        f"{'peak MB':>8} {'data+imports MB':>15} {'unit':>5}"
    )
    print(header)
    print("-" * len(header))
    for name in TRANSFORMERS:
        for N in sizes:
            r = _in_fresh_process("--one-linear", name, N, n_resamples, n_components)
            print(
                f"{name:<12} {N:>9} {r['seconds']:>8.2f} "
                f"{1e6 * r['seconds'] / N:>9.2f} {r['peak_mb']:>8.0f} "
                f"{r['before_mb']:>15.0f} {r['unit']:>5}",
                flush=True,
            )
    print("target at N=10^6: <= 60 s, <= 2048 MB peak")


def _throughputs():
    """Machine rates measured now: GEMM flop/s, sincos pairs/s (the library's
    numba sincos, all threads, each on a cache-resident row, as in the fused
    kernel), memory bytes/s (copy: read + write)."""
    import numba
    from numba import prange

    from skmmd.kernel_approximation._trig import SINCOS_CONSTANTS, _sincos

    @numba.njit(parallel=True)
    def sincos_rows(P, reps, C, S, k):
        # Each thread: the sincos of its own cache-resident row, reps times.
        for t in prange(P.shape[0]):
            for _ in range(reps):
                for j in range(P.shape[1]):
                    s, c = _sincos(P[t, j], k)
                    C[t, j] = c
                    S[t, j] = s

    rng = np.random.default_rng(0)
    A = rng.normal(size=(2048, 2048))
    A @ A
    gemm = 2 * 2048**3 / _best(lambda: A @ A, 3)
    kernel = sincos_rows
    threads = numba.get_num_threads()
    P = rng.normal(size=(threads, 512)) * 3
    C, S = np.empty_like(P), np.empty_like(P)
    kernel(P, 1, C, S, SINCOS_CONSTANTS)
    reps = 20_000
    pairs = reps * P.size / _best(lambda: kernel(P, reps, C, S, SINCOS_CONSTANTS), 3)
    src, dst = np.ones(2**25), np.empty(2**25)  # 256 MB each
    np.copyto(dst, src)
    memory = 2 * src.nbytes / _best(lambda: np.copyto(dst, src), 3)
    return gemm, pairs, memory


class _StageTimer:
    """Wraps library functions to add up the time spent in each (stages)."""

    def __init__(self):
        self.seconds = {}
        self._undo = []

    def wrap(self, owner, name, stage):
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            start = perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[stage] = self.seconds.get(stage, 0.0) + (
                    perf_counter() - start
                )

        setattr(owner, name, timed)
        self._undo.append((owner, name, original))

    def restore(self):
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)


def _one_stages(N, n_resamples, n_components, repeats):
    """Child process of (d): stage times, bounds and peak RSS as JSON."""
    from skmmd._inference import _inputs, _streaming
    from skmmd.two_sample import _mmd, _resampled, _results

    d = 10
    rss_import = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(N // 2, d)), rng.normal(size=(N - N // 2, d))

    def fit():
        return MMDTest(
            RandomFourierSampler(n_components=n_components, random_state=0),
            n_resamples=n_resamples,
            random_state=0,
        ).fit(X, Y)

    start = perf_counter()
    MMDTest(
        RandomFourierSampler(n_components=n_components, random_state=0),
        n_resamples=99,
        random_state=0,
    ).fit(X[:5000], Y[:5000])
    warm_up = perf_counter() - start
    rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    best, stages, test = np.inf, None, None
    for _ in range(repeats):
        timer = _StageTimer()
        timer.wrap(_inputs, "two_samples", "input validation")
        timer.wrap(_mmd.MMDTest, "_fit_rows", "transformer fit rows")
        timer.wrap(RandomFourierSampler, "fit", "transformer fit (median)")
        timer.wrap(_streaming.Stream, "add", "features -> unit sums")
        timer.wrap(_streaming.Stream, "sums", "unit sums -> calibration input")
        timer.wrap(_resampled, "draw_counts", "draw permutations")
        timer.wrap(_resampled, "products", "permutation products")
        timer.wrap(_resampled, "_statistics", "statistics (incl. products)")
        timer.wrap(_results, "result", "effect size (result_)")
        start = perf_counter()
        test = fit()
        total = perf_counter() - start
        timer.restore()
        if total < best:
            best, stages = total, dict(timer.seconds)
    rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    stages["statistics from products"] = (
        stages.pop("statistics (incl. products)") - stages["permutation products"]
    )
    gemm, pairs, memory = _throughputs()
    G = sum(test._stream.sums()[0].n_units)
    L = n_components // 2
    bounds = {
        "input validation": 8 * N * d / memory,  # one pass over the data
        "features -> unit sums": 2 * N * d * L / gemm + N * L / pairs,
        "draw permutations": 8 * n_resamples * G / (memory / 2),  # write A
        "permutation products": 2 * n_resamples * G * n_components / gemm,
        "effect size (result_)": 8 * G * n_components / memory,  # read U
    }
    print(
        json.dumps(
            {
                "total": best,
                "stages": stages,
                "bounds": bounds,
                "rates": [gemm, pairs, memory],
                "rss_import": rss_import,
                "rss_data": rss_data,
                "rss_peak": rss_peak,
                "warm_up": warm_up,
                "unit": test.resample_unit_,
                "units": G,
            }
        )
    )


def bench_stages(N, n_resamples, n_components, repeats):
    print(
        f"\n(d) N={N} pooled, d=10, D={n_components}, B={n_resamples}, RFF: stages "
        "vs lower bounds measured in the same process (fresh process)"
    )
    r = _in_fresh_process("--one-stages", N, n_resamples, n_components, repeats)
    gemm, pairs, memory = r["rates"]
    print(
        f"    rates: GEMM {gemm / 1e9:.0f} GFLOP/s, sincos {pairs / 1e9:.2f}e9 "
        f"pairs/s, memory {memory / 1e9:.1f} GB/s; unit {r['unit']}, "
        f"{r['units']} units"
    )
    header = f"{'stage':<32} {'seconds':>8} {'bound':>8} {'ratio':>6}"
    print(header)
    print("-" * len(header))
    attributed = 0.0
    for stage, seconds in r["stages"].items():
        attributed += seconds
        bound = r["bounds"].get(stage)
        tail = f"{bound:>8.3f} {seconds / bound:>6.2f}" if bound else f"{'-':>8}"
        print(f"{stage:<32} {seconds:>8.3f} {tail}")
    # Nested stages: the transformer's fit runs inside nothing else timed.
    print(f"{'other (unattributed)':<32} {r['total'] - attributed:>8.3f}")
    bound = sum(r["bounds"].values())
    print(
        f"{'total fit':<32} {r['total']:>8.3f} {bound:>8.3f} "
        f"{r['total'] / bound:>6.2f}   (min of {repeats}; target <= 3 s idle)"
    )
    print(
        f"    peak RSS {r['rss_peak']:.0f} MB (target <= 1024); after imports "
        f"{r['rss_import']:.0f} MB, after data and warm-up {r['rss_data']:.0f} MB; "
        f"warm-up fit (kernels loaded) {r['warm_up']:.1f} s"
    )


def bench_transform(repeats):
    from sklearn.kernel_approximation import RBFSampler

    N, d, D = 100_000, 100, 1024
    print(
        f"\n(e) RFF transform N={N}, d={d}, D={D}: float64 vs the GEMM + sincos "
        "+ output-write bound, float32 vs sklearn RBFSampler (same run)"
    )
    gemm, pairs, memory = _throughputs()
    X = np.random.default_rng(0).normal(size=(N, d))
    header = f"{'dtype':<8} {'skmmd (s)':>10} {'bound (s)':>10} {'ratio':>6} "
    header += f"{'RBFSampler (s)':>15} {'speed-up':>9}"
    print(header)
    print("-" * len(header))
    for dtype in (np.float64, np.float32):
        Xd = X.astype(dtype)
        ours = RandomFourierSampler(n_components=D, bandwidth=10.0, random_state=0)
        sk = RBFSampler(n_components=D, gamma=0.005, random_state=0)
        ours.fit(Xd).transform(Xd[:1000])
        sk.fit(Xd).transform(Xd[:1000])
        t_ours, t_sk = np.inf, np.inf
        for _ in range(repeats):  # interleaved
            t_ours = min(t_ours, _best(lambda: ours.transform(Xd), 1))
            t_sk = min(t_sk, _best(lambda: sk.transform(Xd), 1))
        itemsize = np.dtype(dtype).itemsize
        # float32 GEMM and writes run at about twice the float64 rates.
        speed = 8 / itemsize
        bound = (
            2 * N * d * (D // 2) / (gemm * speed)
            + N * (D // 2) / pairs
            + N * D * itemsize / (memory / 2)
        )
        print(
            f"{np.dtype(dtype).name:<8} {t_ours:>10.3f} {bound:>10.3f} "
            f"{t_ours / bound:>6.2f} {t_sk:>15.3f} {t_sk / t_ours:>9.2f}"
        )
    print(
        "targets: float64 ratio <= 1.5; float32 speed-up >= 2 (float32's bound "
        "uses the float64 sincos rate, slower than float32's: it can be beaten)"
    )


def _table1_data(N_x, N_y, d, density, seed):
    rng = np.random.default_rng(seed)

    def sample(n, shift):
        M = sp.random(
            n,
            d,
            density=density,
            format="csr",
            random_state=rng,
            data_rvs=lambda k: rng.gamma(1.0 + shift, size=k),
        )
        M = M + sp.csr_matrix(  # no empty row
            (np.ones(n), (np.arange(n), rng.integers(0, d, size=n))), shape=(n, d)
        )
        rows = np.asarray(M.sum(axis=1)).ravel()
        return sp.diags(1.0 / rows) @ M

    return sample(N_x, 0.0).tocsr(), sample(N_y, 0.3).tocsr()


def bench_table1(N_x, N_y, d, density, n_components, repeats):
    print(
        f"\n(c) FastMMD Table 1 shape: N={N_x}+{N_y}, d={d}, L={n_components}, "
        f"sparse L1-normalized rows (density {density}), bandwidth 10^-2.2"
    )
    X, Y = _table1_data(N_x, N_y, d, density, 0)
    bw = 10**-2.2
    start = perf_counter()
    exact = mmd2_exact(X, Y, bandwidth=bw, statistic="biased")
    t_exact = perf_counter() - start
    header = (
        f"{'method':<12} {'MMD2_b':>10} {'rel. err':>9} {'seconds':>8} {'speed-up':>9}"
    )
    print(header)
    print("-" * len(header))
    print(f"{'exact':<12} {exact:>10.5f} {'-':>9} {t_exact:>8.2f} {'1':>9}")
    pooled = sp.vstack([X, Y]).tocsr()
    for name, factory in TRANSFORMERS.items():
        values = []

        def run():
            sampler = factory(n_components, len(values))
            sampler.set_params(bandwidth=bw).fit(pooled)
            values.append(
                mmd2_features(X, Y, statistic="biased", transform=sampler.transform)
            )

        seconds = _best(run, repeats)
        value = float(np.mean(values))
        print(
            f"{name:<12} {value:>10.5f} {abs(value - exact) / exact:>9.4f} "
            f"{seconds:>8.2f} {t_exact / seconds:>9.0f}"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-resamples", type=int, default=999)
    parser.add_argument("--hyppo-python", default=None)
    parser.add_argument(
        "--hyppo-full",
        action="store_true",
        help="run hyppo with all reps instead of extrapolating",
    )
    parser.add_argument(
        "--parts", default="abcde", help="which of a, b, c, d, e to run"
    )
    parser.add_argument(
        "--max-linear", type=float, default=1e6, help="largest N of part (b)"
    )
    parser.add_argument(
        "--density", type=float, default=0.01, help="nonzeros per row in part (c)"
    )
    parser.add_argument("--one-linear", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--one-stages", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one_linear:
        name, N, B, D = args.one_linear
        _one_linear(name, int(N), int(B), int(D))
        return
    if args.one_stages:
        _one_stages(*map(int, args.one_stages))
        return
    B = args.n_resamples
    if "a" in args.parts:
        sizes = [250, 500] if args.quick else [500, 1000, 2000]
        bench_exact(
            sizes, B, args.repeats, _hyppo_python(args.hyppo_python), args.hyppo_full
        )
    if "b" in args.parts:
        top = 1e5 if args.quick else args.max_linear
        sizes = [int(10**k) for k in range(3, 7) if 10**k <= top]
        bench_linear(sizes, B, 1024)
    if "c" in args.parts:
        if args.quick:
            bench_table1(1000, 1500, 21504, args.density, 1024, 1)
        else:
            bench_table1(4015, 5948, 21504, args.density, 1024, 2)
    if "d" in args.parts:
        bench_stages(10**5 if args.quick else 10**6, B, 1024, args.repeats)
    if "e" in args.parts:
        bench_transform(args.repeats)


if __name__ == "__main__":
    main()
