"""A click-through-rate model, ported from a NumPy tutorial to xbackend the way a newcomer ports it (issue 32).

The tutorial trains a logistic regression on click logs in NumPy and then moves it to torch on a GPU. The port
keeps its habits: the data are globals that the loss reads (closures), the device comes from
``x.to(dev)``, the dtype is checked NumPy's way (``X.dtype == np.float32``), parameters are updated
under ``@xb.no_grad``, accuracy rounds with ``round(p)``, and results leave through ``.detach().cpu().numpy()``.
The same file runs unchanged on NumPy and torch Arrays (and CuPy on a GPU); gradients come from
``xb.value_and_grad`` (torch's autograd, on zero-copy views for NumPy and CuPy)::

    python examples/ctr_port.py --backend numpy
    python examples/ctr_port.py --backend torch

``tests/test_examples.py`` runs it on both and checks the weights against plain NumPy with the hand-derived
gradient.
"""

from __future__ import annotations

import argparse

import numpy as np

import xbackend as xb


def make_clicks(n: int = 2000, d: int = 8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The tutorial's synthetic click logs, in NumPy: float32 features, clicks ~ Bernoulli(sigmoid(X w - 1))."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    w_true = rng.normal(scale=0.8, size=d)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(X @ w_true - 1.0)))).astype(np.float32)
    return X, y


def train(backend: str = "numpy", steps: int = 100, lr: float = 0.5, n: int = 2000,
          d: int = 8) -> tuple[np.ndarray, float, list[float], float]:  # fmt: skip
    """Full-batch gradient descent; returns (w, b, losses every 10 steps, accuracy), as NumPy values."""
    X_np, y_np = make_clicks(n, d)
    dev = xb.preferred_device(backend)  # CUDA where there is one, else the CPU
    X = xb.asarray(X_np).to(dev)  # the tutorial's X = torch.from_numpy(X).to(device)
    y = xb.asarray(y_np).to(dev)
    assert X.dtype == np.float32  # the tutorial's NumPy-style check: true on every backend

    def loss_fn(w: xb.Array, b: xb.Array) -> xb.Array:  # reads the globals X and y
        z = X @ w + b
        return xb.mean(xb.logaddexp(0.0, z) - y * z)

    @xb.no_grad
    def accuracy(w: xb.Array, b: xb.Array) -> float:
        p = 1.0 / (1.0 + xb.exp(-(X @ w + b)))
        return float(xb.mean(xb.astype(round(p) == y, xb.float32)))

    w = xb.zeros(d, dtype=X.dtype, device=X.device)
    b = xb.zeros((), dtype=X.dtype, device=X.device)
    step_fn = xb.value_and_grad(loss_fn, argnums=(0, 1))
    losses = []
    for step in range(steps):
        loss, (gw, gb) = step_fn(w, b)
        w, b = w - lr * gw, b - lr * gb
        if step % 10 == 0:
            losses.append(float(loss))
    return w.detach().cpu().numpy(), float(b), losses, accuracy(w, b)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the ported click-through-rate model.")
    parser.add_argument("--backend", default="numpy", help="numpy, torch or cupy (default: numpy)")
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args(argv)
    w, b, losses, acc = train(args.backend, args.steps)
    print(f"{args.backend}: loss {losses[0]:.4f} -> {losses[-1]:.4f}, accuracy {acc:.3f}, w[:3] = {w[:3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
