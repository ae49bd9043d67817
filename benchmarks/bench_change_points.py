"""Kernel change points (``KernelChangePoints``) beside ruptures.

- ``--exact``: the change points of exact dynamic programming on random
  features (``n_components`` >= 2048) against ruptures'
  ``KernelCPD(kernel="rbf")`` at the same bandwidth, on seeded signals of
  ``n`` = 2000 rows in d = 3 with 4 changes of the mean (ruptures'
  ``pw_constant``), of the variance, or of the shape at equal mean and
  variance (Gaussian, uniform, Laplace): the share of signals whose points
  all agree within +-2 rows; ``--frequencies``: how the features'
  frequencies are drawn (``sobol``, as the default map, ``iid`` or
  ``orthogonal``);
- ``--scale``: seconds (after the imports) and peak memory (a child
  process's maximum resident set) to locate 10 changes in d = 5 and test
  each against ``n`` up to 10^6, ours beside
  ruptures' ``KernelCPD`` and ``Pelt(model="rbf")`` until they fail (time
  limit or memory);
- ``--level``: the share of stationary AR(1) series without a change
  (``n`` = 2000, d = 2) in which any change is reported at alpha = 0.05,
  ``block_size="auto"`` at phi = 0.8, and exchangeable rows without blocks;
  beside ruptures' ``KernelCPD`` with the penalty ``log(n)``;
- ``--power``: a single change of the variance by 1.5x in the middle of
  ``n`` = 2000 rows of AR(1) at phi = 0.5: the share of series in which a
  change is reported within +-20 rows of it; beside it an oracle that knows
  there is one change, of the variance (and, whitened, phi): the Gaussian
  likelihood ratio's location;
- ``--bound``: on the same series, what no method can beat: the share in
  which the Bayes rule for "within +-20 rows" (under a uniform prior on the
  change's row, knowing phi, both variances and that there is exactly one
  change) places the change within +-20 rows, and the likelihood's maximum
  with the same knowledge; numpy only, so ``--reps`` can be large;
- ``--locate``: on the same series, the share in which the split of least
  kernel cost (one change) falls within +-20 rows of the change, at
  multiples of the median bandwidth;
- ``--tcpd``: the series of the Turing change point benchmark that river
  ships (``river.drift.datasets``), F1 (margin 5) and cover against their
  annotations, ours beside ruptures' kernel and binary segmentation.

Each line printed is one cell: the experiment, the method, the setting and
the figure.

    python benchmarks/bench_change_points.py --exact --reps 200
    python benchmarks/bench_change_points.py --exact --reps 200 --frequencies iid
    python benchmarks/bench_change_points.py --exact --reps 200 --kinds shape \
        --n-components 8192
    python benchmarks/bench_change_points.py --scale
    python benchmarks/bench_change_points.py --bound --reps 10000
    python benchmarks/bench_change_points.py --level --reps 500
    python benchmarks/bench_change_points.py --level --reps 200 \
        --exchangeable-reps 400 --skip-ruptures
    python benchmarks/bench_change_points.py --power --reps 200
    python benchmarks/bench_change_points.py --locate --reps 200 --dims 5 1 \
        --factors 0.25 0.5 1.0
    python benchmarks/bench_change_points.py --tcpd
"""

import argparse
import json
import subprocess
import sys
import time
import warnings

import numpy as np
from scipy import signal as scipy_signal

import skmmd
from skmmd import RandomFourierSampler
from skmmd.change_points._cost import SegmentCost
from skmmd.change_points._search import dynamic_programming
from skmmd.kernels import median_bandwidth

ALPHA = 0.05


def interval(hits, reps):
    """The rate and its 95 % Wilson interval, as text."""
    p, z = hits / reps, 1.96
    centre = (p + z**2 / (2 * reps)) / (1 + z**2 / reps)
    half = z * np.sqrt(p * (1 - p) / reps + z**2 / (4 * reps**2)) / (1 + z**2 / reps)
    return f"{p:.3f} [{centre - half:.3f}, {centre + half:.3f}] ({hits}/{reps})"


