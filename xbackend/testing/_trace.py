"""Recording the public xbackend calls a function makes: the traces that :func:`~xbackend.testing.diverge` aligns.

Design constraint: no cost when off. Nothing in xbackend knows about recording. While a :func:`recording` context
is open (in any thread), the public functions of the namespaces (``xbackend``, ``xbackend.linalg``,
``xbackend.fft``, ``xbackend.random`` once loaded) and the Array type's public methods, properties, operators and
conversions are swapped for recording wrappers; when the last context closes, the very objects that were there are
put back. Outside a recording the per-call path is the one it was, object for object (``tests/test_diverge.py``
checks the identities and counts the Python calls of the hot operations before and after).

The surface is found, not listed: every public callable in each namespace's ``__all__`` (minus the ones that are no
array functions, ``_boundary.NOT_WRAPPED``), and every attribute of the Array class that is public (methods and
properties), a Python operator (``__add__``/``__radd__``/``__iadd__`` for each name in the :mod:`operator` module,
``__getitem__``, ``__setitem__``) or a conversion (``__bool__``, ``__int__``, ``__float__``, ``__complex__``,
``__index__``, ``__len__``), plus NumPy's ``__array_ufunc__``. Whatever the Array gains later is recorded too.

Only the outermost call is recorded: a public function that calls others internally is one entry. Recording is
per thread (a thread-local recorder and depth); other threads pass through the wrappers while a recording is open.
``@xb.jit`` functions run eagerly while recording (their calls are traced), and ``xb.grad``/``xb.value_and_grad``
add one entry with the gradients after the forward calls; a backend that can watch gradients flow
(``Backend.watch_grad``: torch, and NumPy and CuPy through it) adds one backward entry per forward output, in the
order the backward pass reaches them. Namespaces bound to a device (``x.__array_namespace__()``) built while
recording are dropped when it ends: the ones built before are put back.
"""

from __future__ import annotations

import contextlib
import functools
import linecache
import operator
import os
import sys
import sysconfig
import threading
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from .. import _boundary, _dtypes as D, _jit, _namespace
from .._grad import transform as _grad
from .._array import Array
from .._coerce import wrap_native
from .._dispatch import backend_for_type
from .._errors import ArgumentValueError

__all__ = ["Leaf", "Call", "Trace", "Recorder", "recording", "surface", "user_site"]

# --- what one call saw ------------------------------------------------------------------------------------------
#: nested Python data larger than this is summarised (its values are kept in one array leaf)
_MAX_ITEMS = 64


@dataclass
class Leaf:
    """One value a call took or returned: an array (its host copy), a Python number, or anything else (its repr).

    ``path`` names it in the call (``x``, ``axis``, ``out[1]``); ``dtype`` is the xbackend dtype's name for arrays
    (``float32``), the Python type's for numbers; ``host`` a NumPy copy (bfloat16 as float32); ``where`` says what
    it was (``torch Array``, ``numpy native``)."""

    path: str
    kind: str  # "array", "scalar" (Python/NumPy numbers and nested Python data) or "other"
    dtype: str | None = None
    shape: tuple[Any, ...] | None = None
    host: np.ndarray | None = None
    text: str | None = None
    where: str | None = None

    def describe(self) -> str:
        if self.kind == "other":
            return f"{self.path}={self.text}"
        shape = "" if self.shape == () else f" {self.shape}"
        kind = (self.where or "").rpartition(" ")[2]  # "Array", "native", "Python": the same on every backend
        return f"{self.path}: {self.dtype}{shape} {kind}"


