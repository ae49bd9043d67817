"""The linear-time test and the RFF transform on a CUDA device (array API).

Under ``sklearn.set_config(array_api_dispatch=True)`` PyTorch or CuPy arrays on
the GPU go through the same pipeline as NumPy arrays: features and unit sums
on the device, then the one calibration loop on the host. This script times:

(a) ``RandomFourierSampler.transform`` (d = 10, D = 1024, float32) on the
    device against the NumPy path on the CPU (rows per second, ratio).
(b) ``MMDTest(RandomFourierSampler(D=1024), n_resamples=999)`` at N = 10^6 and
    10^7 pooled points (d = 10, two halves, a mean shift of 0.01 in one
    coordinate): seconds and peak device memory, against the CPU path on the
    same data (ratio).
(c) alibi-detect's ``MMDDrift`` (PyTorch backend, quadratic) on the device at
    growing sizes until it runs out of memory, and our test at the same sizes.

Without a CUDA device (no PyTorch with CUDA, no CuPy with a device) it prints
``no CUDA device`` and exits 0. ``--device cpu`` runs the same code with
PyTorch on the CPU at small sizes, to check the script itself.

    python benchmarks/bench_gpu.py                      # a, b, c on the GPU
    python benchmarks/bench_gpu.py --n 1e6 --cpu-max-n 1e6
    python benchmarks/bench_gpu.py --device cpu --n 2e4 --transform-n 2e4
"""

import os

# scikit-learn's array API dispatch needs scipy's, read at scipy's import.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import sklearn  # noqa: E402

D_FEATURES, N_COMPONENTS, N_RESAMPLES, SHIFT = 10, 1024, 999, 0.01


def find_device(requested):
    """``(library, module, device)`` or ``(None, reason)``."""
    reasons = []
    try:
        import torch

        if requested == "cpu":
            return "torch", torch, "cpu"
        if torch.cuda.is_available():
            return "torch", torch, "cuda"
        reasons.append("PyTorch has no CUDA device")
    except ImportError:
        reasons.append("PyTorch is not installed")
    if requested != "cpu":
        try:
            import cupy

            if cupy.cuda.runtime.getDeviceCount() > 0:
                return "cupy", cupy, None
            reasons.append("CuPy finds no device")
        except Exception as error:  # noqa: BLE001 - ImportError or CUDA errors
            reasons.append(f"CuPy unavailable ({type(error).__name__})")
    return None, "; ".join(reasons)


class Device:
    """Arrays, synchronization and peak memory of one library's device."""

    def __init__(self, library, module, device):
        self.library, self.module, self.device = library, module, device

    def asarray(self, X):
        if self.library == "torch":
            return self.module.asarray(X, device=self.device)
        return self.module.asarray(X)

    def sync(self):
        if self.library == "torch" and self.device == "cuda":
            self.module.cuda.synchronize()
        elif self.library == "cupy":
            self.module.cuda.Device().synchronize()

    def reset_peak(self):
        if self.library == "torch" and self.device == "cuda":
            self.module.cuda.reset_peak_memory_stats()
        elif self.library == "cupy":
            self.module.get_default_memory_pool().free_all_blocks()

    def peak_gb(self):
        if self.library == "torch" and self.device == "cuda":
            return self.module.cuda.max_memory_allocated() / 2**30
        if self.library == "cupy":
            return self.module.get_default_memory_pool().total_bytes() / 2**30
        return float("nan")  # host memory: not measured here

    def name(self):
        if self.library == "torch" and self.device == "cuda":
            return self.module.cuda.get_device_name()
        if self.library == "cupy":
            props = self.module.cuda.runtime.getDeviceProperties(0)
            return props["name"].decode()
        return "CPU (PyTorch)"