def ar1(rng, n, phi, d):
    """A stationary AR(1) series with N(0, 1) marginals."""
    start = rng.normal(size=(1, d))
    noise = rng.normal(size=(n - 1, d)) * np.sqrt(1 - phi**2)
    rest, _ = scipy_signal.lfilter([1.0], [1.0, -phi], noise, axis=0, zi=phi * start)
    return np.vstack([start, rest])


# ------------------------------------------------------------------ exactness
def _shape_rows(rng, kind, size):
    """Rows of mean 0 and variance 1 of a law of the given kind."""
    if kind == 0:
        return rng.normal(size=size)
    if kind == 1:
        return rng.uniform(-np.sqrt(3), np.sqrt(3), size=size)
    return rng.laplace(scale=1 / np.sqrt(2), size=size)


def exact_signal(seed, n=2000, d=3, n_changes=4):
    """A seeded signal of one of three kinds and its true change points."""
    import ruptures as rpt

    rng = np.random.default_rng(seed)
    kind = ("mean", "variance", "shape")[seed % 3]
    if kind == "mean":
        X, points = rpt.pw_constant(n, d, n_changes, noise_std=1.0, seed=seed)
        return kind, X, points[:-1]
    points = np.sort(rng.choice(np.arange(100, n - 100, 50), n_changes, False))
    edges = [0, *points.tolist(), n]
    X = np.empty((n, d))
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        if kind == "variance":
            X[a:b] = rng.normal(size=(b - a, d)) * (1.0 if i % 2 == 0 else 2.0)
        else:
            X[a:b] = _shape_rows(rng, i % 3, (b - a, d))
    return kind, X, points.tolist()


_FREQUENCIES = {
    "iid": {},
    "orthogonal": {"orthogonal": True},
    "sobol": {"qmc": "sobol"},
}


def run_exact(reps, n_components, kinds, frequencies):
    import ruptures as rpt

    agree, counts, times = {}, {}, []
    for seed in range(reps):
        kind, X, _ = exact_signal(seed)
        if kind not in kinds:
            continue
        # Seeded, so that a signal's bandwidth (the median distance over a
        # subsample of its rows) is the same in every run.
        bandwidth = median_bandwidth(X, random_state=seed)
        gamma = 1.0 / (2.0 * bandwidth**2)
        theirs = rpt.KernelCPD(kernel="rbf", params={"gamma": gamma}, min_size=2)
        theirs = np.array(theirs.fit(X).predict(n_bkps=4)[:-1])
        start = time.perf_counter()
        rff = RandomFourierSampler(
            bandwidth=bandwidth,
            n_components=n_components,
            random_state=seed,
            **_FREQUENCIES[frequencies],
        ).fit(X)
        ours = dynamic_programming(SegmentCost.of(rff.transform, X, n_components), 4, 2)
        times.append(time.perf_counter() - start)
        hit = bool(np.all(np.abs(ours - theirs) <= 2))
        agree[kind] = agree.get(kind, 0) + hit
        counts[kind] = counts.get(kind, 0) + 1
    setting = f"D={n_components} {frequencies}"
    for kind in counts:
        print(f"exact  {kind:9s} {setting}  {interval(agree[kind], counts[kind])}")
    total = sum(agree.values())
    print(f"exact  all       {setting}  {interval(total, sum(counts.values()))}")
    print(f"exact  seconds per signal (ours, {setting}): {np.median(times):.2f}")


# ---------------------------------------------------------------------- scale
_CHILD = """
import json, resource, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
method, n, d = sys.argv[1], int(sys.argv[2]), 5
rng = np.random.default_rng(0)
points = np.linspace(0, n, 12).astype(int)[1:-1]
X = rng.normal(size=(n, d))
for k, p in enumerate(points):
    X[p:] += 1.0 if k % 2 == 0 else -1.0
import ruptures as rpt
import skmmd
start = time.perf_counter()
if method == "skmmd":
    found = skmmd.KernelChangePoints(n_changes=10, random_state=0).fit(X).change_points_
else:
    gamma = 1.0 / (2.0 * 3.0**2)
    if method == "KernelCPD":
        algo = rpt.KernelCPD(kernel="rbf", params={"gamma": gamma}, min_size=2)
    else:
        algo = rpt.Pelt(model="rbf", min_size=2, jump=1)
    found = np.array(algo.fit(X).predict(n_bkps=10) if method == "KernelCPD"
                     else algo.fit(X).predict(pen=np.log(n)))[:-1]
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
close = int(np.sum([np.min(np.abs(np.asarray(found) - p)) <= 20 for p in points]))
print(json.dumps({"seconds": seconds, "peak_mb": peak, "found": close}))
"""


