"""The one exception tree of xbackend.

Every error xbackend raises on purpose is an :class:`XBackendError` *and* the builtin exception a user
would already catch, so ``except TypeError`` keeps working::

    XBackendError
     +-- BackendError
     |    +-- BackendUnavailableError(RuntimeError)   backend not installed / no usable device
     |    |    +-- UnknownBackendError(ValueError)     a backend name nobody registered (backend="tourch")
     |    +-- BackendMismatchError(TypeError)         Arrays of two backends in one operation
     |    +-- ForeignArrayError(TypeError)            an array of an unknown, non-conforming library
     +-- DeviceError
     |    +-- UnknownDeviceError(ValueError)          "cuda:7" on a machine with one GPU, "tpu"
     |    +-- DeviceMismatchError(ValueError)         Arrays on two devices in one operation
     |    +-- HostTransferError(TypeError)            implicit host copy of device data (np.asarray(cuda))
     +-- DTypeError
     |    +-- UnsupportedDTypeError(TypeError)        the backend cannot hold that dtype
     |    +-- PromotionError(TypeError)               no promotion rule for the pair (int64 + uint64)
     |    +-- ScalarOverflowError(OverflowError)      Python int outside the array dtype's range
     +-- ArgumentError
     |    +-- ArgumentTypeError(TypeError)            an argument of the wrong type (axis="0", keepdims="yes")
     |    +-- ArgumentValueError(ValueError)          an argument of the right type, outside what it accepts
     +-- UnknownAttributeError(AttributeError)        an attribute an Array lacks (x.float()): names the spelling
     +-- GradientError(RuntimeError)                  leaving torch with an autograd graph attached
     +-- CopyError(BufferError, ValueError)           copy=False but sharing memory is impossible
     +-- DLPackError(BufferError)                     a DLPack producer/consumer refused the exchange
     +-- AxisError(ValueError, IndexError)            axis outside [-ndim, ndim) (like NumPy's AxisError)
     +-- ShapeError(ValueError)                       shapes that do not broadcast, @ inner sizes, empty argmax
     +-- InvalidIndexError(IndexError)                a key that is no index (x[..., ...], x[1.5])
     +-- IndexOutOfRangeError(IndexError)             x[5] on an axis of size 3
     +-- ChunkingError(ValueError)                    Dask: an operation needs an axis in one chunk
     +-- LinAlgError(numpy.linalg.LinAlgError)        singular / not positive-definite matrix (xb.linalg)
     +-- DomainError(ValueError)                      a value outside an operation's domain (int ** -1)
     +-- OutOfMemoryError(MemoryError)                the device or the host has no room for the result
     +-- BackendFailure(RuntimeError)                 the library failed for a reason xbackend does not check

Messages say what happened, where the data lives, and the one-line fix, with the same text on every backend.
Public functions raise nothing else: a native exception that reaches the boundary (``xbackend/_boundary.py``)
is translated into one of these, the library's own exception kept as ``__cause__``.
"""

from __future__ import annotations

from numpy.linalg import LinAlgError as _NumpyLinAlgError

__all__ = [
    "XBackendError",
    "BackendError",
    "BackendUnavailableError",
    "UnknownBackendError",
    "BackendMismatchError",
    "ForeignArrayError",
    "DeviceError",
    "UnknownDeviceError",
    "DeviceMismatchError",
    "HostTransferError",
    "DTypeError",
    "UnsupportedDTypeError",
    "PromotionError",
    "ScalarOverflowError",
    "GradientError",
    "UnknownAttributeError",
    "CopyError",
    "DLPackError",
    "AxisError",
    "ShapeError",
    "IndexOutOfRangeError",
    "InvalidIndexError",
    "LinAlgError",
    "DomainError",
    "ArgumentError",
    "ArgumentTypeError",
    "ArgumentValueError",
    "ChunkingError",
    "OutOfMemoryError",
    "BackendFailure",
]


class XBackendError(Exception):
    """Base class of every error xbackend raises on purpose."""


class BackendError(XBackendError):
    """A problem with a backend: missing, unusable, or mixed with another."""


class BackendUnavailableError(BackendError, RuntimeError):
    """The backend is not installed or has no usable device; the message says why."""


class UnknownBackendError(BackendUnavailableError, ValueError):
    """A backend name that is neither built in nor registered (``xb.register_backend``, the entry-point group
    ``xbackend.backends``); the message lists the known ones. Nothing is imported to find out."""


class BackendMismatchError(BackendError, TypeError):
    """One operation received Arrays of two different backends."""


class ForeignArrayError(BackendError, TypeError):
    """An array object of a library xbackend does not know and that does not implement the Array API
    standard: converting it through ``np.asarray`` could compute or copy it silently, so xbackend refuses."""


class DeviceError(XBackendError):
    """A problem with a device: unknown, unavailable, or mixed with another."""


class UnknownDeviceError(DeviceError, ValueError):
    """A device string or object that no backend on this machine provides."""


class DeviceMismatchError(DeviceError, ValueError):
    """One operation received Arrays on two different devices."""


class HostTransferError(DeviceError, TypeError):
    """An implicit copy of device memory to the host was requested (e.g. ``np.asarray(cuda_array)``)."""


class DTypeError(XBackendError):
    """A problem with a dtype."""


class UnsupportedDTypeError(DTypeError, TypeError):
    """The backend (or the operation) cannot hold or compute in this dtype."""


class PromotionError(DTypeError, TypeError):
    """No promotion rule exists for this combination of dtypes."""


class ScalarOverflowError(DTypeError, OverflowError):
    """A Python scalar does not fit the dtype of the Array it is combined with."""


