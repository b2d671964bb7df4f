"""Per-call overhead of ``@xb.portable``: native arrays in/out vs the undecorated function on Arrays.

Run: ``python benchmarks/portable.py [--size N] [--repeat R]``. Prints one table: for each backend
and case, the median time per call of

- ``native``    the backend's own ``a + b`` (the floor),
- ``xb``        the undecorated xbackend function called with Arrays,
- ``portable``  the decorated function called with native arrays (wrap, run, unwrap),
- ``port(Arr)`` the decorated function called with Arrays (pass-through),

with the overhead ``portable - xb`` (goal: <= 1 us for two array arguments) and ratios side by side.
Timings interleave the variants round by round so machine noise hits them alike.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import xbackend as xb  # noqa: E402
from xbackend.testing import available_targets  # noqa: E402


def add2(x: Any, y: Any) -> Any:
    return x + y


def affine3(x: Any, w: Any, b: Any) -> Any:
    return x * w + b


def one_arg_kw(x: Any, *, scale: float = 2.0) -> Any:
    return x * scale


def pair_out(x: Any, y: Any) -> Any:
    return (x + y, x - y)


CASES: list[tuple[str, Callable[..., Any], int, dict[str, Any]]] = [
    ("x + y (2 arrays)", add2, 2, {}),
    ("x*w + b (3 arrays)", affine3, 3, {}),
    ("x*scale, scale= kw", one_arg_kw, 1, {"scale": 3.0}),
    ("(x+y, x-y) tuple out", pair_out, 2, {}),
]


def _median_us(fns: dict[str, Callable[[], Any]], number: int, repeat: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for k, f in fns.items():
            samples[k].append(timeit.timeit(f, number=number) / number * 1e6)
    return {k: statistics.median(v) for k, v in samples.items()}


def bench(size: int, number: int, repeat: int) -> list[tuple[str, str, dict[str, float]]]:
    rows = []
    rng = np.random.default_rng(0)
    for target in available_targets():
        be, dev = target.backend, target.device
        for label, fn, n_arrays, kw in CASES:
            host = [rng.random(size) for _ in range(n_arrays)]
            arrs = [xb.asarray(h, backend=be, device=dev) for h in host]
            nats = [a.native for a in arrs]
            g = xb.portable(fn)
            g(*nats, **kw)  # warm the type cache
            fns = {
                "native": (lambda: nats[0] + nats[1]) if n_arrays > 1 else (lambda: nats[0] * 3.0),
                "xb": lambda: fn(*arrs, **kw),
                "portable": lambda: g(*nats, **kw),
                "port(Arr)": lambda: g(*arrs, **kw),
            }
            rows.append((target.id, label, _median_us(fns, number, repeat)))
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=100)
    p.add_argument("--number", type=int, default=20000)
    p.add_argument("--repeat", type=int, default=15)
    args = p.parse_args(argv)
    rows = bench(args.size, args.number, args.repeat)
    head = (f"{'target':<12} {'case':<22} {'native':>8} {'xb':>8} {'portable':>9} {'port(Arr)':>9} "
            f"{'overhead':>9} {'port/xb':>8} {'port/nat':>8}")  # fmt: skip
    print(f"@xb.portable overhead, float64 size {args.size}, median of {args.repeat} x {args.number} calls (us)")
    print(head)
    print("-" * len(head))
    for tid, label, m in rows:
        over = m["portable"] - m["xb"]
        print(f"{tid:<12} {label:<22} {m['native']:8.3f} {m['xb']:8.3f} {m['portable']:9.3f} {m['port(Arr)']:9.3f} "
              f"{over:9.3f} {m['portable'] / m['xb']:7.2f}x {m['portable'] / m['native']:7.2f}x")  # fmt: skip
    print("overhead = portable - xb: wrapping the native inputs, the call, unwrapping the result (goal <= 1 us)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
