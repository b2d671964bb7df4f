"""Higher-precision references for one recorded call, and the rounding a summation order explains.

Design constraint: a reference re-runs *that one call* from its recorded inputs, never the user's whole function,
and says how it was computed. float16/bfloat16/float32 (and complex64) calls are re-run by xbackend on NumPy in
float64 (complex128); float64 calls get an exactly rounded result where one is cheap - ``math.fsum`` for
``sum``/``mean``, :class:`fractions.Fraction` arithmetic for small ``matmul``/``vecdot``/``prod`` - or NumPy's
``longdouble`` for the elementwise functions NumPy has as ufuncs (where ``longdouble`` is longer than float64), and
no reference otherwise.

>>> from xbackend.testing._reference import core_name
>>> core_name("Array.__rmatmul__"), core_name("linalg.vecdot"), core_name("np.add")
(('matmul', True), ('vecdot', False), ('add', False))
"""

from __future__ import annotations

import inspect
import math
import warnings
from fractions import Fraction
from typing import Any

import numpy as np

from .. import _dtypes as D
from .._methods import UFUNC_NAMES
from ._trace import Call, Leaf, _Slot, leaves

__all__ = ["core_name", "reference", "summation_bound", "ulp", "ACCUMULATING"]

#: calls whose result accumulates many terms: their rounding depends on the order of the terms
ACCUMULATING = frozenset({"sum", "mean", "prod", "cumulative_sum", "cumulative_prod", "vecdot", "matmul", "tensordot",
                          "vector_norm", "matrix_norm", "trace"})  # fmt: skip
_CONTRACTIONS = frozenset({"matmul", "tensordot"})
_EXACT_LIMIT = 20_000  # Fraction terms at most (a few hundred ms)
_NP_NAMES = {v: k for k, v in UFUNC_NAMES.items()}


def core_name(name: str) -> tuple[str, bool]:
    """The operation a recorded name stands for, and whether its operands are reflected (``__rsub__``)."""
    short = name.rpartition(".")[2]
    if short.startswith("__") and short.endswith("__"):
        core = short[2:-2]
        if core.startswith("r") and core[1:] in _DUNDER_CORES:
            return _DUNDER_CORES[core[1:]], True
        if core.startswith("i") and core[1:] in _DUNDER_CORES:
            return _DUNDER_CORES[core[1:]], False
        return _DUNDER_CORES.get(core, core), False
    return short, False


_DUNDER_CORES = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "floordiv": "floor_divide",
                 "mod": "remainder", "pow": "pow", "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
                 "xor": "bitwise_xor", "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
                 "neg": "negative", "pos": "positive", "abs": "abs", "invert": "bitwise_invert", "lt": "less",
                 "le": "less_equal", "gt": "greater", "ge": "greater_equal", "eq": "equal", "ne": "not_equal"}  # fmt: skip


def ulp(mag: np.ndarray, dtname: str) -> np.ndarray:
    """The spacing of floating dtype ``dtname`` at magnitudes ``mag`` (its smallest normal's below that)."""
    fi = D.finfo(D.dtype(dtname))
    eps, tiny = float(fi.eps), float(fi.smallest_normal)
    with np.errstate(all="ignore"):
        m = np.maximum(np.abs(np.asarray(mag, dtype=np.float64)), tiny)
        return eps * np.exp2(np.floor(np.log2(m)))


# --- re-running one call ----------------------------------------------------------------------------------------
def _bound_args(call: Call) -> inspect.BoundArguments | None:
    if call.fn is None or call.template is None:
        return None
    args, kwargs = call.template
    try:
        return inspect.signature(call.fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None


def _upcast(h: np.ndarray, how: str) -> np.ndarray:
    if how == "abs":
        h = np.abs(h)
    if h.dtype.kind == "f" or (how == "abs" and h.dtype.kind == "c"):
        return h.astype(np.float64)
    if h.dtype.kind == "c":
        return h.astype(np.complex128)
    return h


def _rebuild(obj: Any, ins: list[Leaf], how: str) -> Any:
    """The call's arguments on NumPy: arrays in float64 (``how="abs"``: their magnitudes), the rest as recorded."""
    from .._creation import asarray

    t = type(obj)
    if t is _Slot:
        h = _upcast(ins[obj.leaf].host, how)
        return h if obj.native else asarray(h, backend="numpy")
    if t is tuple or t is list:
        return t(_rebuild(v, ins, how) for v in obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_rebuild(v, ins, how) for v in obj))
    if t is dict:
        return {k: _rebuild(v, ins, how) for k, v in obj.items()}
    if how == "abs" and t in (float, complex):
        return abs(obj)
    return obj


