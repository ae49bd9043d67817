"""Online drift detection: false-alarm rate, detection delay and cost per update.

(a) ERT: mean run length under no drift of ``OnlineMMDDetector`` (window 50,
    n_ref = 2000 and 5000, default map: 256 random Fourier features, median
    bandwidth) over ``--refs`` references x ``--streams`` fresh streams each
    (1000 streams by default) for an i.i.d. Gaussian d = 5 stream and an
    i.i.d. exponential d = 5 stream, at ERT 100 and 1000; plus two windows
    (20, 100) at ERT 1000.
    Target: mean within +-15 % of the ERT. The +- is the standard error of the
    mean over references (run lengths of one reference are correlated through
    its calibration).
(b) Delay: Gaussian ERT-1000 detectors (n_ref = 2000) on streams with a mean shift of
    0.5 sd in one coordinate after t = 500: median delay (detection time - 500)
    over the streams with no alarm before 500, next to alibi-detect's
    ``MMDDriftOnline`` (PyTorch backend, CPU) with the same window, reference
    size and bandwidth (our ``bandwidth_``).
(c) Cost per update: one ``update(x)`` at n_ref = 10^3, 10^5 and 5000, and
    alibi-detect's ``predict`` at n_ref = 5000, in the same run (median of
    repeats).
(d) AR(1) (phi = 0.8, d = 5) streams: mean run length at ERT 500, window 20,
    with and without ``block_size=50`` and ``block_size="auto"``.

alibi-detect is optional (a benchmark-only dependency, e.g. in its own venv
with torch CPU); without it the comparisons are skipped with a message.

    python benchmarks/bench_online.py                 # all, about 25 min
    python benchmarks/bench_online.py --only a --refs 10 --streams 5
"""

import argparse
import time

import numpy as np

from skmmd import OnlineMMDDetector

try:
    import torch
    from alibi_detect.cd import MMDDriftOnline
except ImportError:  # benchmark-only dependency
    MMDDriftOnline = None

D_IN = 5


def gaussian(rng, n):
    return rng.standard_normal((n, D_IN))


def exponential(rng, n):
    return rng.exponential(size=(n, D_IN))


def ar1(phi):
    def draw(rng, n):
        x = np.empty((n, D_IN))
        x[0] = rng.standard_normal(D_IN)  # stationary start
        e = np.sqrt(1 - phi**2) * rng.standard_normal((n, D_IN))
        for i in range(1, n):
            x[i] = phi * x[i - 1] + e[i]
        return x

    return draw


def run_length(det, draw, rng, ert, shift_at=None):
    """First alarm time of one fresh stream (fed in chunks), or None past
    50 ERT."""
    det.reset()
    chunk = max(100, int(ert))
    fed = 0
    while fed < 50 * ert:
        X = draw(rng, chunk)
        if shift_at is not None:
            X[max(0, shift_at - fed) :, 0] += 0.5
        det.partial_fit(X)
        fed += chunk
        if det.detection_time_ is not None:
            return det.detection_time_
    return None


def ert_row(name, draw, ert, window, refs, streams, seed, block_size=None, n_ref=2000):
    rng = np.random.default_rng(seed)
    per_ref, dets, fit_s = [], [], []
    for r in range(refs):
        start = time.perf_counter()
        det = OnlineMMDDetector(
            ert=ert, window_size=window, block_size=block_size, random_state=r
        ).fit(draw(rng, n_ref))
        fit_s.append(time.perf_counter() - start)
        lengths = [run_length(det, draw, rng, ert) for _ in range(streams)]
        per_ref.append(np.mean([50 * ert if v is None else v for v in lengths]))
        dets.append(det)
    mean = np.mean(per_ref)
    se = np.std(per_ref, ddof=1) / np.sqrt(refs)
    print(
        f"{name:<28} ERT {ert:>5}  window {str(window):<9} mean run length "
        f"{mean:8.1f} +- {se:6.1f}  ratio {mean / ert:5.2f}  "
        f"({refs} refs x {streams} streams; fit {np.median(fit_s):.2f} s)",
        flush=True,
    )
    return dets


def part_a(args):
    for n_ref in args.n_ref:
        print(f"(a) ERT under no drift, n_ref {n_ref}")
        for name, draw in (
            ("Gaussian d=5", gaussian),
            ("exponential d=5", exponential),
        ):
            for ert in (100, 1000):
                ert_row(name, draw, ert, 50, args.refs, args.streams, ert, n_ref=n_ref)
    ert_row(
        "Gaussian d=5", gaussian, 1000, [20, 100], args.refs, args.streams, 7,
        n_ref=args.n_ref[0],
    )  # fmt: skip


