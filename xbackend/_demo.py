"""The training loops of the guide page "Training with gradients" (``docs/guide/gradients.md``) and of
``python -m xbackend demo``: a logistic regression (the click-through-rate model) and a small MLP, written once
against xbackend and trained by automatic differentiation on every backend that has gradients.

Design constraint: the guide shows these functions exactly as they are written here (``tests/test_grad.py``
compares the text), so what the guide teaches is what the demo runs. Only xbackend calls: NumPy, torch (CPU,
CUDA), CuPy and JAX Arrays all train with the same code; ``xb.value_and_grad`` gives the loss of each step
with its gradient, and ``float(loss)`` logs it. No annotations: they are written as a user writes them.
"""

from __future__ import annotations

import numpy as np

import xbackend as xb

__all__ = ["log_loss", "train_logistic", "train_logistic_backward", "init_mlp", "mlp_loss", "train_mlp"]


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
