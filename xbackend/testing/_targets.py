"""The one list of (backend, device) targets that tests run on: every usable one on this machine.

Design constraint: this is computed from ``xb.backends()`` once per process and never imports a
backend that is not installed. GPU targets (torch on ``cuda:N``, CuPy) are included automatically when
a device exists and carry the ``gpu`` marker.
"""

from __future__ import annotations

import contextvars
import functools
import os
from dataclasses import dataclass
from typing import Any

__all__ = ["Target", "available_targets", "selected_targets", "gpu_unavailable_reason", "current_target"]

_CURRENT: contextvars.ContextVar["Target | None"] = contextvars.ContextVar("xbackend_test_target", default=None)


def current_target() -> "Target | None":
    """The target of the test running now (set by the pytest plugin around a test parametrised by
    ``xb_target``), else None; :func:`xbackend.testing.strategies.dtypes` draws only what it holds.

    >>> from xbackend.testing import current_target
    >>> current_target() is None
    True
    """
    return _CURRENT.get()


@functools.lru_cache(maxsize=None)
def backend_holds(backend: str, dtype: Any) -> bool:
    """Whether ``backend`` can hold ``dtype`` (asks the backend's dtype table; imports that backend).

    >>> import xbackend as xb
    >>> from xbackend.testing._targets import backend_holds
    >>> backend_holds("numpy", xb.float16)
    True
    """
    from .._dispatch import get_backend
    from .._errors import XBackendError

    try:
        get_backend(backend).native_dtype(dtype)
    except XBackendError:
        return False
    return True


@dataclass(frozen=True)
class Target:
    """One place to run on: a backend name and a device string; ``id`` reads ``numpy-cpu``, ``torch-cuda:0``.

    >>> from xbackend.testing import Target
    >>> t = Target("torch", "cuda:0")
    >>> t.id, t.is_gpu
    ('torch-cuda:0', True)
    """

    backend: str
    device: str

    @property
    def id(self) -> str:
        return f"{self.backend}-{self.device}"

    @property
    def xb_device(self) -> Any:
        """This target's :class:`~xbackend.Device`, bound to its backend (what ``x.device`` returns here).

        >>> from xbackend.testing import Target
        >>> Target("numpy", "cpu").xb_device
        Device('numpy', 'cpu')
        """
        from .._devices import Device

        return Device(self.backend, self.device)

    def holds(self, dtype: Any) -> bool:
        """Whether this target can hold ``dtype`` (array-api-strict and JAX have no float16/bfloat16): the
        capability tests and strategies ask instead of naming backends.

        >>> import xbackend as xb
        >>> from xbackend.testing import Target
        >>> Target("numpy", "cpu").holds(xb.float64)
        True
        """
        from .._dtypes import dtype as _dtype

        return backend_holds(self.backend, _dtype(dtype))

    @property
    def is_gpu(self) -> bool:
        return self.device.startswith("cuda")

    def __str__(self) -> str:
        return self.id

    def asarray(self, obj: Any, /, **kwargs: Any) -> Any:
        """``xb.asarray(obj, ...)`` on this target's backend and device: the same data on every target.

        >>> from xbackend.testing import Target
        >>> Target("numpy", "cpu").asarray([1.0, 2.0]).backend
        'numpy'
        """
        from .._creation import asarray

        return asarray(obj, backend=self.backend, device=self.device, **kwargs)


@functools.lru_cache(maxsize=None)
def available_targets() -> tuple[Target, ...]:
    """Every (backend, device) usable here, NumPy first (probes, and so imports, the installed backends);
    the opt-in backends (:data:`OPT_IN`) only when selected by name.

    >>> from xbackend.testing import available_targets
    >>> available_targets()[0]
    Target(backend='numpy', device='cpu')
    """
    return tuple(t for t in _usable_targets() if t.backend not in OPT_IN)


#: backends tested only when asked for (``--xb-backends NAME``); none at present: array-api-strict and JAX
#: are default targets when installed (their missing dtypes are left out through :meth:`Target.holds`)
OPT_IN: tuple[str, ...] = ()


@functools.lru_cache(maxsize=None)
def _usable_targets() -> tuple[Target, ...]:
    from .._dispatch import backends

    out: list[Target] = []
    for name, info in sorted(backends().items(), key=lambda kv: (kv[0] != "numpy", kv[0])):
        if info.usable:
            out += [Target(name, d) for d in info.devices]
    return tuple(out)


def selected_targets(spec: str | None = None) -> tuple[Target, ...]:
    """Targets filtered by ``spec`` (``"numpy,torch"`` or ids like ``"torch-cuda:0"``), else by the
    ``XBACKEND_TEST_BACKENDS`` environment variable, else all available ones. Names not usable here are
    left out (the pytest plugin reports them as skips).

    >>> from xbackend.testing import selected_targets
    >>> [t.id for t in selected_targets("numpy")]
    ['numpy-cpu']
    """
    spec = spec if spec is not None else os.environ.get("XBACKEND_TEST_BACKENDS")
    if not spec:
        return available_targets()
    targets = _usable_targets()
    wanted = {s.strip() for s in spec.split(",") if s.strip()}
    check_names(wanted)
    return tuple(t for t in targets if t.backend in wanted or t.id in wanted)


def check_names(names: Any) -> None:
    """Refuse backend names no backend has (a typo like ``"nmupy"`` must not select nothing silently); names of
    known backends that are not usable here are fine (they are reported as skipped). Reads names only.

    >>> from xbackend.testing._targets import check_names
    >>> check_names(["numpy", "torch-cuda:0"])
    >>> check_names(["nmupy"])
    Traceback (most recent call last):
    xbackend._errors.ArgumentValueError: unknown backend 'nmupy' (did you mean 'numpy'?); known: ...
    """
    import difflib

    from .._dispatch import backend_names
    from .._errors import ArgumentValueError

    known = set(backend_names())
    for n in names:
        if n.partition("-")[0] not in known:
            close = difflib.get_close_matches(n, sorted(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ArgumentValueError(f"unknown backend {n!r}{hint}; known: {', '.join(sorted(known))} (or target "
                                     "ids such as torch-cuda:0)")  # fmt: skip


@functools.lru_cache(maxsize=None)
def gpu_unavailable_reason() -> str | None:
    """None if some backend has a CUDA device, else why not (the reason ``gpu`` tests are skipped with).

    >>> from xbackend.testing import gpu_unavailable_reason
    >>> r = gpu_unavailable_reason()
    >>> r is None or r.startswith("no CUDA device: ")
    True
    """
    from .._dispatch import backends

    reasons = []
    for name, info in backends().items():
        if info.usable and any(d.startswith("cuda") for d in info.devices):
            return None
        if name in ("torch", "cupy"):
            reasons.append(f"{name}: {info.reason or info.extra.get('cuda', 'no CUDA device')}")
    return "no CUDA device: " + ("; ".join(reasons) or "neither torch nor cupy is installed")
