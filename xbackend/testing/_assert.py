"""Assertions that compare Arrays and native arrays of any backend and device.

Design constraint: comparisons happen on the host in float64/complex128 (a NumPy oracle), with
tolerances chosen from the *less precise* dtype of the two sides, so one call works for every backend.
Native arrays are recognised by module name (:func:`xbackend._dispatch.backend_for_type`), so nothing
here imports torch or CuPy.
"""

from __future__ import annotations

import contextlib

from typing import Any

import numpy as np

from .. import _dtypes as D
from .._array import Array
from .._dispatch import backend_for_type
from .._dtypes import DType

__all__ = ["assert_close", "assert_equal", "assert_same_dtype", "default_tolerance", "to_host"]

# (rtol, atol) per dtype: a few ulps of the dtype, loose enough for transcendental functions
_TOL: dict[DType, tuple[float, float]] = {
    D.float16: (2e-3, 1e-4), D.bfloat16: (1.6e-2, 1e-3), D.float32: (2e-6, 1e-7), D.float64: (1e-12, 1e-14),
    D.complex64: (2e-6, 1e-7), D.complex128: (1e-12, 1e-14),
}  # fmt: skip
_CONTAINERS = (tuple, list, dict)


def default_tolerance(*dtypes: DType) -> tuple[float, float]:
    """The loosest ``(rtol, atol)`` among the dtypes (exact, (0, 0), for bool and integers).

    >>> import xbackend as xb
    >>> from xbackend.testing import default_tolerance
    >>> default_tolerance(xb.float64, xb.float32)
    (2e-06, 1e-07)
    >>> default_tolerance(xb.int32)
    (0.0, 0.0)
    """
    rtol = atol = 0.0
    for d in dtypes:
        r, a = _TOL.get(d, (0.0, 0.0))
        rtol, atol = max(rtol, r), max(atol, a)
    return rtol, atol


def _xb_dtype(x: Any) -> DType | None:
    """The xbackend dtype of an Array or native array; None for Python data (lists, scalars)."""
    if type(x) is Array:
        return x.dtype
    be = backend_for_type(type(x))
    if be is not None:
        with contextlib.suppress(Exception):  # a dtype the backend cannot map: fall back to the name below
            return be.dtype_of(x)
    dt = getattr(x, "dtype", None)
    if dt is None:
        return None
    try:
        return D.from_numpy_dtype(np.dtype(dt))
    except Exception:
        return D.BY_NAME.get(str(dt).rpartition(".")[2])


def _device(x: Any) -> str | None:
    if type(x) is Array:
        return str(x.device)
    be = backend_for_type(type(x))
    return None if be is None else str(be.device_of(x))


def to_host(x: Any) -> np.ndarray:
    """Any Array, native array (NumPy, torch, CuPy, on any device), or Python data as a NumPy array.

    Always a copy: writing into the result never changes the data under test (a testing helper must
    not alias it). bfloat16 data comes back as float32 (exact); a torch autograd graph is detached.

    >>> import numpy as np, xbackend as xb
    >>> from xbackend.testing import to_host
    >>> to_host(xb.asarray([1, 2])).tolist()
    [1, 2]
    >>> a = np.zeros(2)
    >>> to_host(a) is a, np.shares_memory(to_host(a), a)
    (False, False)
    """
    if type(x) is not Array:
        be = backend_for_type(type(x))
        if be is None:
            return np.array(x, copy=True)
        x = Array._new(x, be.dtype_of(x), be.device_of(x), be)
    if x.dtype is D.bfloat16:
        x = x.astype(D.float32)
    return x.detach().numpy()  # an independent copy


def _describe(x: Any) -> str:
    if type(x) is Array:
        return f"{x.backend} Array on {x.device}, dtype {x.dtype}, shape {x.shape}"
    dev = _device(x)
    where = f" on {dev}" if dev is not None else ""
    shape = tuple(getattr(x, "shape", np.shape(x)))
    return f"{type(x).__module__}.{type(x).__name__}{where}, dtype {_xb_dtype(x) or '?'}, shape {shape}"