def _rerun(call: Call, path: str, how: str) -> np.ndarray | None:
    """The call re-run by xbackend on NumPy in float64 (``how``: ``"float64"`` or ``"abs"``), output ``path``."""
    if call.fn is None or call.template is None:
        return None
    args, kwargs = call.template
    a, k = _rebuild(args, call.inputs, how), _rebuild(kwargs, call.inputs, how)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = call.fn(*a, **k)
    except Exception:  # noqa: BLE001 - the call refuses float64 inputs: no reference
        return None
    if out is None and a:
        out = a[0]  # an in-place call (x[k] = v): the Array it wrote
    got: list[Leaf] = []
    leaves(out, "out", got)
    want = path if path != "x (after)" else "out"
    for lf in got:
        if lf.path == want and lf.host is not None:
            return lf.host
    return None


# --- exact and longer references for float64 calls -----------------------------------------------------------------
def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim for a in axis))


def _fsum_reduce(h: np.ndarray, axis: Any, keepdims: bool, mean: bool) -> np.ndarray:
    axes = _axes(axis, h.ndim)
    rest = [a for a in range(h.ndim) if a not in axes]
    moved = np.transpose(h, rest + list(axes)) if h.ndim else h.reshape(1)
    kept = [h.shape[a] for a in rest]
    n = int(np.prod([h.shape[a] for a in axes])) if h.ndim else 1
    rows = moved.reshape(-1, n) if n else np.zeros((int(np.prod(kept)), 0))
    out = np.array([math.fsum(r) / (n if mean else 1) for r in rows.astype(np.float64)]).reshape(kept)
    if keepdims:
        out = out.reshape([1 if a in axes else h.shape[a] for a in range(h.ndim)])
    return out


def _fractions(h: np.ndarray) -> np.ndarray:
    out = np.empty(h.shape, dtype=object)
    for i, v in np.ndenumerate(h):
        out[i] = Fraction(float(v)) if math.isfinite(v) else float(v)
    return out


def _exact(call: Call, core: str, reflected: bool) -> np.ndarray | None:
    """``sum``/``mean`` by ``math.fsum``; small real ``matmul``/``vecdot``/``prod`` in exact rational arithmetic,
    rounded once to float64."""
    ba = _bound_args(call)
    if ba is None:
        return None
    ins = call.inputs
    arrays = [v for v in ba.arguments.values() if type(v) is _Slot]
    hs: list[np.ndarray] = [h for s in arrays if (h := ins[s.leaf].host) is not None]
    if not hs or len(hs) != len(arrays) or any(h.dtype.kind != "f" for h in hs):
        return None
    named = {k: v for k, v in ba.arguments.items() if type(v) is not _Slot}
    if isinstance(named.get("kwargs"), dict):
        named.update(named.pop("kwargs"))
    axis, keepdims = named.get("axis"), bool(named.get("keepdims", False))
    with np.errstate(all="ignore"):
        if core in ("sum", "mean") and len(hs) == 1 and np.isfinite(hs[0]).all():
            return _fsum_reduce(hs[0], axis, keepdims, core == "mean")
        if not all(np.isfinite(h).all() for h in hs):
            return None
        if core == "matmul" and len(hs) == 2:
            a, b = (hs[1], hs[0]) if reflected else (hs[0], hs[1])
            if a.ndim < 1 or b.ndim < 1 or a.size * (b.shape[-1] if b.ndim > 1 else 1) > _EXACT_LIMIT:
                return None
            return np.vectorize(float, otypes=[np.float64])(np.matmul(_fractions(a), _fractions(b)))
        if core == "vecdot" and len(hs) == 2 and max(h.size for h in hs) <= _EXACT_LIMIT:
            ax = -1 if axis is None else axis
            prod = _fractions(hs[0]) * _fractions(hs[1])
            return np.vectorize(float, otypes=[np.float64])(np.sum(prod, axis=ax))
        if core == "prod" and len(hs) == 1 and hs[0].size <= _EXACT_LIMIT:
            r = np.prod(_fractions(hs[0]), axis=None if axis is None else _axes(axis, hs[0].ndim), keepdims=keepdims)
            return np.vectorize(float, otypes=[np.float64])(r)
    return None


