"""Moving data: zero-copy move time by size, host<->device bandwidth, prefetch overlap - one run, side by side.

Usage: ``python benchmarks/interchange.py [--quick] [--gpu] [--out DIR]``

1. Zero-copy moves at 1 KB, 1 MB, 100 MB, 1 GB (NumPy <-> torch-CPU; with ``--gpu`` also torch-CUDA <-> CuPy):
   raw library call vs ``xb.asarray(a).to(backend=...)``; the time must not grow with size (ratio to 1 KB ~ 1:
   O(1)). NumPy -> torch also in one call each, ``xb.asarray(a, backend="torch")`` and ``x.to(backend="torch")``
   of an Array, against ``torch.from_numpy`` (issue 29: at most +1 µs).
2. ``--gpu``: H2D and D2H bandwidth (GB/s, CUDA-synchronised, medians) for pageable ``.to('cuda')``/``.cpu()``,
   xbackend's pinned path (``host_to_device``/``device_to_host``), and the measured pinned peak (a pinned
   tensor copied with ``non_blocking=True``); ratios to the peak.
3. ``--gpu``: prefetch overlap: time of (copy + compute) through ``xb.prefetch`` vs max(copy alone, compute
   alone); target <= 1.1x.
4. Host staging throughput (runs on the CPU too): the pinned ring's fill pipeline with a no-op DMA, on
   ``XBACKEND_STAGING_THREADS`` threads vs one thread vs one plain ``np.copyto``: GB/s by size. On a GPU
   machine this is the ceiling of ``host_to_device``: it must exceed the pinned peak.
5. ``--gpu``: the goals of issue 8 side by side, by size: H2D (``host_to_device`` and ``asarray(device=)``) as a
   fraction of the pinned peak (>= 0.8 from 64 MB), torch<->CuPy move time / raw ``from_dlpack`` (<= 1.2),
   prefetch overlap (<= 1.1).

Writes ``interchange.md`` (tables), ``interchange.json`` and, when matplotlib is installed,
``interchange_bandwidth.png`` to ``--out`` (default ``$OUT`` if set, else ``benchmarks/results/``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import xbackend as xb  # noqa: E402

SIZES = {"1 KB": 1 << 10, "1 MB": 1 << 20, "100 MB": 100 << 20, "1 GB": 1 << 30}


def median_time(fn: Callable[[], Any], repeats: int, sync: Callable[[], None] | None = None) -> float:
    """Median seconds of ``fn`` over ``repeats`` runs (after one warm-up), synchronising a GPU around each."""
    fn()
    if sync:
        sync()
    out = []
    for _ in range(repeats):
        if sync:
            sync()
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def per_call(fn: Callable[[], Any], repeats: int, inner: int = 200) -> float:
    """Median seconds per call of a fast (host-side) function: loops of ``inner`` calls (after one warm-up loop)."""
    for _ in range(inner):
        fn()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        out.append((time.perf_counter() - t0) / inner)
    return statistics.median(out)


def table(title: str, header: list[str], rows: list[list[Any]]) -> str:
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        lines.append("| " + " | ".join(f"{c:.3g}" if isinstance(c, float) else str(c) for c in r) + " |")
    return "\n".join(lines) + "\n"


# --- 1. zero-copy ---------------------------------------------------------------------------------------
def zero_copy(gpu: bool, repeats: int) -> tuple[str, list[dict[str, Any]]]:
    import torch

    pairs: list[tuple[str, Callable[[int], Any], Callable[[Any], Any], Callable[[Any], Any]]] = [
        ("numpy -> torch (cpu)", lambda n: np.empty(n, dtype=np.uint8), torch.from_numpy,
         lambda a: xb.asarray(a).to(backend="torch")),
        ("torch (cpu) -> numpy", lambda n: torch.empty(n, dtype=torch.uint8), lambda t: t.numpy(),
         lambda t: xb.asarray(t).to(backend="numpy")),
        # issue 29: the one-call forms, each against torch.from_numpy (goal: <= +1 µs)
        ("numpy -> torch (cpu), asarray(a, backend=)", lambda n: np.empty(n, dtype=np.uint8), torch.from_numpy,
         lambda a: xb.asarray(a, backend="torch")),
        ("numpy Array -> torch (cpu), x.to(backend=)", lambda n: xb.asarray(np.empty(n, dtype=np.uint8)),
         lambda x: torch.from_numpy(x.native), lambda x: x.to(backend="torch")),
    ]  # fmt: skip
    if gpu:
        import cupy

        pairs += [
            ("torch (cuda) -> cupy", lambda n: torch.empty(n, dtype=torch.uint8, device="cuda"), cupy.from_dlpack,
             lambda t: xb.asarray(t).to(backend="cupy")),
            ("cupy -> torch (cuda)", lambda n: cupy.empty(n, dtype=cupy.uint8), torch.from_dlpack,
             lambda c: xb.asarray(c).to(backend="torch")),
        ]  # fmt: skip
    rows, records = [], []
    for name, make, raw, ours in pairs:
        base_raw = base_ours = None
        for label, n in SIZES.items():
            src = make(n)
            r = per_call(lambda: raw(src), repeats)
            o = per_call(lambda: ours(src), repeats)
            target = "cupy" if "-> cupy" in name else "torch" if "-> torch" in name else "numpy"
            if xb.moved(src, backend=target).copied:
                raise AssertionError(f"{name} at {label} copied")
            base_raw = base_raw or r
            base_ours = base_ours or o
            rows.append([name, label, r * 1e6, o * 1e6, o / base_ours, "yes" if o / base_ours < 3 else "NO"])
            records.append({"pair": name, "size": n, "raw_s": r, "xb_s": o, "xb_vs_1KB": o / base_ours})
            del src
    text = table("Zero-copy move time (median per call)",
                 ["pair", "size", "raw µs", "xbackend µs", "xbackend / own 1 KB", "flat (O(1))"], rows)  # fmt: skip
    return text, records


# --- 2. bandwidth (GPU) -----------------------------------------------------------------------------------
def bandwidth(repeats: int, sizes: list[int]) -> tuple[str, list[dict[str, Any]]]:
    import torch

    sync = torch.cuda.synchronize
    rows, records = [], []
    for n in sizes:
        host = np.random.default_rng(0).random(n // 8)
        t_host = torch.from_numpy(host)
        pinned = torch.empty(n // 8, dtype=torch.float64, pin_memory=True)
        pinned.copy_(t_host)
        dev = torch.empty(n // 8, dtype=torch.float64, device="cuda")
        dev.copy_(t_host)
        xdev = xb.asarray(dev)
        t = {
            ("H2D", "pageable .to('cuda')"): median_time(lambda: t_host.to("cuda"), repeats, sync),
            ("H2D", "xbackend host_to_device"): median_time(
                lambda: xb.host_to_device(host, backend="torch", device="cuda"), repeats, sync),
            ("H2D", "xbackend asarray(device='cuda')"): median_time(
                lambda: xb.asarray(host, backend="torch", device="cuda"), repeats, sync),
            ("H2D", "xbackend host_to_device (cupy)"): median_time(
                lambda: xb.host_to_device(host, backend="cupy", device="cuda"), repeats, sync),
            ("H2D", "pinned peak"): median_time(lambda: dev.copy_(pinned, non_blocking=True), repeats, sync),
            ("D2H", "pageable .cpu()"): median_time(lambda: dev.cpu(), repeats, sync),
            ("D2H", "xbackend device_to_host"): median_time(lambda: xb.device_to_host(xdev), repeats, sync),
            ("D2H", "pinned peak"): median_time(lambda: pinned.copy_(dev, non_blocking=True), repeats, sync),
        }  # fmt: skip
        for direction in ("H2D", "D2H"):
            peak = n / t[direction, "pinned peak"] / 1e9
            for (d, how), s in t.items():
                if d != direction:
                    continue
                gbs = n / s / 1e9
                rows.append([direction, f"{n >> 20} MB", how, gbs, gbs / peak])
                records.append({"direction": direction, "size": n, "method": how, "GBps": gbs, "vs_peak": gbs / peak})
        del host, t_host, pinned, dev, xdev
    text = table("Host <-> device bandwidth (torch, CUDA-synchronised medians)",
                 ["direction", "size", "method", "GB/s", "/ pinned peak"], rows)  # fmt: skip
    return text, records


# --- 3. prefetch overlap (GPU) --------------------------------------------------------------------------
def overlap(repeats: int, batch_mb: int = 64, nbatch: int = 8) -> tuple[str, dict[str, Any]]:
    import torch

    sync = torch.cuda.synchronize
    cols = 1024
    rows_ = (batch_mb << 20) // (4 * cols)
    batches = [np.random.default_rng(i).random((rows_, cols), dtype=np.float32) for i in range(nbatch)]
    w = torch.randn(cols, cols, device="cuda")
    resident = [torch.from_numpy(b).cuda() for b in batches]

    def compute(x: Any, reps: int) -> Any:
        y = x
        for _ in range(reps):
            y = torch.tanh(y @ w)
        return y

    def copy_only() -> None:
        for b in batches:
            xb.host_to_device(b, backend="torch", device="cuda")

    t_copy = median_time(copy_only, repeats, sync)
    reps = 1  # calibrate compute to about the copy time
    while True:
        t_comp = median_time(lambda: [compute(r, reps) for r in resident], 3, sync)
        if t_comp >= t_copy or reps > 4096:
            break
        reps *= 2
    t_comp = median_time(lambda: [compute(r, reps) for r in resident], repeats, sync)

    def both() -> None:
        for x in xb.prefetch(batches, backend="torch", device="cuda", depth=2):
            compute(x.native, reps)

    t_both = median_time(both, repeats, sync)
    ratio = t_both / max(t_copy, t_comp)
    rec = {"copy_s": t_copy, "compute_s": t_comp, "prefetch_s": t_both, "serial_s": t_copy + t_comp,
           "ratio_vs_max": ratio, "compute_reps": reps, "batch_MB": batch_mb, "batches": nbatch}  # fmt: skip
    text = table(f"Prefetch overlap ({nbatch} batches x {batch_mb} MB, depth 2)",
                 ["copy alone s", "compute alone s", "copy+compute via prefetch s", "sum s",
                  "prefetch / max(copy, compute)", "target <= 1.1"],
                 [[t_copy, t_comp, t_both, t_copy + t_comp, ratio, "yes" if ratio <= 1.1 else "NO"]])  # fmt: skip
    return text, rec


class _NullDMA:
    """A backend whose DMA costs nothing: what remains of a staged copy is the host side (fills, hand-offs)."""

    name = "nulldma"

    def pinned_alloc(self, nbytes: int) -> tuple[Any, np.ndarray]:
        buf = np.empty(nbytes, dtype=np.uint8)
        buf[::4096] = 0  # touch the pages, as a pinned allocation does
        return buf, buf

    def copy_stream(self, dev: Any) -> Any:
        return None

    def device_scope(self, dev: Any) -> Any:
        return contextlib.nullcontext()

    def alloc_on(self, nbytes: int, dev: Any, stream: Any) -> Any:
        return np.empty(0, dtype=np.uint8)

    def h2d_copy(self, raw: Any, lo: int, owner: Any, n: int, stream: Any) -> Any:
        return None

    def record_event(self, stream: Any) -> Any:
        return None

    def bytes_as(self, raw: Any, dt: Any, shape: tuple[int, ...]) -> Any:
        return raw

    def event_done(self, ev: Any) -> bool:
        return True

    def event_wait(self, ev: Any) -> None:
        return None


def staging(repeats: int, sizes: list[int]) -> tuple[str, list[dict[str, Any]]]:
    from xbackend import _transfer as T

    be, dev = _NullDMA(), xb.device("cuda:0")
    rows, records = [], []
    threads0 = T._THREADS
    try:
        for n in sizes:
            host = np.random.default_rng(0).random(n // 8)
            dst = np.empty_like(host)
            t_plain = median_time(lambda: np.copyto(dst, host), repeats)
            res = {"one np.copyto": t_plain}
            for k in sorted({1, threads0}):
                T._THREADS = k
                ring = T._Ring(be, T._LIMIT[0])
                res[f"ring, {k} thread{'s' if k > 1 else ''}"] = median_time(
                    lambda: T._h2d_staged(be, ring, dev, host, xb.float64, xb.float64), repeats)
            for how, s_ in res.items():
                rows.append([f"{n >> 20} MB", how, n / s_ / 1e9, t_plain / s_])
                records.append({"size": n, "method": how, "GBps": n / s_ / 1e9})
    finally:
        T._THREADS = threads0
    text = table(f"Host staging throughput (no-op DMA; {os.cpu_count()} CPUs, XBACKEND_STAGING_THREADS={threads0})",
                 ["size", "method", "GB/s", "speed-up vs one copyto"], rows)  # fmt: skip
    return text, records


def goals(zero: list[dict[str, Any]], bw: list[dict[str, Any]], ov: dict[str, Any]) -> str:
    """Issue 8's ratios side by side, by size."""
    rows = []
    h2d = {(r["size"], r["method"]): r["vs_peak"] for r in bw if r["direction"] == "H2D"}
    d2h = {(r["size"], r["method"]): r["vs_peak"] for r in bw if r["direction"] == "D2H"}
    for n in sorted({s for s, _ in h2d}):
        a = h2d.get((n, "xbackend host_to_device"), float("nan"))
        b = h2d.get((n, "xbackend asarray(device='cuda')"), float("nan"))
        c = h2d.get((n, "xbackend host_to_device (cupy)"), float("nan"))
        d = d2h.get((n, "xbackend device_to_host"), float("nan"))
        ok = "-" if n < (64 << 20) else ("yes" if min(a, b, c) >= 0.8 else "NO")
        rows.append([f"{n >> 20} MB", a, b, c, ok, d])
    text = table("Goals (issue 8): H2D as a fraction of the pinned peak (>= 0.8 from 64 MB), D2H (keep ~0.99)",
                 ["size", "host_to_device torch", "asarray torch", "host_to_device cupy", ">= 0.8", "D2H"], rows)  # fmt: skip
    rows = []
    for r in zero:
        if "cuda" in r["pair"]:
            ratio = r["xb_s"] / r["raw_s"]
            rows.append([r["pair"], f"{r['size']} B", r["raw_s"] * 1e6, r["xb_s"] * 1e6, ratio,
                         "yes" if ratio <= 1.2 else "NO"])  # fmt: skip
    text += "\n" + table("Goals (issue 8): torch <-> CuPy move vs raw from_dlpack (<= 1.2)",
                         ["pair", "size", "raw µs", "xbackend µs", "ratio", "<= 1.2"], rows)  # fmt: skip
    r = ov["ratio_vs_max"]
    text += f"\nPrefetch overlap: {r:.3g} x max(copy, compute) ({'yes' if r <= 1.1 else 'NO'}, goal <= 1.1)\n"
    return text


