"""``python -m xbackend demo``: the click-through-rate scenario, its model and its run on every backend.

The model is the training loops of the guide page "Training with gradients" (``docs/guide/gradients.md``): a
logistic regression (the click-through-rate model) and a small MLP, written once against xbackend and trained by
automatic differentiation on every backend that has gradients. The run (:func:`demo`) trains it on synthetic click
data on every usable target and holds it against plain NumPy with the hand-derived gradient, and its time against
the same steps written directly in the library that computes the gradients.

Design constraint: nothing in the library imports this module; only the command line does (``__main__.py``). The
guide shows the training functions exactly as they are written here (``tests/test_grad.py`` compares the text), so
what the guide teaches is what the demo runs. Only xbackend calls: NumPy, torch (CPU, CUDA), CuPy and JAX Arrays all
train with the same code; ``xb.value_and_grad`` gives the loss of each step with its gradient, and ``float(loss)``
logs it. No annotations on the training functions: they are written as a user writes them.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

import xbackend as xb

__all__ = ["log_loss", "train_logistic", "train_logistic_backward", "init_mlp", "mlp_loss", "train_mlp", "demo",
           "make_clicks"]


def log_loss(w, b, X, y):
    """The mean log-loss of a logistic regression, log(1 + exp(z)) - y z, in its stable form."""
    z = X @ w + b
    return xb.mean(xb.logaddexp(0.0, z) - y * z)


def train_logistic(X, y, steps, lr, log_every=50):
    """Full-batch gradient descent on log_loss; the loss is logged every log_every steps and at the end."""
    w = xb.zeros(X.shape[1], dtype=X.dtype, device=X.device)
    b = xb.zeros((), dtype=X.dtype, device=X.device)
    loss_and_grads = xb.value_and_grad(log_loss, argnums=(0, 1))
    losses = []
    for step in range(steps):
        loss, (gw, gb) = loss_and_grads(w, b, X, y)
        w, b = w - lr * gw, b - lr * gb
        if step % log_every == 0 or step == steps - 1:
            losses.append(float(loss))
    return w, b, losses


def train_logistic_backward(X, y, steps, lr, log_every=50):
    """The same training, PyTorch style: parameters that require grad, loss.backward(), updates under no_grad."""
    w = xb.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    b = xb.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for step in range(steps):
        loss = log_loss(w, b, X, y)
        loss.backward()
        with xb.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad = b.grad = None
        if step % log_every == 0 or step == steps - 1:
            losses.append(float(loss))
    return w, b, losses


def init_mlp(d, hidden, like, seed=0):
    """Parameters of a d -> hidden -> 1 MLP, drawn on the host (the same values on every backend), placed like `like`."""
    rng = np.random.default_rng(seed)

    def param(shape, scale):
        return xb.asarray(rng.normal(scale=scale, size=shape), dtype=like.dtype, device=like.device)

    return {"W1": param((d, hidden), d**-0.5), "b1": param((hidden,), 0.1),
            "W2": param((hidden,), hidden**-0.5), "b2": param((), 0.1)}  # fmt: skip


def mlp_loss(params, X, y):
    """Log-loss of the MLP's click probability: one tanh hidden layer, one logit per row."""
    h = xb.tanh(X @ params["W1"] + params["b1"])
    z = h @ params["W2"] + params["b2"]
    return xb.mean(xb.logaddexp(0.0, z) - y * z)


def train_mlp(X, y, steps, lr, hidden=16, log_every=50):
    """Gradient descent on mlp_loss; the gradient is a dict shaped like the parameters."""
    params = init_mlp(X.shape[1], hidden, X)
    loss_and_grads = xb.value_and_grad(mlp_loss)
    losses = []
    for step in range(steps):
        loss, grads = loss_and_grads(params, X, y)
        params = {k: p - lr * grads[k] for k, p in params.items()}
        if step % log_every == 0 or step == steps - 1:
            losses.append(float(loss))
    return params, losses


# --- the run: the model above on every backend -------------------------------------------------------------------
# The gradient comes from xb.value_and_grad (torch's autograd, on zero-copy views for NumPy and CuPy; jax.grad).
def gd_step(X: xb.Array, y: xb.Array, w: xb.Array, b: xb.Array, lr: float) -> tuple[xb.Array, xb.Array, xb.Array]:
    """One gradient-descent step by autodiff with no host synchronisation (``b`` and the returned loss are 0-d
    Arrays): what ``--jit`` compiles (on torch, the trace holds the backward pass too)."""
    loss, (gw, gb) = xb.value_and_grad(log_loss, argnums=(0, 1))(w, b, X, y)
    return w - lr * gw, b - lr * gb, loss


gd_step_jit = xb.jit(gd_step)


def train_logistic_jit(X: xb.Array, y: xb.Array, steps: int, lr: float,
                       log_every: int = 50) -> tuple[xb.Array, xb.Array, list[float]]:  # fmt: skip
    """:func:`train_logistic` with each step compiled by ``@xb.jit``."""
    w = xb.zeros(X.shape[1], dtype=X.dtype, device=X.device)
    b = xb.zeros((), dtype=X.dtype, device=X.device)
    losses = []
    for step in range(steps):
        w, b, loss = gd_step_jit(X, y, w, b, lr)
        if step % log_every == 0 or step == steps - 1:
            losses.append(float(loss))
    return w, b, losses


