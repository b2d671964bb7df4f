"""FFT extension (``xb.fft``) of the Array API standard (2025.12).

Design constraint: input and output dtypes are decided here, before a backend runs, and the result is
cast to exactly that dtype (so ``complex64`` stays ``complex64`` on every backend, whatever precision the
native FFT used internally). The backends (``fft_1d``, ``fft_nd``, ``fft_shift``) only call the native routine.

Dtype rules (one answer on every backend):

* complex-to-complex (``fft``, ``ifft``, ``fftn``, ``ifftn``) and complex-input (``irfft``, ``irfftn``, ``hfft``)
  functions accept real input and treat it as complex of the same precision;
* integer and bool input computes in the default float dtype (complex: its complex counterpart);
* ``float16``/``bfloat16`` compute in ``float32`` (complex in ``complex64``);
* real-input functions (``rfft``, ``rfftn``, ``ihfft``) refuse complex input.

>>> import xbackend as xb
>>> X = xb.fft.fft(xb.asarray([1.0, 0.0, 0.0, 0.0]))
>>> X.dtype, X.tolist()
(xb.complex128, [(1+0j), (1+0j), (1+0j), (1+0j)])
>>> xb.fft.irfft(xb.fft.rfft(xb.asarray([1.0, 2.0, 3.0, 4.0]))).tolist()
[1.0, 2.0, 3.0, 4.0]
"""

from __future__ import annotations

from typing import Any, Sequence

from . import _args as A, _config, _dtypes as D
from ._array import Array, _new
from ._coerce import asarray, to_array
from ._devices import split as _split
from ._dtypes import DType
from ._errors import ArgumentTypeError, ArgumentValueError, AxisError, ShapeError, UnsupportedDTypeError

__all__ = [
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq",
    "fftshift", "ifftshift",
]  # fmt: skip

_current = _config.current
_NORMS = ("backward", "ortho", "forward")
_HALF = frozenset({D.float16, D.bfloat16})


def _complex_dt(d: DType) -> DType:
    k = d.kind
    if k == "c":
        return d
    if k == "f":
        return D.complex_of(d)
    return D.complex_of(_current().default_float)


def _real_dt(d: DType, name: str) -> DType:
    k = d.kind
    if k == "f":
        return D.float32 if d in _HALF else d
    if k == "c":
        alt = {"rfft": "fft", "rfftn": "fftn", "ihfft": "ifft"}.get(name, "fft")
        raise UnsupportedDTypeError(f"fft.{name}() needs real input, got {d}. Fix: use fft.{alt}() for complex data, "
                                    "or pass xb.real(x)")  # fmt: skip
    return _current().default_float


def _check(x: Any, norm: str, name: str) -> Array:
    if type(x) is not Array:
        x = to_array(x)
    A.choice(norm, _NORMS, f"fft.{name}", "norm")
    if x._data.ndim == 0:
        raise ShapeError(f"fft.{name}() needs an Array with at least one dimension, got a 0-d Array. Fix: "
                         f"xb.fft.{name}(xb.reshape(x, (1,)))")
    return x


def _axis(axis: Any, ndim: int, name: str) -> int:
    return A.axis(axis, ndim, f"fft.{name}")


def _length(n: Any, name: str) -> int | None:
    if n is None:
        return None
    n = A.integer(n, f"fft.{name}", "n")
    if n < 1:
        raise ArgumentValueError(f"fft.{name}(): n must be a positive int or None, got {n!r}")
    return n


_HALF_OUT = frozenset({"irfft", "hfft", "irfftn"})  # real output of length 2 * (m - 1) by default


def _points(name: str, n: int | None, m: int, last: bool = True) -> int:
    """How many points a transform along an axis of size ``m`` has (``n``, else its default); at least 1."""
    k = n if n is not None else 2 * (m - 1) if name in _HALF_OUT and last else m
    if k < 1:
        raise ArgumentValueError(f"fft.{name}(): an axis of size {m} gives a transform of {k} points; it needs at "
                                 "least 1. Fix: pass n (or s) >= 1, or transform a longer axis")  # fmt: skip
    A.check_size((k,), 16, f"fft.{name}")  # complex128 points: no machine addresses more
    return k


def _zeros_result(x: Array, ax: list[int], sizes: list[int], name: str, out_dt: DType) -> Array:
    """The transform of an axis with no data (zero-padded to ``sizes``): zeros, of the output's shape."""
    shape = list(x._data.shape)
    for a, k in zip(ax, sizes):
        shape[a] = k // 2 + 1 if name in ("rfft", "rfftn", "ihfft") and a == ax[-1] else k
    return _new(x._be.zeros(tuple(shape), out_dt, x._dev), out_dt, x._dev, x._be)


