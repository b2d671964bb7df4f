"""One way out: native exceptions are translated at the public edge.

Design constraint: a public call raises an :class:`~xbackend.XBackendError` or nothing. xbackend checks arguments
before a backend runs (``xbackend/_args.py``, ``xbackend/_coerce.py``), so a native exception is either a
data-dependent failure the library detects (no memory, a singular matrix) or a gap in those checks. Either way it
is translated here, once, into the typed error a NumPy user catches - its class from what went wrong, never
from which library noticed - with the library's exception kept as ``__cause__``. The parity generator
(``tests/test_parity.py``) proves that the drawn calls never reach the last-resort translations.

Every public function is wrapped by :func:`boundary` when ``xbackend`` is imported (``install``; ``xb.random``, imported
on first use, wraps its own when it is imported), except the
hot ones that translate inline (:data:`INLINE`): the elementwise functions and operators, ``asarray``, the
creation functions, ``sum``, ``reshape``, ``astype``, ``matmul`` and indexing, whose fast paths end in
``except Exception: ... raise translate(exc, name)`` (free while nothing is raised).

Floating-point signals are no errors: NumPy raises ``FloatingPointError`` or ``RuntimeWarning`` for ``log(0)`` when the
user asked it to (``np.seterr(all="raise")``, ``pytest -W error``), where torch returns ``-inf``. A call that raised
one (:data:`FP_SIGNALS`) runs again with NumPy's signals off for that call (:func:`quiet`), so every backend returns
the standard's IEEE result; the user's settings keep applying to their own NumPy code, and NumPy's warnings are
still shown where the filters only display them.

The situations xbackend recognises after a native kernel raised (shapes that do not broadcast, an index outside
its axis, ``@`` of inner sizes that differ) become their one typed error on every backend, with the same text:
NumPy's ValueError and torch's RuntimeError for the same mistake read alike (:func:`binary_failed`,
:func:`matmul_failed`, :func:`index_failed`). They run only on the error path, so they may be slow; they read only
``_data``, ``_be`` and ``_dev`` of the Arrays they get, so this module sits below the Array.

Which exceptions are the libraries' (translated) and which a user's (passed through): Python's and NumPy's, and
those of the modules each loaded backend declares (:attr:`xbackend.Backend.exception_modules`, collected by the
registry).

>>> from xbackend._boundary import translate
>>> type(translate(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"), "zeros")).__name__
'OutOfMemoryError'
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import re
from typing import Any, Callable

import numpy as _np

from ._backends.common.keys import map_index_arrays
from ._dispatch import EXCEPTION_MODULES
from ._rules import ELEMENTWISE
from ._errors import (
    ArgumentTypeError,
    ArgumentValueError,
    BackendFailure,
    DomainError,
    IndexOutOfRangeError,
    InvalidIndexError,
    LinAlgError,
    OutOfMemoryError,
    ScalarOverflowError,
    ShapeError,
    XBackendError,
    index_out_of_range,
    shape_mismatch,
)

__all__ = ["translate", "boundary", "install", "install_methods", "raise_translated", "INLINE", "FP_SIGNALS", "quiet",
           "broadcast", "binary_failed", "matmul_failed", "index_failed", "setitem_failed", "any_failed"]

_MEMORY = ("out of memory", "can't allocate", "cannot allocate", "not enough memory", "failed to allocate",
           "unable to allocate")  # fmt: skip
_SHAPE = ("shape", "broadcast", "dimension", "size mismatch")


def translate(exc: BaseException, fname: str) -> BaseException:
    """The typed error for a native exception raised inside public function ``fname`` (ours: unchanged)."""
    if isinstance(exc, XBackendError) or not isinstance(exc, Exception) or _our_bug(exc) or _foreign(exc):
        return exc
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    low = text.lower()
    where = f"{fname}(): "
    cause = f"{where}{text}"
    if isinstance(exc, MemoryError) or any(m in low for m in _MEMORY):
        # the same text on every backend; the library's own report (how much it tried to allocate) is __cause__
        return OutOfMemoryError(f"{where}the host or the device has no memory left for the result. Fix: work on "
                                "smaller pieces, or free memory (on a GPU: del unused Arrays)")  # fmt: skip
    if type(exc).__name__ == "LinAlgError":
        return LinAlgError(f"{where}the matrix has no answer for this routine ({text}). Fix: check the input "
                           "(xb.linalg.matrix_rank finds singular matrices), or use xb.linalg.pinv")  # fmt: skip
    if isinstance(exc, OverflowError):
        return ScalarOverflowError(f"{cause}. Fix: pass values that fit the dtype, or a wider dtype")
    if isinstance(exc, ZeroDivisionError):
        return DomainError(f"{cause}. Fix: keep divisors away from zero")
    if isinstance(exc, IndexError):
        if "out of bounds" in low or "out of range" in low:
            return IndexOutOfRangeError(f"{cause}. Fix: along an axis of size n, use indices -n..n-1")
        return InvalidIndexError(f"{cause}. Fix: index with ints, slices, ..., None, or integer/bool Arrays")
    if isinstance(exc, TypeError):
        return ArgumentTypeError(f"{cause}. Fix: check the arguments' types against help(xb.{fname})")
    if isinstance(exc, ValueError):
        if any(m in low for m in _SHAPE):
            return ShapeError(f"{cause}. Fix: check the arguments' shapes against help(xb.{fname})")
        return ArgumentValueError(f"{cause}. Fix: check the arguments against help(xb.{fname})")
    return BackendFailure(f"{where}the backend failed with {type(exc).__name__}: {text}. xbackend does not check "
                          "for this case yet: please report it (the library's error is attached as __cause__)")


def _foreign(exc: BaseException) -> bool:
    """An exception class of neither Python nor a loaded backend's library (``Backend.exception_modules``): a user's
    callback raised it (a Dask task, an ``__index__``, a function under ``@xb.jit``); it passes through untouched."""
    return type(exc).__module__.partition(".")[0] not in EXCEPTION_MODULES


_BUGS = (NameError, AttributeError, KeyError, AssertionError, RecursionError, ImportError)


def _our_bug(exc: BaseException) -> bool:
    """A programming error raised by xbackend's own code (not by a library it called): left as it is, so that
    it reads as the bug it is, never as a backend's failure."""
    if not isinstance(exc, _BUGS):
        return False
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_globals.get("__name__", "").startswith("xbackend")