def _numpy_reference(X: np.ndarray, y: np.ndarray, steps: int, lr: float) -> np.ndarray:
    """The same training in plain NumPy with the hand-derived gradient, X.T (sigmoid(X w + b) - y) / n: the
    demo checks that autodiff on every backend reproduces it."""
    n, d = X.shape
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


def _raw_torch(X_np: np.ndarray, y_np: np.ndarray, steps: int, lr: float, log_every: int, device: str) -> Any:
    """The demo's training written directly in torch: the same operations, in the order xbackend runs them (the
    forward pass, ``torch.autograd.grad``, the update, ``float(loss)`` every ``log_every`` steps)."""
    import torch

    X = torch.from_numpy(X_np).to(device)
    y = torch.from_numpy(y_np).to(device)
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device)
    b = torch.zeros((), dtype=X.dtype, device=X.device)
    zero = torch.zeros((), dtype=X.dtype, device=X.device)
    for step in range(steps):
        w.requires_grad_(True)
        b.requires_grad_(True)
        z = X @ w + b
        loss = torch.mean(torch.logaddexp(zero, z) - y * z)
        gw, gb = torch.autograd.grad(loss, (w, b))
        with torch.no_grad():
            w, b = w - lr * gw, b - lr * gb
        if step % log_every == 0 or step == steps - 1:
            float(loss.detach())
    return w.detach().cpu().numpy()


def _raw_jax(X_np: np.ndarray, y_np: np.ndarray, steps: int, lr: float, log_every: int, device: str) -> Any:
    """The demo's training written directly in JAX (eager, as xbackend runs JAX without ``--jit``)."""
    import jax
    import jax.numpy as jnp

    X, y = jnp.asarray(X_np), jnp.asarray(y_np)

    def loss_fn(w: Any, b: Any) -> Any:
        z = X @ w + b
        return jnp.mean(jnp.logaddexp(0.0, z) - y * z)

    step_fn = jax.value_and_grad(loss_fn, argnums=(0, 1))
    w, b = jnp.zeros(X.shape[1], dtype=X.dtype), jnp.zeros((), dtype=X.dtype)
    for step in range(steps):
        loss, (gw, gb) = step_fn(w, b)
        w, b = w - lr * gw, b - lr * gb
        if step % log_every == 0 or step == steps - 1:
            float(loss)
    return np.asarray(w)


#: the library each backend's gradients run in, written directly: the demo's time column compares with it
#: (NumPy and CuPy Arrays are differentiated by torch's autograd on zero-copy views: their baseline is torch)
RAW_BASELINES = {"numpy": _raw_torch, "torch": _raw_torch, "cupy": _raw_torch, "jax": _raw_jax}


#: the dtypes a demo row trains in, widest first, each with the largest ``max |w - w_numpy|`` that counts as agreement
#: with the float64 NumPy reference (200 steps in float32 land within ~2e-7 of it)
DEMO_DTYPES = ((xb.float64, 1e-8), (xb.float32, 1e-4))


def demo_dtype(target: Any) -> tuple[xb.DType | None, float, str]:
    """The dtype ``target``'s demo row trains in and its agreement tolerance: the widest of :data:`DEMO_DTYPES` it
    holds (JAX without 64-bit mode: float32), or None and one line saying why the row is skipped.

    >>> from xbackend.testing import Target
    >>> demo_dtype(Target("numpy", "cpu"))
    (xb.float64, 1e-08, '')
    """
    for dt, tol in DEMO_DTYPES:
        if target.holds(dt):
            return dt, tol, ""
    return None, 0.0, f"skipped: holds none of {', '.join(str(d) for d, _ in DEMO_DTYPES)}"


