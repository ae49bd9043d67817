"""Power of learned kernels on Liu et al. (2020)'s Blob and HDGM, and their cost.

Parts (``--part``):

``liu``
    Liu et al.'s protocol: ``--kernels`` (10) kernels
    (``LearnedFourierSampler(n_components=--n-components, n_directions=
    --n-directions)``, 1024 and 0 by default), each learned on an
    independent draw of the test's size, each tested on ``--sets`` (100) fresh
    draws; Blob: 9 x 40 points per sample, 100 permutations; HDGM: d = 10,
    2 x 1000 points per sample, 200 permutations; alpha = 0.05. Against
    MMD-D's published powers (0.985, 0.659), the median-heuristic test
    (``MMDTest()``) and the aggregated test (``AggregatedMMDTest()``) on the
    same fresh draws.
``split``
    Our in-sample protocol, ``MMDTest(LearnedFourierSampler(), train_size=0.5)``
    on one draw of Liu et al.'s size per repetition: power (H1) and type-I
    error (the null versions, Blob-S and HDGM with equal covariances).
``curve``
    Power against the sample size, Liu et al.'s protocol with fewer sets.
``large``
    N = 10^6 pooled rows, d = 10 (HDGM): training on a ``train_size`` part and
    the test on the rest, time and peak RSS.
``alibi``
    alibi-detect's ``LearnedKernelDrift`` (PyTorch, CPU) against ours on the
    same HDGM draws, N = 4000: time of training + test, and power;
    ``--alibi-training defaults`` (3 epochs of batch 32) or ``liu`` (the
    training of Liu et al.'s MMD-D, which their published powers come from:
    Adam, learning rate 5e-5, 1000 full-batch epochs). Needs a
    benchmark-only environment with ``alibi-detect`` and ``torch`` (not
    dependencies of skmmd): ``python -m venv bench && . bench/bin/activate &&
    pip install torch==2.13.0 alibi-detect -e .``.

Run: ``python benchmarks/bench_power.py --part liu``.
"""

import argparse
import resource
import time

import numpy as np
from sklearn.frozen import FrozenEstimator

from skmmd import AggregatedMMDTest, LearnedFourierSampler, MMDTest
from skmmd.datasets import make_hdgm, make_liu_blobs

ALPHA = 0.05
# name: (draw(seed, null, size), permutations, MMD-D's published power)
PROBLEMS = {
    "blob": (
        lambda seed, null=False, size=40: make_liu_blobs(
            size, null=null, random_state=seed
        ),
        100,
        0.985,
    ),
    "hdgm": (
        lambda seed, null=False, size=1000: make_hdgm(
            size, null=null, random_state=seed
        ),
        200,
        0.659,
    ),
}


def _labelled(X, Y):
    return np.vstack([X, Y]), np.repeat([0, 1], [len(X), len(Y)])


def liu_protocol(
    name,
    n_kernels,
    n_sets,
    size=None,
    baselines=True,
    n_components=1024,
    n_directions=0,
):
    draw, B, published = PROBLEMS[name]
    kw = {} if size is None else {"size": size}
    powers, train_times, test_times = [], [], []
    rejections = {"median": 0, "aggregated": 0}
    for k in range(n_kernels):
        start = time.perf_counter()
        kernel = LearnedFourierSampler(
            n_components=n_components, n_directions=n_directions, random_state=k
        ).fit(*_labelled(*draw(1000 + k, **kw)))
        train_times.append(time.perf_counter() - start)
        frozen = FrozenEstimator(kernel)
        hits = 0
        start = time.perf_counter()
        for j in range(n_sets):
            X, Y = draw(10**6 + 1000 * k + j, **kw)
            hits += MMDTest(frozen, n_resamples=B, random_state=j).fit(X, Y).reject_
            if baselines and k == 0:  # the fixed kernels on the first 100 draws
                rejections["median"] += (
                    MMDTest(n_resamples=B, random_state=j).fit(X, Y).reject_
                )
                rejections["aggregated"] += (
                    AggregatedMMDTest(n_resamples=B, random_state=j).fit(X, Y).reject_
                )
        test_times.append((time.perf_counter() - start) / n_sets)
        powers.append(hits / n_sets)
        print(
            f"  {name} kernel {k}: power {powers[-1]:.2f} (start scale "
            f"{kernel.start_scale_}, J {kernel.initial_criterion_:.3f} -> "
            f"{kernel.criterion_:.3f}, {kernel.n_iter_} iterations)",
            flush=True,
        )
    print(
        f"{name} (Liu et al.'s protocol, {n_kernels} kernels x {n_sets} sets, "
        f"D = {n_components}, {n_directions} directions): "
        f"learned {np.mean(powers):.3f} +- {np.std(powers):.3f} "
        f"(MMD-D published {published}); training {np.mean(train_times):.2f} s, "
        f"test {np.mean(test_times):.3f} s per set"
    )
    if baselines:
        print(
            f"  same draws: median heuristic {rejections['median'] / n_sets:.3f}, "
            f"AggregatedMMDTest() {rejections['aggregated'] / n_sets:.3f}"
        )
    return np.mean(powers)