def _source(fn: Callable[..., Any]) -> tuple[str, dict[str, Any]]:
    """A ``def`` with ``fn``'s exact parameters that calls it inside the translating ``try``."""
    ps = list(inspect.signature(fn).parameters.values())
    last_pos_only = max((i for i, p in enumerate(ps) if p.kind is p.POSITIONAL_ONLY), default=-1)
    has_var = any(p.kind is p.VAR_POSITIONAL for p in ps)
    params: list[str] = []
    call: list[str] = []
    defaults: dict[str, Any] = {}
    star_done = has_var
    for i, p in enumerate(ps):
        d = ""
        if p.default is not p.empty:
            defaults[f"_d_{p.name}"] = p.default
            d = f"=_d_{p.name}"
        if p.kind is p.KEYWORD_ONLY and not star_done:
            params.append("*")
            star_done = True
        if p.kind is p.VAR_POSITIONAL:
            params.append(f"*{p.name}")
            call.append(f"*{p.name}")
        elif p.kind is p.VAR_KEYWORD:
            params.append(f"**{p.name}")
            call.append(f"**{p.name}")
        elif p.kind is p.KEYWORD_ONLY:
            params.append(f"{p.name}{d}")
            call.append(f"{p.name}={p.name}")
        else:
            params.append(f"{p.name}{d}")
            call.append(p.name)
        if i == last_pos_only:
            params.append("/")
    src = (f"def wrapped({', '.join(params)}):\n"
           f"    try:\n"
           f"        return _fn({', '.join(call)})\n"
           f"    except _Exception as exc:\n"
           f"        if hasattr(exc, 'xb_rebase'):\n"
           f"            return _rebased(_name, _fn, exc.xb_rebase, {', '.join(call)})\n"
           f"        if not isinstance(exc, _FP_SIGNALS):\n"
           f"            _raise(exc, _name)\n"
           f"    return _quiet(_name, _fn, {', '.join(call)})\n")  # fmt: skip
    return src, defaults