def _longdouble(call: Call, core: str) -> np.ndarray | None:
    """An elementwise function NumPy has as a ufunc, evaluated in ``np.longdouble`` when that is longer."""
    if np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps:
        return None
    uf = getattr(np, _NP_NAMES.get(core, core), None)
    ba = _bound_args(call)
    if not isinstance(uf, np.ufunc) or ba is None:
        return None
    args = []
    for v in ba.args:
        if type(v) is _Slot:
            h = call.inputs[v.leaf].host
            if h is None or h.dtype.kind != "f":
                return None
            args.append(h.astype(np.longdouble))
        elif type(v) is float:
            args.append(np.longdouble(v))
        else:
            return None
    if len(args) != uf.nin:
        return None
    with np.errstate(all="ignore"):
        return np.asarray(uf(*args))


def reference(call: Call, path: str, dtname: str) -> tuple[str, np.ndarray] | None:
    """``(how it was computed, values)`` of output ``path`` of ``call`` in more precision than ``dtname``."""
    kind = D.dtype(dtname).kind if dtname in D.BY_NAME else ""
    if kind not in "fc" or not kind:
        return None
    core, reflected = core_name(call.name)
    if D.dtype(dtname).itemsize < (8 if kind == "f" else 16):
        ref = _rerun(call, path, "float64")
        return None if ref is None else ("the same call in float64 on NumPy", ref)
    if path not in ("out", "x (after)"):
        return None
    ex = _exact(call, core, reflected)
    if ex is not None:
        how = "math.fsum, exactly rounded" if core in ("sum", "mean") else "exact rational arithmetic (fractions)"
        return how, ex
    ld = _longdouble(call, core)
    if ld is not None:
        return f"NumPy longdouble ({np.finfo(np.longdouble).bits}-bit) np.{_NP_NAMES.get(core, core)}", ld
    return None


def summation_bound(call: Call, path: str, dtname: str, out_shape: tuple[int, ...]) -> tuple[np.ndarray, int] | None:
    """The largest difference two summation orders can make in output ``path`` of an accumulating call:
    ``2 (n-1) eps S``, ``S`` the call on the inputs' magnitudes (``sum |x|``, ``|A| |B|``), ``n`` the number of
    terms per result element; and ``n``. None for calls that accumulate nothing."""
    core, _ = core_name(call.name)
    if core not in ACCUMULATING or not call.inputs:
        return None
    arrays = [lf for lf in call.inputs if lf.kind == "array" and lf.host is not None]
    if not arrays:
        return None
    size_out = max(int(np.prod(out_shape)), 1)
    if core in _CONTRACTIONS and len(arrays) >= 2:
        n = int(round(math.sqrt(arrays[0].host.size * arrays[1].host.size / size_out)))  # type: ignore[union-attr]
    elif core.startswith("cumulative"):
        n = max(arrays[0].host.shape) if arrays[0].host.ndim else 1  # type: ignore[union-attr]
    else:
        n = max(arrays[0].host.size // size_out, 1)  # type: ignore[union-attr]
    s = _rerun(call, path, "abs")
    if s is None:
        return None
    eps = float(D.finfo(D.dtype(dtname)).eps)
    return 2.0 * max(n - 1, 1) * eps * np.abs(s), n