def samples(n, seed=0, dtype=np.float32):
    """Two halves of N pooled points, the second shifted in one coordinate."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n // 2, D_FEATURES), dtype=np.float32).astype(dtype)
    Y = rng.standard_normal((n - n // 2, D_FEATURES), dtype=np.float32).astype(dtype)
    Y[:, 0] += SHIFT
    return X, Y


def timed(fn, dev=None, reps=1):
    best = np.inf
    for _ in range(reps):
        if dev is not None:
            dev.sync()
        start = time.perf_counter()
        out = fn()
        if dev is not None:
            dev.sync()
        best = min(best, time.perf_counter() - start)
    return best, out


def bench_transform(dev, n, reps):
    from skmmd import RandomFourierSampler

    X = np.random.default_rng(1).standard_normal((n, D_FEATURES), dtype=np.float32)
    sampler = RandomFourierSampler(
        bandwidth=3.0, n_components=N_COMPONENTS, random_state=0
    )
    cpu = sampler.fit(X[:1000])
    t_cpu, _ = timed(lambda: cpu.transform(X), reps=reps)
    X_dev = dev.asarray(X)
    with sklearn.config_context(array_api_dispatch=True):
        fitted = sampler.__class__(**sampler.get_params()).fit(X_dev[:1000])
        fitted.transform(X_dev[:1000])  # warm-up (kernels, allocator)
        t_dev, _ = timed(lambda: fitted.transform(X_dev), dev, reps)
    return {
        "part": "a: RFF transform",
        "n": n,
        "cpu_s": t_cpu,
        "device_s": t_dev,
        "device_rows_per_s": n / t_dev,
        "speedup_vs_cpu": t_cpu / t_dev,
        "reps": reps,
    }


def our_test():
    from skmmd import MMDTest, RandomFourierSampler

    return MMDTest(
        RandomFourierSampler(n_components=N_COMPONENTS, random_state=0),
        n_resamples=N_RESAMPLES,
        random_state=0,
    )


def bench_test(dev, n, cpu_max_n):
    X, Y = samples(n)
    row = {"part": "b: MMDTest", "n": n, "d": D_FEATURES, "D": N_COMPONENTS}
    X_dev, Y_dev = dev.asarray(X), dev.asarray(Y)
    with sklearn.config_context(array_api_dispatch=True):
        our_test().fit(X_dev[:2000], Y_dev[:2000])  # warm-up
        dev.reset_peak()
        t_dev, test = timed(lambda: our_test().fit(X_dev, Y_dev), dev)
    row.update(
        device_s=t_dev,
        device_peak_gb=dev.peak_gb(),
        p_value=test.p_value_,
        statistic=test.statistic_,
        resample_unit=test.resample_unit_,
    )
    if n <= cpu_max_n:
        our_test().fit(X[:2000], Y[:2000])  # warm-up (numba's cached kernels)
        t_cpu, ref = timed(lambda: our_test().fit(X, Y))
        row.update(
            cpu_s=t_cpu,
            speedup_vs_cpu=t_cpu / t_dev,
            same_p_value=bool(ref.p_value_ == test.p_value_),
        )
    return row


def bench_alibi(dev, sizes):
    """alibi-detect's MMDDrift (quadratic) until it runs out of memory."""
    rows = []
    try:
        from alibi_detect.cd import MMDDrift
    except ImportError:
        return [{"part": "c: alibi-detect", "skipped": "alibi-detect not installed"}]
    if dev.library != "torch":
        return [{"part": "c: alibi-detect", "skipped": "needs PyTorch"}]
    for n in sizes:
        X, Y = samples(n, seed=2)
        row = {"part": "c: alibi-detect MMDDrift vs ours", "n": n}
        try:
            dev.reset_peak()
            detector = MMDDrift(
                X,
                backend="pytorch",
                p_val=0.05,
                n_permutations=N_RESAMPLES,
                device=dev.device,
            )
            t_alibi, pred = timed(lambda d=detector: d.predict(Y), dev)
            row.update(
                alibi_s=t_alibi,
                alibi_peak_gb=dev.peak_gb(),
                alibi_p_value=float(pred["data"]["p_val"]),
            )
        except (RuntimeError, MemoryError) as error:  # CUDA out of memory
            row["alibi"] = f"does not fit: {str(error).splitlines()[0][:120]}"
            rows.append(row)
            break
        finally:
            if dev.library == "torch" and dev.device == "cuda":
                dev.module.cuda.empty_cache()
        X_dev, Y_dev = dev.asarray(X), dev.asarray(Y)
        with sklearn.config_context(array_api_dispatch=True):
            t_ours, ours = timed(lambda: our_test().fit(X_dev, Y_dev), dev)
        row.update(ours_s=t_ours, ours_p_value=ours.p_value_, ratio=t_alibi / t_ours)
        rows.append(row)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--n", type=float, nargs="+", default=[1e6, 1e7])
    parser.add_argument("--transform-n", type=float, default=1e6)
    parser.add_argument("--cpu-max-n", type=float, default=1e7)
    parser.add_argument(
        "--alibi-sizes", type=float, nargs="*", default=[5e3, 1e4, 2e4, 4e4, 8e4]
    )
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)

    found = find_device(args.device)
    if found[0] is None:
        print(f"no CUDA device ({found[1]}): nothing to measure.")
        return 0
    dev = Device(*found)
    print(f"device: {dev.name()} ({dev.library})")
    rows = [bench_transform(dev, int(args.transform_n), args.reps)]
    for n in args.n:
        rows.append(bench_test(dev, int(n), args.cpu_max_n))
    rows += bench_alibi(dev, [int(n) for n in args.alibi_sizes])
    for row in rows:
        print(json.dumps(row, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