class UnknownAttributeError(XBackendError, AttributeError):
    """An attribute an Array does not have. Where it is another library's habit (``x.float()``, ``x.numel()``,
    ``x.std()``) the message names the xbackend spelling; ``hasattr`` answers False as before."""


class GradientError(XBackendError, RuntimeError):
    """A torch tensor with an autograd graph would leave torch and lose its graph."""


class CopyError(XBackendError, BufferError, ValueError):
    """``copy=False`` was requested but the data cannot be shared without a copy. Also a ``ValueError``, as the Array
    API standard asks of ``asarray`` and ``reshape``."""


class DLPackError(XBackendError, BufferError):
    """A DLPack producer or consumer refused the exchange (the library's own error is the ``__cause__``)."""


class AxisError(XBackendError, ValueError, IndexError):
    """An axis argument outside ``[-ndim, ndim)`` (or repeated); both ``ValueError`` and ``IndexError``."""


class ShapeError(XBackendError, ValueError):
    """Shapes that do not fit the operation: operands that do not broadcast, ``@`` with different inner
    sizes, ``argmax`` of an empty Array, negative ``repeats``. A ``ValueError``, as NumPy raises."""


class IndexOutOfRangeError(XBackendError, IndexError):
    """An index outside an axis (``x[5]`` on an axis of size 3). An ``IndexError``, as NumPy raises."""


class LinAlgError(XBackendError, _NumpyLinAlgError):
    """A linear-algebra routine failed on its input (singular matrix, not positive-definite, no convergence).

    Raised the same way on every backend that detects the failure (NumPy's ``LinAlgError`` and torch's
    ``torch.linalg.LinAlgError`` are translated into this one). It is also a ``numpy.linalg.LinAlgError`` (a
    ``ValueError``), so existing ``except np.linalg.LinAlgError:`` clauses keep working.

    >>> import numpy as np, xbackend as xb
    >>> issubclass(xb.LinAlgError, np.linalg.LinAlgError), issubclass(xb.LinAlgError, ValueError)
    (True, True)
    """


class DomainError(XBackendError, ValueError):
    """An operand value the operation is not defined for on any backend, e.g. an integer to a negative
    integer power (the result is not an integer)."""


class InvalidIndexError(XBackendError, IndexError):
    """A key that is not a valid index: two ellipses, a float, a string. An ``IndexError``, as NumPy raises."""


class ArgumentError(XBackendError):
    """An argument that the function does not accept."""


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of the wrong type (``axis="0"``, ``keepdims="yes"``, ``num=2.5``). A ``TypeError``."""


class ArgumentValueError(ArgumentError, ValueError):
    """An argument of an accepted type with a value the function does not accept (``norm="sideways"``,
    a negative count). A ``ValueError``."""


class ChunkingError(XBackendError, ValueError):
    """An operation needs an axis of a Dask Array in one chunk (or concrete values to build its graph); the
    message names ``xb.rechunk``."""


class OutOfMemoryError(XBackendError, MemoryError):
    """The host or the device has no room for the result (NumPy's ``MemoryError``, torch's allocator errors and
    ``torch.cuda.OutOfMemoryError``, CuPy's ``OutOfMemoryError``, translated)."""


class BackendFailure(XBackendError, RuntimeError):
    """The backend library failed for a reason xbackend does not check for. The library's exception is the
    ``__cause__``; please report it, so that the check can be added (every other error says the fix)."""


class JitUnsupported(Exception):
    """Raised by a backend's ``compile`` hook: this function cannot be compiled (the message says why).

    Not an error a user meets: ``@xb.jit`` catches it and runs the function eagerly, warning once
    (:class:`~xbackend.JitFallbackWarning`). It lives here, below the backends, so that a backend's compiler can
    raise it without importing ``@xb.jit``.
    """


_LINALG_REASONS = {
    "cholesky": "a matrix is not positive-definite",
    "inv": "a matrix is singular", "solve": "a matrix is singular", "matrix_power": "a matrix is singular",
}  # the rest: an iterative algorithm (eigenvalues, SVD) did not converge


def linalg_failure(name: str) -> LinAlgError:
    """The one message of a failed ``xb.linalg`` routine, whichever library noticed (NumPy, torch, CuPy, Dask at
    compute time): what is wrong with the input, never the library's wording."""
    reason = _LINALG_REASONS.get(name, "the algorithm did not converge (does the input hold NaN or infinity?)")
    return LinAlgError(f"linalg.{name}(): {reason}. Fix: check the input (xb.linalg.matrix_rank(x) finds singular "
                       "matrices), or use xb.linalg.pinv for a least-squares answer")


def index_out_of_range(i: int, axis: int, n: int, backend: str, shape: tuple[int, ...]) -> IndexOutOfRangeError:
    """The one message for an index outside its axis (raised eagerly, or by a lazy backend when it computes)."""
    fix = f"use an index in {-n}..{n - 1}" if n else "the axis is empty, so no index fits: check x.shape first"
    return IndexOutOfRangeError(f"index {i} is out of range for axis {axis} of size {n} (a {backend} Array of shape "
                                f"{shape}). Fix: {fix}")


def shape_mismatch(what: str, shapes: tuple[tuple[int, ...], ...], why: str, fix: str) -> ShapeError:
    """The one message for shapes that do not fit: what ran, every shape, why, and the fix."""
    return ShapeError(f"{what}: shapes {' and '.join(str(tuple(s)) for s in shapes)} {why}. Fix: {fix}")


def mismatch(kind: str, a: object, b: object, fix: str) -> str:
    """Format the one message used for backend and device mismatches."""
    return f"operation mixes Arrays on {kind} {a!s} and {b!s}; xbackend never copies silently. Fix: {fix}"
