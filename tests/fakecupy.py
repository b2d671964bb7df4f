"""CuPy on NumPy: the CuPy backend's own code (xbackend/_backends/cupy/) run on the CPU (issue 28).

Design constraint: CI has no GPU, and most of what broke on the 2026-12-04 H200 run broke in code CI never ran. Here
:class:`CupyOnNumpyBackend` *is* ``CupyBackend`` - every method but the device ones below (it runs on the host) is its own -
with its library (``self.cp``, which ``self.xp`` wraps) swapped for :data:`FAKE_CUPY`: NumPy, whose arrays are
:class:`FakeCupyArray` (an ndarray with CuPy's ``.get()``, ``.device`` and ``.data.ptr``), with the kernel behaviours
in which CuPy was *observed* to differ from NumPy put back (:data:`QUIRKS`). A fix in the CuPy backend is
then tested on the CPU against NumPy, and goes red here when it is removed.

Each quirk says where it comes from: CuPy's kernel source (cupy/cupy at 6b6d956, v14 line) or a GPU log
(shared/gpu-runs/2026-11-30 and 2026-12-04). Where CuPy's exact values are unknown (thrust's complex functions at
non-finite input), the model poisons them (NaN + NaN j): a fix must replace every such element, whatever CuPy gives.

What this cannot run or show (said so next to the tests that would need it):
* the CUDA runtime parts of cupy.py: devices, streams, events, pinned memory, DLPack hand-offs, ``to_device``,
  ``record_stream`` (tests/fakecuda.py models streams for the transfer code; the rest needs a GPU);
* quirks not modelled: CuPy's float16/bfloat16 arithmetic done in float32 (NumPy's float16 loops do the same), FMA
  contraction, flush-to-zero of subnormals (``-ftz=true``), cuSOLVER/cuBLAS rounding, reductions' summation order.
"""

from __future__ import annotations

import types
from typing import Any, Callable

import numpy as np

from xbackend._backend import BackendInfo
from xbackend._backends.common.keys import map_index_arrays
from xbackend._backends.cupy.backend import CupyBackend
from xbackend._devices import CPU
from xbackend.testing import Target

NAME = "cupy_on_numpy"
#: its target (opt-in: tests/conftest.py adds it to the oracle and conformance modules, which also loop over it)
TARGET = Target(NAME, "cpu")


def with_cupy_on_numpy(targets: Any) -> list[Any]:
    """``targets`` and CuPy on NumPy's (for the tests that loop over targets themselves)."""
    return [*targets, TARGET] if TARGET not in targets else list(targets)


class _Device:
    """``cupy.cuda.Device``: a context manager making the device current (one device here: nothing to switch)."""

    id = 0

    def __enter__(self) -> "_Device":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def synchronize(self) -> None:
        return None


_DEVICE = _Device()


class _Pointer:
    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


def _plain(a: Any) -> Any:
    return a.view(np.ndarray) if isinstance(a, FakeCupyArray) else a


def _fake(a: Any) -> Any:
    return a.view(FakeCupyArray) if type(a) is np.ndarray else a


