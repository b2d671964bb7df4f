"""Habits of NumPy and torch users on an Array: the ones whose meaning is clear work, the others name the spelling.

Design constraint: nothing here costs an existing operation anything. The methods are new names on Array; the
other libraries' methods an Array does not have are properties that raise :class:`~xbackend.UnknownAttributeError`
(still an ``AttributeError``: ``hasattr`` answers as before) saying what to write instead. Never ``__getattr__``:
CPython stops specialising attribute loads on a class that has one, which costs every operation (~35 ns per
``x._data``). Names nobody listed raise Python's own ``AttributeError``.

Working habits (the same meaning in the library the habit comes from, on every backend):

- ``x.copy()`` (NumPy) and ``x.clone()`` (torch): a copy on the same backend and device (torch: in the graph);
- ``x.cpu()`` and ``x.cuda()`` (torch): the same backend on the CPU / a CUDA device (``x.to(device=...)``);
- ``x.transpose(2, 0, 1)`` / ``x.transpose((2, 0, 1))`` / ``x.transpose()`` (NumPy's permutation), and
  ``x.transpose(0, 2)`` on a 3-d Array (torch's swap of two axes: NumPy would refuse it); a 2-d
  ``x.transpose(0, 1)``, which means opposite things in the two libraries, raises with both spellings;
- ``round(x)`` and ``round(x, 2)``: ``xb.round(x)`` (half to even), an Array as in NumPy and torch.

Everything else a user of another library types (``x.float()``, ``x.numel()``, ``x.std()``) raises with the
xbackend spelling.

>>> import xbackend as xb
>>> x = xb.reshape(xb.arange(6.0), (1, 2, 3))
>>> x.transpose(2, 0, 1).shape, x.copy().tolist() == x.tolist(), round(x[0, 0] / 4).tolist()
((3, 1, 2), True, [0.0, 0.0, 0.0])
>>> try:
...     x.float()
... except xb.UnknownAttributeError as e:
...     print(str(e).split("Fix: ")[1])
say which, e.g. x.astype(xb.float32)
"""

from __future__ import annotations

import types
from typing import Any

from . import _args as A
from ._errors import ArgumentTypeError, ArgumentValueError, UnknownAttributeError, UnknownDeviceError

__all__ = ["habits", "refusals", "SPELLINGS"]

#: attribute -> (what it means, the xbackend code): other libraries' methods an Array does not have
SPELLINGS: dict[str, tuple[str, str]] = {
    "float": ("torch's x.float() is float32, and xbackend's default float is float64. Fix: say which",
              "x.astype(xb.float32)"),
    "double": ("torch's x.double() is a cast", "x.astype(xb.float64)"),
    "half": ("torch's x.half() is a cast", "x.astype(xb.float16)"),
    "long": ("torch's x.long() is a cast", "x.astype(xb.int64)"),
    "int": ("torch's x.int() is a cast to int32", "x.astype(xb.int32)"),
    "bool": ("torch's x.bool() is a cast", "x.astype(xb.bool)"),
    "type": ("torch's x.type(dtype) is a cast", "x.astype(xb.float32)"),
    "numel": ("torch's x.numel() is the number of elements", "x.size"),
    "dim": ("torch's x.dim() is the number of dimensions", "x.ndim"),
    "ndimension": ("torch's x.ndimension() is the number of dimensions", "x.ndim"),
    "permute": ("torch's x.permute(*dims) reorders the axes", "xb.permute_dims(x, tuple(reversed(range(x.ndim))))"),
    "view": ("torch's x.view(shape) is a reshape", "xb.reshape(x, (-1,))"),
    "flatten": ("NumPy's and torch's x.flatten() is a reshape", "xb.reshape(x, (-1,))"),
    "ravel": ("NumPy's x.ravel() is a reshape", "xb.reshape(x, (-1,))"),
    "unsqueeze": ("torch's x.unsqueeze(d) adds an axis", "xb.expand_dims(x, axis=0)"),
    "get": ("CuPy's x.get() copies to the host", "x.numpy()"),
    "is_cuda": ("torch's x.is_cuda asks where the data is", "x.device.type == 'cuda'"),
    "contiguous": ("an Array needs no contiguous(): xbackend hands each library the layout it needs", "x"),
    "cumsum": ("NumPy's x.cumsum() is the standard's cumulative_sum", "xb.cumulative_sum(x, axis=0)"),
    "cumprod": ("NumPy's x.cumprod() is the standard's cumulative_prod", "xb.cumulative_prod(x, axis=0)"),
    "dot": ("NumPy's x.dot(y) is a matrix product", "x @ x"),
    "fill_": ("torch's x.fill_(v) writes every element", "x[...] = 0"),
    "zero_": ("torch's x.zero_() writes zeros", "x[...] = 0"),
}  # fmt: skip


