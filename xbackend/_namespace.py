"""The Array API namespace of one backend and device: what ``x.__array_namespace__()`` returns.

Design constraint: consumers written against the standard (scikit-learn, SciPy) get the namespace
from an array and then create with it (``xp.arange(n, device=device(x))``, ``xp.asarray(host)``),
expecting the result next to ``x``. ``import xbackend`` is one namespace over several libraries, so
each backend-bound :class:`~xbackend.Device` gets its own namespace object: everything is the
xbackend namespace, except that the creation functions default to that backend and device. The
objects are built once per device and cached, so two Arrays of one backend and device return the
same namespace (scikit-learn compares namespaces with ``==``), and each has its own ``__name__``
(``"xbackend:torch:cuda:0"``: array-api-compat tells namespaces apart by name, so mixing Arrays of two
backends fails there with "Multiple namespaces"; no regex metacharacter but ``.``, because consumers'
tests match error messages that quote it). Building one imports no backend.

>>> import xbackend as xb
>>> x = xb.asarray([1.0, 2.0])
>>> xp = x.__array_namespace__()
>>> xp is xb.asarray([3]).__array_namespace__(), xp.zeros(2).device == x.device
(True, True)
>>> xp.sum is xb.sum
True
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable

from . import _info
from ._array import Array
from ._errors import ArgumentValueError
from ._devices import Device
from ._dispatch import backend_for_type, get_backend

__all__ = ["BoundNamespace", "namespace_for"]

# creation functions that take ``device=`` and ``backend=`` and would otherwise use the configured default
_CREATION = ("arange", "empty", "eye", "full", "linspace", "ones", "zeros")
_FFT_CREATION = ("fftfreq", "rfftfreq")


class BoundNamespace(types.ModuleType):
    """The xbackend namespace with creation functions defaulting to one backend and device.

    Names it does not define itself resolve in :mod:`xbackend`, so it is a complete namespace.
    """

    _device: Device  # not ``device``: that name is xb.device, the parser
    # set by _build(); the rest of the namespace is copied from xbackend into __dict__
    __array_api_version__: str
    asarray: Callable[..., Any]
    from_dlpack: Callable[..., Any]
    __array_namespace_info__: Callable[..., Any]
    fft: types.ModuleType

    def __repr__(self) -> str:
        return f"<xbackend namespace on {self._device!r}>"

    def __getattr__(self, name: str) -> Any:
        return getattr(_ROOT[0], name)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (namespace_for, (self._device,))


def _bind_creation(fn: Callable[..., Any], dev: Device) -> Callable[..., Any]:
    @functools.wraps(fn)
    def create(*args: Any, device: Any = None, backend: Any = None, **kwargs: Any) -> Any:
        if device is None and backend is None:
            device = dev
        return fn(*args, device=device, backend=backend, **kwargs)

    return create


def _bind_asarray(fn: Callable[..., Any], dev: Device, name: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def asarray(obj: Any, /, *, device: Any = None, backend: Any = None, **kwargs: Any) -> Any:
        if device is None and backend is None:
            t = type(obj)
            be = obj._be if t is Array else backend_for_type(t)
            if be is None or be.name != name:  # data of this backend keeps its device, as torch.asarray does
                device = dev
        return fn(obj, device=device, backend=backend, **kwargs)

    return asarray


def _bind_info(dev: Device, name: str) -> Callable[..., Any]:
    def __array_namespace_info__(*, backend: Any = None) -> Any:
        """The inspection object of this namespace's backend, with its device as the default."""
        if backend is not None and backend != name:
            return _info.__array_namespace_info__(backend=backend)
        return _info.Info(get_backend(name), dev.physical)

    return __array_namespace_info__


def _build(dev: Device, name: str) -> BoundNamespace:
    xbackend = _ROOT[0]
    _fft = xbackend.fft
    # a name per device: array_api_compat.array_namespace() tells namespaces apart by __name__ only
    ns = BoundNamespace(f"xbackend:{dev.backend}:{dev}", xbackend.__doc__)
    ns.__dict__.update({n: getattr(xbackend, n) for n in xbackend.__all__})
    ns.__array_api_version__ = xbackend.__array_api_version__
    ns._device = dev
    for n in _CREATION:
        setattr(ns, n, _bind_creation(getattr(xbackend, n), dev))
    ns.asarray = _bind_asarray(xbackend.asarray, dev, name)
    ns.from_dlpack = _bind_creation(xbackend.from_dlpack, dev)
    ns.__array_namespace_info__ = _bind_info(dev, name)
    fft = types.ModuleType("xbackend.fft", _fft.__doc__)
    fft.__dict__.update({n: getattr(_fft, n) for n in _fft.__all__})
    for n in _FFT_CREATION:
        setattr(fft, n, _bind_creation(getattr(_fft, n), dev))
    ns.fft = fft
    return ns


_CACHE: dict[Device, BoundNamespace] = {}
#: the ``xbackend`` package, handed over by its ``__init__`` through :func:`install` (the package imports
#: this module, so this module does not import the package back)
_ROOT: list[types.ModuleType] = []


def install(root: types.ModuleType) -> None:
    """Called once by ``xbackend/_assemble.py`` with the ``xbackend`` package: the names every namespace copies."""
    _ROOT[:] = [root]


#: the Array API versions ``x.__array_namespace__(api_version=...)`` accepts (xbackend implements the latest)
API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
_NAMESPACES: dict[Device, Any] = {}  # bound Device -> its namespace, the Array method's cache (see namespace_for)


def array_namespace(self: Array, /, *, api_version: str | None = None) -> Any:
    """The Array API namespace bound to this Array's backend and device (cached: one object per device).

    It is the xbackend namespace, except that its creation functions default to this backend and
    device, so standard-conforming code (``xp.arange(n)``, ``xp.asarray(host_data)``) creates next
    to this Array.
    """
    if api_version is not None and api_version not in API_VERSIONS:
        raise ArgumentValueError(f"unsupported Array API version {api_version!r}; supported: {', '.join(API_VERSIONS)}")
    d = self.device
    ns = _NAMESPACES.get(d)
    if ns is None:
        ns = _NAMESPACES[d] = namespace_for(d)
    return ns


def namespace_for(dev: Device) -> BoundNamespace:
    """The cached namespace bound to ``dev`` (a device bound to a backend, like ``x.device``).

    >>> import xbackend as xb
    >>> from xbackend._namespace import namespace_for
    >>> xp = namespace_for(xb.Device("numpy", "cpu"))
    >>> xp.arange(3).backend, xp is namespace_for(xb.Device("numpy", "cpu"))
    ('numpy', True)
    """
    name = dev.backend
    if name is None:  # (checked first: an unbound device equals the bound ones at its place)
        raise ArgumentValueError(f"a namespace needs a device bound to a backend, got {dev!r}. Fix: pass an Array's "
                                 "device, or name the backend, e.g. xb.Device('numpy', 'cpu')")  # fmt: skip
    ns = _CACHE.get(dev)
    if ns is None:
        ns = _CACHE.setdefault(dev, _build(dev, name))
    return ns
