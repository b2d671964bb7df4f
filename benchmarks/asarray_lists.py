"""Cost of ``xb.asarray`` on Python lists against the library's own conversion, side by side in one run.

Usage: ``python benchmarks/asarray_lists.py [--repeats N] [--quick]``

Python data is range-checked (issue 13: ``xb.asarray([300], dtype=xb.int8)`` raises instead of wrapping) and
looked at for arrays inside (a list of Arrays is stacked where they live, issue 19); both at C speed (issue 29).
Two tables, each cell the minimum over interleaved rounds (the least disturbed by other processes on a shared
machine):

* NumPy: ``xb.asarray(data)`` against ``np.asarray(data)``: the rows of issue 13 (1000-element lists, with
  narrower dtypes), then flat and nested lists of 1e3 and 1e6 ints and floats (nested: 100 x 10 and 10000 x 100,
  and 10 x 10 x 10);
* torch: ``xb.asarray(data, backend="torch")`` against ``torch.tensor(data, dtype=...)`` (the dtype xbackend
  gives: int64, float64) for the same lists.

Goal (issue 29): every ratio of the flat and nested rows <= 1.2.
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


def _min_us(fns: list[Callable[[], Any]], repeats: int, budget: float = 0.02) -> list[float]:
    """Minimum µs per call of each function over ``repeats`` interleaved rounds of ~``budget`` s each."""
    timers = [timeit.Timer(f) for f in fns]
    numbers = []
    for t in timers:
        one = t.timeit(1)
        numbers.append(max(1, int(budget / max(one, 1e-9))))
    best = [float("inf")] * len(fns)
    for r in range(repeats):
        for j in range(len(fns)):
            i = (r + j) % len(fns)
            best[i] = min(best[i], timers[i].timeit(numbers[i]) / numbers[i] * 1e6)
    return best


def _data() -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for n, rows in ((1000, 100), (1_000_000, 10_000)):
        ints = list(range(n))
        floats = [i / 7 for i in ints]
        tag = "1e3" if n == 1000 else "1e6"
        width = n // rows
        out[f"{tag} ints"] = ints
        out[f"{tag} floats"] = floats
        out[f"{tag} ints, {rows}x{width}"] = [ints[i : i + width] for i in range(0, n, width)]
        out[f"{tag} floats, {rows}x{width}"] = [floats[i : i + width] for i in range(0, n, width)]
        if n == 1000:  # three levels
            out["1e3 ints, 10x10x10"] = [[ints[i + j : i + j + 10] for j in range(0, 100, 10)]
                                         for i in range(0, n, 100)]  # fmt: skip
            out["1e3 floats, 10x10x10"] = [[floats[i + j : i + j + 10] for j in range(0, 100, 10)]
                                           for i in range(0, n, 100)]  # fmt: skip
    return out


def _fmt(us: float) -> str:
    return f"{us:>10.2f}" if us < 1e4 else f"{us / 1e3:>8.2f}ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="5 repeats, no 1e6 rows")
    args = ap.parse_args()
    repeats = 5 if args.quick else args.repeats
    ints = list(range(1000))
    floats = [i / 7 for i in ints]
    nested = [ints[i : i + 10] for i in range(0, 1000, 10)]
    old = [
        ("1000 ints", lambda: np.asarray(ints), lambda: xb.asarray(ints)),
        ("1000 ints, int32", lambda: np.asarray(ints, dtype=np.int32), lambda: xb.asarray(ints, dtype=xb.int32)),
        ("1000 ints, int8", lambda: np.asarray(ints[:100] * 10, dtype=np.int8),
         lambda: xb.asarray(ints[:100] * 10, dtype=xb.int8)),
        ("1000 floats", lambda: np.asarray(floats), lambda: xb.asarray(floats)),
        ("100x10 ints", lambda: np.asarray(nested), lambda: xb.asarray(nested)),
    ]  # fmt: skip
    data = {k: v for k, v in _data().items() if not (args.quick and k.startswith("1e6"))}
    print(f"xbackend {xb.__version__}, numpy {np.__version__}; min over {repeats} interleaved rounds, µs per call")
    print("\nNumPy: xb.asarray(data) against np.asarray(data)")
    print(f"{'case':<26}{'np µs':>10}{'xb µs':>10}{'added µs':>10}{'ratio':>8}")
    rows = list(old) + [(k, (lambda v=v: np.asarray(v)), (lambda v=v: xb.asarray(v))) for k, v in data.items()]
    for name, raw, ours in rows:
        reps = max(3, repeats // 3) if name.startswith("1e6") else repeats
        r, o = _min_us([raw, ours], reps, 0.05 if name.startswith("1e6") else 0.02)
        print(f"{name:<26}{_fmt(r)}{_fmt(o)}{o - r:>10.2f}{o / r:>8.3f}")
    try:
        import torch
    except ImportError:
        return
    print(f"\ntorch {torch.__version__}: xb.asarray(data, backend='torch') against torch.tensor(data, dtype=...)")
    print(f"{'case':<26}{'torch µs':>10}{'xb µs':>10}{'added µs':>10}{'ratio':>8}")
    for name, v in data.items():
        tdt = torch.float64 if "floats" in name else torch.int64
        reps = max(3, repeats // 3) if name.startswith("1e6") else repeats
        r, o = _min_us([lambda v=v, tdt=tdt: torch.tensor(v, dtype=tdt), lambda v=v: xb.asarray(v, backend="torch")],
                       reps, 0.05 if name.startswith("1e6") else 0.02)  # fmt: skip
        print(f"{name:<26}{_fmt(r)}{_fmt(o)}{o - r:>10.2f}{o / r:>8.3f}")


if __name__ == "__main__":
    main()