@dataclass
class Call:
    """One recorded call: its name (``mean``, ``linalg.solve``, ``Array.__add__``), where the user's code made it,
    what it took and returned (or the exception it raised), and ``phase``: ``"forward"``, ``"backward"`` (the
    gradient reaching a forward call's output, ``xb.grad`` or ``x.backward()``) or ``"grad"`` (the gradients
    ``xb.grad`` returned)."""

    index: int
    name: str
    file: str
    line: int
    func: str
    inputs: list[Leaf]
    outputs: list[Leaf]
    error: tuple[str, str] | None = None
    phase: str = "forward"
    fn: Any = field(default=None, repr=False, compare=False)  # the original callable (for a reference rerun)
    template: Any = field(default=None, repr=False, compare=False)  # (args, kwargs) with arrays as _Slot(i)

    @property
    def site(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def source(self) -> str:
        return linecache.getline(self.file, self.line).strip()


@dataclass
class Trace:
    """Everything one run of the function did on one target: its calls in order, then its result or error."""

    target: str
    calls: list[Call]
    result: list[Leaf] | None = None
    error: tuple[str, str] | None = None
    error_site: tuple[str, int, str] | None = None


@dataclass(frozen=True)
class _Slot:
    """An array argument's place in a call's template: its input leaf, and whether it was a native array."""

    leaf: int
    native: bool


# --- values -------------------------------------------------------------------------------------------------------
def _host(x: Any) -> Any:
    from ._assert import to_host

    return to_host(x)


def _array_leaf(path: str, x: Any, native: bool) -> Leaf:
    a = x if type(x) is Array else wrap_native(x)
    where = f"{a.backend} {'native' if native else 'Array'}"
    return Leaf(path, "array", a.dtype.name, tuple(a.shape), _host(a), where=where)


def _python_data(x: Any) -> np.ndarray | None:
    """Nested Python numbers as one NumPy array, or None when ``x`` is something else."""
    if isinstance(x, (list, tuple)) and not x:
        return None
    try:
        h = np.asarray(x)
    except Exception:  # noqa: BLE001 - ragged or foreign: recorded item by item
        return None
    return h if h.dtype.kind in "biufc" else None


def leaves(obj: Any, path: str, out: list[Leaf], slots: bool = False) -> Any:
    """Append ``obj``'s leaves to ``out``; return its template (arrays replaced by :class:`_Slot`) when ``slots``."""
    t = type(obj)
    if t is Array or backend_for_type(t) is not None and not isinstance(obj, np.generic):
        out.append(_array_leaf(path, obj, t is not Array))
        return _Slot(len(out) - 1, t is not Array)
    if t in (bool, int, float, complex) or isinstance(obj, np.generic):
        out.append(Leaf(path, "scalar", t.__name__, (), np.asarray(obj), where="Python"))
        return obj
    if t in (list, tuple) and len(obj) > _MAX_ITEMS and not any(type(v) is Array for v in obj[:_MAX_ITEMS]):
        h = _python_data(obj)
        if h is not None:
            out.append(Leaf(path, "scalar", f"{t.__name__} of {h.dtype.kind}", h.shape, h, where="Python"))
            return obj
    if t in (list, tuple) or (isinstance(obj, tuple) and hasattr(obj, "_fields")):
        parts = [leaves(v, f"{path}[{i}]", out, slots) for i, v in enumerate(obj)]
        if not obj:
            out.append(Leaf(path, "other", text=repr(obj)))
        return (type(obj)(*parts) if hasattr(obj, "_fields") else t(parts)) if slots else obj
    if t is dict:
        parts_d = {k: leaves(v, f"{path}[{k!r}]", out, slots) for k, v in obj.items()}
        return parts_d if slots else obj
    text = repr(obj)
    out.append(Leaf(path, "other", text=text if len(text) <= 80 else text[:77] + "...", where=t.__name__))
    return obj


def _inputs(args: tuple[Any, ...], kwargs: dict[str, Any], names: list[str]) -> tuple[Any, list[Leaf]]:
    out: list[Leaf] = []
    targs = tuple(leaves(a, names[i] if i < len(names) else f"arg{i}", out, True) for i, a in enumerate(args))
    tkw = {k: leaves(v, k, out, True) for k, v in kwargs.items()}
    return (targs, tkw), out


def _outputs(result: Any, args: tuple[Any, ...]) -> list[Leaf]:
    out: list[Leaf] = []
    if result is None and args and type(args[0]) is Array:  # x[k] = v, x.backward(): the Array it changed
        leaves(args[0], "x (after)", out)
    else:
        leaves(result, "out", out)
    return out


def _param_names(fn: Callable[..., Any]) -> list[str]:
    import inspect

    try:
        ps = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


# --- where the user's code made the call --------------------------------------------------------------------------
_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_KIT = os.path.dirname(os.path.abspath(__file__)) + os.sep
_HERE = os.path.abspath(__file__)
_LIBS = tuple({os.path.abspath(p) + os.sep for k in ("stdlib", "platstdlib", "purelib", "platlib")
               if (p := sysconfig.get_paths().get(k))})  # fmt: skip


def _internal(filename: str) -> bool:
    return filename.startswith(_PKG) and not filename.startswith(_KIT)


def user_site(frame: Any) -> tuple[str, int, str]:
    """``(file, line, function)`` of the user's code that made a call whose innermost frame is ``frame``: the
    first frame outside xbackend's modules; code that lives in xbackend itself (a user function in
    ``xbackend/_demo.py``) keeps the frame that called."""
    first = frame
    while first is not None and os.path.abspath(first.f_code.co_filename) == _HERE:
        first = first.f_back
    f = first
    while f is not None and _internal(os.path.abspath(f.f_code.co_filename)):
        f = f.f_back
    if f is None or os.path.abspath(f.f_code.co_filename).startswith(_KIT):
        f = first
    if f is None:
        return ("?", 0, "?")
    return (f.f_code.co_filename, f.f_lineno, f.f_code.co_name)


def error_site(exc: BaseException) -> tuple[str, int, str] | None:
    """Where in the user's code ``exc`` was raised: the innermost traceback frame that is neither xbackend's nor
    an installed library's (a native call's own frames are skipped), else the innermost of all."""
    tb = exc.__traceback__
    best = None
    last = None
    while tb is not None:
        name = os.path.abspath(tb.tb_frame.f_code.co_filename)
        last = (tb.tb_frame.f_code.co_filename, tb.tb_lineno, tb.tb_frame.f_code.co_name)
        if not name.startswith(_PKG) and not name.startswith(_LIBS):
            best = last
        tb = tb.tb_next
    return best or last


# --- the recorder -----------------------------------------------------------------------------------------------
class _State(threading.local):
    recorder: "Recorder | None" = None
    depth: int = 0


_TLS = _State()


class Recorder:
    """The calls of one recording, in order (one thread's)."""

    def __init__(self) -> None:
        self.calls: list[Call] = []

    # one call of a recorded function: inputs copied first (an in-place call changes them), outputs after
    def call(self, name: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        st = _TLS
        st.depth += 1
        try:
            site = user_site(sys._getframe(1))
            template, ins = _inputs(args, kwargs, _param_names(fn))
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                self._add(name, site, ins, [], fn, template, error=(type(exc).__name__, text))
                raise
            call = self._add(name, site, ins, _outputs(result, args), fn, template)
            self._watch(result, call)
            return result
        finally:
            st.depth -= 1

    def _add(self, name: str, site: tuple[str, int, str], ins: list[Leaf], outs: list[Leaf], fn: Any,
             template: Any, error: tuple[str, str] | None = None, phase: str = "forward") -> Call:  # fmt: skip
        c = Call(len(self.calls), name, *site, ins, outs, error, phase, fn, template)
        self.calls.append(c)
        return c

    def add(self, name: str, site: tuple[str, int, str], args: Any, result: Any, phase: str) -> None:
        """An entry made by the recorder itself (gradients), not by a wrapped call."""
        st = _TLS
        st.depth += 1
        try:
            ins: list[Leaf] = []
            leaves(args, "args", ins)
            self._add(name, site, ins, _outputs(result, ()), None, None, phase=phase)
        finally:
            st.depth -= 1

    def _watch(self, result: Any, call: Call) -> None:
        """Ask the backend to report the gradient that reaches each output requiring grad (the backward pass)."""
        outs = result if isinstance(result, tuple) else (result,)
        for i, out in enumerate(outs):
            if type(out) is not Array:
                continue
            be = out._be
            watch = getattr(be, "watch_grad", None)
            if watch is None or not be.requires_grad(out._data):
                continue
            label = f"grad of #{call.index} {call.name}" + (f" out[{i}]" if len(outs) > 1 else "")
            site = (call.file, call.line, call.func)

            def seen(g: Any, label: str = label, site: tuple[str, int, str] = site) -> None:
                if _TLS.recorder is self:
                    self.add(label, site, (), g, "backward")

            watch(out._data, seen)


# --- the swap ------------------------------------------------------------------------------------------------------
_OPERATORS = frozenset(n.strip("_") for n in operator.__all__)
_CONVERSIONS = frozenset({"bool", "int", "float", "complex", "index", "len"})


def _operator(name: str) -> bool:
    """``__add__``, ``__radd__``, ``__iadd__``, ``__getitem__``, ``__bool__``...: a Python operator or conversion."""
    if not (name.startswith("__") and name.endswith("__")):
        return False
    core = name[2:-2]
    return core in _OPERATORS or core in _CONVERSIONS or (core[:1] in "ri" and core[1:] in _OPERATORS)


def _wrapper(label: str, fn: Callable[..., Any], namer: Callable[..., str] | None = None) -> Callable[..., Any]:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        st = _TLS
        rec = st.recorder
        if rec is None or st.depth:
            return fn(*args, **kwargs)
        return rec.call(label if namer is None else namer(args), fn, args, kwargs)

    functools.update_wrapper(recorded, fn)
    recorded.__xb_recording__ = True  # type: ignore[attr-defined]
    return recorded


def _property(label: str, prop: property) -> property:
    getter = prop.fget

    def get(self: Any) -> Any:
        st = _TLS
        rec = st.recorder
        if rec is None or st.depth:
            return getter(self)  # type: ignore[misc]
        st.depth += 1
        try:
            out = getter(self)  # type: ignore[misc]
        finally:
            st.depth -= 1
        if type(out) is Array or backend_for_type(type(out)) is not None:  # x.T, x.mT, x.grad, x.native
            st.depth += 1
            try:
                site = user_site(sys._getframe(1))
                template, ins = _inputs((self,), {}, ["x"])
                rec._add(label, site, ins, _outputs(out, ()), getter, template)
            finally:
                st.depth -= 1
        return out

    return property(get, prop.fset, prop.fdel, prop.__doc__)


def _ufunc_name(args: tuple[Any, ...]) -> str:
    ufunc, method = args[1], args[2]
    return f"np.{getattr(ufunc, '__name__', '?')}" + ("" if method == "__call__" else f".{method}")


def _namespaces(root: types.ModuleType) -> list[tuple[str, types.ModuleType]]:
    mods = [("", root)]
    for n in root.__all__:
        m = root.__dict__.get(n)
        if isinstance(m, types.ModuleType) and hasattr(m, "__all__"):
            mods.append((f"{n}.", m))
    return mods


def surface() -> list[tuple[Any, str, Any, Any]]:
    """``(owner, attribute, original, replacement)`` for everything a recording swaps."""
    import xbackend as root

    out: list[tuple[Any, str, Any, Any]] = []
    for prefix, mod in _namespaces(root):
        for n in mod.__all__:
            f = mod.__dict__.get(n)
            if (f is None or not callable(f) or isinstance(f, (type, types.ModuleType, D.DType)) or
                    n in _boundary.NOT_WRAPPED or getattr(f, "__xb_recording__", False)):  # fmt: skip
                continue
            out.append((mod, n, f, _wrapper(prefix + n, f)))
    for n, v in list(Array.__dict__.items()):
        if n == "__array_ufunc__" and callable(v):
            out.append((Array, n, v, _wrapper(n, v, _ufunc_name)))
        elif isinstance(v, property) and not n.startswith("_") and v.fget is not None:
            out.append((Array, n, v, _property(f"Array.{n}", v)))
        elif callable(v) and not isinstance(v, (staticmethod, classmethod, type)) and (
                not n.startswith("_") or _operator(n)):  # fmt: skip
            out.append((Array, n, v, _wrapper(f"Array.{n}", v)))
    # @xb.jit runs eagerly, so the calls inside it are traced
    out.append((_jit.Jitted, "__call__", _jit.Jitted.__dict__["__call__"], _eager_call))
    # xb.grad / xb.value_and_grad: one entry with the gradients after the forward (and backward) entries
    out.append((_grad, "_run", _grad._run, _grad_run(_grad._run)))
    return out


def _eager_call(self: Any, *args: Any, **kwargs: Any) -> Any:
    return self.eager(*args, **kwargs)


def _grad_run(run: Callable[..., Any]) -> Callable[..., Any]:
    def recorded_run(f: Any, nums: Any, single: Any, has_aux: Any, args: Any, kwargs: Any) -> Any:
        st = _TLS
        rec = st.recorder
        if rec is None or st.depth:
            return run(f, nums, single, has_aux, args, kwargs)
        site = user_site(sys._getframe(1))
        out = run(f, nums, single, has_aux, args, kwargs)  # f's calls are traced: this is no call of its own
        name = getattr(f, "__qualname__", getattr(f, "__name__", "f"))
        rec.add(f"xb.value_and_grad({name}) -> (value, gradients)", site, args, out, "grad")
        return out

    return recorded_run


_LOCK = threading.Lock()
_OPEN = [0]  # recordings open in the whole process
_SAVED: list[tuple[Any, str, Any]] = []
_CACHES: list[dict[Any, Any]] = []


def _install() -> None:
    with _LOCK:
        _OPEN[0] += 1
        if _OPEN[0] > 1:
            return
        swaps = surface()
        _CACHES[:] = [dict(_namespace._CACHE), dict(_namespace._NAMESPACES)]
        _namespace._CACHE.clear()  # bound namespaces copy the functions: new ones are built from the wrappers
        _namespace._NAMESPACES.clear()
        for owner, n, orig, new in swaps:
            _SAVED.append((owner, n, orig))
            setattr(owner, n, new)


def _uninstall() -> None:
    with _LOCK:
        _OPEN[0] -= 1
        if _OPEN[0] > 0:
            return
        for owner, n, orig in reversed(_SAVED):
            setattr(owner, n, orig)
        _SAVED.clear()
        _namespace._CACHE.clear()
        _namespace._CACHE.update(_CACHES[0])
        _namespace._NAMESPACES.clear()
        _namespace._NAMESPACES.update(_CACHES[1])
        _CACHES.clear()


@contextlib.contextmanager
def recording() -> Iterator[Recorder]:
    """Record this thread's public xbackend calls inside the block (outermost calls only).

    >>> import xbackend as xb
    >>> from xbackend.testing._trace import recording
    >>> x = xb.asarray([1.0, -2.0])
    >>> with recording() as rec:
    ...     y = xb.sum(xb.abs(x) * 2)
    >>> [c.name for c in rec.calls]
    ['abs', 'Array.__mul__', 'sum']
    >>> float(rec.calls[-1].outputs[0].host)
    6.0
    """
    st = _TLS
    if st.recorder is not None:
        raise ArgumentValueError("a recording is already open in this thread: diverge() does not nest. Fix: call "
                                 "diverge() outside the function it runs")
    rec = Recorder()
    _install()
    st.recorder, st.depth = rec, 0
    try:
        yield rec
    finally:
        st.recorder, st.depth = None, 0
        _uninstall()