def _run_1d(name: str, x: Any, n: int | None, axis: int, norm: str, in_dt: DType, out_dt: DType) -> Array:
    x = _check(x, norm, name)
    n = _length(n, name)
    axis = _axis(axis, x._data.ndim, name)
    k = _points(name, n, x._data.shape[axis])
    be = x._be
    if 0 in x._data.shape:  # only zeros to transform, or an empty batch (some libraries refuse either)
        return _zeros_result(x, [axis], [k], name, out_dt)
    data = x._data if x._dt is in_dt else be.astype(x._data, in_dt)
    r = be.fft_1d(name, data, n, axis, norm)
    if be.dtype_of(r) is not out_dt:
        r = be.astype(r, out_dt, copy=False)
    return _new(r, out_dt, x._dev, be)


def _dt_of(x: Any) -> DType:
    return x._dt if type(x) is Array else to_array(x)._dt


def fft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """One-dimensional discrete Fourier transform (complex output of the input's precision).

    >>> import xbackend as xb
    >>> xb.fft.fft(xb.asarray([1.0, 1.0]), n=4).tolist()
    [(2+0j), (1-1j), 0j, (1+1j)]
    """
    c = _complex_dt(_dt_of(x))
    return _run_1d("fft", x, n, axis, norm, c, c)


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """One-dimensional inverse discrete Fourier transform.

    >>> import xbackend as xb
    >>> xb.fft.ifft(xb.asarray([4.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    c = _complex_dt(_dt_of(x))
    return _run_1d("ifft", x, n, axis, norm, c, c)


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """FFT of real input; the transformed axis has ``n//2 + 1`` entries.

    >>> import xbackend as xb
    >>> xb.fft.rfft(xb.asarray([1.0, 2.0, 3.0, 4.0], dtype=xb.float32)).dtype
    xb.complex64
    """
    r = _real_dt(_dt_of(x), "rfft")
    return _run_1d("rfft", x, n, axis, norm, r, D.complex_of(r))


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Inverse of :func:`rfft`: real output of length ``n`` (default ``2 * (m - 1)``).

    >>> import xbackend as xb
    >>> xb.fft.irfft(xb.asarray([2.0, 0.0]), n=2).tolist()
    [1.0, 1.0]
    """
    c = _complex_dt(_dt_of(x))
    return _run_1d("irfft", x, n, axis, norm, c, D.real_of(c))


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """FFT of a signal with Hermitian symmetry (given by its first half): real output of length ``n``.

    >>> import xbackend as xb
    >>> xb.fft.hfft(xb.asarray([1.0, 0.0]), n=2).tolist()
    [1.0, 1.0]
    """
    c = _complex_dt(_dt_of(x))
    return _run_1d("hfft", x, n, axis, norm, c, D.real_of(c))


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Inverse of :func:`hfft`: real input, ``n//2 + 1`` complex outputs.

    >>> import xbackend as xb
    >>> xb.fft.ihfft(xb.asarray([1.0, 1.0])).shape
    (2,)
    """
    r = _real_dt(_dt_of(x), "ihfft")
    return _run_1d("ihfft", x, n, axis, norm, r, D.complex_of(r))


def _run_nd(name: str, x: Any, s: Sequence[int] | None, axes: Sequence[int] | None, norm: str,
            in_dt: DType, out_dt: DType, half_last: bool = False) -> Array:  # fmt: skip
    x = _check(x, norm, name)
    shape = x.shape
    ndim = len(shape)
    if axes is None:
        if s is not None:
            raise ArgumentValueError(f"fft.{name}(): s was given without axes; the standard needs both. Fix: pass "
                                     f"axes=(...) naming the axes that s sizes")  # fmt: skip
        ax = list(range(ndim))
    else:
        ax = list(A.axes(tuple(axes) if isinstance(axes, (list, tuple)) else axes, ndim, f"fft.{name}"))
    be = x._be
    if not ax:
        if half_last or name == "rfftn":
            raise ArgumentValueError(f"fft.{name}() needs at least one axis to transform (its last axis is the "
                                     "half-spectrum one). Fix: pass axes=(-1,) or axes=None")  # fmt: skip
        return _new(be.astype(x._data, out_dt, copy=True), out_dt, x._dev, be)  # no axis: nothing to transform
    if s is not None:
        s = list(s) if isinstance(s, (list, tuple)) else [s]  # type: ignore[list-item]  # an int: refused below
        if len(s) != len(ax):
            raise ArgumentValueError(f"fft.{name}(): s {s} and axes {list(axes or ())} need the same length")
    sizes = []
    for i, a in enumerate(ax):
        k = None if s is None else A.integer(s[i], f"fft.{name}", "s entry")
        if k == -1:  # the whole axis (irfftn: the full real length of the last one)
            k = None
        if k is not None:
            _length(k, name)
        sizes.append(_points(name, k, shape[a], last=i == len(ax) - 1))
    if 0 in x._data.shape:  # only zeros to transform, or an empty batch
        return _zeros_result(x, ax, sizes, name, out_dt)
    data = x._data if x._dt is in_dt else be.astype(x._data, in_dt)
    r = be.fft_nd(name, data, sizes if s is not None else None, ax, norm)
    if be.dtype_of(r) is not out_dt:
        r = be.astype(r, out_dt, copy=False)
    return _new(r, out_dt, x._dev, be)


def fftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str = "backward") -> Array:  # fmt: skip
    """n-dimensional FFT over ``axes`` (all axes by default), padded/trimmed to ``s``.

    >>> import xbackend as xb
    >>> xb.fft.fftn(xb.ones((2, 2))).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    c = _complex_dt(_dt_of(x))
    return _run_nd("fftn", x, s, axes, norm, c, c)


def ifftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str = "backward") -> Array:  # fmt: skip
    """n-dimensional inverse FFT.

    >>> import xbackend as xb
    >>> xb.fft.ifftn(xb.asarray([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[(1+0j), (1+0j)], [(1+0j), (1+0j)]]
    """
    c = _complex_dt(_dt_of(x))
    return _run_nd("ifftn", x, s, axes, norm, c, c)


def rfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str = "backward") -> Array:  # fmt: skip
    """n-dimensional FFT of real input (the last axis is halved).

    >>> import xbackend as xb
    >>> xb.fft.rfftn(xb.ones((2, 4))).shape
    (2, 3)
    """
    r = _real_dt(_dt_of(x), "rfftn")
    return _run_nd("rfftn", x, s, axes, norm, r, D.complex_of(r))


def irfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str = "backward") -> Array:  # fmt: skip
    """Inverse of :func:`rfftn` (real output; the last axis has ``s[-1]``, default ``2 * (m - 1)``, entries).

    >>> import xbackend as xb
    >>> xb.fft.irfftn(xb.fft.rfftn(xb.ones((2, 4)))).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    c = _complex_dt(_dt_of(x))
    return _run_nd("irfftn", x, s, axes, norm, c, D.real_of(c), half_last=True)


# --- helpers -----------------------------------------------------------------------------------
def _freq(name: str, n: int, d: float, dtype: Any, device: Any, backend: Any) -> Array:
    import numpy as np

    n = A.integer(n, f"fft.{name}", "n")
    if n < 1:
        raise ArgumentValueError(f"fft.{name}(): n must be a positive int, got {n!r}")
    d = A.real_number(d, f"fft.{name}", "d")
    dt = _current().default_float if dtype is None else D.dtype(dtype)
    if dt.kind != "f":
        raise UnsupportedDTypeError(f"fft.{name}() needs a real floating dtype, got {dt}")
    if device is not None:
        backend, device = _split(backend, device)  # device=x.device names x's backend too
    if backend is None:  # the configured backend and device, as creation functions use
        cfg = _current()
        backend, device = cfg.backend, device if device is not None else cfg.device
    host = (np.fft.fftfreq if name == "fftfreq" else np.fft.rfftfreq)(n, d=d)  # float64 on the host, then cast
    return asarray(host, dtype=dt, device=device, backend=backend)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: Any = None,
            backend: str | None = None) -> Array:  # fmt: skip
    """Sample frequencies of :func:`fft` for a window of ``n`` samples spaced ``d`` apart.

    ``backend``/``device`` default to the configured ones (``xb.using``), as for creation functions.

    >>> import xbackend as xb
    >>> xb.fft.fftfreq(4, d=0.5).tolist()
    [0.0, 0.5, -1.0, -0.5]
    """
    return _freq("fftfreq", n, d, dtype, device, backend)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: Any = None,
             backend: str | None = None) -> Array:  # fmt: skip
    """Sample frequencies of :func:`rfft` (``n//2 + 1`` non-negative frequencies).

    >>> import xbackend as xb
    >>> xb.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    return _freq("rfftfreq", n, d, dtype, device, backend)


def _shift(name: str, x: Any, axes: Any) -> Array:
    if type(x) is not Array:
        x = to_array(x)
    ndim = x._data.ndim
    axes = A.axes(tuple(axes) if isinstance(axes, (list, tuple)) else axes, ndim, f"fft.{name}", unique=False)
    be = x._be
    if not axes:  # nothing to shift (a 0-d Array, or axes=())
        return _new(be.astype(x._data, x._dt, copy=True), x._dt, x._dev, be)
    return _new(be.fft_shift(name, x._data, axes), x._dt, x._dev, be)


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Move the zero-frequency term to the centre of ``axes`` (all axes by default); any dtype.

    >>> import xbackend as xb
    >>> xb.fft.fftshift(xb.fft.fftfreq(4)).tolist()
    [-0.5, -0.25, 0.0, 0.25]
    """
    return _shift("fftshift", x, axes)


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Inverse of :func:`fftshift`.

    >>> import xbackend as xb
    >>> xb.fft.ifftshift(xb.asarray([-0.5, -0.25, 0.0, 0.25])).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return _shift("ifftshift", x, axes)
