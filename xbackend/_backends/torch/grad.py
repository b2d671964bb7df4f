"""torch's autograd behind xbackend's gradient API: the torch backend's part of the contract in
``xbackend/_backend.py``'s ``AutogradContract``.

Design constraint: torch's raw autograd errors never reach the user; each one xbackend can name becomes a
:class:`~xbackend.GradientError` that says what happened and the fix that works (``with xb.no_grad():`` for an
in-place update of a parameter, ``retain_graph=True`` for a second backward, ...). Unknown ones pass through.

``value_and_grad`` is ``xb.grad``'s engine for torch Arrays (and, through ``grad_via``, for NumPy and CuPy
Arrays moved here without a copy): ``torch.autograd.grad`` on fresh leaves that alias the inputs, so the
caller's tensors, their ``.grad`` and any graph they belong to are left alone - unless ``nested`` (inside
another ``xb.grad``), where inputs that require grad are used as they are and the graph is kept
(``create_graph``), so the result can be differentiated again. Gradients that autograd hands back as
broadcast views (the gradient of ``sum(x)`` is one value expanded, stride 0) are made contiguous: an in-place
update of such a view (``g *= 2``) would write one element many times.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, ContextManager

from ..._backend import Backend
from ..._errors import GradientError

torch: Any = None  # bound by the torch backend's _import_torch

__all__ = ["TorchGradMixin", "leaf_write_error"]

_LEAF_FIX = ("update it under `with xb.no_grad():` (e.g. `with xb.no_grad(): w -= lr * w.grad`), or write it out "
             "of place (w = w - 1), which makes a new Array in the graph")  # fmt: skip


def leaf_write_error(x: Any, what: str, exc: BaseException) -> GradientError | None:
    """The typed error for torch's refusal to write into a leaf that requires grad (or a view of one) while
    grad mode is on; None when ``exc`` is something else."""
    if "leaf Variable that requires grad" not in str(exc):
        return None
    return GradientError(
        f"{what} on a torch Array that requires grad (a leaf: a parameter) while gradients are recorded: autograd "
        f"cannot track an in-place change of a leaf. Fix: {_LEAF_FIX}"
    )


# torch's backward errors xbackend names, by a phrase of torch's message -> what happened and the fix
_BACKWARD_ERRORS = (
    ("does not require grad and does not have a grad_fn",
     "x.backward(): x does not depend on any Array that requires grad, so there is nothing to differentiate",
     "create the parameters with requires_grad=True (xb.asarray(w, backend='torch', requires_grad=True), or "
     "w.requires_grad_()) before computing x from them, and outside `with xb.no_grad():`"),
    ("grad can be implicitly created only for scalar outputs",
     "x.backward() without gradient= needs a 0-d x (a scalar loss)",
     "reduce it first, e.g. xb.sum(x).backward() or xb.mean(x).backward(), or pass gradient= (an Array of "
     "x's shape)"),
    ("backward through the graph a second time",
     "the graph behind x was already used and freed by an earlier backward()",
     "recompute the loss before each backward() (once per training step), or call the first backward with "
     "retain_graph=True"),
    ("modified by an inplace operation",
     "an Array the graph needs was changed in place after it was used (x += ..., x[...] = ..., or a parameter "
     "updated before backward())",
     "write that step out of place (x = x + ...), or update the parameters only after backward()"),
)  # fmt: skip


def _translate_backward(exc: BaseException) -> GradientError | None:
    text = str(exc)
    for phrase, what, fix in _BACKWARD_ERRORS:
        if phrase in text:
            return GradientError(f"{what}. Fix: {fix}")
    return None


def _differentiate(fn: Callable[[list[Any]], tuple[Any, list[Any]]], ins: list[Any], leaves: list[Any],
                   create: bool) -> tuple[Any, list[Any], list[Any]]:  # fmt: skip
    value, aux = fn(ins)
    if not value.requires_grad:  # the value does not depend on the inputs (or f computed it under no_grad)
        return value, aux, [None] * len(leaves)
    try:
        grads = torch.autograd.grad(value, leaves, allow_unused=True, create_graph=create)
    except RuntimeError as exc:
        err = _translate_backward(exc)
        if err is None:
            raise
        raise err from exc
    return value, aux, list(grads)


class TorchGradMixin(Backend):
    """Autograd methods of the torch backend (see ``xbackend/_backend.py``'s ``AutogradContract`` for the contract)."""

    has_grad_mode = True

    def requires_grad(self, x: Any) -> bool:
        return bool(x.requires_grad)

    def detach(self, x: Any) -> Any:
        return x.detach()

    def grad_of(self, x: Any) -> Any:
        return x.grad

    def set_grad(self, x: Any, g: Any) -> None:
        try:
            x.grad = g
        except RuntimeError as exc:  # another shape, dtype or device than x
            raise GradientError(f"x.grad must have x's shape, dtype and device ({tuple(x.shape)}, {x.dtype}, "
                                f"{x.device}): {exc}. Fix: assign None or an Array like x") from exc  # fmt: skip

    def set_requires_grad(self, x: Any, flag: bool) -> Any:
        if flag and not (x.is_floating_point() or x.is_complex()):
            raise GradientError(
                f"only floating-point Arrays can require grad; this one is {str(x.dtype).replace('torch.', '')}. "
                "Fix: cast it first, e.g. x = x.astype(xb.float32), or create it with dtype=xb.float32"
            )
        if not flag and not x.is_leaf:
            raise GradientError("requires_grad can be switched off only on leaves (Arrays created, not computed). "
                                "Fix: x = x.detach() for the same values without the graph")  # fmt: skip
        return x.requires_grad_(flag)

    def is_leaf(self, x: Any) -> bool:
        return bool(x.is_leaf)

    def backward(self, x: Any, gradient: Any, retain_graph: bool | None, create_graph: bool) -> None:
        try:
            x.backward(gradient, retain_graph=retain_graph, create_graph=create_graph)
        except RuntimeError as exc:
            err = _translate_backward(exc)
            if err is None:
                raise
            raise err from exc

    def no_grad(self) -> ContextManager[Any]:
        return torch.no_grad()

    def value_and_grad(self, fn: Callable[[list[Any]], tuple[Any, list[Any]]], xs: list[Any], wrt: tuple[int, ...],
                       nested: bool) -> tuple[Any, list[Any], list[Any]]:  # fmt: skip
        ins = list(xs)
        create = False
        for i in wrt:
            t = ins[i]
            if nested and t.requires_grad:
                create = True  # inside another xb.grad: keep the graph, so the result can be differentiated again
            else:
                ins[i] = t.detach().requires_grad_(True)  # a fresh leaf on the same memory
        leaves = [ins[i] for i in wrt]
        if torch.is_grad_enabled():
            value, aux, grads = _differentiate(fn, ins, leaves, create)
        else:  # inside `xb.no_grad()`, or a caller traced without grad mode
            with torch.enable_grad():
                value, aux, grads = _differentiate(fn, ins, leaves, create)
        out = []
        for g, t in zip(grads, leaves):
            if g is None:  # an input f did not use: its gradient is zero
                g = torch.zeros_like(t, memory_format=torch.contiguous_format)
            elif 0 in g.stride() and g.numel() > 1:
                g = g.contiguous()  # a broadcast view (one value expanded): its own memory, safe to update
            # without create_graph autograd's gradients record no graph: they are returned as they are
            out.append(g.detach() if g.requires_grad and not create else g)
        if not create:
            value = value.detach()
            if aux:
                aux = [a.detach() if isinstance(a, torch.Tensor) else a for a in aux]  # (aux Arrays may live anywhere)
        return value, out, aux

    def watch_grad(self, x: Any, callback: Callable[[Any], None]) -> bool:
        def hook(g: Any) -> None:  # returns None: the gradient flows on unchanged
            callback(g)

        x.register_hook(hook)
        return True

    def stream_handle(self, dev: Any) -> int | None:
        if dev.type != "cuda":
            return None
        return _raw_stream(dev.index or 0)

    def use_stream(self, handle: int | None, dev: Any) -> ContextManager[Any]:
        if handle is None or dev.type != "cuda":
            return _NULL
        index = dev.index or 0
        if handle == _raw_stream(index):  # already torch's current stream there (the defaults: both 0)
            return _NULL
        if handle == 0:  # the legacy default stream (CuPy's null stream): torch's default stream is that one
            return torch.cuda.stream(torch.cuda.default_stream(index))
        return torch.cuda.stream(torch.cuda.ExternalStream(handle, device=torch.device("cuda", index)))


_NULL = contextlib.nullcontext()


def _raw_stream(index: int) -> int:
    """The ``cudaStream_t`` of torch's current stream on CUDA device ``index`` (0: the legacy default stream)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:  # pragma: no cover - older torch
        return int(torch.cuda.current_stream(index).cuda_stream)
    return int(raw(index))
