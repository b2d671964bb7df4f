"""CuPy's departures from NumPy, corrected with array code written against a namespace ``xp``.

Design constraint: every correction here is a plain function of ``xp`` (``cupy`` in the CuPy backend),
so CI runs the same code on NumPy arrays without a GPU (tests/test_cupy_fixes.py) and checks it
against NumPy's own results. The CuPy backend (``cupy.py``) only wires these in. Each function names
the CuPy behaviour it corrects (observed on CuPy 14.2, CUDA 13, one H200; see
``shared/gpu-runs/2026-11-30``):

- ``ndarray.fill(v)`` memsets when ``v == 0``, so ``-0.0`` becomes ``+0.0``; ``cupy.asarray`` of a
  0-d host array and ``cupy.full`` go through ``fill``  -> :class:`SignSafeNamespace`.
- float ``floor_divide``/``remainder`` differ from NumPy at infinities and signed zeros -> :func:`divmod_like_numpy`.
- complex division by zero gives NaN (thrust) where NumPy gives inf -> :func:`complex_divide`.
- complex ``log``/``log1p``/``log2``/``log10`` at non-finite input (and ``log2``/``log10`` at 0, a complex
  division by ``log(2)``) -> :func:`complex_log`.
- other complex transcendental functions at non-finite input -> :func:`patch_nonfinite` (those elements
  only are computed by the NumPy kernels on the host; one synchronisation per call).
- ``linspace`` with complex endpoints raises TypeError -> never called: the backend computes linspace by
  one formula for every library (``_linspace.py``).
- integers to negative integer powers are computed instead of raising -> :func:`check_integer_power`.
- a slice step beyond the C ``ssize_t`` range raises OverflowError -> :func:`clamp_slices`.
- ``cholesky`` of a matrix that is not positive definite returns finite garbage -> :func:`nan_if_not_factored`.
- the memory pool has no ``record_stream``: a block freed by a consumer on another stream is handed to the
  next allocation on its own stream at once -> :class:`FreeAfter` (tests/fakecuda.py runs it on fake streams).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

__all__ = [
    "SignSafeNamespace", "has_negative_zero", "divmod_like_numpy", "complex_divide", "complex_log",
    "patch_nonfinite", "check_integer_power", "clamp_slices", "nan_if_not_factored", "FreeAfter",
]  # fmt: skip

_SCALARS = (bool, int, float, complex, np.generic)


def has_negative_zero(value: Any) -> bool:
    """True when a scalar is a zero with a sign bit set in its real or imaginary part.

    >>> has_negative_zero(-0.0), has_negative_zero(0.0), has_negative_zero(complex(0.0, -0.0)), has_negative_zero(3)
    (True, False, True, False)
    """
    if not isinstance(value, (float, complex, np.floating, np.complexfloating)):
        return False  # ints and bools have no -0; arrays are not scalars (and complex() would synchronise)
    c = complex(value)
    return c == 0 and (math.copysign(1.0, c.real) < 0 or math.copysign(1.0, c.imag) < 0)


class SignSafeNamespace:
    """``xp`` with NumPy's creation semantics for ``-0.0``: ``asarray``/``array`` of scalars and 0-d host
    arrays, and ``full``/``full_like`` with a negative zero, keep the sign bit.

    CuPy sends a 0-d host array with ``ndarray.fill``, which memsets for any value equal to 0. Here such
    values travel as one-element arrays (a byte copy) instead. Every other attribute is ``xp``'s own
    (looked up once, then cached on the instance, so kernels cost nothing extra).
    """

    def __init__(self, xp: Any) -> None:
        self._xp = xp

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._xp, name)
        setattr(self, name, value)  # next lookups are plain instance-dict hits
        return value

    def __repr__(self) -> str:
        return f"<SignSafeNamespace over {getattr(self._xp, '__name__', self._xp)!r}>"

    def _host_scalar(self, obj: Any) -> bool:
        return isinstance(obj, _SCALARS) or (isinstance(obj, np.ndarray) and obj.ndim == 0)

    def asarray(self, obj: Any, dtype: Any = None, **kw: Any) -> Any:
        if self._host_scalar(obj):
            one = np.asarray(obj, dtype=dtype).reshape(1)  # one element: copied byte for byte
            return self._xp.asarray(one, **kw).reshape(())
        return self._xp.asarray(obj, dtype=dtype, **kw)

    def array(self, obj: Any, dtype: Any = None, **kw: Any) -> Any:
        if self._host_scalar(obj):
            return self.asarray(obj, dtype=dtype).copy()
        return self._xp.array(obj, dtype=dtype, **kw)

    def full(self, shape: Any, fill_value: Any, dtype: Any = None, **kw: Any) -> Any:
        if not has_negative_zero(fill_value):
            return self._xp.full(shape, fill_value, dtype=dtype, **kw)
        one = self.asarray(np.full((), fill_value, dtype=dtype))
        return self._xp.broadcast_to(one, shape).copy()

    def full_like(self, a: Any, fill_value: Any, dtype: Any = None, **kw: Any) -> Any:
        if not has_negative_zero(fill_value):
            return self._xp.full_like(a, fill_value, dtype=dtype, **kw)
        return self.full(a.shape, fill_value, dtype=a.dtype if dtype is None else dtype)


def _work_dtype(xp: Any, dt: Any) -> Any:
    """float16/bfloat16 compute in float32 (as NumPy's half loops do), others in their own dtype."""
    return xp.float32 if dt.itemsize == 2 else dt


def _operands(xp: Any, a: Any, b: Any) -> tuple[Any, Any, Any]:
    dt = b.dtype if isinstance(a, _SCALARS) else a.dtype
    w = _work_dtype(xp, dt)
    a = a.astype(w, copy=False) if hasattr(a, "astype") and not isinstance(a, _SCALARS) else xp.asarray(a, dtype=w)
    b = b.astype(w, copy=False) if hasattr(b, "astype") and not isinstance(b, _SCALARS) else xp.asarray(b, dtype=w)
    return a, b, dt


def divmod_like_numpy(xp: Any, a: Any, b: Any) -> tuple[Any, Any]:
    """(floor_divide, remainder) of real floating ``a`` and ``b`` with NumPy's (and Python's) rules.

    NumPy's ``npy_divmod``, vectorised: the remainder takes the divisor's sign (a zero remainder
    ``copysign(0, b)``), the quotient is snapped to an integer (a zero quotient ``copysign(0, a / b)``),
    ``x // +-inf`` is 0 or -1 and ``x % +-inf`` is ``x`` or the divisor, ``inf // y`` and ``inf % y``
    are NaN, and division by zero gives ``a / b`` and NaN. One of ``a``, ``b`` may be a Python scalar.

    >>> import numpy as np
    >>> q, r = divmod_like_numpy(np, np.array([7.0, 2.0, -2.0, 0.0]), np.array([-2.0, -np.inf, np.inf, -2.0]))
    >>> q.tolist(), r.tolist()
    ([-4.0, -1.0, -1.0, -0.0], [-1.0, -inf, inf, -0.0])
    """
    a, b, dt = _operands(xp, a, b)
    with np.errstate(all="ignore"):
        mod = xp.fmod(a, b)
        div = (a - mod) / b
        adj = (mod != 0) & ((b < 0) != (mod < 0))
        mod = xp.where(adj, mod + b, mod)
        div = xp.where(adj, div - 1, div)
        mod = xp.where(mod == 0, xp.copysign(xp.zeros_like(mod), b), mod)
        fl = xp.floor(div)
        fl = xp.where(div - fl > 0.5, fl + 1, fl)
        fl = xp.where(div == 0, xp.copysign(xp.zeros_like(fl), a / b), fl)
        zero_b = b == 0
        fl = xp.where(zero_b, a / b, fl)
        mod = xp.where(zero_b, xp.fmod(a, b), mod)
    return fl.astype(dt, copy=False), mod.astype(dt, copy=False)


def complex_divide(xp: Any, a: Any, b: Any) -> Any:
    """``a / b`` for complex arrays with NumPy's algorithm (Smith's, and ``(ar/|0|, ai/|0|)`` for a zero
    divisor), so division by zero gives infinities like NumPy instead of thrust's NaN.

    >>> import numpy as np
    >>> complex_divide(np, np.array([1 + 1j, 3 + 4j]), np.array([0j, 1 - 2j])).tolist()
    [(inf+infj), (-1+2j)]
    """
    dt = b.dtype if isinstance(a, _SCALARS) else a.dtype
    a = xp.asarray(a, dtype=dt)
    b = xp.asarray(b, dtype=dt)
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    abr, abi = xp.abs(br), xp.abs(bi)
    with np.errstate(all="ignore"):
        first = abr >= abi
        zero = (br == 0) & (bi == 0)
        rat1 = bi / br
        scl1 = 1.0 / (br + bi * rat1)
        rat2 = br / bi
        scl2 = 1.0 / (bi + br * rat2)
        re = xp.where(first, (ar + ai * rat1) * scl1, (ar * rat2 + ai) * scl2)
        im = xp.where(first, (ai - ar * rat1) * scl1, (ai * rat2 - ar) * scl2)
        re = xp.where(first & zero, ar / abr, re)
        im = xp.where(first & zero, ai / abr, im)
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = xp.empty(shape, dtype=dt)
    out.real = re
    out.imag = im
    return out


_LOG_SCALE = {"log": None, "log1p": None, "log2": 1 / math.log(2), "log10": 1 / math.log(10)}


def complex_log(xp: Any, name: str, z: Any, raw: Any | None) -> Any:
    """``log``/``log1p``/``log2``/``log10`` of complex ``z`` as NumPy computes them at special values:
    ``log(hypot(re, im)) + i*atan2(im, re)`` (with ``re + 1`` for log1p), each part scaled for log2/log10.

    ``raw`` is the library's result: it is kept where ``z`` is finite (its accuracy near ``|z| = 1`` is
    better). For log2/log10 pass ``raw`` = the *corrected natural log*; its parts are scaled, as NumPy
    does, instead of a complex division that turns ``-inf + 0j`` into ``-inf + nan j``.

    >>> import numpy as np
    >>> z = np.array([complex(np.inf, np.nan), complex(-np.inf, -0.0), 0j])
    >>> complex_log(np, "log", z, None).tolist()
    [(inf+nanj), (inf-3.141592653589793j), (-inf+0j)]
    """
    re, im = z.real, z.imag
    if name == "log1p":
        re = re + 1
    scale = _LOG_SCALE[name]
    with np.errstate(all="ignore"):
        if name in ("log2", "log10"):
            base = raw if raw is not None else complex_log(xp, "log", z, None)
            out = xp.empty(z.shape, dtype=z.dtype)
            out.real = base.real * scale
            out.imag = base.imag * scale
            return out
        sre = xp.log(xp.hypot(re, im))
        sim = xp.arctan2(im, re)
        if raw is None:
            out = xp.empty(z.shape, dtype=z.dtype)
            out.real = sre
            out.imag = sim
            return out
        bad = ~(xp.isfinite(z.real) & xp.isfinite(z.imag))
        out = raw.copy()
        out.real = xp.where(bad, sre, raw.real)
        out.imag = xp.where(bad, sim, raw.imag)
    return out


def patch_nonfinite(xp: Any, z: Any, raw: Any, host_fn: Callable[[np.ndarray], np.ndarray],
                    to_host: Callable[[Any], np.ndarray]) -> Any:  # fmt: skip
    """``raw`` with the elements where ``z`` is not finite replaced by ``host_fn`` (NumPy's kernel) of
    those elements: one synchronisation (is there any?) and a copy of only those elements.

    >>> import numpy as np
    >>> z = np.array([1j, complex(-np.inf, 0.0)])
    >>> patch_nonfinite(np, z, np.array([5j, 7j]), np.exp, np.asarray).tolist()  # finite: raw kept
    [5j, 0j]
    """
    bad = ~(xp.isfinite(z.real) & xp.isfinite(z.imag))
    if not bool(bad.any()):
        return raw
    idx = xp.nonzero(bad.reshape(-1))[0]
    with np.errstate(all="ignore"):
        fixed = np.asarray(host_fn(to_host(z.reshape(-1)[idx])), dtype=raw.dtype)
    out = raw.copy().reshape(-1)
    out[idx] = xp.asarray(fixed)
    return out.reshape(raw.shape)


def check_integer_power(xp: Any, y: Any, x: Any = None) -> None:
    """Raise NumPy's ValueError when a signed integer exponent has a negative value (one synchronisation
    for an array exponent; none for a Python int). An empty base raises nothing: NumPy checks each element of the
    (empty) result (CuPy raised for ``empty ** -1``).

    >>> import numpy as np
    >>> check_integer_power(np, np.array([1, -2]))
    Traceback (most recent call last):
    ...
    ValueError: Integers to negative integer powers are not allowed. Fix: cast the base to a floating dtype first
    >>> check_integer_power(np, -1, np.array([], np.int32))
    """
    if getattr(x, "size", 1) == 0:
        return
    if isinstance(y, (int, np.integer)):
        neg = y < 0
    elif getattr(y, "dtype", None) is not None and y.dtype.kind == "i" and y.size:
        neg = bool((y < 0).any())
    else:
        neg = False
    if neg:
        raise ValueError("Integers to negative integer powers are not allowed. "
                         "Fix: cast the base to a floating dtype first")  # fmt: skip


_BIG = 1 << 62  # beyond any axis length: slicing with +-_BIG means the same as with anything larger


def _clamp(v: Any) -> Any:
    if v is None or type(v) is not int and not isinstance(v, np.integer):
        return v
    v = int(v)
    return _BIG if v > _BIG else -_BIG if v < -_BIG else v


def clamp_slices(key: Any) -> Any:
    """``key`` with slice start/stop/step clamped to +-2**62, which select the same elements on any axis
    shorter than that; CuPy converts them to ``ssize_t`` and overflows on larger ones.

    >>> clamp_slices((slice(None, None, 2**63), 1, slice(-2**70, 3)))
    (slice(None, None, 4611686018427387904), 1, slice(-4611686018427387904, 3, None))
    """
    if type(key) is slice:
        return slice(_clamp(key.start), _clamp(key.stop), _clamp(key.step))
    if type(key) is tuple:
        return tuple(clamp_slices(k) if type(k) is slice else k for k in key)
    return key


def nan_if_not_factored(xp: Any, low: Any) -> Any:
    """NaN for each matrix whose Cholesky factor has a diagonal element that is not > 0 (NaN included).

    LAPACK/cuSOLVER stop at the first non-positive pivot and leave it on the diagonal; CuPy does not
    check ``info`` (that would synchronise) and returns the partial factor. NaN marks the failure
    without a synchronisation, as ``inv``/``solve`` of singular input do on CuPy.

    >>> import numpy as np
    >>> nan_if_not_factored(np, np.array([[1.0, 0.0], [2.0, 0.0]])).tolist()
    [[nan, nan], [nan, nan]]
    """
    d = xp.diagonal(low, 0, -2, -1)
    d = d.real if d.dtype.kind == "c" else d
    ok = xp.all(d > 0, axis=-1)
    return xp.where(ok[..., None, None], low, xp.asarray(float("nan"), dtype=low.dtype))


class FreeAfter:
    """CuPy's missing ``record_stream``: the owner of a view handed to a consumer on ``stream``.

    A staged copy's device buffer ``obj`` belongs to the copy stream's pool (it was allocated there); CuPy
    gives a freed block to the next allocation on that stream at once, so the next copy could overwrite
    it while kernels the consumer queued on ``stream`` still read it. The consumer gets a view whose
    memory is owned by this object; when the last view dies, ``copy_stream`` first waits for everything
    queued on ``stream`` so far (which includes every read of the view), then ``obj`` is let go. Any later
    use of the block on the copy stream is ordered after the consumer's reads; the host never blocks.
    ``scope`` makes the streams' device current (CUDA records an event on the current device).
    """

    __slots__ = ("obj", "stream", "copy_stream", "scope")

    def __init__(self, obj: Any, stream: Any, copy_stream: Any, scope: Any) -> None:
        self.obj, self.stream, self.copy_stream, self.scope = obj, stream, copy_stream, scope

    def __del__(self) -> None:
        try:
            with self.scope:
                self.copy_stream.wait_event(self.stream.record())
        except Exception:  # noqa: BLE001  (interpreter shutdown: CUDA may be gone; nothing to order then)
            pass