def run_scale(sizes, limit, memory_gb, methods):
    failed = set()
    for n in sizes:
        for method in methods:
            if method in failed:
                print(f"scale  {method:9s} n={n:>8d}  (not run: failed at a smaller n)")
                continue
            limits = f"ulimit -v {int(memory_gb * 2**20)}; "
            command = limits + f"{sys.executable} -c '{_CHILD}' {method} {n}"
            try:
                out = subprocess.run(
                    ["bash", "-c", command],
                    capture_output=True,
                    text=True,
                    timeout=limit,
                )
            except subprocess.TimeoutExpired:
                print(f"scale  {method:9s} n={n:>8d}  failed: over {limit} s")
                failed.add(method)
                continue
            if out.returncode != 0:
                reason = out.stderr.strip().splitlines()[-1:] or ["?"]
                print(f"scale  {method:9s} n={n:>8d}  failed: {reason[0][:100]}")
                failed.add(method)
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"scale  {method:9s} n={n:>8d}  {r['seconds']:8.2f} s  "
                f"{r['peak_mb']:8.0f} MB peak  {r['found']}/10 within 20 rows"
            )


# ---------------------------------------------------------------------- level
def run_level(reps, phi, block_size, with_ruptures):
    hits, ruptures_hits = 0, 0
    for seed in range(reps):
        rng = np.random.default_rng(seed)
        X = ar1(rng, 2000, phi, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cp = skmmd.KernelChangePoints(block_size=block_size, random_state=seed)
            hits += cp.fit(X).n_changes_ > 0
        if with_ruptures:
            import ruptures as rpt

            gamma = 1.0 / (2.0 * median_bandwidth(X) ** 2)
            algo = rpt.KernelCPD(kernel="rbf", params={"gamma": gamma}, min_size=2)
            ruptures_hits += len(algo.fit(X).predict(pen=np.log(2000))) > 1
    setting = f"AR(1) phi={phi} block_size={block_size!r}"
    print(f"level  skmmd      {setting}  {interval(hits, reps)}")
    if with_ruptures:
        print(f"level  KernelCPD pen=log(n) {setting}  {interval(ruptures_hits, reps)}")


def variance_lr_location(E):
    """The oracle's location of one change of variance in rows ``E`` of
    mean 0 and independent in time: the row that maximizes the Gaussian
    likelihood ratio ``-k d log s1^2 - (n - k) d log s2^2`` (``s1^2``,
    ``s2^2`` the mean squares before and after row ``k``)."""
    n, d = E.shape
    sums = np.cumsum((E**2).sum(axis=1))
    k = np.arange(2, n - 1)
    before = sums[k - 1] / (k * d)
    after = (sums[-1] - sums[k - 1]) / ((n - k) * d)
    return int(k[np.argmax(-k * np.log(before) - (n - k) * np.log(after))])


def power_series(seed, d, phi=0.5):
    """AR(1) rows whose innovations' variance grows 1.5x at row 1000."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=(2000, d))
    noise[1000:] *= np.sqrt(1.5)
    return scipy_signal.lfilter([1.0], [1.0, -phi], noise, axis=0)


def run_power(reps, d):
    hits, detected = 0, 0
    oracle = {"whitened": 0, "raw": 0}
    for seed in range(reps):
        X = power_series(seed, d)
        # The oracle knows there is one change, of the variance, and phi:
        # on the innovations X_t - phi X_{t-1} (row t), and on X itself.
        oracle["whitened"] += (
            abs(variance_lr_location(X[1:] - 0.5 * X[:-1]) + 1 - 1000) <= 20
        )
        oracle["raw"] += abs(variance_lr_location(X) - 1000) <= 20
        cp = skmmd.KernelChangePoints(block_size="auto", random_state=seed).fit(X)
        detected += cp.n_changes_ > 0
        hits += bool(np.any(np.abs(cp.change_points_ - 1000) <= 20))
    setting = f"variance x1.5 at 1000, AR(1) phi=0.5, d={d}"
    print(f"power  skmmd auto  {setting}  within 20: {interval(hits, reps)}")
    print(f"power  skmmd auto  {setting}  any change: {interval(detected, reps)}")
    for name, count in oracle.items():
        print(f"power  oracle LR {name}  {setting}  within 20: {interval(count, reps)}")


def bayes_locations(X, phi=0.5, ratio=1.5, margin=20):
    """The location of one change of the innovations' variance (1 before,
    ``ratio`` after) in AR(1) rows ``X`` at ``phi``, for a locator that knows
    all of that: the row of the likelihood's maximum, and the row whose
    window of +-``margin`` rows holds the most posterior mass under a
    uniform prior on the change's row (the Bayes rule for "within
    +-``margin``": no rule is right more often on average over the prior)."""
    E = X[1:] - phi * X[:-1]  # innovation t of row t + 1
    squares = np.concatenate([[0.0], np.cumsum((E**2).sum(axis=1))])
    n, d = E.shape
    j = np.arange(1, n)  # innovations j.. have the larger variance
    loglik = -0.5 * squares[j] - 0.5 * (squares[-1] - squares[j]) / ratio
    loglik -= 0.5 * (n - j) * d * np.log(ratio)
    posterior = np.exp(loglik - loglik.max())
    mass = np.convolve(posterior, np.ones(2 * margin + 1), mode="same")
    return int(j[np.argmax(loglik)] + 1), int(j[np.argmax(mass)] + 1)