class FakeCupyArray(np.ndarray):
    """``cupy.ndarray`` on the host: NumPy's array with CuPy's attributes, and CuPy's kernel behaviour (:data:`QUIRKS`)
    in every ufunc it takes part in (functions, operators, in-place operators)."""

    @property
    def device(self) -> _Device:  # type: ignore[override]
        return _DEVICE

    @property
    def data(self) -> _Pointer:  # type: ignore[override]
        return _Pointer(self.__array_interface__["data"][0])

    def get(self, stream: Any = None, out: Any = None, blocking: bool = True) -> np.ndarray:
        """Device to host: a NumPy copy."""
        return np.array(self.view(np.ndarray), copy=True)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if any(not isinstance(i, np.ndarray) and getattr(type(i), "__array_ufunc__", None) is not None
               for i in inputs):  # fmt: skip
            return NotImplemented  # an operand with its own protocol (an xbackend Array): CuPy defers to it too
        args = [_plain(i) for i in inputs]
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_plain(o) for o in out)
        quirk = QUIRKS.get(ufunc.__name__) if method == "__call__" else None
        if quirk is not None:
            r = quirk(*args, **{k: v for k, v in kwargs.items() if k != "out"})
            if out is not None:
                if np.shape(r) != out[0].shape:  # as NumPy's and CuPy's ufuncs: out= has the broadcast shape
                    raise ValueError(f"non-broadcastable output operand with shape {out[0].shape} doesn't match the "
                                     f"broadcast shape {np.shape(r)}")  # fmt: skip
                np.copyto(kwargs["out"][0], r, casting="unsafe")
                return out[0]
        else:
            r = getattr(ufunc, method)(*args, **kwargs)
            if out is not None:
                return out[0] if len(out) == 1 else out
        return tuple(_fake(np.asarray(x)) for x in r) if type(r) is tuple else _fake(np.asarray(r))

    # CuPy converts slice values to ssize_t and raises OverflowError beyond it; out-of-bounds integer index arrays
    # wrap around (its take mode); assigning a scalar uses fill(), which memsets a zero (-0.0 becomes +0.0)
    def __getitem__(self, key: Any) -> Any:
        return _fake(np.asarray(_plain(self)[_cupy_key(self.shape, key)]))

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(value, (float, complex, np.floating, np.complexfloating)) and value == 0:
            value = type(value)(0)  # memset: the sign bit of -0.0 is lost (cupy/_core fill, 2026-11-30 log)
        _plain(self)[_cupy_key(self.shape, key)] = _plain(value)

    def fill(self, value: Any) -> None:
        _plain(self).fill(0 if value == 0 else value)  # memset for any value equal to 0: -0.0 becomes +0.0

    def reshape(self, *shape: Any, **kw: Any) -> Any:  # type: ignore[override]
        # CuPy takes a bool shape entry as an int (2026-12-04 log: reshape(x, (True,)) returned a value)
        s = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        s = tuple(int(v) if type(v) is bool else v for v in s)
        return _fake(_plain(self).reshape(s, **kw))


def _cupy_key(shape: tuple[int, ...], key: Any) -> Any:
    items = key if type(key) is tuple else (key,)
    for k in items:
        if type(k) is slice and any(v is not None and type(v) is int and not -(2**63) <= v < 2**63
                                    for v in (k.start, k.stop, k.step)):  # fmt: skip
            raise OverflowError("Python int too large to convert to C ssize_t")
    key = tuple(_plain(k) for k in items) if type(key) is tuple else _plain(key)
    try:
        return map_index_arrays(shape, key, lambda k: isinstance(k, np.ndarray) and k.dtype.kind in "iu",
                                lambda k: False, lambda k, dim, n: k % n if n else k)  # fmt: skip
    except IndexError:
        return key  # (NumPy's own error for too many indices)


# -- CuPy's kernels where they differ from NumPy's ------------------------------------------------------------
def _float(a: Any) -> bool:
    return np.asarray(a).dtype.kind == "f"


def _maximum(a: Any, b: Any, **kw: Any) -> Any:
    """cupy/_math/misc.py: ``isnan(in0) | isnan(in1) ? NAN : max(in0, in1)``; CUDA's ``max`` orders -0.0 below +0.0
    (2026-12-04 log: maximum(+0.0, -0.0) and maximum(-0.0, +0.0) both +0.0)."""
    r = np.maximum(a, b, **kw)
    if not _float(r):
        return r
    a, b = np.broadcast_arrays(np.asarray(a, dtype=r.dtype), np.asarray(b, dtype=r.dtype))
    zeros = (a == 0) & (b == 0)
    return np.where(zeros, np.where(np.signbit(a) & np.signbit(b), r.dtype.type(-0.0), r.dtype.type(0.0)), r)


def _minimum(a: Any, b: Any, **kw: Any) -> Any:
    r = np.minimum(a, b, **kw)
    if not _float(r):
        return r
    a, b = np.broadcast_arrays(np.asarray(a, dtype=r.dtype), np.asarray(b, dtype=r.dtype))
    zeros = (a == 0) & (b == 0)
    return np.where(zeros, np.where(np.signbit(a) | np.signbit(b), r.dtype.type(-0.0), r.dtype.type(0.0)), r)


