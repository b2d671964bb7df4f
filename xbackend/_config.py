"""Defaults: which backend and device creation functions use, and the default float/int dtypes.

Design constraint: configuration is per *context* (``contextvars``), so ``xb.using(...)`` is correct
across threads and asyncio tasks; the process-wide base comes from :func:`set_default` and from the
environment variables below, read once at import:

=========================  ==========================================  =========
variable                   meaning                                     default
=========================  ==========================================  =========
``XBACKEND_BACKEND``       backend of creation functions               ``numpy``
``XBACKEND_DEVICE``        device of creation functions                backend's
``XBACKEND_DEFAULT_FLOAT`` default real floating dtype                 float64
``XBACKEND_DEFAULT_INT``   default integer dtype                       int64
=========================  ==========================================  =========
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

from . import _dtypes
from ._devices import DEVICE_TYPES, Device, device as _parse_device, split as _split
from ._dispatch import get_backend_class
from ._dtypes import DType
from ._errors import ArgumentTypeError, UnsupportedDTypeError

__all__ = ["Config", "current", "using", "set_default", "ENVIRONMENT_VARIABLES"]

ENVIRONMENT_VARIABLES = ("XBACKEND_BACKEND", "XBACKEND_DEVICE", "XBACKEND_DEFAULT_FLOAT", "XBACKEND_DEFAULT_INT")


@dataclass(frozen=True)
class Config:
    """The defaults in force. ``device=None`` means "the backend's default device"."""

    backend: str = "numpy"
    device: Device | None = None
    default_float: DType = _dtypes.float64
    default_int: DType = _dtypes.int64
    # (backend arg, device arg) -> (backend, device) resolved under this config; see _creation._place
    places: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    @property
    def default_complex(self) -> DType:
        return _dtypes.complex_of(self.default_float)


def _check(changes: dict[str, Any]) -> dict[str, Any]:
    out = {}
    if changes.get("device") is not None:  # a device bound to a backend (x.device) sets the backend too
        bk, dev = _split(changes.get("backend"), changes["device"])
        changes = {**changes, "device": dev} if bk is None else {**changes, "backend": bk, "device": dev}
    for k, v in changes.items():
        if k == "device":
            v = None if v is None else _parse_device(v)
        elif k == "default_float":
            v = _dtypes.dtype(v)
            if v.kind != "f":
                raise UnsupportedDTypeError(f"default_float must be a real floating dtype, got {v}")
        elif k == "default_int":
            v = _dtypes.dtype(v)
            if v.kind != "i":
                raise UnsupportedDTypeError(f"default_int must be a signed integer dtype, got {v}")
        elif k == "backend":
            if not isinstance(v, str):
                v = getattr(v, "name", v)
            get_backend_class(v)  # validates the name without importing the library
        else:
            raise ArgumentTypeError(f"unknown setting {k!r}; settings are backend, device, default_float, default_int. "
                                    "Fix: e.g. xb.using(default_float=xb.float32)")  # fmt: skip
        out[k] = v
    return out


_FROM_ENV: dict[str, tuple[str, str]] = {}  # setting -> (variable, value) for the settings the environment set


def blame_environment(exc: BaseException, setting: str) -> BaseException:
    """``exc`` (raised while using the default ``setting``) re-worded to name the environment variable that
    chose it, when one did and no ``using``/``set_default`` replaced it since; else ``exc`` itself."""
    hit = _FROM_ENV.get(setting)
    if hit is None or getattr(current(), setting) is not getattr(_base, setting):
        return exc
    var, value = hit
    try:
        new = type(exc)(f"the {setting} {value!r} comes from the environment variable {var}={value!r}: {exc} "
                        f"(or unset {var})")  # fmt: skip
    except Exception:  # an exception type that needs other arguments: keep the original
        return exc
    return new


#: module prefixes a dtype may be written with in the environment (``XBACKEND_DEFAULT_FLOAT=xb.float32``)
_DTYPE_PREFIXES = ("xb.", "xbackend.", "np.", "numpy.", "torch.", "jnp.", "cp.", "cupy.")


def _env_dtype(value: str) -> str:
    """A dtype name from the environment, as Python code spells it too: ``xb.float32`` -> ``float32``."""
    v = value.strip()
    for p in _DTYPE_PREFIXES:
        if v.startswith(p):
            return v[len(p):]
    return v


def environment_problems() -> list[str]:
    """What is wrong with the ``XBACKEND_*`` settings in force, one line each with the fix (``python -m xbackend
    info`` prints them): a backend name nobody registered (checked now: the registry reads plugins, which
    ``import xbackend`` does not do). Empty when all is well."""
    out = []
    hit = _FROM_ENV.get("backend")
    if hit is not None and _base.backend == hit[1]:
        try:
            get_backend_class(_base.backend)
        except Exception as exc:  # noqa: BLE001 - reported, never raised: this is a report
            what, _, fix = str(exc).partition(" Fix: ")
            name = fix.rpartition("backend=")[2].strip("'\". ") if "e.g. backend=" in fix else "numpy"
            todo = f"{hit[0]}={name} (or unset {hit[0]})"
            if hit[1].partition(":")[0].strip().lower() in DEVICE_TYPES:  # a place: XBACKEND_DEVICE says it
                todo = f"XBACKEND_DEVICE={hit[1]} with {hit[0]}=torch (or cupy)"
            out.append(f"{hit[0]}={hit[1]!r} is not usable: {what} Fix: e.g. {todo}")
    return out


def _from_environment() -> Config:
    env = {
        "backend": os.environ.get("XBACKEND_BACKEND") or None,
        "device": os.environ.get("XBACKEND_DEVICE") or None,
        "default_float": os.environ.get("XBACKEND_DEFAULT_FLOAT") or None,
        "default_int": os.environ.get("XBACKEND_DEFAULT_INT") or None,
    }
    cfg = Config()
    for k, v in env.items():
        if v is None:
            continue
        try:
            if k == "backend":
                cfg = replace(cfg, backend=v)  # validated lazily: plugins may not be loaded yet (info reports it)
            elif k in ("default_float", "default_int"):
                cfg = replace(cfg, **_check({k: _env_dtype(v)}))
            else:
                cfg = replace(cfg, **_check({k: v}))
            _FROM_ENV[k] = (f"XBACKEND_{k.upper()}", v)
        except Exception as exc:  # a bad environment must not make `import xbackend` fail
            import warnings

            example = {"default_float": "float32", "default_int": "int32", "device": "cpu"}.get(k)
            fix = f" Fix: e.g. XBACKEND_{k.upper()}={example}" if example else ""
            why = str(exc).split(" Fix:")[0].split(" (e.g.")[0]
            warnings.warn(f"ignoring XBACKEND_{k.upper()}={v!r}: {why}.{fix}", RuntimeWarning, stacklevel=2)
    return cfg


_base = _from_environment()
#: called after every ``set_default``: caches that key on the context's config (None outside ``xb.config``)
#: rather than on the config itself forget what they hold
BASE_CHANGED: list[Callable[[], None]] = []
_ctx: contextvars.ContextVar[Config | None] = contextvars.ContextVar("xbackend_config", default=None)


def current() -> Config:
    """The configuration in force in this thread / task."""
    c = _ctx.get()
    return _base if c is None else c



@contextlib.contextmanager
def using(**settings: Any) -> Iterator[Config]:
    """Change defaults inside a ``with`` block (per thread and asyncio task).

    >>> import xbackend as xb
    >>> with xb.using(default_float=xb.float32):
    ...     xb.ones(2).dtype
    xb.float32
    >>> xb.ones(2).dtype
    xb.float64
    """
    token = _ctx.set(replace(current(), **_check(settings)))
    try:
        yield current()
    finally:
        _ctx.reset(token)


def set_default(**settings: Any) -> Config:
    """Change the process-wide defaults (contexts opened with :func:`using` still win).

    >>> import xbackend as xb
    >>> old = xb.set_default(default_int=xb.int32)
    >>> xb.arange(3).dtype
    xb.int32
    >>> _ = xb.set_default(default_int=old.default_int)
    """
    global _base
    old = _base
    _base = replace(_base, **_check(settings))
    for forget in BASE_CHANGED:
        forget()
    return old