def part_b(args):
    print("(b) detection delay, ERT 1000, window 50, n_ref 2000, shift 0.5 sd")
    rng = np.random.default_rng(11)
    dets = [
        OnlineMMDDetector(ert=1000, window_size=50, random_state=r).fit(
            gaussian(rng, 2000)
        )
        for r in range(args.refs)
    ]
    times = [
        run_length(det, gaussian, rng, 1000, shift_at=500)
        for det in dets
        for _ in range(args.streams)
    ]
    ok = [t - 500 for t in times if t is not None and t > 500]
    early = sum(t is not None and t <= 500 for t in times)
    print(
        f"  skmmd OnlineMMDDetector: median delay {np.median(ok):.0f} "
        f"(quartiles {np.percentile(ok, 25):.0f}-{np.percentile(ok, 75):.0f}) "
        f"over {len(ok)} streams; {early}/{len(times)} alarmed before 500",
        flush=True,
    )
    if MMDDriftOnline is None:
        print("  alibi-detect is absent: no comparison")
        return
    torch.set_num_threads(1)
    alibi_delays, alibi_early = [], 0
    for r in range(args.alibi_refs):
        X_ref = gaussian(rng, 2000)
        ours = OnlineMMDDetector(ert=1000, window_size=50, random_state=r).fit(X_ref)
        start = time.perf_counter()
        cd = MMDDriftOnline(
            X_ref.astype(np.float32), ert=1000, window_size=50, backend="pytorch",
            sigma=np.array([ours.transformer_.bandwidth_]), n_resamples=1500,
            verbose=False,
        )  # fmt: skip
        fit_s = time.perf_counter() - start
        for _ in range(args.alibi_streams):
            cd.reset_state()
            X = gaussian(rng, 2500)
            X[500:, 0] += 0.5
            t_det = None
            for x in X.astype(np.float32):
                if cd.predict(x)["data"]["is_drift"]:
                    t_det = cd.t
                    break
            if t_det is not None and t_det <= 500:
                alibi_early += 1
            elif t_det is not None:
                alibi_delays.append(t_det - 500)
    n = args.alibi_refs * args.alibi_streams
    print(
        f"  alibi-detect MMDDriftOnline: median delay {np.median(alibi_delays):.0f} "
        f"(quartiles {np.percentile(alibi_delays, 25):.0f}-"
        f"{np.percentile(alibi_delays, 75):.0f}) over {len(alibi_delays)} streams; "
        f"{alibi_early}/{n} alarmed before 500 (fit {fit_s:.0f} s)",
        flush=True,
    )


def time_updates(det, X, repeats):
    for x in X[:200]:  # warm up (compilation, caches)
        det.update(x)
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for x in X:
            det.update(x)
        runs.append((time.perf_counter() - start) / len(X))
    return np.median(runs)


def part_c(args):
    print("(c) cost per update, d=5, D=256, window 50 (under load)")
    rng = np.random.default_rng(3)
    X = gaussian(rng, 2000)
    dets = {
        n_ref: OnlineMMDDetector(ert=100, window_size=50, random_state=0).fit(
            gaussian(rng, n_ref)
        )
        for n_ref in (1000, 5000, 100_000)
    }
    # Interleaved repeats: the load on the machine hits every size alike.
    runs = {n_ref: [] for n_ref in dets}
    for _ in range(args.repeats):
        for n_ref, det in dets.items():
            runs[n_ref].append(time_updates(det, X, 1))
    cost = {n_ref: np.median(r) for n_ref, r in runs.items()}
    for n_ref, det in dets.items():
        start = time.perf_counter()
        det.partial_fit(gaussian(rng, 100_000))
        batch = (time.perf_counter() - start) / 100_000
        print(
            f"  skmmd n_ref={n_ref:>6}: update(x) {cost[n_ref] * 1e6:6.1f} us "
            f"(median of {args.repeats} x {len(X)}); in a batch of 1e5 "
            f"{batch * 1e6:5.2f} us/point",
            flush=True,
        )
    print(f"  ratio n_ref 1e5 / 1e3: {cost[100_000] / cost[1000]:.2f}")
    if MMDDriftOnline is None:
        print("  alibi-detect is absent: no comparison")
        return
    torch.set_num_threads(1)
    X_ref = gaussian(rng, 5000)
    # ERT and bootstraps only affect alibi's calibration, not its update cost.
    cd = MMDDriftOnline(
        X_ref.astype(np.float32), ert=50, window_size=50, backend="pytorch",
        sigma=np.array([3.0]), n_resamples=200, verbose=False,
    )  # fmt: skip
    Xs = X[:300].astype(np.float32)
    for x in Xs[:60]:
        cd.predict(x)
    runs = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for x in Xs:
            cd.predict(x)
        runs.append((time.perf_counter() - start) / len(Xs))
    alibi = np.median(runs)
    print(
        f"  alibi-detect n_ref=5000: predict(x) {alibi * 1e6:8.1f} us (median of "
        f"{args.repeats} x {len(Xs)}); skmmd is {alibi / cost[5000]:.0f}x faster",
        flush=True,
    )


def part_d(args):
    print("(d) AR(1) phi=0.8, d=5, ERT 500, window 20, n_ref 5000")
    for block_size in (None, 50, "auto"):
        ert_row(
            f"AR(1) block_size={block_size}", ar1(0.8), 500, 20, args.refs,
            args.streams, 5, block_size=block_size, n_ref=5000,
        )  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=list("abcd"), action="append")
    parser.add_argument("--refs", type=int, default=100)
    parser.add_argument("--streams", type=int, default=10)
    parser.add_argument(
        "--n-ref", type=int, nargs="+", default=[2000, 5000], help="for (a)"
    )
    parser.add_argument("--alibi-refs", type=int, default=1)
    parser.add_argument("--alibi-streams", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    parts = args.only or list("abcd")
    if MMDDriftOnline is None:
        print("alibi-detect is absent: its comparisons are skipped")
    if "a" in parts:
        part_a(args)
    if "b" in parts:
        part_b(args)
    if "c" in parts:
        part_c(args)
    if "d" in parts:
        part_d(args)


if __name__ == "__main__":
    main()