def boundary(fn: Callable[..., Any], name: str | None = None) -> Callable[..., Any]:
    """``fn`` behind the translating edge: the same signature, docstring and name; ``__wrapped__`` is ``fn``."""
    name = name or fn.__name__
    src, defaults = _source(fn)
    ns: dict[str, Any] = {"_fn": fn, "_raise": raise_translated, "_Exception": Exception, "_name": name,
                          "_FP_SIGNALS": FP_SIGNALS, "_quiet": quiet, "_rebased": rebased, **defaults}  # fmt: skip
    exec(compile(src, f"<xbackend boundary of {name}>", "exec"), ns)  # noqa: S102 - generated from a signature
    w = ns["wrapped"]
    functools.update_wrapper(w, fn)
    w.__xb_boundary__ = True
    return w


#: what NumPy (and the libraries computing with it: array-api-strict, Dask's chunks) makes of an IEEE event -
#: ``log(0)``, ``1 / 0``, ``exp(1000)``, ``inf - inf``, an overflowing cast - under ``np.seterr(all="raise")`` or a
#: warnings filter "error" (``pytest -W error``). torch, CuPy and JAX never signal; the standard specifies the IEEE
#: result.
FP_SIGNALS = (FloatingPointError, RuntimeWarning)


def quiet(name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` again after it raised one of :data:`FP_SIGNALS`: with NumPy's floating-point signals
    off for this call (``np.errstate`` is per thread and context: the user's settings stay as they are for their
    own NumPy calls), so the result is the IEEE one every backend gives. Anything raised now is translated. Only
    pure calls are retried: an in-place kernel that wrote before signalling returns its result itself
    (the NumPy backend's ``inplace``)."""
    try:
        with _np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    except Exception as exc:
        raise_translated(exc, name)
        raise  # (raise_translated always raises)


def rebased(name: str, fn: Callable[..., Any], rebase: Callable[[Any], Any], *args: Any, **kwargs: Any) -> Any:
    """``fn`` again on its arguments mapped by ``rebase`` (inside ``xb.grad``: closure Arrays as constants on the
    engine, ``xbackend/_grad/closures.py``); anything raised now is translated."""
    try:
        return fn(*(rebase(a) for a in args), **{k: rebase(v) for k, v in kwargs.items()})
    except Exception as exc:
        raise_translated(exc, name)
        raise


def raise_translated(exc: BaseException, name: str) -> None:
    """Re-raise ``exc`` if it is ours, else its translation (``from exc``)."""
    t = translate(exc, name)
    if t is exc:
        raise exc
    raise t from exc


#: public functions that translate inline (their fast paths must not pay for a wrapper)
INLINE = frozenset({"zeros", "ones", "empty", "sum", "reshape", "astype", "matmul"})

#: public names that are no array functions: they take callables, configure, or report (never wrapped)
NOT_WRAPPED = frozenset({
    "jit", "portable", "prefetch", "using", "set_default", "get_config", "register_backend", "backends",
    "backend_names", "timer", "jit_cache_info", "device", "devices", "preferred_device",
    "staging_limit", "grad", "value_and_grad", "no_grad",
})  # fmt: skip


def install(module: Any, names: list[str], prefix: str = "") -> None:
    """Wrap ``module``'s public functions ``names`` in place (idempotent)."""
    for n in names:
        f = getattr(module, n, None)
        if (not inspect.isfunction(f) or getattr(f, "__xb_boundary__", False) or n in NOT_WRAPPED or
                (not prefix and (n in INLINE or n in ELEMENTWISE))):  # fmt: skip
            continue
        setattr(module, n, boundary(f, prefix + n))


#: Array methods behind the boundary (``__getitem__`` and the operators translate inline)
METHODS = ("astype", "to", "to_device", "item", "tolist", "numpy", "detach", "compute", "persist", "__setitem__",
           "__bool__", "__float__", "__int__", "__complex__", "__index__", "__len__", "__iter__", "__dlpack__",
           "__dlpack_device__", "__array__", "__array_namespace__", "__format__", "__repr__", "__str__", "backward",
           "requires_grad_")  # fmt: skip


def install_methods(cls: type, names: tuple[str, ...] = METHODS, prefix: str = "Array.") -> None:
    """Wrap the methods ``names`` of ``cls`` (the Array's :data:`METHODS` by default) in place (idempotent)."""
    for n in names:
        f = cls.__dict__.get(n)
        if inspect.isfunction(f) and not getattr(f, "__xb_boundary__", False):
            setattr(cls, n, boundary(f, f"{prefix}{n}"))


# --- the situations recognised after a native kernel raised (the error path only) --------------------------------
def broadcast(s1: tuple[int, ...], s2: tuple[int, ...]) -> tuple[int, ...] | None:
    out = []
    for i in range(1, max(len(s1), len(s2)) + 1):
        m = s1[-i] if i <= len(s1) else 1
        n = s2[-i] if i <= len(s2) else 1
        if m != n and m != 1 and n != 1:
            return None
        out.append(n if m == 1 else m)
    return tuple(reversed(out))


def binary_failed(name: str, a: Any, b: Any, exc: BaseException, inplace: bool = False) -> None:
    """``a op b`` raised natively (``b`` an Array): shapes that do not broadcast, or an in-place result
    that would change ``a``'s shape, raise :class:`~xbackend.ShapeError`."""
    sa, sb = tuple(a._data.shape), tuple(b._data.shape)
    r = broadcast(sa, sb)
    if r is None:
        raise shape_mismatch(f"{name} of {a._be.name} Arrays on {a._dev}", (sa, sb), "cannot be broadcast together",
                             "make each dimension equal or 1, counting from the right, e.g. y[:, None] or "
                             "xb.broadcast_to(y, shape)") from exc  # fmt: skip
    if inplace and r != sa:
        raise shape_mismatch(f"in-place {name} of {a._be.name} Arrays on {a._dev}", (sa, sb),
                             f"broadcast to {r}, not to the left operand's shape",
                             "write x = x op y (out of place); an in-place result keeps x's shape") from exc  # fmt: skip


def any_failed(name: str, exc: BaseException) -> None:
    """The last resort of every inline error path: ``exc`` translated."""
    raise_translated(exc, name)


def matmul_failed(a: Any, b: Any, exc: BaseException) -> None:
    sa, sb = tuple(a._data.shape), tuple(b._data.shape)
    k1 = sa[-1]
    k2 = sb[-2] if len(sb) > 1 else sb[0]
    if k1 != k2:
        raise shape_mismatch(f"matmul (x @ y) of {a._be.name} Arrays on {a._dev}", (sa, sb),
                             f"do not fit: x.shape[-1] is {k1} but y.shape[-2] is {k2}",
                             "make the inner sizes equal, e.g. transpose one (y.mT) or reshape it") from exc  # fmt: skip
    if len(sa) > 2 and len(sb) > 2 and broadcast(sa[:-2], sb[:-2]) is None:
        raise shape_mismatch(f"matmul (x @ y) of {a._be.name} Arrays on {a._dev}", (sa, sb),
                             f"have batch dimensions {sa[:-2]} and {sb[:-2]} that cannot be broadcast together",
                             "make each batch dimension equal or 1") from exc  # fmt: skip
    raise_translated(exc, "matmul")


_OUT_OF_RANGE = re.compile(r"index (-?\d+ )?is out of bounds for (?:axis|dimension) (\d+) with size (\d+)",
                           re.I)
"""NumPy and torch name the index; Dask writes "Index", and names none for an index array."""


def _name_bad_index(m: Any, key: Any) -> Any:
    """``(index, axis, size)`` with the first out-of-range value of a one-axis index array ``key``, or None."""
    ax, n = int(m.group(2)), int(m.group(3))
    k = key[ax] if type(key) is tuple and ax < len(key) else key
    with contextlib.suppress(Exception):
        vals = _np.asarray(getattr(k, "_data", k)).ravel()
        bad = vals[(vals >= n) | (vals < -n)]
        if bad.size:
            return (str(int(bad[0])), str(ax), str(n))
    return None


def _first_out_of_range(shape: tuple[int, ...], key: Any) -> tuple[int, int, int] | None:
    """``(index, axis, size)`` of the first index in ``key`` outside its axis, found from the key itself (ints and
    integer index arrays, copied to the host: this runs on the error path only), or None."""
    items = key if type(key) is tuple else (key,)
    host = []
    for k in items:
        d = getattr(k, "_data", k)
        if type(k) is int or (type(k) is not bool and isinstance(k, _np.integer)):
            d = _np.asarray(int(k))
        elif not (k is None or k is Ellipsis or type(k) in (slice, bool)):
            with contextlib.suppress(Exception):
                d = _np.asarray(getattr(k, "numpy", lambda: d)() if hasattr(k, "_data") else d)
        host.append(d)
    found: list[tuple[int, int, int]] = []

    def check(k: Any, axis: int, n: int) -> Any:
        bad = (k < -n) | (k >= n)
        if not found and bool(bad.any()):
            found.append((int(_np.asarray(k)[bad].ravel()[0]), axis, n))
        return k

    try:
        map_index_arrays(shape, tuple(host), lambda k: isinstance(k, _np.ndarray), lambda k: k.dtype.kind == "b",
                         check)  # fmt: skip
    except Exception:  # noqa: BLE001 - a key the walk cannot follow: the library's own numbers below
        return None
    return found[0] if found else None


def index_failed(a: Any, key: Any, exc: BaseException) -> None:
    """Indexing raised: an index outside an axis is IndexOutOfRangeError on every backend, with the same text (the
    offending index and its axis are found from the key, not read from the library's message); ours pass
    unchanged; anything else is translated."""
    if getattr(type(exc), "__module__", "").startswith("xbackend"):
        raise exc
    text = str(exc)
    if "out of bounds" not in text and "out of range" not in text:
        raise_translated(exc, "__getitem__")
    shape = tuple(a._data.shape)
    hit = _first_out_of_range(shape, key)
    if hit is None:
        m = _OUT_OF_RANGE.search(text)
        groups = None if m is None else m.groups() if m.group(1) is not None else _name_bad_index(m, key)
        hit = None if groups is None else tuple(int(g.strip()) for g in groups)  # type: ignore[assignment]
    if hit is None:
        raise IndexOutOfRangeError(f"an index is out of range for a {a._be.name} Array of shape {shape}. Fix: along "
                                   "an axis of size n, use indices -n..n-1") from exc  # fmt: skip
    raise index_out_of_range(*hit, a._be.name, shape) from exc


def setitem_failed(a: Any, key: Any, nkey: Any, value: Any, exc: BaseException) -> None:
    """A write raised natively: a value that does not broadcast to the selection raises ShapeError, an index
    outside an axis IndexOutOfRangeError, anything else its translation (called only on the error path)."""
    vshape = getattr(value, "shape", None)
    if vshape is not None and not isinstance(exc, IndexError):
        try:
            sel = tuple(a._be.getitem(a._data, nkey).shape)
        except Exception:  # noqa: BLE001 - the key itself is wrong: the index checks below say how
            sel = None
        if sel is not None and (len(vshape) > len(sel) or broadcast(tuple(vshape), sel) != sel):
            raise ShapeError(f"cannot write a value of shape {tuple(vshape)} into a selection of shape {sel}; a value "
                             "must broadcast to the selection. Fix: reshape the value, or select a region of its "
                             "shape") from exc  # fmt: skip
    index_failed(a, key, exc)