def assert_same_dtype(actual: Any, expected: Any) -> None:
    """Both sides have the same xbackend dtype (native arrays are mapped to theirs).

    >>> import numpy as np, xbackend as xb
    >>> from xbackend.testing import assert_same_dtype
    >>> assert_same_dtype(xb.asarray([1.0], dtype=xb.float32), np.float32([2.0]))
    >>> assert_same_dtype(xb.asarray([1.0]), np.float32([2.0]))
    Traceback (most recent call last):
    ...
    AssertionError: dtype mismatch: float64 (numpy Array on cpu, dtype float64, shape (1,)) != float32 ...
    """
    da, de = _xb_dtype(actual), _xb_dtype(expected)
    if da is not de:
        raise AssertionError(f"dtype mismatch: {da} ({_describe(actual)}) != {de} ({_describe(expected)})")


def _is_structure(x: Any) -> bool:
    """A tuple/list/dict of arrays (compared item by item), as opposed to nested Python numbers."""
    if not isinstance(x, _CONTAINERS):
        return False
    items = x.values() if isinstance(x, dict) else x
    return isinstance(x, dict) or any(
        type(v) is Array or hasattr(v, "shape") or (isinstance(v, _CONTAINERS) and _is_structure(v)) for v in items
    )


def assert_close(actual: Any, expected: Any, *, rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = True, check_dtype: bool = True, check_device: bool = False,
                 check_sign_of_zero: bool = False, msg: str = "") -> None:  # fmt: skip
    """Values equal within dtype-aware tolerances; shapes equal; dtypes equal unless ``check_dtype=False``.

    Either side may be an :class:`~xbackend.Array`, a native array of any backend on any device, a
    NumPy scalar or Python data (Python data has no dtype, so only its values are checked). Tuples,
    lists and dicts *of arrays* are compared item by item. Default tolerances come from the less
    precise dtype (:func:`default_tolerance`); integers and bool compare exactly. NaN equals NaN
    (``equal_nan``); infinities must match exactly; +0.0 equals -0.0 unless ``check_sign_of_zero``
    (for complex values, the sign of the real and of the imaginary zero both count).
    ``check_device`` also requires the same device. The failure message names shapes, dtypes,
    backends and devices, the number of mismatches and the worst absolute and relative error with its
    index.

    >>> import numpy as np, xbackend as xb
    >>> from xbackend.testing import assert_close
    >>> assert_close(xb.asarray([1.0, 2.0]), np.array([1.0, 2.0 + 1e-15]))
    >>> assert_close(xb.asarray([0.0, float("nan")]), [-0.0, float("nan")])
    >>> assert_close(xb.asarray([1.0]), np.array([1.1]))
    Traceback (most recent call last):
    ...
    AssertionError: values differ: 1 of 1 elements ...
    """
    if _is_structure(actual) or (isinstance(actual, _CONTAINERS) and _is_structure(expected)):
        _assert_structure(actual, expected, "", dict(rtol=rtol, atol=atol, equal_nan=equal_nan,
                          check_dtype=check_dtype, check_device=check_device,
                          check_sign_of_zero=check_sign_of_zero, msg=msg))  # fmt: skip
        return
    da, de = _xb_dtype(actual), _xb_dtype(expected)
    if check_dtype and da is not None and de is not None and da is not de:
        raise AssertionError(f"dtype mismatch: {da} ({_describe(actual)}) != {de} ({_describe(expected)})"
                             + (f"\n  {msg}" if msg else ""))  # fmt: skip
    if check_device:
        dva, dve = _device(actual), _device(expected)
        if dva is not None and dve is not None and dva != dve:
            raise AssertionError(f"device mismatch: {dva} ({_describe(actual)}) != {dve} ({_describe(expected)})")
    a, e = to_host(actual), to_host(expected)
    if a.shape != e.shape:
        raise AssertionError(f"shape mismatch: {a.shape} ({_describe(actual)}) != {e.shape} ({_describe(expected)})"
                             + (f"\n  {msg}" if msg else ""))  # fmt: skip
    r0, a0 = default_tolerance(*[d for d in (da, de) if d is not None])
    if da is None and de is None and (a.dtype.kind in "fc" or e.dtype.kind in "fc"):
        r0, a0 = default_tolerance(D.float64)
    rtol = r0 if rtol is None else rtol
    atol = a0 if atol is None else atol
    if a.dtype.kind in "biu" and e.dtype.kind in "biu" and rtol == 0 and atol == 0:
        bad = a != e
    else:
        ac = a.astype(np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64)
        ec = e.astype(ac.dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.isclose(ac, ec, rtol=rtol, atol=atol, equal_nan=equal_nan)
            if check_sign_of_zero:
                for part in (np.real, np.imag) if ac.dtype.kind == "c" else (np.real,):  # complex: both zeros
                    pa, pe = part(ac), part(ec)
                    close &= ~((pa == 0) & (pe == 0)) | (np.signbit(pa) == np.signbit(pe))
        bad = ~close
    n_bad = int(np.count_nonzero(bad))
    if n_bad == 0:
        return
    raise AssertionError(_mismatch_message(a, e, bad, n_bad, rtol, atol, actual, expected, msg))


def _mismatch_message(a: np.ndarray, e: np.ndarray, bad: np.ndarray, n_bad: int, rtol: float, atol: float,
                      actual: Any, expected: Any, msg: str) -> str:  # fmt: skip
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if a.dtype.kind in "biu" and e.dtype.kind in "biu":
            diff = np.abs(a.astype(object) - e.astype(object)).astype(np.float64)  # exact for uint64/int64
        else:
            diff = np.abs(a.astype(np.complex128) - e.astype(np.complex128)).real
        abs_err = np.where(bad, np.nan_to_num(diff, nan=np.inf), -1.0)
        worst = np.unravel_index(int(np.argmax(abs_err)), a.shape) if a.ndim else ()
        ew = e[worst]
        scale = abs(complex(ew)) if np.isfinite(ew) else 1.0
        rel = float(abs_err[worst] / scale) if scale else float("inf")
    nan_note = ""
    n_nan = int(np.count_nonzero(bad & (np.isnan(a) != np.isnan(e)))) if a.dtype.kind in "fc" else 0
    if n_nan:
        nan_note = f"; {n_nan} where only one side is NaN"
    zero_note = ""
    if a.dtype.kind in "fc" and e.dtype.kind in "fc":
        n_zero = int(np.count_nonzero(bad & (a == e)))  # equal yet bad: a zero's sign (real or imaginary)
        if n_zero:
            zero_note = f"; {n_zero} differ in the sign of zero"
    return (
        f"values differ: {n_bad} of {a.size} elements (rtol={rtol}, atol={atol}){nan_note}{zero_note}; "
        f"worst at index {tuple(int(i) for i in worst)}: actual {a[worst]!r} vs expected {ew!r} "
        f"(abs err {float(abs_err[worst]):.3g}, rel err {rel:.3g})\n"
        f"  actual:   {_describe(actual)}\n  expected: {_describe(expected)}" + (f"\n  {msg}" if msg else "")
    )


def _assert_structure(actual: Any, expected: Any, path: str, opts: dict[str, Any]) -> None:
    if isinstance(actual, dict) or isinstance(expected, dict):
        if not (isinstance(actual, dict) and isinstance(expected, dict)) or actual.keys() != expected.keys():
            raise AssertionError(f"structure mismatch at output{path}: {_keys(actual)} != {_keys(expected)}")
        for k in actual:
            _assert_one(actual[k], expected[k], f"{path}[{k!r}]", opts)
        return
    if not (isinstance(actual, (tuple, list)) and isinstance(expected, (tuple, list))) or len(actual) != len(expected):
        raise AssertionError(f"structure mismatch at output{path}: {_keys(actual)} != {_keys(expected)}")
    for i, (x, y) in enumerate(zip(actual, expected)):
        _assert_one(x, y, f"{path}[{i}]", opts)


def _assert_one(actual: Any, expected: Any, path: str, opts: dict[str, Any]) -> None:
    if _is_structure(actual) or (isinstance(actual, _CONTAINERS) and _is_structure(expected)):
        _assert_structure(actual, expected, path, opts)
        return
    try:
        assert_close(actual, expected, **opts)
    except AssertionError as exc:
        raise AssertionError(f"output{path}: {exc}") from None


def _keys(x: Any) -> str:
    if isinstance(x, dict):
        return f"dict with keys {sorted(map(str, x))}"
    if isinstance(x, (tuple, list)):
        return f"{type(x).__name__} of length {len(x)}"
    return type(x).__name__


def assert_equal(actual: Any, expected: Any, *, check_dtype: bool = True) -> None:
    """Exact equality (NaN equals NaN, +0.0 equals -0.0), shapes and dtypes.

    >>> import xbackend as xb
    >>> from xbackend.testing import assert_equal
    >>> assert_equal(xb.asarray([1, 2]), [1, 2], check_dtype=False)
    """
    assert_close(actual, expected, rtol=0.0, atol=0.0, check_dtype=check_dtype)