def run_bound(reps, d):
    hits = np.zeros(2, dtype=int)
    for seed in range(reps):
        found = np.array(bayes_locations(power_series(seed, d)))
        hits += np.abs(found - 1000) <= 20
    setting = f"variance x1.5 at 1000, AR(1) phi=0.5, d={d}"
    for name, count in zip(("likelihood maximum", "Bayes rule +-20"), hits):
        print(f"bound  {name:18s} {setting}  within 20: {interval(count, reps)}")


def run_locate(reps, d, factors):
    """Where the split of least kernel cost (one change, the whole series)
    falls on the power series, at multiples of the median bandwidth: the
    location alone, without the test."""
    from skmmd.change_points._cost import default_map
    from skmmd.change_points._search import best_split

    hits = dict.fromkeys(factors, 0)
    for seed in range(reps):
        X = power_series(seed, d)
        median = median_bandwidth(X, random_state=seed)
        for factor in factors:
            rff = default_map(median * factor, *X.shape, seed).fit(X)
            cost = SegmentCost.of(rff.transform, X, rff.n_components)
            hits[factor] += abs(best_split(cost, 0, X.shape[0], 2)[1] - 1000) <= 20
    setting = f"variance x1.5 at 1000, AR(1) phi=0.5, d={d}"
    for factor, count in hits.items():
        print(
            f"locate least cost, bandwidth {factor} x median  {setting}  "
            f"within 20: {interval(count, reps)}"
        )


# ----------------------------------------------------------------------- TCPD
def f1_score(annotations, predicted, margin=5):
    """van den Burg & Williams' F1: precision against the union of the
    annotators' points, recall averaged over annotators, 0 counted as a
    change point by everyone; each point matched at most once."""

    def matched(truth, pred):
        used, hits = set(), 0
        for t in truth:
            close = [p for p in pred if abs(p - t) <= margin and p not in used]
            if close:
                used.add(min(close, key=lambda p: abs(p - t)))
                hits += 1
        return hits, used

    pred = sorted({0, *predicted})
    union = sorted({0, *(p for a in annotations.values() for p in a)})
    _, used = matched(union, pred)
    precision = len(used) / len(pred)
    recall = np.mean(
        [matched(sorted({0, *a}), pred)[0] / len({0, *a}) for a in annotations.values()]
    )
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def cover_score(annotations, predicted, n):
    """van den Burg & Williams' cover: the predicted partition's covering of
    each annotator's, averaged over annotators."""

    def parts(points):
        edges = sorted({0, *[p for p in points if 0 < p < n], n})
        return list(zip(edges[:-1], edges[1:]))

    def jaccard(a, b):
        inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
        return inter / (max(a[1], b[1]) - min(a[0], b[0]))

    pred = parts(predicted)
    covers = []
    for points in annotations.values():
        truth = parts(points)
        covers.append(
            sum((b - a) * max(jaccard((a, b), p) for p in pred) for a, b in truth) / n
        )
    return float(np.mean(covers))


