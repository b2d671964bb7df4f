"""Command line: ``python -m xbackend info | demo``.

``info``  versions, every backend with availability and the reason when unusable, devices, defaults.
``demo``  the click-through-rate scenario: synthetic click data made in NumPy, a logistic regression
          trained by the same backend-portable xbackend code on every usable backend (Dask too, when
          installed: lazy, each step persisted), with loss, agreement with a plain-NumPy reference, and
          time (``--jit``: each step compiled by ``@xb.jit``).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from typing import Any, Sequence

import numpy as np

import xbackend as xb


def info() -> int:
    """Print versions, backends (with the reason when unusable), devices and defaults."""
    cfg = xb.get_config()
    print(f"xbackend {xb.__version__} (Array API {xb.__array_api_version__}) on Python {platform.python_version()}")
    print("backends:")
    for inf in xb.backends().values():
        print(f"  {inf}")
        for k, v in inf.extra.items():
            print(f"         {k}: {v}")
    dev = cfg.device or "backend default"
    print(f"defaults: backend={cfg.backend} device={dev} float={cfg.default_float} int={cfg.default_int}")
    print("environment variables: " + ", ".join(xb._config.ENVIRONMENT_VARIABLES))
    return 0


# --- the demo: written once against xbackend, run on every backend -----------------------------
def sigmoid(z: xb.Array) -> xb.Array:
    return 1.0 / (1.0 + xb.exp(-z))


def train_logistic(X: xb.Array, y: xb.Array, steps: int, lr: float) -> tuple[xb.Array, float, list[float]]:
    """Full-batch gradient descent on the mean log-loss; backend-portable (only xbackend calls)."""
    n, d = X.shape
    if n is None or d is None:  # a lazy Array after a boolean mask
        raise ValueError("train_logistic() needs known sizes. Fix: X = X.persist() first")
    w = xb.zeros(d, dtype=X.dtype, backend=X.backend, device=X.device)
    b = 0.0
    ones = xb.ones(n, dtype=X.dtype, backend=X.backend, device=X.device)
    losses = []
    for step in range(steps):
        p = sigmoid(X @ w + b)
        err = p - y
        w = (w - lr * (X.mT @ err) / n).persist()  # lazy backends (Dask): keep this step, don't regrow the graph
        b = b - lr * float(ones @ err) / n
        if step % (steps // 4) == 0 or step == steps - 1:
            eps = 1e-12
            loss = -(y @ xb.log(p + eps) + (1.0 - y) @ xb.log(1.0 - p + eps)) / n
            losses.append(float(loss))
    return w, b, losses


def gd_step(X: xb.Array, y: xb.Array, w: xb.Array, b: xb.Array, lr: float) -> tuple[xb.Array, xb.Array]:
    """One gradient-descent step with no host synchronisation (``b`` is a 0-d Array): what ``--jit`` compiles."""
    n = X.shape[0]
    err = sigmoid(X @ w + b) - y
    return w - lr * (X.mT @ err) / n, b - lr * xb.sum(err) / n


gd_step_jit = xb.jit(gd_step)


def train_logistic_jit(X: xb.Array, y: xb.Array, steps: int, lr: float) -> tuple[xb.Array, float, list[float]]:
    """:func:`train_logistic` with each step compiled by ``@xb.jit`` (the loss, 5 times, stays eager)."""
    n, d = X.shape
    w = xb.zeros(d, dtype=X.dtype, device=X.device)
    b = xb.zeros((), dtype=X.dtype, device=X.device)
    losses = []
    for step in range(steps):
        if step % (steps // 4) == 0 or step == steps - 1:
            p = sigmoid(X @ w + b)
            eps = 1e-12
            losses.append(float(-(y @ xb.log(p + eps) + (1.0 - y) @ xb.log(1.0 - p + eps)) / n))
        w, b = gd_step_jit(X, y, w, b, lr)
    return w, float(b), losses


def _numpy_reference(X: np.ndarray, y: np.ndarray, steps: int, lr: float) -> np.ndarray:
    n, d = X.shape
    if n is None or d is None:  # a lazy Array after a boolean mask
        raise ValueError("train_logistic() needs known sizes. Fix: X = X.persist() first")
    w, b = np.zeros(d), 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
        err = p - y
        w = w - lr * (X.T @ err) / n
        b = b - lr * float(err.sum()) / n
    return w


def make_clicks(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Synthetic click logs: features X, clicks y ~ Bernoulli(sigmoid(X w_true - 2)) (about 30 % CTR)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w_true = rng.normal(scale=0.8, size=d)
    p = 1.0 / (1.0 + np.exp(-(X @ w_true - 2.0)))
    y = (rng.random(n) < p).astype(np.float64)
    return X, y, w_true


def demo(n: int = 20_000, d: int = 16, steps: int = 200, lr: float = 0.5, jit: bool = False) -> int:
    """Train the same logistic regression on every usable backend and compare with NumPy.

    ``jit=True`` (``--jit``) compiles each step with ``@xb.jit`` (torch.compile on torch; NumPy runs
    eagerly); the compile time is printed apart from the training time."""
    from xbackend.testing import available_targets

    X_np, y_np, _ = make_clicks(n, d)
    print(f"click-through-rate demo: {n} impressions, {d} features, CTR {y_np.mean():.3f}, {steps} steps of GD")
    t0 = time.perf_counter()
    w_ref = _numpy_reference(X_np, y_np, steps, lr)
    t_ref = time.perf_counter() - t0
    print(f"{'target':<14}{'dtype':<9}{'loss start -> end':<22}{'max |w - w_numpy|':>18}{'time':>10}")
    print(f"{'plain numpy':<14}{'float64':<9}{'':<22}{'(reference)':>18}{t_ref:>9.3f}s")
    worst = 0.0
    for target in available_targets():
        X = xb.asarray(X_np, backend=target.backend, device=target.device)
        y = xb.asarray(y_np, backend=target.backend, device=target.device)
        if jit:  # warm-up on the full shape: the compile happens here, timed apart
            t0 = time.perf_counter()
            w0, b0 = xb.zeros(d, dtype=X.dtype, device=X.device), xb.zeros((), dtype=X.dtype, device=X.device)
            gd_step_jit(X, y, w0, b0, lr)
            print(f"{target.id:<14}compile (first call of the jitted step): {time.perf_counter() - t0:.2f}s")
        else:
            train_logistic(X[:64], y[:64], 4, lr)  # warm-up (kernel caches, CUDA context)
        t0 = time.perf_counter()
        w, b, losses = (train_logistic_jit if jit else train_logistic)(X, y, steps, lr)
        w_host = w.numpy()
        dt = time.perf_counter() - t0
        diff = float(np.max(np.abs(w_host - w_ref)))
        worst = max(worst, diff)
        print(f"{target.id:<14}{str(w.dtype):<9}{losses[0]:.4f} -> {losses[-1]:.4f}{'':<6}{diff:>18.2e}{dt:>9.3f}s")
    ok = worst < 1e-8
    print(f"all backends agree with NumPy to {worst:.1e} ({'OK' if ok else 'MISMATCH'})")
    return 0 if ok else 1


def _plain(rst: str) -> str:
    """reStructuredText inline markup as plain terminal text (``code`` -> code)."""
    return rst.replace("``", "")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xbackend", description=_plain(__doc__.splitlines()[0]))
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="versions, backends and devices")
    p = sub.add_parser("demo", help="train a click-through-rate model on every usable backend")
    p.add_argument("--n", type=int, default=20_000)
    p.add_argument("--d", type=int, default=16)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--jit", action="store_true", help="compile each training step with @xb.jit")
    args: Any = parser.parse_args(argv)
    if args.command == "info":
        return info()
    return demo(n=args.n, d=args.d, steps=args.steps, jit=args.jit)


if __name__ == "__main__":
    sys.exit(main())
