"""The one exception tree of xbackend.

Every error xbackend raises on purpose is an :class:`XBackendError` *and* the builtin exception a user
would already catch, so ``except TypeError`` keeps working::

    XBackendError
     +-- BackendError
     |    +-- BackendUnavailableError(RuntimeError)   backend not installed / no usable device
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
     +-- GradientError(RuntimeError)                  leaving torch with an autograd graph attached
     +-- CopyError(BufferError)                       copy=False but sharing memory is impossible
     +-- DLPackError(BufferError)                     a DLPack producer/consumer refused the exchange
     +-- AxisError(ValueError, IndexError)            axis outside [-ndim, ndim) (like NumPy's AxisError)
     +-- ShapeError(ValueError)                       shapes that do not broadcast, @ inner sizes, empty argmax
     +-- IndexOutOfRangeError(IndexError)             x[5] on an axis of size 3
     +-- LinAlgError(ValueError)                      singular / not positive-definite matrix (xb.linalg)
     +-- DomainError(ValueError)                      a value outside an operation's domain (int ** -1)

Messages say what happened, where the data lives, and the one-line fix.
"""

from __future__ import annotations

__all__ = [
    "XBackendError",
    "BackendError",
    "BackendUnavailableError",
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
    "CopyError",
    "DLPackError",
    "AxisError",
    "ShapeError",
    "IndexOutOfRangeError",
    "LinAlgError",
    "DomainError",
]


class XBackendError(Exception):
    """Base class of every error xbackend raises on purpose."""


class BackendError(XBackendError):
    """A problem with a backend: missing, unusable, or mixed with another."""


class BackendUnavailableError(BackendError, RuntimeError):
    """The backend is not installed or has no usable device; the message says why."""


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


class GradientError(XBackendError, RuntimeError):
    """A torch tensor with an autograd graph would leave torch and lose its graph."""


class CopyError(XBackendError, BufferError):
    """``copy=False`` was requested but the data cannot be shared without a copy."""


class DLPackError(XBackendError, BufferError):
    """A DLPack producer or consumer refused the exchange (the library's own error is the ``__cause__``)."""


class AxisError(XBackendError, ValueError, IndexError):
    """An axis argument outside ``[-ndim, ndim)`` (or repeated); both ``ValueError`` and ``IndexError``."""


class ShapeError(XBackendError, ValueError):
    """Shapes that do not fit the operation: operands that do not broadcast, ``@`` with different inner
    sizes, ``argmax`` of an empty Array, negative ``repeats``. A ``ValueError``, as NumPy raises."""


class IndexOutOfRangeError(XBackendError, IndexError):
    """An index outside an axis (``x[5]`` on an axis of size 3). An ``IndexError``, as NumPy raises."""


class LinAlgError(XBackendError, ValueError):
    """A linear-algebra routine failed on its input (singular matrix, not positive-definite, no convergence).

    Raised the same way on every backend that detects the failure (NumPy's ``LinAlgError`` and torch's
    ``torch.linalg.LinAlgError`` are translated into this one)."""


class DomainError(XBackendError, ValueError):
    """An operand value the operation is not defined for on any backend, e.g. an integer to a negative
    integer power (the result is not an integer)."""


def shape_mismatch(what: str, shapes: tuple[tuple[int, ...], ...], why: str, fix: str) -> ShapeError:
    """The one message for shapes that do not fit: what ran, every shape, why, and the fix."""
    return ShapeError(f"{what}: shapes {' and '.join(str(tuple(s)) for s in shapes)} {why}. Fix: {fix}")


def mismatch(kind: str, a: object, b: object, fix: str) -> str:
    """Format the one message used for backend and device mismatches."""
    return f"operation mixes Arrays on {kind} {a!s} and {b!s}; xbackend never copies silently. Fix: {fix}"