def _threads() -> str:
    parts = []
    if "torch" in sys.modules:
        parts.append(f"torch {sys.modules['torch'].get_num_threads()} thread(s)")
    try:
        from threadpoolctl import threadpool_info

        blas = {i["internal_api"]: i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"}
        parts += [f"{k} {v}" for k, v in blas.items()]
    except ImportError:
        pass
    return ", ".join(parts) or "library defaults"


def warm_until_steady(step: Any, *, window: int = 5, tolerance: float = 1.3, max_steps: int = 300,
                      budget_s: float = 60.0) -> tuple[int, float]:  # fmt: skip
    """Call ``step()`` (which synchronises, e.g. ``float(loss)``) until its time is steady: the last ``window`` calls
    within ``tolerance`` of each other and of the fastest call so far, or ``max_steps`` calls, or ``budget_s``
    seconds. Returns (calls, seconds). A compiled step runs slowly for its first tens of calls on the CPU (Inductor's
    guards and autotuning settle): timed right after one warm-up call it read as slower than eager
    (tests/test_cli.py checks the rule with a fake clock)."""
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < max_steps and time.perf_counter() - start < budget_s:
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
        last = times[-window:]
        if len(times) >= window and max(last) <= tolerance * min(last) and min(last) <= tolerance * min(times):
            break
    return len(times), time.perf_counter() - start


def _timed(fn: Any, *args: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    r = fn(*args)
    return r, time.perf_counter() - t0


def demo(n: int = 20_000, d: int = 16, steps: int = 200, lr: float = 0.5, jit: bool = False) -> int:
    """Train the same logistic regression by autodiff on every usable backend and compare with NumPy.

    The values are checked against plain NumPy with the hand-derived gradient. The time column compares like with
    like: xbackend's run against the same steps written directly in the library that computes the gradients
    (torch autograd for NumPy, CuPy and torch Arrays; JAX for JAX), on the same data, in the same process with the
    same thread settings, each after one warm-up. ``jit=True`` (``--jit``) compiles each step with ``@xb.jit``
    (torch.compile on torch; NumPy runs eagerly); the compile time is printed apart from the training time.
    Backends without gradients (Dask, array-api-strict) are listed with the fix that xb.grad's refusal names."""
    from xbackend.testing import available_targets

    X_np, y_np, _ = make_clicks(n, d)
    log_every = max(steps // 4, 1)
    print(f"click-through-rate demo: {n} impressions, {d} features, CTR {y_np.mean():.3f}, {steps} steps of GD, "
          "gradients by xb.value_and_grad")  # fmt: skip
    w_ref = _numpy_reference(X_np, y_np, steps, lr)
    print("time: xbackend vs the same steps written directly in the library that computes the gradients (torch "
          "autograd for NumPy/CuPy/torch, JAX for JAX), same data, same process and threads; warmed up")  # fmt: skip
    print(f"{'target':<14}{'dtype':<9}{'loss start -> end':<22}{'max |w - w_numpy|':>18}{'xbackend':>10}"
          f"{'raw lib':>10}{'ratio':>7}")  # fmt: skip
    worst, trained, agree = 0.0, 0, True
    for target in available_targets():
        rdt, tol, why = demo_dtype(target)
        if rdt is None:
            print(f"{target.id + ':':<14} {why}")
            continue
        X = xb.asarray(X_np, dtype=rdt, backend=target.backend, device=target.device)
        y = xb.asarray(y_np, dtype=rdt, backend=target.backend, device=target.device)
        try:
            if jit:  # warm-up on the full shape: the compile, then steps until their time is steady, both apart
                t0 = time.perf_counter()
                w0, b0 = xb.zeros(d, dtype=X.dtype, device=X.device), xb.zeros((), dtype=X.dtype, device=X.device)
                gd_step_jit(X, y, w0, b0, lr)
                compile_s = time.perf_counter() - t0
                n_warm, warm_s = warm_until_steady(lambda: float(gd_step_jit(X, y, w0, b0, lr)[2]))
                print(f"{target.id:<14}compile (first call of the jitted step): {compile_s:.2f}s; warm-up until the "
                      f"steps are steady: {n_warm} steps, {warm_s:.2f}s (neither is in the time column)")  # fmt: skip
            else:
                train_logistic(X[:64], y[:64], 4, lr)  # warm-up (kernel caches, CUDA context)
        except (xb.GradientError, xb.BackendUnavailableError) as exc:
            print(f"{target.id + ':':<14} no gradients: {exc}")
            continue
        (w, b, losses), dt = _timed(lambda: (lambda r: (r[0].numpy(), r[1], r[2]))(
            (train_logistic_jit if jit else train_logistic)(X, y, steps, lr, log_every)))  # fmt: skip
        raw = RAW_BASELINES.get(target.backend)
        t_raw = ""
        if raw is not None and not jit:
            dev = "cpu" if target.device == "cpu" else str(target.device)
            Xr, yr = X_np.astype(rdt.name), y_np.astype(rdt.name)  # the row's dtype in the raw library too
            raw(Xr[:64], yr[:64], 4, lr, log_every, dev)  # the same warm-up
            _, t = _timed(raw, Xr, yr, steps, lr, log_every, dev)
            t_raw = f"{t:>9.3f}s{dt / t:>6.2f}x"
        diff = float(np.max(np.abs(w.astype(np.float64) - w_ref)))
        worst = max(worst, diff)
        agree = agree and diff < tol
        trained += 1
        print(f"{target.id:<14}{str(b.dtype):<9}{losses[0]:.4f} -> {losses[-1]:.4f}{'':<6}{diff:>18.2e}{dt:>9.3f}s"
              f"{t_raw}")  # fmt: skip
    print(f"threads: {_threads()}")
    ok = trained > 0 and agree
    print(f"autodiff on {trained} backend(s) agrees with the hand-derived NumPy gradient to {worst:.1e}, each row "
          f"within its dtype's tolerance ({', '.join(f'{d}: {t:g}' for d, t in DEMO_DTYPES)}) "
          f"({'OK' if ok else 'MISMATCH' if trained else 'NOTHING TRAINED'})")
    return 0 if ok else 1
