"""Backend registry and type dispatch.

Design constraint: answering a question never imports a backend library. Built-in backends are
named by import path and loaded on first use; third-party backends register through the
entry-point group ``xbackend.backends`` (``name = "package.module:BackendClass"``), read only when a
name or a type is not found among the built-ins. A broken plugin warns and is skipped.
:func:`backend_for_type` looks only at ``type.__module__`` (and caches per exact type), so it never
imports anything either.
"""

from __future__ import annotations

import difflib
import importlib
import sys
import types
import warnings
from typing import Any

from ._backend import Backend, BackendInfo
from ._devices import DEVICE_TYPES
from ._errors import ArgumentTypeError, BackendUnavailableError, UnknownBackendError

__all__ = ["get_backend", "get_backend_class", "backend_for_type", "register_backend", "backends", "backend_names"]

_BUILTIN: dict[str, str] = {
    "numpy": "xbackend._backends.numpy.backend:NumpyBackend",
    "torch": "xbackend._backends.torch.backend:TorchBackend",
    "cupy": "xbackend._backends.cupy.backend:CupyBackend",
    "dask": "xbackend._backends.dask.backend:DaskBackend",
    "cubed": "xbackend._backends.cubed.backend:CubedBackend",
    "array_api_strict": "xbackend._backends.generic.backend:ArrayApiStrictBackend",
    "jax": "xbackend._backends.generic.backend:JaxBackend",
}
_paths: dict[str, str] = dict(_BUILTIN)
_classes: dict[str, type[Backend]] = {}
_instances: dict[str, Backend] = {}
_by_module: dict[str, str] = {"numpy": "numpy", "torch": "torch", "cupy": "cupy", "cupyx": "cupy", "dask": "dask",
                               "cubed": "cubed", "array_api_strict": "array_api_strict", "jax": "jax",
                               "jaxlib": "jax"}  # (JAX's array class lives in jaxlib)
_by_type: dict[type, Backend | None] = {}
_plugins_loaded = False
#: top-level modules whose exceptions the boundary translates (``xbackend/_boundary.py``): Python's own, the host
#: libraries every backend may call (NumPy, ml_dtypes for bfloat16, SciPy under Dask's linalg), and those of each
#: backend class once it is loaded or registered (its ``module``, the ``modules`` it was registered with, and its
#: ``exception_modules``); an exception of any other module is a user's, and passes through untouched
EXCEPTION_MODULES: set[str] = {"builtins", "numpy", "ml_dtypes", "scipy"}


def _declare(cls: type[Backend], modules: tuple[str, ...] = ()) -> None:
    """Record the modules whose exceptions ``cls``'s calls may raise (see :data:`EXCEPTION_MODULES`)."""
    EXCEPTION_MODULES.update((cls.module, *modules, *cls.exception_modules))


def register_backend(name: str, cls: type[Backend] | str, *, modules: tuple[str, ...] = ()) -> None:
    """Register a backend class (or ``"module:Class"`` path) under ``name``.

    ``modules`` are the top-level module names whose array types this backend owns. The exceptions of those modules,
    of the class's ``module`` and of its ``exception_modules`` are translated into xbackend's typed errors at the
    boundary once the class is loaded (any other exception raised inside a call is a user's and passes through).
    """
    if isinstance(cls, str):
        _paths[name] = cls
        _classes.pop(name, None)
    else:
        _classes[name] = cls
        modules = modules or (cls.module,)
        _declare(cls, modules)
    _instances.pop(name, None)
    for m in modules:
        _by_module[m] = name
    _by_type.clear()


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group="xbackend.backends"):
        if ep.name in _BUILTIN:
            warnings.warn(f"xbackend plugin {ep.value!r} tries to replace built-in backend {ep.name!r}; skipped")
            continue
        try:
            cls = ep.load()
            if not (isinstance(cls, type) and issubclass(cls, Backend)):
                raise ArgumentTypeError(f"{ep.value} is not a subclass of xbackend Backend. Fix: point the entry "
                                        "point at a class derived from xbackend.Backend")  # fmt: skip
            register_backend(ep.name, cls)
        except Exception as exc:  # a broken plugin must never break xbackend
            warnings.warn(f"skipping broken xbackend backend plugin {ep.name!r} ({ep.value}): {exc!r}", RuntimeWarning)


def _generic(top: str) -> bool:
    """Register the generic Array-API backend for library ``top`` (no import when ``top`` is not installed)."""
    # loaded by import path, like the built-in backends: backend modules build on the registry, not the reverse
    cls = importlib.import_module("xbackend._backends.generic.backend").generic_backend_for(top)
    if cls is None:
        return False
    register_backend(top, cls)
    return True


def backend_names() -> list[str]:
    """Names of every known backend (built-in and plugins), without importing any library."""
    _load_plugins()
    return sorted(set(_paths) | set(_classes))


def backend_name(obj: Any) -> str:
    """A backend's name from what a user may pass as ``backend=``: a name, a Backend, or the library's module
    (``backend=torch`` means ``backend="torch"``); anything else raises :class:`~xbackend.ArgumentTypeError`.

    >>> import numpy as np
    >>> from xbackend._dispatch import backend_name
    >>> backend_name(np), backend_name("torch")
    ('numpy', 'torch')
    """
    if type(obj) is str:
        return obj
    if isinstance(obj, Backend):
        return obj.name
    if isinstance(obj, types.ModuleType):
        top = obj.__name__.partition(".")[0]
        for name, path in _MODULES.items():
            if path == obj.__name__ or path == top:
                return name
        return top
    from ._errors import ArgumentTypeError

    raise ArgumentTypeError(f"backend must be a name like 'torch' (or the library's module), got "
                            f"{type(obj).__name__} {obj!r:.40}. Fix: pass backend='numpy', 'torch', 'cupy' or 'dask'")