def _spellings(root: types.ModuleType, array: type) -> dict[str, tuple[str, str]]:
    """Every habit attribute: :data:`SPELLINGS`, torch's in-place ``x.add_(y)`` & co., and each public function of
    ``root`` that is no Array attribute (``x.std()``: ``xb.std(x)``)."""
    out = dict(SPELLINGS)
    for name, op in (("add_", "+="), ("sub_", "-="), ("mul_", "*="), ("div_", "/=")):
        out[name] = (f"torch's x.{name}(y) is in place", f"x {op} 1")
    for name in getattr(root, "__all__", ()):
        fn = vars(root).get(name)  # (never the lazy xb.random: looking it up would import it)
        if callable(fn) and not isinstance(fn, type) and not name.startswith("_") and name not in out:
            out[name] = ("the Array API puts functions in the namespace, not on the Array (portable code: "
                         "xp = x.__array_namespace__())", f"xb.{name}(x)")  # fmt: skip
    return {n: v for n, v in out.items() if not hasattr(array, n)}


def _habit(name: str, what: str, code: str) -> property:
    """A property that raises the habit's :class:`~xbackend.UnknownAttributeError` (an ``AttributeError``, so
    ``hasattr`` says False as before). Properties, not ``__getattr__``: a class with ``__getattr__`` loses
    CPython's specialised attribute loads, ~35 ns on every ``x._data`` of every operation."""
    fix = what if what.endswith("Fix: say which") else f"{what}. Fix: write"
    msg = f"Array has no attribute {name!r}: {fix}, e.g. {code}"

    def get(self: Any) -> Any:
        raise UnknownAttributeError(msg)

    get.__name__ = name
    get.__xb_habit__ = True  # type: ignore[attr-defined]  # (the API reference leaves these out: docs/conf.py)
    return property(get, doc=f"Not an Array attribute: {msg}")


def _copy(root: types.ModuleType, name: str) -> Any:
    def copy(self: Any) -> Any:
        return root.asarray(self, copy=True)

    copy.__name__ = copy.__qualname__ = name
    copy.__doc__ = (f"A copy on the same backend and device ({'NumPy' if name == 'copy' else 'torch'}'s "
                    f"``x.{name}()``): ``xb.asarray(x, copy=True)``; on torch the copy stays in the autograd graph.")
    return copy


def _what(exc: BaseException) -> str:
    """An error's message without its fix (a habit's error gives its own)."""
    return str(exc).split(" Fix:")[0].rstrip(". ")


def _cpu(self: Any) -> Any:
    """The same backend on the CPU (torch's ``x.cpu()``): ``x.to(device="cpu")``, sharing memory where the data
    is already there. A backend without a CPU device (CuPy) raises with the fix (``x.to(backend="numpy")``)."""
    try:
        return self.to(device="cpu")
    except UnknownDeviceError as exc:
        raise UnknownDeviceError(f"x.cpu(): {_what(exc)}; a {self.backend} Array cannot stay on {self.backend} on "
                                 "the CPU. Fix: change the library too, e.g. x.to(backend='numpy') (or x.numpy() for "
                                 "a numpy.ndarray)") from exc  # fmt: skip


