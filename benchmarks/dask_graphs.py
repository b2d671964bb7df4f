"""xbackend on Dask: out-of-core, scaling over worker processes, and the cost of the xbackend layer.

Run: ``python benchmarks/dask_graphs.py [--quick]``. Prints one table:

(a) out-of-core column mean and std (one pass, ``xb.compute``) of a lazily generated array (``da.random``)
    at least 4x the *total* memory limit of a 2-process LocalCluster; reports the array size, the limit,
    the peak RSS of each worker process (``ru_maxrss``, read on the worker) and the time. Goal: it
    completes and every worker's peak stays under its limit.
(b) the same compute-bound chunked job (transcendental elementwise work + a reduction) on 1 worker
    process vs 2 (one thread each): median of repeats and the speed-up. Goal >= 1.6 on 2 free cores;
    the load average is printed, since other processes on the machine share the cores. The input is
    persisted on the workers first (no data generation or transfer inside the timed part) and cut into
    64 chunks of 1 MiB (each fused chain of ufuncs stays in a core's cache instead of streaming 4 MiB
    temporaries through the memory bus both cores share); NumPy's ufuncs release the GIL, and each
    task sends back one float.
(c) xbackend on Dask vs raw ``dask.array`` for the same graph (the logistic-regression gradient of the
    demo), threaded scheduler: graph-building time and build + compute, medians of interleaved repeats,
    and the ratio. Goal <= 1.05.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE.parent))

import numpy as np  # noqa: E402

import xbackend as xb  # noqa: E402

MiB = 1 << 20


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def out_of_core(limit_mib: int, factor: float) -> dict:
    import dask.array as da
    from distributed import Client, LocalCluster

    workers = 2
    cols = 16
    total = int(factor * workers * limit_mib * MiB)
    rows = total // (8 * cols)
    chunk_rows = (8 * MiB) // (8 * cols)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=f"{limit_mib}MiB",
                      dashboard_address=None) as cluster, Client(cluster) as client:  # fmt: skip
        base = client.run(_peak_rss)
        x = xb.asarray(da.random.default_rng(0).random((rows, cols), chunks=(chunk_rows, cols)))
        t0 = time.perf_counter()
        mean, std = xb.compute(xb.mean(x, axis=0), xb.std(x, axis=0))
        dt = time.perf_counter() - t0
        peaks = client.run(_peak_rss)
    ok_values = bool(np.all(np.abs(mean.numpy() - 0.5) < 1e-2) and np.all(np.abs(std.numpy() - 12**-0.5) < 1e-2))
    return {"bytes": rows * cols * 8, "limit": limit_mib * MiB, "workers": workers, "time": dt,
            "peaks": sorted(peaks.values()), "base": sorted(base.values()), "values_ok": ok_values}  # fmt: skip


def _job(x: xb.Array) -> xb.Array:
    y = x
    for _ in range(6):
        y = xb.sin(y) * xb.cos(y) + xb.exp(-y * y)
    return xb.sum(y)


def scaling(n_chunks: int, chunk: int, repeats: int) -> dict:
    import dask.array as da
    from distributed import Client, LocalCluster

    out = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
                Client(c):  # fmt: skip
            x = xb.asarray(da.random.default_rng(1).random(n_chunks * chunk, chunks=chunk)).persist()
            _job(x).item()  # warm-up (imports on the workers; x is in the workers' memory from here on)
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                _job(x).item()
                times.append(time.perf_counter() - t0)
            out[workers] = statistics.median(times)
    return out


def layer_cost(n: int, d: int, chunk: int, repeats: int) -> dict:
    import dask
    import dask.array as da

    rng = np.random.default_rng(2)
    X_np, y_np, w_np = rng.normal(size=(n, d)), (rng.random(n) < 0.3).astype(np.float64), rng.normal(size=d)
    Xd, yd, wd = da.from_array(X_np, chunks=(chunk, d)), da.from_array(y_np, chunks=chunk), da.from_array(w_np)
    X, y, w = xb.asarray(Xd), xb.asarray(yd), xb.asarray(wd)

    def raw():
        p = 1.0 / (1.0 + da.exp(-(Xd @ wd)))
        return Xd.T @ (p - yd) / n

    def xbk():
        p = 1.0 / (1.0 + xb.exp(-(X @ w)))
        return (X.mT @ (p - y) / n).native

    res = {"raw": ([], []), "xb": ([], [])}
    with dask.config.set(scheduler="threads"):
        assert np.allclose(raw().compute(), xbk().compute())
        for _ in range(repeats):
            for name, fn in (("raw", raw), ("xb", xbk)):
                t0 = time.perf_counter()
                g = fn()
                t1 = time.perf_counter()
                g.compute()
                t2 = time.perf_counter()
                res[name][0].append(t1 - t0)
                res[name][1].append(t2 - t0)
    return {k: (statistics.median(b), statistics.median(t)) for k, (b, t) in res.items()}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    args = parser.parse_args()
    q = args.quick
    print(f"xbackend {xb.__version__} on Dask; {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{v:.1f}' for v in os.getloadavg())} (other processes share these cores)")  # fmt: skip
    a = out_of_core(limit_mib=256, factor=1.0 if q else 4.0)
    b = scaling(n_chunks=16 if q else 64, chunk=131_072, repeats=2 if q else 5)
    c = layer_cost(n=100_000 if q else 400_000, d=16, chunk=25_000, repeats=3 if q else 7)
    print()
    print(f"{'check':<44}{'measured':>34}{'goal':>22}  result")
    size_ratio = a["bytes"] / (a["workers"] * a["limit"])
    peak = max(a["peaks"])
    ok_a = peak < a["limit"] and a["values_ok"]
    mib, lim, nw = a["bytes"] / MiB, a["limit"] / MiB, a["workers"]
    m1 = f"{mib:.0f} MiB / {nw}x{lim:.0f} MiB = {size_ratio:.1f}x"
    m2 = f"{peak / MiB:.0f} MiB ({max(a['base']) / MiB:.0f}) / {lim:.0f} MiB"
    print(f"{'(a) out-of-core mean/std, array / total limit':<44}{m1:>34}{'>= 4x':>22}  "
          f"{'OK' if size_ratio >= 4 else 'SMALL'}")  # fmt: skip
    print(f"{'    peak worker RSS (start) vs limit':<44}{m2:>34}{'< limit':>22}  "
          f"{'OK' if ok_a else 'OVER'}  in {a['time']:.1f}s")  # fmt: skip
    sp = b[1] / b[2]
    print(f"{'(b) compute-bound job, 1 vs 2 worker procs':<44}"
          f"{f'{b[1]:.2f}s vs {b[2]:.2f}s = {sp:.2f}x':>34}{'>= 1.6x':>22}  {'OK' if sp >= 1.6 else 'BELOW'}")
    rb, rt = c["raw"]
    xbb, xbt = c["xb"]
    print(f"{'(c) graph build: xbackend vs dask.array':<44}{f'{xbb * 1e3:.2f} ms vs {rb * 1e3:.2f} ms':>34}"
          f"{'':>22}  {xbb / rb:.2f}x")
    print(f"{'    build + compute: xbackend vs dask.array':<44}{f'{xbt * 1e3:.1f} ms vs {rt * 1e3:.1f} ms':>34}"
          f"{'<= 1.05x':>22}  {xbt / rt:.3f}x {'OK' if xbt / rt <= 1.05 else 'OVER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
