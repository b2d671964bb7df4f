"""What ``xb.testing.diverge`` costs the calls it does not record: nothing. Side by side in one run.

Usage: ``python benchmarks/diverge_overhead.py [--rounds 40] [--backends numpy,torch]``

Recording swaps xbackend's public functions and the Array's slots for recording wrappers only while
``diverge`` runs, and puts the same objects back (``tests/test_diverge.py`` checks their identity and the
Python calls per operation, deterministically). This benchmark times the hot operations at 100 elements in three
fresh processes that live side by side: two that never recorded (``before``, and ``control``, the same again: how
far two identical processes drift apart on this machine) and one that ran a ``diverge`` touching every one of
these operations first (``after``). The parent asks them in turn for one short block of one operation at a time
(the order rotating), ``--rounds`` times, so all see the same machine; the columns are each one's fastest block
(µs per call) and the medians of the per-round ratios to ``before``: ``after/before`` should stay within the spread
of ``control/before`` (on a shared 2-core machine about +-10 %).
``recording`` is the same call while a recording is open (in the parent): the price of the trace, paid only
inside ``diverge``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import timeit
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import xbackend as xb  # noqa: E402


def operations(backend: str) -> dict[str, Callable[[], Any]]:
    x = xb.asarray(np.linspace(-1, 1, 100), backend=backend)
    y = xb.asarray(np.linspace(0, 2, 100), backend=backend)
    m = xb.reshape(x, (10, 10))
    return {"x + y": lambda: x + y, "x * 2.0": lambda: x * 2.0, "xb.sum(x)": lambda: xb.sum(x),
            "xb.exp(x)": lambda: xb.exp(x), "x[1:-1]": lambda: x[1:-1], "xb.mean(m, axis=0)": lambda: xb.mean(m, axis=0),
            "m @ m": lambda: m @ m}  # fmt: skip


def per_call_us(fn: Callable[[], Any], block: float = 0.01, repeat: int = 9) -> float:
    """The fastest of ``repeat`` blocks of about ``block`` seconds, per call."""
    t = timeit.Timer(fn)
    n = max(1, int(block / max(t.timeit(20) / 20, 1e-9)))
    return min(t.repeat(repeat=repeat, number=n)) / n * 1e6


def child(mode: str, backends: list[str]) -> None:
    """Serve timings: one line in (an operation's key), one line out (µs per call of one short block)."""
    if mode == "after":  # "before" and "control" never record
        from xbackend.testing import diverge

        def touch(x: Any) -> Any:
            for be in backends:
                for op in operations(be).values():
                    op()
            return xb.exp(x)

        diverge(touch, np.ones(3), backends=("numpy", "numpy"))
    ops = {f"{be} {name}": op for be in backends for name, op in operations(be).items()}
    print(json.dumps(list(ops)), flush=True)
    for line in sys.stdin:
        print(per_call_us(ops[line.strip()], block=0.005, repeat=1), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--backends", default="numpy,torch")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    backends = [b for b in args.backends.split(",") if b in xb.backend_names() and xb.backends()[b].usable]
    if args.child:
        child(args.child, backends)
        return
    procs = {mode: subprocess.Popen([sys.executable, __file__, "--child", mode, "--backends", ",".join(backends)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for mode in ("before", "control", "after")}  # fmt: skip
    keys = [json.loads(p.stdout.readline()) for p in procs.values()][0]  # type: ignore[union-attr]
    samples: dict[str, dict[str, list[float]]] = {m: {k: [] for k in keys} for m in procs}
    for r in range(args.rounds):
        for i, key in enumerate(keys):
            modes = ("before", "control", "after")
            for k in range(3):
                mode = modes[(r + i + k) % 3]
                p = procs[mode]
                p.stdin.write(key + "\n")  # type: ignore[union-attr]
                p.stdin.flush()  # type: ignore[union-attr]
                samples[mode][key].append(float(p.stdout.readline()))  # type: ignore[union-attr]
    for p in procs.values():
        p.stdin.close()  # type: ignore[union-attr]
        p.wait()
    from xbackend.testing._trace import recording

    during = {}
    for be in backends:
        ops = operations(be)
        with recording():
            for name, op in ops.items():
                during[f"{be} {name}"] = per_call_us(op)
    print(f"per call, µs at 100 elements: fastest of {args.rounds} interleaved blocks in each process; ratio: median "
          "of the per-round ratios")
    print(f"{'operation':<24}{'before':>8}{'control':>9}{'after':>8}{'control/before':>16}{'after/before':>14}"
          f"{'recording':>11}{'rec/before':>12}")
    for key in keys:
        b, c, a = (min(samples[m][key]) for m in ("before", "control", "after"))
        rc, ra = (statistics.median(x / y for x, y in zip(samples[m][key], samples["before"][key]))
                  for m in ("control", "after"))  # fmt: skip
        print(f"{key:<24}{b:>8.2f}{c:>9.2f}{a:>8.2f}{rc:>16.2f}{ra:>14.2f}{during[key]:>11.1f}{during[key] / b:>11.0f}x")

if __name__ == "__main__":
    main()