def _shift(fn: Callable[..., Any]) -> Callable[..., Any]:
    def shift(a: Any, b: Any, **kw: Any) -> Any:
        """``out0 = in0 >> in1`` (cupy/_core/_routines_binary.pyx) compiles to PTX ``shr``/``shl``, which take a
        32-bit count: a 64-bit count keeps its low 32 bits (2026-12-04 log: uint64 x >> 2**63 returned x; >> 2**64-1
        and >> 64 gave 0, as the count is then clamped to the width, as NumPy does)."""
        dt = np.result_type(a, b)
        bb = np.asarray(b).astype(np.uint64, copy=False) & np.uint64(0xFFFFFFFF)
        return fn(np.asarray(a, dtype=dt), bb.astype(dt), **kw)

    return shift


def _nextafter(a: Any, b: Any, **kw: Any) -> Any:
    """float16: cupy/_core/include/cupy/float16.cuh ``nextafter``: NaN for a non-finite ``x`` (2026-12-04 log:
    nextafter(inf, 0) was NaN, NumPy 65504), ``x`` itself when ``x == y``."""
    r = np.nextafter(a, b, **kw)
    if r.dtype != np.float16:
        return r
    x, y = np.broadcast_arrays(np.asarray(a, np.float16), np.asarray(b, np.float16))
    xr, yr = x.view(np.uint16).astype(np.int32), y.view(np.uint16).astype(np.int32)
    pos_step = np.where(xr.astype(np.int16) > yr.astype(np.int16), xr - 1, xr + 1)  # signed short compare
    neg_step = np.where(((yr & 0x8000) == 0) | ((xr & 0x7FFF) > (yr & 0x7FFF)), xr - 1, xr + 1)
    out = np.where((xr & 0x8000) == 0, pos_step, neg_step)
    out = np.where(x == 0, (yr & 0x8000) + 1, out)
    out = np.where(x == y, xr, out)
    out = np.where(~np.isfinite(x) | np.isnan(y), 0x7E00, out)
    return out.astype(np.uint16).view(np.float16)


def _remainder(a: Any, b: Any, **kw: Any) -> Any:
    """Floats: ``in0 - _floor_divide(in0, in1) * in1`` with ``floor(x / y)`` (cupy/_core/_routines_math.pyx,
    carray.cuh); float16 in float32, rounded after each step (aat 2026-12-04: 1.0 % inf is NaN, -0.0 % -1.0 is +0.0)."""
    r = np.remainder(a, b, **kw)
    if not _float(r):
        return r
    w = np.float32 if r.dtype == np.float16 else r.dtype
    x, y = np.asarray(a, dtype=r.dtype).astype(w), np.asarray(b, dtype=r.dtype).astype(w)
    with np.errstate(all="ignore"):
        q = np.floor(x / y).astype(r.dtype).astype(w)
        return (x - (q * y).astype(r.dtype).astype(w)).astype(r.dtype)


def _floor_divide(a: Any, b: Any, **kw: Any) -> Any:
    """Floats: ``floor(x / y)`` (cupy/_core/include/cupy/carray.cuh), not NumPy's remainder-corrected quotient."""
    r = np.floor_divide(a, b, **kw)
    if not _float(r):
        return r
    with np.errstate(all="ignore"):
        return np.floor(np.divide(a, b)).astype(r.dtype)


def _divide(a: Any, b: Any, **kw: Any) -> Any:
    """Complex division by zero is NaN + NaN j (thrust; cupy/fixes.py's docstring, 2026-11-30 log), NumPy inf."""
    with np.errstate(all="ignore"):
        r = np.divide(a, b, **kw)
    if r.dtype.kind != "c":
        return r
    return np.where(np.asarray(b) == 0, r.dtype.type(complex(np.nan, np.nan)), r)


def _power(a: Any, b: Any, **kw: Any) -> Any:
    """Integers to a negative integer power: computed (0 here), where NumPy raises (cupy/fixes.py's docstring)."""
    dt = np.result_type(a, b)
    if dt.kind != "i":
        return np.power(a, b, **kw)
    bb = np.asarray(b, dtype=dt)
    return np.where(bb < 0, dt.type(0), np.power(np.asarray(a, dtype=dt), np.where(bb < 0, 0, bb)))