def plot(records: list[dict[str, Any]], path: Path) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: skipped the bandwidth plot (pip install matplotlib)\n"
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, direction in zip(axes, ("H2D", "D2H")):
        methods = sorted({r["method"] for r in records if r["direction"] == direction})
        for m in methods:
            pts = [(r["size"] >> 20, r["GBps"]) for r in records if r["direction"] == direction and r["method"] == m]
            ax.plot(*zip(*pts), marker="o", label=m)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("size (MB)")
        ax.set_title(direction)
        ax.legend()
    axes[0].set_ylabel("GB/s")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return f"wrote {path}\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer repeats, smaller sizes (smoke run)")
    p.add_argument("--gpu", action="store_true", help="also time torch-CUDA <-> CuPy, bandwidth and prefetch")
    p.add_argument("--out", default=None, help="output directory (default $OUT, else benchmarks/results)")
    args = p.parse_args(argv)
    out = Path(args.out or os.environ.get("OUT") or Path(__file__).parent / "results")
    out.mkdir(parents=True, exist_ok=True)
    repeats = 3 if args.quick else (5 if args.gpu else 9)
    if args.quick:
        SIZES.pop("1 GB")
    import torch

    versions = f"xbackend {xb.__version__}, numpy {np.__version__}, torch {torch.__version__}"
    report = [f"# Interchange benchmark\n\n{versions}"]
    results: dict[str, Any] = {}
    text, results["zero_copy"] = zero_copy(args.gpu, repeats)
    report.append(text)
    text, results["staging"] = staging(repeats, [16 << 20, 64 << 20] + ([] if args.quick else [256 << 20]))
    report.append(text)
    if args.gpu:
        import cupy

        report[0] += f", cupy {cupy.__version__}, {torch.cuda.get_device_name()}"
        sizes = [1 << 20, 16 << 20, 64 << 20, 256 << 20] + ([] if args.quick else [1 << 30])
        text, results["bandwidth"] = bandwidth(repeats, sizes)
        report.append(text)
        text, results["overlap"] = overlap(repeats)
        report.append(text)
        report.append(goals(results["zero_copy"], results["bandwidth"], results["overlap"]))
        report.append(plot(results["bandwidth"], out / "interchange_bandwidth.png"))
    else:
        report.append("(CPU run: bandwidth and prefetch overlap need --gpu and a CUDA device.)\n")
    body = "\n".join(report)
    print(body)
    (out / "interchange.md").write_text(body)
    (out / "interchange.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
