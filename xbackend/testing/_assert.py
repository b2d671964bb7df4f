"""Assertions that compare Arrays and native arrays of any backend and device.

Design constraint: comparisons happen on the host in float64/complex128 (a NumPy oracle), with
tolerances chosen from the *less precise* dtype of the two sides, so one call works for every backend.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtypes as D
from .._array import Array
from .._dtypes import DType

__all__ = ["assert_close", "assert_equal", "assert_same_dtype", "default_tolerance", "to_host"]

# (rtol, atol) per dtype: a few ulps of the dtype, loose enough for transcendental functions
_TOL: dict[DType, tuple[float, float]] = {
    D.float16: (2e-3, 1e-4), D.bfloat16: (1.6e-2, 1e-3), D.float32: (2e-6, 1e-7), D.float64: (1e-12, 1e-14),
    D.complex64: (2e-6, 1e-7), D.complex128: (1e-12, 1e-14),
}  # fmt: skip


def default_tolerance(*dtypes: DType) -> tuple[float, float]:
    """The loosest ``(rtol, atol)`` among the dtypes (exact, (0, 0), for bool and integers).

    >>> import xbackend as xb
    >>> from xbackend.testing import default_tolerance
    >>> default_tolerance(xb.float64, xb.float32)
    (2e-06, 1e-07)
    """
    rtol = atol = 0.0
    for d in dtypes:
        r, a = _TOL.get(d, (0.0, 0.0))
        rtol, atol = max(rtol, r), max(atol, a)
    return rtol, atol


def _xb_dtype(x: Any) -> DType | None:
    if type(x) is Array:
        return x.dtype
    dt = getattr(x, "dtype", None)
    if dt is None:
        return None
    try:
        return D.from_numpy_dtype(np.dtype(dt)) if not hasattr(dt, "is_floating_point") else _torch_dtype(dt)
    except Exception:
        return _torch_dtype(dt)


def _torch_dtype(dt: Any) -> DType | None:
    name = str(dt).replace("torch.", "")
    return D.BY_NAME.get(name)


def to_host(x: Any) -> np.ndarray:
    """Any Array, native array (NumPy, torch, CuPy, on any device), or Python data as a NumPy array.

    >>> import xbackend as xb
    >>> from xbackend.testing import to_host
    >>> to_host(xb.asarray([1, 2])).tolist()
    [1, 2]
    """
    if type(x) is Array:
        if x.dtype is D.bfloat16:
            x = x.astype(D.float32)
        return np.asarray(x.detach().numpy())
    mod = type(x).__module__.partition(".")[0]
    if mod == "torch":
        t = x.detach().resolve_conj().resolve_neg().cpu()
        if str(t.dtype) == "torch.bfloat16":
            t = t.float()
        return t.numpy()
    if mod == "cupy":
        return x.get()
    return np.asarray(x)


def _describe(x: Any) -> str:
    if type(x) is Array:
        return f"{x.backend} Array on {x.device}, dtype {x.dtype}, shape {x.shape}"
    return f"{type(x).__module__}.{type(x).__name__}, dtype {getattr(x, 'dtype', '?')}, shape {getattr(x, 'shape', '?')}"


def assert_same_dtype(actual: Any, expected: Any) -> None:
    """Both sides have the same xbackend dtype (native arrays are mapped to theirs)."""
    da, de = _xb_dtype(actual), _xb_dtype(expected)
    if da is not de:
        raise AssertionError(f"dtype mismatch: {da} ({_describe(actual)}) != {de} ({_describe(expected)})")


def assert_close(actual: Any, expected: Any, *, rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = True, check_dtype: bool = True, check_device: bool = False,
                 check_sign_of_zero: bool = False, msg: str = "") -> None:  # fmt: skip
    """Values equal within dtype-aware tolerances; shapes equal; dtypes equal unless ``check_dtype=False``.

    NaN equals NaN (``equal_nan``); infinities must match exactly; ``check_sign_of_zero`` also
    distinguishes +0.0 from -0.0. The failure message names shapes, dtypes, backends, the number of
    mismatches and the worst absolute and relative error with its index.

    >>> import numpy as np, xbackend as xb
    >>> from xbackend.testing import assert_close
    >>> assert_close(xb.asarray([1.0, 2.0]), np.array([1.0, 2.0 + 1e-15]))
    >>> assert_close(xb.asarray([1.0]), np.array([1.1]))
    Traceback (most recent call last):
    ...
    AssertionError: values differ: 1 of 1 elements ...
    """
    if check_dtype:
        assert_same_dtype(actual, expected)
    if check_device and type(actual) is Array and type(expected) is Array and actual.device is not expected.device:
        raise AssertionError(f"device mismatch: {actual.device} != {expected.device}")
    a, e = to_host(actual), to_host(expected)
    if a.shape != e.shape:
        raise AssertionError(f"shape mismatch: {a.shape} ({_describe(actual)}) != {e.shape} ({_describe(expected)})")
    dts = [d for d in (_xb_dtype(actual), _xb_dtype(expected)) if d is not None]
    r0, a0 = default_tolerance(*dts)
    rtol = r0 if rtol is None else rtol
    atol = a0 if atol is None else atol
    if a.dtype.kind in "biu" and e.dtype.kind in "biu":
        bad = a != e
    else:
        ac = a.astype(np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64)
        ec = e.astype(ac.dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.isclose(ac, ec, rtol=rtol, atol=atol, equal_nan=equal_nan)
            if check_sign_of_zero:
                zero = (ec == 0) & (ac == 0)
                close &= ~zero | (np.signbit(ac.real) == np.signbit(ec.real))
        bad = ~close
    n_bad = int(np.count_nonzero(bad))
    if n_bad == 0:
        return
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        abs_err = np.abs(a.astype(np.complex128) - e.astype(np.complex128)).real
        abs_err = np.where(bad, np.nan_to_num(abs_err, nan=np.inf), -1)
        worst = np.unravel_index(int(np.argmax(abs_err)), a.shape) if a.ndim else ()
        rel = float(abs_err[worst] / max(abs(e[worst]) if np.isfinite(e[worst]) else 1.0, 1e-300))
    raise AssertionError(
        f"values differ: {n_bad} of {a.size} elements (rtol={rtol}, atol={atol}); worst at index {worst}: "
        f"actual {a[worst]!r} vs expected {e[worst]!r} (abs err {float(abs_err[worst]):.3g}, rel err {rel:.3g})\n"
        f"  actual:   {_describe(actual)}\n  expected: {_describe(expected)}" + (f"\n  {msg}" if msg else "")
    )


def assert_equal(actual: Any, expected: Any, *, check_dtype: bool = True) -> None:
    """Exact equality (NaN equals NaN, +0.0 equals -0.0), shapes and dtypes.

    >>> import xbackend as xb
    >>> from xbackend.testing import assert_equal
    >>> assert_equal(xb.asarray([1, 2]), [1, 2], check_dtype=False)
    """
    assert_close(actual, expected, rtol=0.0, atol=0.0, check_dtype=check_dtype)
