"""Per-call overhead of xbackend against the raw backend and its peers, side by side in one run.

Usage: ``python benchmarks/overhead.py [--quick] [--backends numpy,torch] [--gpu] [--no-import] [--no-peers]
[--note TEXT] [--out FILE] [--json FILE]``

For every operation and size it times the raw native call, the xbackend call and, on the CPU, the same op
through each installed peer (array-api-compat's namespace, autoray's ``do``, EagerPy's tensors: optional
bench dependencies, ``pip install -r requirements/bench.txt``), **interleaved**: each round times a short
block of every call of the row in turn (the order rotating from round to round), so that all of a row's
columns see the same machine. At 100 elements a row is 25 short *sessions* (15 rounds of 0.5 ms blocks, a few
tens of ms each) 0.1 s apart; the µs columns (raw, xbackend, each peer: ``n/a`` where the peer has no such call:
compat returns native arrays, so its operators and indexing are the raw ones) are the medians of the quietest
session, the one in which the raw call ran fastest. ``added µs`` is the median of xbackend - raw over the rounds of
all sessions, ``best+ µs`` xbackend's fastest block minus raw's fastest (per call); then the ratio and a
``goals`` column. At 1e6 elements, where the work dominates, a row is one session of 100 rounds of 1 ms blocks
(the O(1) views ``a[1:-1]`` and ``reshape`` keep the sessions). ``import xbackend`` time
is measured in fresh subprocesses against ``import numpy``.

Why sessions and best+. On a shared virtual machine, a neighbour can slow every call by up to 2x for a second or
more at a time (measured here: ``np.zeros(100)`` alternates between 0.16 and 0.33 µs from one second to the next),
and the time a wrapper adds grows with it. 25 short sessions spread over ~4 s sample the quiet stretches as well as
the busy ones, and the fastest block of each call is the one least disturbed by other processes (what the
``timeit`` documentation advises to read), so the +0.35 µs goal is judged on ``best+``; ``added`` shows how far
a busy machine moves it.

Targets. Issue 11: at 100 elements <= 0.35 µs added per call (``best+``) on NumPy and torch-CPU (``+µs``
in ``goals`` when missed), xbackend (median) ahead of autoray and EagerPy (``autoray``/``eagerpy`` when not), and
within 1.1x of array-api-compat's namespace wherever compat is not itself slower than raw (more than 5 % over
it; ``compat`` when missed). Peer goals are judged at 100 elements only: at a million the work dominates and
differences are noise. Issue 2: at 1e6 elements <= 1.02x (``ratio`` in ``goals`` when missed), except for
O(1) views (raw under 10 µs: slicing, reshape), judged by the +0.35 µs rule at every size; import <=
NumPy's + 20 ms. With ``--gpu`` (issue 8): torch-CUDA and CuPy, each call CUDA-synchronised, elementwise
ops and reductions <= 1.15x raw (the ``goal`` column); no peers.

The raw column spells each call as users write it. On torch 2.13, xbackend calls ``torch.reshape(x, shape)``
and ``x.to(dtype=...)``, ~0.7 µs faster than the method spellings ``x.reshape(shape)`` and ``x.to(dtype)``
of the raw column, so those rows can show xbackend below raw.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import timeit
from typing import Any, Callable

import numpy as np

import xbackend as xb

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:  # appended: benchmarks/dask_graphs.py shadows dask
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
import _peers  # noqa: E402


def _block_size(t: timeit.Timer, budget: float) -> int:
    """How many calls make one block of about ``budget`` seconds."""
    n, elapsed = 1, 0.0
    while elapsed < budget / 5:
        elapsed = t.timeit(n)
        if elapsed < budget / 5:
            n *= 4
    return max(1, int(n * budget / max(elapsed, 1e-9)))


def interleaved(fns: list[Callable[[], Any]], repeats: int, budget: float) -> list[list[float]]:
    """Seconds per call of every function in each of ``repeats`` rounds; a round times one block (about
    ``budget`` seconds) of each function in turn, starting one function later every round."""
    timers = [timeit.Timer(f) for f in fns]
    for f in fns:
        f()
    numbers = [_block_size(t, budget) for t in timers]
    samples: list[list[float]] = [[] for _ in fns]
    k = len(fns)
    for r in range(repeats):
        for j in range(k):
            i = (r + j) % k
            samples[i].append(timers[i].timeit(numbers[i]) / numbers[i])
    return samples


def sessions(fns: list[Callable[[], Any]], count: int, rounds: int, budget: float,
             gap: float) -> list[list[list[float]]]:  # fmt: skip
    """``count`` short :func:`interleaved` sessions, ``gap`` seconds apart: each is over before the machine's
    speed is likely to change (tens of ms), and together they sample its quiet and busy stretches."""
    out = []
    for s in range(count):
        if s:
            time.sleep(gap)
        out.append(interleaved(fns, rounds, budget))
    return out


def _sync_for(backend: str, device: str) -> Callable[[], None]:
    if device.startswith("cuda"):
        if backend == "torch":
            import torch

            return torch.cuda.synchronize
        import cupy

        return cupy.cuda.Device().synchronize
    return lambda: None


def cases(backend: str, device: str, n: int, peers: tuple[str, ...] = ()) -> list[
        tuple[str, Callable[[], Any], Callable[[], Any] | None, dict[str, Callable[[], Any] | None]]]:  # fmt: skip
    """(name, raw call, xbackend call, {peer: call or None}) for one backend/device and size ``n``."""
    rng = np.random.default_rng(0)
    a_np, b_np = rng.random(n), rng.random(n)
    m = 64 if n <= 10_000 else 1000
    A_np = rng.random((m, m))
    x, y = xb.asarray(a_np, backend=backend, device=device), xb.asarray(b_np, backend=backend, device=device)
    X = xb.asarray(A_np, backend=backend, device=device)
    a, b, A = x.native, y.native, X.native
    shape2 = (n // 10, 10) if n % 10 == 0 else (n, 1)
    sync = _sync_for(backend, device)
    if backend == "torch":
        import torch

        raw = {
            "a + b": lambda: a + b, "a * 2.0": lambda: a * 2.0, "exp": lambda: torch.exp(a),
            "sum": lambda: torch.sum(a), "matmul": lambda: A @ A, "a[1:-1]": lambda: a[1:-1],
            "reshape": lambda: a.reshape(shape2), "astype": lambda: a.to(torch.float32),
            "zeros": lambda: torch.zeros(n, dtype=torch.float64, device=device),
            "zeros dtype=": lambda: torch.zeros(n, dtype=torch.float64),
        }  # fmt: skip
    else:
        xp = np if backend == "numpy" else __import__("cupy")
        raw = {
            "a + b": lambda: a + b, "a * 2.0": lambda: a * 2.0, "exp": lambda: xp.exp(a), "sum": lambda: xp.sum(a),
            "matmul": lambda: A @ A, "a[1:-1]": lambda: a[1:-1], "reshape": lambda: a.reshape(shape2),
            "astype": lambda: a.astype(xp.float32), "zeros": lambda: xp.zeros(n),
            "zeros dtype=": lambda: xp.zeros(n, dtype=xp.float64),
        }  # fmt: skip
    ours = {
        "a + b": lambda: x + y, "a * 2.0": lambda: x * 2.0, "exp": lambda: xb.exp(x),
        "sum": (lambda: xb.sum(x)) if hasattr(xb, "sum") else None, "matmul": lambda: X @ X,
        "a[1:-1]": lambda: x[1:-1], "reshape": (lambda: xb.reshape(x, shape2)) if hasattr(xb, "reshape") else None,
        "astype": lambda: xb.astype(x, xb.float32),
        "zeros": lambda: xb.zeros(n, backend=backend, device=device),
        # the keyword path: a dtype and a backend name, the device from the backend's default
        "zeros dtype=": lambda: xb.zeros(n, dtype=xb.float64, backend=backend),
    }  # fmt: skip
    peer_calls = {p: _peers.calls(p, backend, device, n, a, b, A, shape2) for p in peers}
    out = []
    for name, r in raw.items():
        o = ours[name]
        label = f"matmul {m}x{m}" if name == "matmul" else name
        if device.startswith("cuda"):
            r, o = (lambda f=r: (f(), sync())), (None if o is None else (lambda f=o: (f(), sync())))
        out.append((label, r, o, {p: peer_calls[p].get(name) for p in peers}))
    return out


def goals(n: int, raw: float, ours: float, best_added_us: float, peer_us: dict[str, float | None]) -> str:
    """The issue-11/issue-2 goals this row misses, comma-separated (``ok`` when none): see the module docstring."""
    missed = []
    if n <= 1000 or raw < 10:  # 100 elements, or an O(1) view at 1e6: no work that a ratio could hide behind
        if best_added_us > 0.35:
            missed.append("+µs")
    elif ours / raw > 1.02:
        missed.append("ratio")
    if n <= 1000:  # the peers at 100 elements only: at a million the work dominates and differences are noise
        c = peer_us.get("compat")
        if c is not None and c <= raw * 1.05 and ours > 1.1 * c:
            missed.append("compat")
        missed += [p for p in ("autoray", "eagerpy") if peer_us.get(p) is not None and ours >= peer_us[p]]
    return ",".join(missed) or "ok"


def import_times(runs: int = 7) -> tuple[float, float]:
    """Median wall time of ``import numpy`` and ``import xbackend`` in fresh interpreters (seconds)."""

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure what users get: imports from cached bytecode

    def run(stmt: str) -> float:
        code = f"import time; t=time.perf_counter(); {stmt}; print(time.perf_counter()-t)"
        subprocess.check_output([sys.executable, "-c", code], text=True, env=env)  # warm: write .pyc files
        vals = [float(subprocess.check_output([sys.executable, "-c", code], text=True, env=env)) for _ in range(runs)]
        return statistics.median(vals)

    return run("import numpy"), run("import xbackend")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer repeats (smoke run)")
    p.add_argument("--backends", default="numpy,torch", help="comma-separated backends (default numpy,torch)")
    p.add_argument("--gpu", action="store_true", help="time torch-CUDA and CuPy instead of the CPU backends")
    p.add_argument("--no-import", action="store_true", help="skip the import-time measurement")
    p.add_argument("--no-peers", action="store_true", help="skip array-api-compat, autoray and EagerPy")
    p.add_argument("--note", default=None, help="a '# ' comment line on top of the table (how quiet the machine was)")
    p.add_argument("--out", default=None, help="also write the table to this file")
    p.add_argument("--json", default=None, help="also write the table's rows as JSON records (for benchmarks/plots.py)")
    args = p.parse_args(argv)
    repeats, budget, n_sessions = (15, 0.001, 3) if args.quick else (100, 0.001, 25)
    from xbackend.testing import available_targets

    wanted = set(args.backends.split(",")) if not args.gpu else {"torch", "cupy"}
    targets = [t for t in available_targets() if t.backend in wanted and t.is_gpu == args.gpu]
    peers = () if args.gpu or args.no_peers else tuple(_peers.installed())
    lines = [f"# {args.note}"] if args.note else []
    lines += [f"xbackend {xb.__version__}, numpy {np.__version__}; 100 elements: {n_sessions} sessions 0.1 s "
              "apart, "
              f"each 15 interleaved rounds of ~{budget * 500:g} ms blocks per call; the µs columns are the medians of "
              "the quietest session (raw fastest), added = median xbackend - raw over all sessions, best+ = fastest "
              f"xbackend block - fastest raw block; 1e6 (but views): one session of {repeats} rounds of "
              f"~{budget * 1e3:g} ms"
             + (f"; peers: {', '.join(f'{p} {_peers.version(p)}' for p in peers)}" if peers else ""),
             f"{'target':<12}{'op':<16}{'n':>9}{'raw µs':>11}{'xb µs':>11}{'added µs':>10}{'best+ µs':>11}"
             f"{'ratio':>8}"
             + "".join(f"{p + ' µs':>12}" for p in peers)
             + ("  goal <= 1.15" if args.gpu else "  goals")]  # fmt: skip
    gated = {"a + b", "a * 2.0", "exp", "sum"}  # elementwise ops and reductions (issue 8's per-call goal)
    for t in targets:
        for n in (100, 1_000_000):
            # 100 elements: 25 sessions of 15 rounds of 0.5 ms blocks, 0.1 s apart; 1e6: one session of 100 rounds
            for name, raw, ours, peer_fns in cases(t.backend, t.device, n, peers):
                cheap = n <= 1000 or name in ("a[1:-1]", "reshape")  # O(1) views: cheap at every size
                count, rounds, block = (n_sessions, 15, budget / 2) if cheap else (1, repeats, budget)
                if ours is None:
                    r = statistics.median(interleaved([raw], rounds, block)[0]) * 1e6
                    lines.append(f"{t.id:<12}{name:<16}{n:>9}{r:>11.3f}{'n/a':>11}{'':>10}{'':>11}{'':>8}")
                    continue
                live = [p for p, f in peer_fns.items() if f is not None]
                runs = sessions([raw, ours] + [peer_fns[p] for p in live], count, rounds, block, 0.1)
                added = statistics.median(b - a for run in runs for a, b in zip(run[0], run[1])) * 1e6
                best = min(runs, key=lambda run: statistics.median(run[0]))  # the quietest session: raw fastest
                r, o = (statistics.median(v) * 1e6 for v in best[:2])
                best_added = (min(v for run in runs for v in run[1]) - min(v for run in runs for v in run[0])) * 1e6
                peer_us: dict[str, float | None] = dict.fromkeys(peer_fns)
                peer_us |= {p: statistics.median(v) * 1e6 for p, v in zip(live, best[2:])}
                cols = "".join(f"{'n/a':>12}" if v is None else f"{v:>12.3f}" for v in peer_us.values())
                if args.gpu:
                    goal = ("  yes" if o / r <= 1.15 else "  NO") if name in gated else ""
                else:
                    goal = "  " + goals(n, r, o, best_added, peer_us)
                lines.append(f"{t.id:<12}{name:<16}{n:>9}{r:>11.3f}{o:>11.3f}{added:>10.3f}{best_added:>11.3f}{o / r:>8.3f}"
                             f"{cols}{goal}")
    if not targets:
        lines.append("(no target: " + ("no CUDA device here" if args.gpu else f"none of {sorted(wanted)} usable") + ")")
    if not args.no_import:
        t_np, t_xb = import_times(3 if args.quick else 7)
        lines.append(f"import numpy {t_np * 1e3:.1f} ms, import xbackend {t_xb * 1e3:.1f} ms "
                     f"(+{(t_xb - t_np) * 1e3:.1f} ms; target <= +20 ms)")  # fmt: skip
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.json:
        write_json(text, args.json)
    return 0


def write_json(text: str, path: str) -> None:
    """The table's rows as records (``target``, ``op``, ``n``, ``raw_us``, ``xb_us``, ...), read back from the text
    so that every column of the table, peers included, lands in the JSON."""
    import json

    if os.path.dirname(os.path.abspath(__file__)) not in sys.path:  # appended: benchmarks/dask_graphs.py shadows dask
        sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    from _results import parse_overhead

    with open(path, "w") as f:
        json.dump(parse_overhead(text), f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
