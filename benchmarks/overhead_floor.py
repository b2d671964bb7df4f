"""The floor of a pure-Python array wrapper: what the least possible wrapper adds to a raw call, next to xbackend.

Usage: ``python benchmarks/overhead_floor.py [--quick]``

For a few ops at 100 elements it times, interleaved in one process (min over many short rounds, the least
disturbed by other processes on a shared machine):

* ``raw``: the native call;
* ``call``: a Python function that makes the native call and returns its result (one frame, no wrapping);
* ``wrap``: the least a wrapper can do: the same, building one object with four slots (xbackend's Array
  layout) around the result, no checks at all; for operators through a dunder method (``m + n``);
* ``xbackend``: the real call.

``wrap - raw`` is the floor no pure-Python wrapper gets under; ``xbackend - wrap`` is what xbackend's checks
(backend, device, dtype, cache lookups) cost on top of it. The floor is not one number: the same few bytecodes run
right after a 64x64 matmul (whose three 32 KiB arrays and the BLAS library's buffers have just gone through the
caches) cost about twice what they cost after an addition of 100 elements (here +0.3-0.4 µs against +0.2 µs).
"""

from __future__ import annotations

import argparse
import sys
import timeit
from typing import Any, Callable

import numpy as np

import xbackend as xb


class _Least:
    """Four slots, no checks: the cheapest wrapper object (built like xbackend builds its Arrays)."""

    __slots__ = ("_data", "_dt", "_dev", "_be")

    def __add__(self, other: "_Least") -> "_Least":
        out = _new()
        out._data = self._data + other._data
        out._dt, out._dev, out._be = self._dt, self._dev, self._be
        return out

    def __matmul__(self, other: "_Least") -> "_Least":
        out = _new()
        out._data = self._data @ other._data
        out._dt, out._dev, out._be = self._dt, self._dev, self._be
        return out

    def __getitem__(self, key: Any) -> "_Least":
        out = _new()
        out._data = self._data[key]
        out._dt, out._dev, out._be = self._dt, self._dev, self._be
        return out


_new: Callable[[], _Least] = type.__call__.__get__(_Least, type)


def _least(data: Any) -> _Least:
    out = _new()
    out._data, out._dt, out._dev, out._be = data, None, None, None
    return out


def _rows(backend: str) -> list[tuple[str, list[Callable[[], Any]]]]:
    x = xb.asarray(np.random.default_rng(0).random(100), backend=backend)
    y = xb.asarray(np.random.default_rng(1).random(100), backend=backend)
    a, b = x.native, y.native
    m, n = _least(a), _least(b)
    shape = (10, 10)
    X = xb.asarray(np.random.default_rng(2).random((64, 64)), backend=backend)
    A = X.native
    M = _least(A)

    def call_add(p: Any, q: Any) -> Any:
        return p + q

    def call_matmul(p: Any, q: Any) -> Any:
        return p @ q

    def call_getitem(p: Any, k: Any) -> Any:
        return p[k]

    def call_reshape(p: Any, s: Any) -> Any:
        return p.reshape(s)

    def wrap_reshape(p: _Least, s: Any) -> _Least:
        out = _new()
        out._data = p._data.reshape(s)
        out._dt, out._dev, out._be = p._dt, p._dev, p._be
        return out

    def wrap_sum(p: _Least) -> _Least:
        out = _new()
        out._data = native_sum(p._data)
        out._dt, out._dev, out._be = p._dt, p._dev, p._be
        return out

    def call_sum(p: Any) -> Any:
        return native_sum(p)

    native_sum = __import__("torch").sum if backend == "torch" else np.add.reduce
    return [
        ("a + b", [lambda: a + b, lambda: call_add(a, b), lambda: m + n, lambda: x + y]),
        ("reshape", [lambda: a.reshape(shape), lambda: call_reshape(a, shape), lambda: wrap_reshape(m, shape),
                     lambda: xb.reshape(x, shape)]),  # fmt: skip
        ("sum", [lambda: native_sum(a), lambda: call_sum(a), lambda: wrap_sum(m), lambda: xb.sum(x)]),
        ("a[1:-1]", [lambda: a[1:-1], lambda: call_getitem(a, slice(1, -1)), lambda: m[1:-1], lambda: x[1:-1]]),
        ("matmul 64", [lambda: A @ A, lambda: call_matmul(A, A), lambda: M @ M, lambda: X @ X]),
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer rounds (smoke run)")
    args = p.parse_args(argv)
    rounds, number = (20, 200) if args.quick else (200, 300)
    print(f"xbackend {xb.__version__}, numpy {np.__version__}; min of {rounds} interleaved rounds of {number} calls, "
          "µs per call; 100 float64 elements")  # fmt: skip
    print(f"{'target':<8}{'op':<10}{'raw':>8}{'call':>8}{'wrap':>8}{'xbackend':>10}{'floor (wrap-raw)':>18}"
          f"{'checks (xb-wrap)':>18}")  # fmt: skip
    for backend in ("numpy", "torch"):
        try:
            rows = _rows(backend)
        except xb.XBackendError:
            continue
        for name, fns in rows:
            timers = [timeit.Timer(f) for f in fns]
            best = [float("inf")] * len(fns)
            for _ in range(rounds):
                for i, t in enumerate(timers):
                    best[i] = min(best[i], t.timeit(number) / number * 1e6)
            raw, call, wrap, ours = best
            print(f"{backend:<8}{name:<10}{raw:>8.3f}{call:>8.3f}{wrap:>8.3f}{ours:>10.3f}{wrap - raw:>+18.3f}"
                  f"{ours - wrap:>+18.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