def split_protocol(name, reps, null):
    draw, B, _ = PROBLEMS[name]
    hits, start = 0, time.perf_counter()
    for rep in range(reps):
        X, Y = draw(5 * 10**6 + rep, null)
        test = MMDTest(
            LearnedFourierSampler(random_state=rep),
            train_size=0.5,
            n_resamples=B,
            random_state=rep,
        )
        hits += test.fit(X, Y).reject_
        if (rep + 1) % 100 == 0:  # partial counts survive an interrupted run
            print(f"  {name}: {hits} of {rep + 1} rejected", flush=True)
    rate = hits / reps
    se = np.sqrt(rate * (1 - rate) / reps)
    what = "type-I error" if null else "power"
    print(
        f"{name} split protocol (train_size=0.5), {what}: {rate:.3f} +- {se:.3f} "
        f"over {reps} repetitions ({(time.perf_counter() - start) / reps:.2f} s each)",
        flush=True,
    )


def large(n_rows=10**6, train_size=20_000):
    X, Y = make_hdgm(n_rows // 4, random_state=0)
    start = time.perf_counter()
    test = MMDTest(
        LearnedFourierSampler(random_state=0), train_size=train_size, random_state=0
    ).fit(X, Y)
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"HDGM N = {n_rows} pooled, d = 10, train_size={train_size}: p = "
        f"{test.p_value_:.4f}, {seconds:.1f} s, peak RSS {rss:.0f} MB "
        f"(data {X.nbytes * 2 / 2**20:.0f} MB)"
    )


def alibi(reps, training="defaults"):
    import torch
    from alibi_detect.cd import LearnedKernelDrift
    from alibi_detect.utils.pytorch.kernels import DeepKernel

    torch.set_num_threads(2)
    draw, B, _ = PROBLEMS["hdgm"]
    ours_t, theirs_t, ours_hits, theirs_hits = [], [], 0, 0
    # numba compiles on a first call (once per install, see `skmmd warmup`).
    X, Y = draw(0)
    MMDTest(LearnedFourierSampler(max_iter=2), train_size=0.5, n_resamples=19).fit(X, Y)
    for rep in range(reps):
        X, Y = draw(7 * 10**6 + rep)
        start = time.perf_counter()
        test = MMDTest(
            LearnedFourierSampler(random_state=rep),
            train_size=0.5,
            n_resamples=B,
            random_state=rep,
        ).fit(X, Y)
        ours_t.append(time.perf_counter() - start)
        ours_hits += test.reject_
        proj = torch.nn.Sequential(
            torch.nn.Linear(10, 30),
            torch.nn.Softplus(),
            torch.nn.Linear(30, 30),
            torch.nn.Softplus(),
            torch.nn.Linear(30, 30),
        )
        start = time.perf_counter()
        detector = LearnedKernelDrift(
            X.astype(np.float32),
            DeepKernel(proj, eps=0.01),
            backend="pytorch",
            p_val=ALPHA,
            train_size=0.5,
            n_permutations=B,
            device="cpu",
            # alibi-detect's defaults (3 epochs, batch 32), or Liu et al.'s.
            **(
                {"epochs": 1000, "batch_size": 1000, "learning_rate": 5e-5}
                if training == "liu"
                else {}
            ),
        )
        result = detector.predict(Y.astype(np.float32))
        theirs_t.append(time.perf_counter() - start)
        theirs_hits += int(result["data"]["is_drift"])
        print(
            f"  rep {rep}: ours {ours_t[-1]:.1f} s (reject {test.reject_}), "
            f"LearnedKernelDrift {theirs_t[-1]:.1f} s (drift "
            f"{result['data']['is_drift']})",
            flush=True,
        )
    print(
        f"HDGM N = 4000, train_size=0.5, {reps} draws, LearnedKernelDrift's training "
        f"{training}: ours {np.mean(ours_t):.2f} s "
        f"(power {ours_hits / reps:.2f}), LearnedKernelDrift {np.mean(theirs_t):.1f} s "
        f"(power {theirs_hits / reps:.2f}): {np.mean(theirs_t) / np.mean(ours_t):.1f}x"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--part",
        choices=["liu", "split", "curve", "large", "alibi"],
        default="liu",
    )
    parser.add_argument(
        "--problem", choices=sorted(PROBLEMS), nargs="+", default=sorted(PROBLEMS)
    )
    parser.add_argument("--kernels", type=int, default=10)
    parser.add_argument("--sets", type=int, default=100)
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--n-components", type=int, default=1024)
    parser.add_argument("--n-directions", type=int, default=0)
    parser.add_argument("--alibi-training", choices=["defaults", "liu"], default="liu")
    args = parser.parse_args()
    for name in args.problem:
        if args.part == "liu":
            liu_protocol(
                name,
                args.kernels,
                args.sets,
                n_components=args.n_components,
                n_directions=args.n_directions,
            )
        elif args.part == "split":
            split_protocol(name, args.reps, null=True)
            split_protocol(name, max(1, args.reps // 10), null=False)
        elif args.part == "curve":
            sizes = {"blob": (10, 20, 40), "hdgm": (250, 500, 1000)}[name]
            for size in sizes:
                print(f"{name} size {size}:")
                liu_protocol(name, args.kernels, args.sets, size, baselines=False)
    if args.part == "large":
        large()
    elif args.part == "alibi":
        alibi(args.reps, args.alibi_training)


if __name__ == "__main__":
    main()
