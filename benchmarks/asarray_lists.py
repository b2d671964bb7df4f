"""Cost of ``xb.asarray`` on Python lists against ``np.asarray``, side by side in one run.

Usage: ``python benchmarks/asarray_lists.py [--repeats N]``

Python data is range-checked (issue 13: ``xb.asarray([300], dtype=xb.int8)`` raises instead of wrapping);
this prints what that costs for ordinary 1000-element lists: medians of repeats, µs per call, the µs
xbackend adds over ``np.asarray`` and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import timeit

import numpy as np

import xbackend as xb


def _median_us(fn, repeats: int) -> float:
    t = timeit.Timer(fn)
    n = max(1, int(0.02 / max(t.timeit(10) / 10, 1e-9)))
    return statistics.median(t.repeat(repeat=repeats, number=n)) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    ints = list(range(1000))
    floats = [i / 7 for i in ints]
    nested = [ints[i : i + 10] for i in range(0, 1000, 10)]
    cases = [
        ("1000 ints", lambda: np.asarray(ints), lambda: xb.asarray(ints)),
        ("1000 ints, int32", lambda: np.asarray(ints, dtype=np.int32), lambda: xb.asarray(ints, dtype=xb.int32)),
        ("1000 ints, int8", lambda: np.asarray(ints[:100] * 10, dtype=np.int8),
         lambda: xb.asarray(ints[:100] * 10, dtype=xb.int8)),
        ("1000 floats", lambda: np.asarray(floats), lambda: xb.asarray(floats)),
        ("100x10 ints", lambda: np.asarray(nested), lambda: xb.asarray(nested)),
    ]
    print(f"xbackend {xb.__version__}, numpy {np.__version__}; medians of {args.repeats} repeats")
    print(f"{'case':<20}{'np µs':>10}{'xb µs':>10}{'added µs':>10}{'ratio':>8}")
    for name, raw, ours in cases:
        r, o = _median_us(raw, args.repeats), _median_us(ours, args.repeats)
        print(f"{name:<20}{r:>10.2f}{o:>10.2f}{o - r:>10.2f}{o / r:>8.3f}")


if __name__ == "__main__":
    main()
