"""Per-call overhead of the Array API functions for small inputs: raw NumPy, raw torch-CPU and xbackend on
each, side by side in one run. Not a test.

Usage: ``python benchmarks/overhead_api.py [--quick] [--backends numpy,torch]``

Inputs are small on purpose (100 elements; 8x8 matrices for linalg) so the time is dominated by the per-call
cost. Every cell is the median of ``timeit.repeat`` repeats, each a loop long enough to swamp timer noise.
Columns: raw µs, xbackend µs, the µs xbackend adds, and the ratio. Functions that xbackend does not have
(yet) print ``n/a``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import xbackend as xb  # noqa: E402


def _get(path: str) -> Callable[..., Any] | None:
    obj: Any = xb
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def cases(np_mod: Any, torch: Any) -> list[tuple[str, str, Callable, Callable | None, str]]:
    """(label, xbackend function path, raw numpy call, raw torch call, input kind)."""
    return [
        ("sum", "sum", np.sum, torch and torch.sum, "vec"),
        ("mean", "mean", np.mean, torch and torch.mean, "vec"),
        ("max", "max", np.max, torch and torch.max, "vec"),
        ("sort", "sort", np.sort, torch and (lambda t: torch.sort(t).values), "vec"),
        ("argsort", "argsort", np.argsort, torch and torch.argsort, "vec"),
        ("linalg.inv", "linalg.inv", np.linalg.inv, torch and torch.linalg.inv, "mat"),
        ("linalg.solve", "linalg.solve", lambda a: np.linalg.solve(a, a),
         torch and (lambda t: torch.linalg.solve(t, t)), "mat"),
        ("linalg.svd", "linalg.svd", np.linalg.svd, torch and torch.linalg.svd, "mat"),
        ("fft.fft", "fft.fft", np.fft.fft, torch and torch.fft.fft, "cvec"),
    ]  # fmt: skip


def median_us(fn: Callable[[], Any], repeat: int, target_s: float = 0.02) -> float:
    n, t = 1, 0.0
    while t < target_s:  # loop length that takes ~target_s
        t = timeit.timeit(fn, number=n)
        n *= 2
    return statistics.median(timeit.repeat(fn, number=n, repeat=repeat)) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--backends", default="numpy,torch")
    args = ap.parse_args()
    repeat = 5 if args.quick else 15
    wanted = args.backends.split(",")
    try:
        import torch
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    host = {"vec": rng.standard_normal(100), "mat": rng.standard_normal((8, 8)) + 8 * np.eye(8),
            "cvec": rng.standard_normal(100) + 1j * rng.standard_normal(100)}  # fmt: skip
    backends = [b for b in ("numpy", "torch") if b in wanted and (b != "torch" or torch is not None)]
    print(f"xbackend {xb.__version__}, numpy {np.__version__}" + (f", torch {torch.__version__}" if torch else "")
          + f"; median of {repeat} repeats; float64/complex128 inputs")  # fmt: skip
    cols = " | {:>11} {:>9} {:>8} {:>6}"
    head = f"{'function':<14}" + "".join(cols.format(b + " raw", "xbackend", "added", "ratio") for b in backends)
    print(head)
    print("-" * len(head))
    for label, path, np_fn, t_fn, kind in cases(np, torch):
        xfn = _get(path)
        row = f"{label:<14}"
        for b in backends:
            raw_fn = np_fn if b == "numpy" else t_fn
            native = host[kind] if b == "numpy" else torch.from_numpy(host[kind])
            raw = median_us(lambda: raw_fn(native), repeat)
            if xfn is None:
                row += f" | {raw:>9.2f}us {'n/a':>9} {'n/a':>8} {'n/a':>6}"
                continue
            arr = xb.asarray(native)
            args = (arr, arr) if path == "linalg.solve" else (arr,)
            try:
                xfn(*args)
            except Exception as exc:  # implemented but failing: say so, keep the table
                row += f" | {raw:>9.2f}us {'error':>9} {type(exc).__name__[:8]:>8} {'':>6}"
                continue
            ours = median_us(lambda: xfn(*args), repeat)
            row += f" | {raw:>9.2f}us {ours:>7.2f}us {ours - raw:>+6.2f}us {ours / raw:>5.2f}x"
        print(row)


if __name__ == "__main__":
    main()
