"""What the saturating float-to-integer cast costs (``xbackend/_saturate.py``), side by side with the library's own
cast, in one run.

Usage: ``python benchmarks/casts.py [--n N] [--rounds R]``

For each target and (float source, integer destination) pair: ``xb.astype(x, dst)`` against the raw library cast
(``ndarray.astype``, ``tensor.to``), timed interleaved (one call of each per round, the order alternating);
``raw ms`` and ``xb ms`` are the fastest of the rounds; ``ratio`` = xb / raw. The raw cast gives undefined values
out of range (NumPy on x86 0 or wrapped, torch through int64); the saturating one is defined everywhere, at the
price of a clamp, a NaN pass and, where the dtype's maximum is not a float (int64, uint64), a fix-up pass.
There is no speed goal here: the table says what the rule costs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import xbackend as xb

PAIRS = [(xb.float64, xb.int32), (xb.float64, xb.int64), (xb.float32, xb.uint8), (xb.float32, xb.int64)]


def _raw(x, dst):
    n = x.native
    if x.backend == "numpy":
        return lambda: n.astype(dst.name)
    import torch

    td = getattr(torch, dst.name)
    return lambda: n.to(td)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=30)
    a = ap.parse_args()
    host = np.random.default_rng(0).standard_normal(a.n) * 1e3
    print(f"{'target':<8} {'cast':<18} {'raw ms':>8} {'xb ms':>8} {'ratio':>6}   (n = {a.n:.0e}, fastest of {a.rounds})")
    for backend in ("numpy", "torch"):
        for src, dst in PAIRS:
            x = xb.asarray(host, dtype=src, backend=backend)
            calls = {"raw": _raw(x, dst), "xb": lambda x=x, dst=dst: xb.astype(x, dst)}
            best = {k: float("inf") for k in calls}
            for r in range(a.rounds):
                for k in (("raw", "xb") if r % 2 else ("xb", "raw")):
                    t0 = time.perf_counter()
                    calls[k]()
                    best[k] = min(best[k], time.perf_counter() - t0)
            print(f"{backend:<8} {src.name + '->' + dst.name:<18} {best['raw'] * 1e3:8.3f} {best['xb'] * 1e3:8.3f} "
                  f"{best['xb'] / best['raw']:6.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