def _nonfinite_poisoned(fn: Callable[..., Any]) -> Callable[..., Any]:
    def f(z: Any, **kw: Any) -> Any:
        """thrust's complex functions give other special values than NumPy's at non-finite input (2026-11-30 and
        2026-12-04 logs, e.g. acosh(0 + nan j)); which ones is not modelled: every such element is NaN + NaN j."""
        with np.errstate(all="ignore"):
            r = fn(z, **kw)
        if r.dtype.kind != "c":
            return r
        zz = np.asarray(z)
        bad = ~(np.isfinite(zz.real) & np.isfinite(zz.imag))
        return np.where(bad, r.dtype.type(complex(np.nan, np.nan)), r)

    return f


#: NumPy ufunc name -> CuPy's behaviour where it differs from NumPy's (each function's docstring says how it is known)
QUIRKS: dict[str, Callable[..., Any]] = {
    "maximum": _maximum, "minimum": _minimum, "right_shift": _shift(np.right_shift),
    "left_shift": _shift(np.left_shift), "nextafter": _nextafter, "remainder": _remainder,
    "floor_divide": _floor_divide, "divide": _divide, "power": _power,
    **{n: _nonfinite_poisoned(getattr(np, n)) for n in ("arcsin", "arcsinh", "arccosh", "sin", "sinh", "tan", "tanh",
                                                           "expm1", "log", "log1p", "log2", "log10")},
}  # fmt: skip


def _partial_cholesky(a: np.ndarray) -> np.ndarray:
    """cuSOLVER's potrf without a check of ``info`` (cupy/linalg/_decomposition.py; cupy/fixes.py's docstring): the
    factor as far as it got, the failed pivot left on the diagonal (unblocked; LAPACK's order)."""
    a = np.array(a, dtype=np.result_type(a, np.float32), copy=True)
    n = a.shape[-1]
    low = np.zeros_like(a)
    for idx in np.ndindex(*a.shape[:-2]):
        m, L = a[idx], low[idx]
        for j in range(n):
            d = m[j, j] - np.vdot(L[j, :j], L[j, :j])
            if not d.real > 0:
                L[j, j] = d
                break
            L[j, j] = np.sqrt(d.real)
            for i in range(j + 1, n):
                L[i, j] = (m[i, j] - np.dot(L[i, :j], np.conj(L[j, :j]))) / L[j, j].real
    return low


def _cholesky(a: Any) -> Any:
    a = _plain(np.asarray(a))
    if a.size == 0:
        return _fake(np.linalg.cholesky(a))
    with np.errstate(all="ignore"):
        try:
            low = np.linalg.cholesky(a)
            if np.isfinite(low).all() or not np.isfinite(a).all():
                return _fake(low)
        except np.linalg.LinAlgError:
            pass
        return _fake(_partial_cholesky(a))


