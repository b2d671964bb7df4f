"""NumPy -> torch on the CPU, the zero-copy move, against ``torch.from_numpy``, side by side in one run.

Usage: ``python benchmarks/numpy_to_torch.py [--repeats N] [--out FILE]``

Rows: ``xb.asarray(a, backend="torch")`` of a NumPy array and ``x.to(backend="torch")`` of a NumPy Array, each
against ``torch.from_numpy`` of the same array, for a few dtypes and sizes (the time must not grow with size: no
copy), and the cases ``torch.from_numpy`` does not take as they are (read-only memory, a negative stride): there
xbackend copies, shown for information. Each cell is the minimum over ``repeats`` interleaved rounds of ~10 ms
blocks (the least disturbed by other processes on a shared machine); ``added µs`` is xbackend - from_numpy.

Goal (issue 29): at most +1 µs added on the zero-copy rows.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import xbackend as xb  # noqa: E402


def _min_us(fns: list[Callable[[], Any]], repeats: int, budget: float = 0.01) -> list[float]:
    """Minimum µs per call of each function over ``repeats`` interleaved rounds of ~``budget`` s each."""
    timers = [timeit.Timer(f) for f in fns]
    numbers = [max(1, int(budget / max(t.timeit(20) / 20, 1e-9))) for t in timers]
    best = [float("inf")] * len(fns)
    for r in range(repeats):
        for j in range(len(fns)):
            i = (r + j) % len(fns)
            best[i] = min(best[i], timers[i].timeit(numbers[i]) / numbers[i] * 1e6)
    return best


def main() -> None:
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--out", default=None, help="also write the table to this file")
    args = ap.parse_args()
    cases = [
        ("float64, 100", np.arange(100.0), True),
        ("float32, 100", np.arange(100, dtype=np.float32), True),
        ("int64, 10x10", np.arange(100).reshape(10, 10), True),
        ("bool, 100", np.zeros(100, dtype=bool), True),
        ("uint8, 1e6", np.zeros(10**6, dtype=np.uint8), True),
        ("float64, 0-d", np.array(1.5), True),
        ("float64, every other", np.arange(200.0)[::2], True),
    ]
    ro = np.arange(100.0)
    ro.flags.writeable = False
    cases += [("float64, read-only (copied)", ro, False), ("float64, reversed (copied)", np.arange(100.0)[::-1], False)]
    lines = [
        "# 2-vCPU VM shared with other sessions (loaded); minima over interleaved rounds",
        f"xbackend {xb.__version__}, numpy {np.__version__}, torch {torch.__version__}; min over {args.repeats} "
        "interleaved rounds of ~10 ms blocks, µs per call; goal (issue 29): <= +1 µs over torch.from_numpy",
        "",
        f"{'case':<30}{'from_numpy':>11}{'asarray':>10}{'added':>8}{'x.to':>10}{'added':>8}  goal",
    ]
    for name, a, shared in cases:
        x = xb.asarray(a)
        raw = (lambda a=a: torch.from_numpy(a)) if shared else (lambda a=a: torch.from_numpy(a.copy()))
        fns = [raw, lambda a=a: xb.asarray(a, backend="torch"), lambda x=x: x.to(backend="torch")]
        fns[1](), fns[2]()  # first calls build the caches
        if shared:
            assert xb.asarray(a, backend="torch").native.data_ptr() == a.ctypes.data, name
        r, o, t = _min_us(fns, args.repeats)
        ok = "" if not shared else "ok" if max(o, t) - r <= 1.0 else "OVER"
        lines.append(f"{name:<30}{r:>11.2f}{o:>10.2f}{o - r:>+8.2f}{t:>10.2f}{t - r:>+8.2f}  {ok}")
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