def _cuda(self: Any, device: Any = None) -> Any:
    """The same backend on a CUDA device (torch's ``x.cuda()``; ``x.cuda(1)`` is ``cuda:1``): ``x.to(device=...)``.
    A backend without CUDA (NumPy) raises with the fix, which names a library that has it."""
    if not (device is None or isinstance(device, (str, int)) or hasattr(device, "__index__")):
        raise ArgumentTypeError(f"x.cuda(device) takes a device index or name, got {type(device).__name__}. Fix: "
                                "x.cuda(), x.cuda(1) or x.cuda('cuda:1')")  # fmt: skip
    where = "cuda" if device is None else device if isinstance(device, str) else f"cuda:{int(device)}"
    try:
        return self.to(device=where)
    except UnknownDeviceError as exc:
        raise UnknownDeviceError(f"x.cuda(): {_what(exc)}. Fix: a library with CUDA, e.g. x.to(backend='torch', "
                                 f"device={where!r}) (or backend='cupy')") from exc  # fmt: skip


def _transpose(root: types.ModuleType) -> Any:
    def transpose(self: Any, *axes: Any) -> Any:
        """NumPy's ``x.transpose(*axes)`` (a permutation of all axes; none: reversed) or torch's ``x.transpose(a, b)``
        (two axes swapped) - whichever the arguments mean. Where both could and they disagree (a 2-d
        ``x.transpose(0, 1)``: NumPy's identity, torch's transpose) it raises with the two spellings."""
        n = self.ndim
        tupled = len(axes) == 1 and isinstance(axes[0], (tuple, list))
        if tupled:
            axes = tuple(axes[0])
        if not axes:
            return root.permute_dims(self, tuple(range(n - 1, -1, -1)))
        swap = None
        if len(axes) == 2 and not tupled:
            a, b = (A.axis(i, n, "transpose") for i in axes)
            perm = list(range(n))
            perm[a], perm[b] = perm[b], perm[a]
            swap = tuple(perm)
        if len(axes) != n:
            if swap is None:
                raise ArgumentValueError(f"x.transpose{tuple(axes)}: NumPy's transpose names all {n} axes (torch's "
                                         "swaps two). Fix: name every axis once, e.g. "
                                         f"xb.permute_dims(x, {tuple(range(n - 1, -1, -1))})")  # fmt: skip
            return root.permute_dims(self, swap)
        if swap is not None and tuple(i % n for i in axes) != swap:
            raise ArgumentValueError(
                f"x.transpose{tuple(axes)} of a {n}-d Array means two things: NumPy's permutation "
                f"xb.permute_dims(x, {tuple(axes)}) and torch's swap x.swapaxes({axes[0]}, {axes[1]}), which "
                f"differ. Fix: say which, e.g. x.swapaxes({axes[0]}, {axes[1]})"
            )
        return root.permute_dims(self, tuple(axes))

    return transpose


def _round(root: types.ModuleType) -> Any:
    def __round__(self: Any, ndigits: int | None = None) -> Any:
        """``round(x)`` and ``round(x, 2)``: ``xb.round(x, decimals=...)``, an Array (NumPy's and torch's answer)."""
        return root.round(self) if ndigits is None else root.round(self, decimals=ndigits)

    return __round__


def habits(root: types.ModuleType) -> dict[str, Any]:
    """The working habits, forwarding to ``root``'s public functions: ``xbackend/_assemble.py`` puts them on the
    Array."""
    return {"copy": _copy(root, "copy"), "clone": _copy(root, "clone"), "cpu": _cpu, "cuda": _cuda,
            "transpose": _transpose(root), "__round__": _round(root)}  # fmt: skip


def refusals(root: types.ModuleType, array: type) -> dict[str, property]:
    """A refusing property for every habit attribute ``array`` (assembled: the rest of its surface in place) does
    not have: :data:`SPELLINGS`, torch's in-place methods, and ``root``'s public functions (``x.std()``)."""
    return {name: _habit(name, what, code) for name, (what, code) in _spellings(root, array).items()}
