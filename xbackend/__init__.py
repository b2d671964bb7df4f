"""xbackend: write numeric code once, run it on NumPy, PyTorch or CuPy.

``import xbackend`` imports NumPy only; torch and CuPy load on first use. This module *is* the
default Array API namespace; ``x.__array_namespace__()`` returns a copy of it bound to x's backend and
device (``xbackend._namespace``).

>>> import xbackend as xb
>>> x = xb.asarray([[1.0, 2.0], [3.0, 4.0]])
>>> (x @ x).tolist()
[[7.0, 10.0], [15.0, 22.0]]
"""

from __future__ import annotations

import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING, Any as _Any

from ._array import Array
from ._backend import Backend, BackendInfo
from ._config import set_default, using
from ._config import current as get_config
from ._creation import (
    arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like, linspace, meshgrid, ones, ones_like,
    tril, triu, zeros, zeros_like,
)  # fmt: skip
from ._devices import Device, device
from ._dispatch import backend_names, backends, register_backend
from ._dtypes import (
    DType, bfloat16, bool, can_cast, complex64, complex128, dtype, finfo, float16, float32, float64, iinfo, int8,
    int16, int32, int64, isdtype, uint8, uint16, uint32, uint64,
)  # fmt: skip
from ._elementwise import *  # noqa: F403 - the standard's elementwise functions
from ._elementwise import __all__ as _elementwise_all
from ._errors import (
    BackendMismatchError, BackendUnavailableError, CopyError, DeviceMismatchError, GradientError,
    HostTransferError, PromotionError, ScalarOverflowError, UnknownDeviceError, UnsupportedDTypeError,
    XBackendError, AxisError, LinAlgError, DomainError, ShapeError, IndexOutOfRangeError, ForeignArrayError,
    ArgumentError, ArgumentTypeError, ArgumentValueError, BackendFailure, ChunkingError, InvalidIndexError,
    OutOfMemoryError, UnknownBackendError, UnknownAttributeError, BackendError, DeviceError, DTypeError,
)  # fmt: skip
from ._jit import JitFallbackWarning, jit, jit_cache_info
from ._grad.autograd import no_grad
from ._grad.transform import grad, value_and_grad
from ._interchange import DLPackError, Moved, moved, shares_memory, to_numpy
from ._compute import compute, persist, rechunk
from ._dtype_functions import astype, result_type
from ._version import __version__

# one module per spec section; each owns its __all__
from . import _constants, _indexing, _info, _linear_algebra, _manipulation, _portable, _searching, _set, _sorting
from . import _statistical, _transfer, _utility, fft, linalg
from ._constants import *  # noqa: F403
from ._indexing import *  # noqa: F403
from ._info import *  # noqa: F403
from ._linear_algebra import *  # noqa: F403
from ._manipulation import *  # noqa: F403
from ._portable import *  # noqa: F403
from ._searching import *  # noqa: F403
from ._set import *  # noqa: F403
from ._sorting import *  # noqa: F403
from ._statistical import *  # noqa: F403
from ._transfer import *  # noqa: F403
from ._timing import synchronize, timer
from ._utility import *  # noqa: F403

_SECTIONS = (_constants, _indexing, _info, _linear_algebra, _manipulation, _portable, _searching, _set, _sorting,
             _statistical, _transfer, _utility)  # fmt: skip

__array_api_version__ = "2025.12"

__all__ = [
    "Array", "Backend", "BackendInfo", "Device", "DType", "__array_api_version__", "__version__",
    # configuration and backends
    "using", "set_default", "get_config", "backends", "backend_names", "register_backend", "device",
    # dtypes
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
    "float32", "float64", "complex64", "complex128", "dtype", "result_type", "can_cast", "finfo", "iinfo",
    "isdtype", "astype",
    # creation
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace", "meshgrid",
    "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    # moving data
    "to_numpy", "shares_memory", "moved", "Moved", "DLPackError", "synchronize", "timer",
    # lazy (Dask) Arrays: explicit results
    "compute", "persist", "rechunk",
    # errors
    "XBackendError", "BackendUnavailableError", "BackendMismatchError", "UnknownDeviceError", "DeviceMismatchError",
    "HostTransferError", "UnsupportedDTypeError", "PromotionError", "ScalarOverflowError", "GradientError",
    "CopyError", "AxisError", "LinAlgError", "DomainError", "ShapeError", "IndexOutOfRangeError", "ForeignArrayError",
    "ArgumentError", "ArgumentTypeError", "ArgumentValueError", "BackendFailure", "ChunkingError",
    "InvalidIndexError", "OutOfMemoryError", "UnknownBackendError", "UnknownAttributeError", "BackendError",
    "DeviceError", "DTypeError",
    "linalg", "fft", "random",
    # compilation
    "jit", "jit_cache_info", "JitFallbackWarning",
    # gradients
    "grad", "value_and_grad", "no_grad",
] + list(_elementwise_all) + [n for m in _SECTIONS for n in m.__all__]  # fmt: skip

if _TYPE_CHECKING:
    from . import random
else:

    def __getattr__(name: str) -> _Any:
        """``xb.random`` is imported on first use: ``import xbackend`` pays nothing for it."""
        if name == "random":
            import importlib

            return importlib.import_module(f"{__name__}.random")
        raise UnknownAttributeError(f"module {__name__!r} has no attribute {name!r}. Fix: check the spelling "
                                    "against dir(xbackend) (the Array API standard's names, NumPy's where they "
                                    "agree)")  # fmt: skip


from . import _assemble  # noqa: E402 - last: the Array put together, the public functions behind the boundary

_assemble.assemble(_sys.modules[__name__])