_MODULES = {"numpy": "numpy", "torch": "torch", "cupy": "cupy", "dask": "dask.array", "cubed": "cubed",
            "jax": "jax.numpy"}


def get_backend_class(name: str) -> type[Backend]:
    if type(name) is not str:
        name = backend_name(name)
    cls = _classes.get(name)
    if cls is not None:
        return cls
    if name not in _paths:
        _load_plugins()
        if name in _classes:
            return _classes[name]
    if name not in _paths and _imported_standard_library(name) and _generic(name):
        return _classes[name]
    if name not in _paths:
        raise unknown_backend(name)
    mod, _, attr = _paths[name].partition(":")
    cls = getattr(importlib.import_module(mod), attr)
    _classes[name] = cls
    _declare(cls, tuple(m for m, n in _by_module.items() if n == name))
    return cls


def _imported_standard_library(name: str) -> bool:
    """Whether ``name`` is a library implementing the Array API standard that is imported already: a backend
    name is never imported to find out (``backend="this"`` would print the Zen of Python)."""
    mod = sys.modules.get(name) if type(name) is str else None
    return mod is not None and hasattr(mod, "__array_api_version__")


def unknown_backend(name: Any) -> UnknownBackendError:
    """The one message for a backend name nobody registered: the known names, and the closest one."""
    known = backend_names()
    close = difflib.get_close_matches(str(name), known, n=1)
    if str(name).partition(":")[0].strip().lower() in DEVICE_TYPES:  # a place, not a library
        fix = f"{name!r} names a device, not a library: pass it as device=, e.g. device={name!r}"
    else:
        fix = f"pass a known name, e.g. backend={(close or ['numpy'])[0]!r}"
    return UnknownBackendError(
        f"unknown backend {name!r}; known backends: {', '.join(known)} (a library with the Array API standard is "
        "wrapped when you pass its arrays; another library needs a plugin: the entry-point group "
        f"'xbackend.backends' or xb.register_backend). Fix: {fix}"
    )


class _Registered:
    """The registered backend names as a container (``name in registered``), without importing anything."""

    def __contains__(self, name: object) -> bool:
        return name in _paths or name in _classes


registered = _Registered()


def get_backend(name: str) -> Backend:
    """The loaded backend instance for ``name``; raises :class:`BackendUnavailableError` with the reason."""
    try:
        be = _instances.get(name)
    except TypeError:  # unhashable, so no name (xb.devices(x)): backend_name says what it takes
        be = None
    if be is not None:
        return be
    if type(name) is not str:
        name = backend_name(name)
        be = _instances.get(name)
        if be is not None:
            return be
    cls = get_backend_class(name)
    info = cls.probe()
    if not info.usable:
        hint = {"torch": "pip install 'xbackend[torch]'", "cupy": "pip install 'xbackend[cupy]' on a CUDA machine",
                "dask": "pip install 'xbackend[dask]'", "cubed": "pip install 'xbackend[cubed]'"}
        if info.installed:  # installed but unusable (CuPy without a CUDA device): installing again won't help
            hint = {name: f"{name} is installed but cannot run here; run on a machine where it can "
                          "(for CuPy: a CUDA device and driver, see nvidia-smi)"}  # fmt: skip
        raise BackendUnavailableError(
            f"backend {name!r} is not usable here: {info.reason}. "
            f"Fix: {hint.get(name, 'install it')}, or use backend='numpy' (xb.backends() lists what works)"
        )
    be = _instances[name] = cls()
    _by_type.clear()
    return be


def backend_for_type(t: type) -> Backend | None:
    """The backend owning native array type ``t`` (or None), by module name; cached per exact type."""
    try:
        return _by_type[t]
    except KeyError:
        pass
    top = t.__module__.partition(".")[0]
    name = _by_module.get(top)
    if name is None and not _plugins_loaded:
        _load_plugins()
        name = _by_module.get(top)
    if name is None and hasattr(t, "__array_namespace__") and top != "xbackend" and _generic(top):
        name = top  # any library implementing the Array API standard: the generic backend, named after it
    be: Backend | None = None
    if name is not None:
        try:
            be = get_backend(name)
        except BackendUnavailableError:
            be = None
        if be is not None and be.native_array_types() and not issubclass(t, be.native_array_types()):
            be = None
    _by_type[t] = be
    return be



def backends() -> dict[str, BackendInfo]:
    """Report every known backend: installed?, usable?, version, devices, and why not.

    This imports the backend libraries that are installed (it is an explicit question).

    >>> import xbackend as xb
    >>> xb.backends()["numpy"].usable
    True
    """
    out = {}
    for name in backend_names():
        try:
            out[name] = get_backend_class(name).probe()
        except Exception as exc:  # never a traceback from a report
            out[name] = BackendInfo(name, installed=False, usable=False, reason=f"failed to load: {exc!r}")
    return out


def native_backend(obj: Any) -> Backend | None:
    """The backend owning ``obj``'s type, if any."""
    return backend_for_type(type(obj))