def _wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A NumPy function whose array results come back as FakeCupyArray (CuPy's functions return cupy arrays)."""

    def f(*args: Any, **kwargs: Any) -> Any:
        r = fn(*args, **kwargs)
        if type(r) is np.ndarray:
            return r.view(FakeCupyArray)
        if isinstance(r, (tuple, list)) and any(type(x) is np.ndarray for x in r):  # (NumPy's SVDResult, EighResult:
            return tuple(_fake(x) for x in r) if isinstance(r, tuple) else [_fake(x) for x in r]  # named tuples)
        if isinstance(r, np.generic):
            return np.asarray(r).view(FakeCupyArray)
        return r

    f.__name__ = getattr(fn, "__name__", "f")
    return f


class _FakeCupy(types.SimpleNamespace):
    """The ``cupy`` module: NumPy's namespace whose functions return :class:`FakeCupyArray`, ufuncs with
    :data:`QUIRKS`, ``linalg.cholesky`` unchecked, ``asnumpy``/``ndarray``/``cuda`` as CuPy has them."""

    def __init__(self) -> None:
        super().__init__()
        self.__name__ = "cupy (on NumPy: tests/fakecupy.py)"
        self.__version__ = "14.2.0+fake"
        self.ndarray = FakeCupyArray
        self.cuda = types.SimpleNamespace(
            runtime=types.SimpleNamespace(getDeviceCount=lambda: 1, getDevice=lambda: 0),
            Device=lambda i=0: _DEVICE,
        )
        self.linalg = types.SimpleNamespace(**{n: _wrap(getattr(np.linalg, n)) for n in dir(np.linalg)
                                               if not n.startswith("_") and callable(getattr(np.linalg, n))})  # fmt: skip
        self.linalg.cholesky = _cholesky
        self.fft = types.SimpleNamespace(**{n: _wrap(getattr(np.fft, n)) for n in dir(np.fft)
                                            if not n.startswith("_") and callable(getattr(np.fft, n))})  # fmt: skip

    def asnumpy(self, a: Any, stream: Any = None) -> np.ndarray:
        return np.array(_plain(np.asarray(a)), copy=True)

    # a host scalar or 0-d host array reaches the device through ndarray.fill, which memsets any value equal to 0:
    # -0.0 arrives as +0.0 (2026-11-30 log; xbackend's SignSafeNamespace sends such values as one-element arrays)
    def asarray(self, a: Any, dtype: Any = None, **kw: Any) -> Any:
        r = _fake(np.asarray(_plain(a), dtype=dtype, **kw))
        if not isinstance(a, FakeCupyArray) and r.ndim == 0:
            r = r.copy()
            r.fill(r.item())
        return r

    def array(self, a: Any, dtype: Any = None, copy: bool = True, **kw: Any) -> Any:
        r = self.asarray(a, dtype=dtype, **kw)
        return r.copy() if copy and r is a else r

    def full(self, shape: Any, fill_value: Any, dtype: Any = None, **kw: Any) -> Any:
        r = _fake(np.full(shape, fill_value, dtype=dtype, **kw))
        r.fill(fill_value)
        return r

    def full_like(self, a: Any, fill_value: Any, dtype: Any = None, **kw: Any) -> Any:
        r = _fake(np.full_like(_plain(a), fill_value, dtype=dtype, **kw))
        r.fill(fill_value)
        return r

    def __getattr__(self, name: str) -> Any:
        value = getattr(np, name)
        if isinstance(value, np.ufunc):
            pass  # FakeCupyArray.__array_ufunc__ applies the quirks (CuPy arrays in, CuPy's kernel)
        elif callable(value) and not isinstance(value, type):
            value = _wrap(value)
        setattr(self, name, value)
        return value


FAKE_CUPY = _FakeCupy()


class CupyOnNumpyBackend(CupyBackend):
    """``CupyBackend`` on :data:`FAKE_CUPY`, on the host: its own methods everywhere but the device ones (CuPy's device
    is ``cuda:N``; this one runs on the CPU, so its target is ``cupy_on_numpy-cpu`` and carries no ``gpu`` marker; it
    synchronises nothing, and NumPy may read its data)."""

    name = NAME
    module = "fakecupy"

    def _library(self) -> Any:
        return FAKE_CUPY

    @classmethod
    def probe(cls) -> BackendInfo:
        return BackendInfo(NAME, installed=True, usable=True, version=FAKE_CUPY.__version__, devices=("cpu",))

    def device_of(self, x: Any) -> Any:
        return CPU

    def default_device(self) -> Any:
        return CPU

    def devices(self) -> list[Any]:
        return [CPU]

    def check_device(self, dev: Any) -> Any:
        if dev is not CPU:
            from xbackend._errors import UnknownDeviceError

            raise UnknownDeviceError(f"{NAME} runs on the host only, not {dev}. Fix: use device='cpu'")
        return dev

    def gpu_devices_in_use(self) -> list[Any]:
        return []  # the host: xb.synchronize() and xb.timer() have no GPU of this backend to wait for

    def synchronize(self, dev: Any) -> None:
        return None

    def export_for_numpy(self, x: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """``np.asarray(Array)``: this data is on the host (CuPy's refuses, as its data is on a GPU)."""
        return np.asarray(_plain(x), dtype=dtype) if not copy else np.array(_plain(x), dtype=dtype, copy=True)

    def wrap_native(self, x: Any, dt: Any, dev: Any, copy: bool | None) -> Any:
        if dev is not None:
            self.check_device(dev)
        return super().wrap_native(x, dt, None, copy)


#: a child process's first lines for a test that runs code on cupy_on_numpy in a subprocess
CHILD_SETUP = (f"import sys; sys.path.insert(0, {__file__.rpartition('/')[0]!r}); "
               f"from xbackend._dispatch import register_backend; "
               f"register_backend({NAME!r}, 'fakecupy:CupyOnNumpyBackend', modules=('fakecupy',))\n")
