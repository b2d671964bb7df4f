"""``@xb.jit`` vs eager xbackend vs hand-written raw eager code, per backend, in one table.

Run: ``python benchmarks/jit.py [--quick] [--shapes] [--repeat R] [--threads N] [--targets IDS]
[--workloads chain,logreg,xent]`` (target ids: ``numpy-cpu``, ``torch-cpu``, ``jax-cpu``, ...).
``--shapes`` adds a second table: the chain at three sizes of the same ndim under each shape policy
(auto, the default; symbolic; concrete). Workloads:

- ``chain``   10 elementwise ops and a sum over 1e7 float32 elements (``--quick``: 1e6);
- ``logreg``  one step of the demo's logistic regression (the hand-derived gradient, as the demo's ``gd_step``
  computed it before it moved to autodiff; its default 20000 x 16 float64 data, lr 0.5): forward, gradient,
  update of w and b (b a 0-d Array, so the step has no host sync);
- ``xent``    softmax cross-entropy (logsumexp, the label's logit, mean) over 1e5 x 100 float32 logits
  (``--quick``: 1e4 x 100); raw code gathers with take_along_dim/axis, the xbackend code uses a
  one-hot mask (traceable: see docs/jit.md).

Targets: every usable one (``xbackend.testing.available_targets``), plus ``jax-cpu`` when JAX is
installed and the generic Array-API backend holds JAX arrays (``backend="jax"``; the benchmark turns
on ``jax_enable_x64`` so the float64 step is float64; ``raw`` is eager ``jax.numpy``). ``--threads 1``
also keeps XLA's CPU work on one thread (``--xla_cpu_multi_thread_eigen=false``).

For each target and workload: median milliseconds per call of the raw library code (``raw``), the same
function written against xbackend run eagerly (``xb``) and under ``@xb.jit`` (``jit``), the speed-ups
``raw/jit`` and ``xb/jit`` side by side, and the compile time (first call: trace + compile, reported
separately, never inside the medians). Variants interleave round by round so machine noise hits them
alike; a sample of a short call (the logreg step) times a batch of calls (about 20 ms) and divides.
Every call waits for its results (``block_until_ready`` on JAX's asynchronous dispatch). Goals (issue 12):
torch-CPU ``raw/jit`` >= 1.5 on ``chain``; ``raw/jit`` >= 1 on ``logreg`` everywhere; >= 2 on torch-CUDA and
CuPy for ``chain`` and ``xent``; issue 28: >= 2 on torch-CUDA for every workload (``--quick``, as
``benchmarks/gpu_check.sh`` runs it; ``benchmarks/gpu_goals.py`` reads the verdict).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import xbackend as xb  # noqa: E402
from xbackend.testing import available_targets  # noqa: E402


# -- the workloads, written once against xbackend --------------------------------------------------
def chain(x: Any) -> Any:
    y = x * 1.5
    y = y + 0.5
    y = xb.sin(y)
    y = y * y
    y = xb.exp(-y)
    y = y + x
    y = xb.tanh(y)
    y = y * 0.25
    y = xb.abs(y)
    y = xb.sqrt(y + 1.0)
    return xb.sum(y)


def logreg_step(X: Any, y: Any, w: Any, b: Any, lr: float) -> tuple[Any, Any]:
    """One step of the demo's logistic regression with the hand-derived gradient: the demo's ``gd_step`` as it
    was when the table below was measured (the demo now differentiates by ``xb.value_and_grad``, whose
    composition with ``@xb.jit`` benchmarks/grad.py measures)."""
    n = X.shape[0]
    err = 1.0 / (1.0 + xb.exp(-(X @ w + b))) - y
    return w - lr * (X.mT @ err) / n, b - lr * xb.sum(err) / n


def xent(logits: Any, labels: Any) -> Any:
    m = xb.max(logits, axis=1, keepdims=True)
    lse = xb.log(xb.sum(xb.exp(logits - m), axis=1)) + m[:, 0]
    # the label's logit through a one-hot mask: take_along_axis checks its indices on the host (a
    # data-dependent branch that no trace may bake in), so under @xb.jit it would run eagerly
    hot = labels[:, None] == xb.arange(logits.shape[1], device=logits.device)
    picked = xb.sum(xb.where(hot, logits, 0.0), axis=1)
    return xb.mean(lse - picked)


# -- the same, hand-written for each library ---------------------------------------------------------
def raw_chain(m: Any) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        y = x * 1.5
        y = y + 0.5
        y = m.sin(y)
        y = y * y
        y = m.exp(-y)
        y = y + x
        y = m.tanh(y)
        y = y * 0.25
        y = m.abs(y)
        y = m.sqrt(y + 1.0)
        return y.sum()

    return f


def raw_logreg(m: Any) -> Callable[..., Any]:
    def f(X: Any, y: Any, w: Any, b: Any, lr: float) -> tuple[Any, Any]:
        n = X.shape[0]
        p = 1.0 / (1.0 + m.exp(-(X @ w + b)))
        err = p - y
        return w - lr * (X.T @ err) / n, b - lr * err.sum() / n

    return f


def raw_xent(m: Any) -> Callable[..., Any]:
    torch_like = m.__name__ == "torch"  # (jax.numpy: NumPy's spelling)

    def f(logits: Any, labels: Any) -> Any:
        if torch_like:
            mx = logits.amax(dim=1, keepdim=True)
            picked = m.take_along_dim(logits, labels[:, None], dim=1)[:, 0]
        else:
            mx = logits.max(axis=1, keepdims=True)
            picked = m.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
        lse = m.log(m.exp(logits - mx).sum(1)) + mx[:, 0]
        return (lse - picked).mean()

    return f


def _module(backend: str) -> Any:
    if backend == "jax":
        import jax.numpy as jnp

        return jnp
    return __import__(backend)


def _block(out: Any) -> Any:
    """Wait for a result: JAX dispatches asynchronously (other libraries here return finished arrays)."""
    for leaf in out if isinstance(out, (tuple, list)) else (out,):
        leaf = leaf.native if type(leaf) is xb.Array else leaf
        ready = getattr(leaf, "block_until_ready", None)
        if ready is not None:
            ready()
    return out


def jax_target() -> Any:
    """``jax-cpu`` when JAX is installed and the generic backend holds JAX arrays (else None)."""
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)  # the demo's step is float64
    try:
        a = xb.asarray(np.ones(2), backend="jax")
    except Exception:
        return None
    if not type(a.native).__module__.startswith(("jax", "jaxlib")):
        return None
    from xbackend.testing import Target

    return Target("jax", "cpu")


def _inputs(name: str, quick: bool, t: Any) -> tuple[Any, ...]:
    rng = np.random.default_rng(0)
    on = dict(backend=t.backend, device=t.device)
    if name == "chain":
        return (xb.asarray(rng.standard_normal(10**6 if quick else 10**7).astype(np.float32), **on),)
    if name == "logreg":  # the demo's data and sizes (python -m xbackend demo --jit)
        from xbackend._demo import make_clicks

        X_np, y_np, _ = make_clicks(20_000, 16)
        X, y = xb.asarray(X_np, **on), xb.asarray(y_np, **on)
        return X, y, xb.zeros(16, dtype=xb.float64, **on), xb.zeros((), dtype=xb.float64, **on), 0.5
    n = 10**4 if quick else 10**5
    logits = xb.asarray(rng.standard_normal((n, 100)).astype(np.float32), **on)
    labels = xb.asarray(rng.integers(0, 100, n), **on)
    return logits, labels


WORKLOADS: dict[str, tuple[Callable[..., Any], Callable[[Any], Callable[..., Any]]]] = {
    "chain": (chain, raw_chain),
    "logreg": (logreg_step, raw_logreg),
    "xent": (xent, raw_xent),
}


def _native(a: Any) -> Any:
    return a.native if type(a) is xb.Array else a


def _time(fns: dict[str, Callable[[], Any]], sync: Callable[[], None], repeat: int,
          sample_s: float = 0.02) -> dict[str, float]:  # fmt: skip
    """Median seconds per call; a sample runs a batch of ``inner`` calls (about ``sample_s``) so that
    sub-millisecond calls are not timed one by one against the clock and scheduler noise."""
    inner: dict[str, int] = {}
    for k, f in fns.items():  # warm-up (kernel caches, allocator, CUDA-graph recording), and the batch size
        for _ in range(3):
            f()
        sync()
        t0 = time.perf_counter()
        f()
        sync()
        inner[k] = max(1, min(1000, int(sample_s / max(time.perf_counter() - t0, 1e-9))))
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for k, f in fns.items():
            t0 = time.perf_counter()
            for _ in range(inner[k]):
                f()
            sync()
            samples[k].append((time.perf_counter() - t0) / inner[k])
    return {k: statistics.median(v) for k, v in samples.items()}


def run(targets: list[Any], quick: bool, repeat: int, workloads: list[str] | None = None) -> list[str]:
    lines = [f"{'target':<14}{'workload':<9}{'raw ms':>10}{'xb ms':>10}{'jit ms':>10}{'raw/jit':>9}{'xb/jit':>8}"
             f"{'compile s':>11}  jit path"]  # fmt: skip
    print(lines[0], flush=True)
    for t in targets:
        mod = _module(t.backend)
        for name, (fn, raw_of) in WORKLOADS.items():
            if workloads and name not in workloads:
                continue
            args = _inputs(name, quick, t)
            nat = tuple(_native(a) for a in args)
            raw = raw_of(mod)
            jitted = xb.jit(fn)
            t0 = time.perf_counter()
            with warnings.catch_warnings():  # a fallback shows in the table's last column
                warnings.simplefilter("ignore", xb.JitFallbackWarning)
                _block(jitted(*args))
            xb.synchronize(args[0])
            compile_s = time.perf_counter() - t0
            info = jitted.cache_info()
            path = "eager (by design)" if info.compiles == 0 and info.fallbacks == 0 else (
                "compiled" if info.fallbacks == 0 else "FELL BACK to eager")  # fmt: skip
            if any(any(getattr(e.run, "graphed", ())) for e in jitted._cache.values() if hasattr(e, "run")):
                path += ", CUDA graphs"
            med = _time({"raw": lambda: _block(raw(*nat)), "xb": lambda: _block(fn(*args)),
                         "jit": lambda: _block(jitted(*args))}, lambda: xb.synchronize(args[0]), repeat)  # fmt: skip
            ms = {k: v * 1e3 for k, v in med.items()}
            lines.append(f"{t.id:<14}{name:<9}{ms['raw']:>10.3f}{ms['xb']:>10.3f}{ms['jit']:>10.3f}"
                         f"{med['raw'] / med['jit']:>9.2f}{med['xb'] / med['jit']:>8.2f}"
                         f"{compile_s if info.compiles else 0.0:>11.1f}  {path}")  # fmt: skip
            print(lines[-1], flush=True)
    return lines


def shape_policy(targets: list[Any], quick: bool, repeat: int) -> list[str]:
    """The chain at three sizes (same ndim) under each shape policy: ``auto`` (the default: concrete first,
    symbolic from the second shape), ``symbolic`` (``dynamic=True``) and ``concrete`` (``dynamic=False``):
    seconds of each first call (trace + compile when one happens), the steady-state median at the last
    size, and the number of traces."""
    sizes = (10**5, 3 * 10**5, 10**6) if quick else (10**6, 3 * 10**6, 10**7)
    lines = [f"{'target':<14}{'shapes':<10}" + "".join(f"{'1st @' + format(n, '.0e'):>11}" for n in sizes)
             + f"{'steady s':>10}{'traces':>8}"]  # fmt: skip
    print(lines[0], flush=True)
    rng = np.random.default_rng(0)
    for t in targets:
        if t.backend != "torch":  # the shape policies are torch's (jax.jit: one trace per shape)
            continue
        xs = [xb.asarray(rng.standard_normal(n).astype(np.float32), backend=t.backend, device=t.device) for n in sizes]
        for label, opts in (("auto", {}), ("symbolic", {"dynamic": True}), ("concrete", {"dynamic": False})):
            f = xb.jit(chain, backend_options=opts)
            firsts = []
            for x in xs:
                t0 = time.perf_counter()
                _block(f(x))
                xb.synchronize(x)
                firsts.append(time.perf_counter() - t0)
            med = _time({"jit": lambda: _block(f(xs[-1]))}, lambda: xb.synchronize(xs[-1]), repeat)["jit"]
            lines.append(f"{t.id:<14}{label:<10}" + "".join(f"{s:>11.2f}" for s in firsts)
                         + f"{med:>10.4f}{f.cache_info().compiles:>8}")  # fmt: skip
            print(lines[-1], flush=True)
    return lines


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller arrays (a short GPU check)")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--threads", type=int, default=None,
                   help="torch.set_num_threads(N) first (on a shared machine, 1 keeps OpenMP waits out of the figures)")
    p.add_argument("--shapes", action="store_true", help="also measure the shape policy (symbolic vs concrete)")
    p.add_argument("--targets", default=None, help="comma-separated target ids (default: every usable one)")
    p.add_argument("--workloads", default=None, help="comma-separated workloads (default: " + ",".join(WORKLOADS) + ")")
    args = p.parse_args()
    if args.threads:
        import os

        import torch

        torch.set_num_threads(args.threads)
        if args.threads == 1:  # before JAX starts XLA's CPU client
            os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false").strip()
    targets = list(available_targets())
    jt = jax_target()
    if jt is not None and all(t.id != jt.id for t in targets):
        targets.append(jt)
    if args.targets:
        want = args.targets.split(",")
        targets = [t for t in targets if t.id in want or t.backend in want]
    print(f"xb.jit benchmark ({'quick' if args.quick else 'full'} sizes, median of {args.repeat}, torch threads: "
          f"{args.threads or 'default'}); speed-ups > 1 mean jit is faster")  # fmt: skip
    run(targets, args.quick, args.repeat, args.workloads.split(",") if args.workloads else None)
    if args.shapes:
        print("\nshape policy: new sizes with the same ndim (first-call seconds include any trace + compile)")
        shape_policy(targets, args.quick, args.repeat)
    tot = xb.jit_cache_info()
    print(f"jit_cache_info: {tot.compiles} compiles, {tot.fallbacks} fallbacks, {tot.compile_time_s:.1f} s compiling")
    return 0


if __name__ == "__main__":
    sys.exit(main())