# The columns TCPD annotates where river gives more (its "apple" series is
# the closing price and the volume).
_TCPD_COLUMNS = {"Apple": ("Close", "Volume")}


def tcpd_series():
    """``(name, X, annotations)`` of each TCPD series river ships: the
    columns river gives as its targets (those TCPD annotates), each
    standardized."""
    from river.drift import datasets

    for name in sorted(datasets.__all__):
        dataset = getattr(datasets, name)()
        rows = []
        for x, y in dataset:
            y = y if isinstance(y, dict) else {"y": y}
            keys = _TCPD_COLUMNS.get(name, tuple(y))
            rows.append([float(y[k]) for k in keys])
        X = np.array(rows)
        X = (X - X.mean(axis=0)) / X.std(axis=0)
        yield name, X, dataset.annotations


def run_tcpd():
    import ruptures as rpt

    for name, X, annotations in tcpd_series():
        n, d = X.shape
        found = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for block in (None, "auto"):
                cp = skmmd.KernelChangePoints(
                    block_size=block, min_size=5, random_state=0
                ).fit(X)
                found[f"skmmd block_size={block!r}"] = cp.change_points_.tolist()
        gamma = 1.0 / (2.0 * median_bandwidth(X) ** 2)
        kernel = rpt.KernelCPD(kernel="rbf", params={"gamma": gamma}, min_size=5)
        found["ruptures KernelCPD rbf pen=log(n)"] = kernel.fit(X).predict(
            pen=np.log(n)
        )[:-1]
        binseg = rpt.Binseg(model="l2", min_size=5, jump=1).fit(X)
        found["ruptures Binseg l2 pen=d log(n)"] = binseg.predict(pen=d * np.log(n))[
            :-1
        ]
        for method, points in found.items():
            f1 = f1_score(annotations, points)
            cover = cover_score(annotations, points, n)
            print(
                f"tcpd  {name:18s} n={n:5d} d={d}  {method:34s} F1={f1:.3f} "
                f"cover={cover:.3f} changes={len(points)}"
            )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--exact", action="store_true")
    parser.add_argument("--scale", action="store_true")
    parser.add_argument("--level", action="store_true")
    parser.add_argument("--power", action="store_true")
    parser.add_argument("--tcpd", action="store_true")
    parser.add_argument("--locate", action="store_true")
    parser.add_argument("--bound", action="store_true")
    parser.add_argument("--dims", type=int, nargs="+", default=[1, 5])
    parser.add_argument(
        "--factors", type=float, nargs="+", default=[0.25, 0.5, 1.0, 2.0]
    )
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--n-components", type=int, default=2048)
    parser.add_argument("--kinds", nargs="+", default=["mean", "variance", "shape"])
    parser.add_argument("--frequencies", choices=sorted(_FREQUENCIES), default="sobol")
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[10**3, 10**4, 10**5, 10**6]
    )
    parser.add_argument("--limit", type=float, default=600.0)
    parser.add_argument("--methods", nargs="+", default=["skmmd", "KernelCPD", "Pelt"])
    parser.add_argument("--memory-gb", type=float, default=8.0)
    parser.add_argument("--exchangeable-reps", type=int, default=1000)
    parser.add_argument("--skip-ruptures", action="store_true")
    args = parser.parse_args(argv)
    if args.exact:
        run_exact(args.reps, args.n_components, args.kinds, args.frequencies)
    if args.scale:
        run_scale(args.sizes, args.limit, args.memory_gb, args.methods)
    if args.level:
        run_level(args.reps, 0.8, "auto", with_ruptures=not args.skip_ruptures)
        run_level(args.exchangeable_reps, 0.0, None, with_ruptures=False)
    if args.power:
        for d in args.dims:
            run_power(args.reps, d)
    if args.locate:
        for d in args.dims:
            run_locate(args.reps, d, args.factors)
    if args.bound:
        for d in args.dims:
            run_bound(args.reps, d)
    if args.tcpd:
        run_tcpd()


if __name__ == "__main__":
    main()
