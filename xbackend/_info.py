"""Inspection API: ``xb.__array_namespace_info__()`` (Array API standard 2023.12+, 2025.12 semantics), and the devices
of a backend: ``xb.devices()``, ``xb.preferred_device()``.

Design constraint: the answers are true for one backend, read from that backend (its devices, the
dtypes it can hold on a device, its dimension limit), never assumed. The backend is the configured one
(``xb.using(backend=...)``) unless ``backend=`` is given; creating the object imports that backend,
nothing else does. Default dtypes are xbackend's (float64/int64 unless configured), the same on every
backend by design.

>>> import xbackend as xb
>>> info = xb.__array_namespace_info__()
>>> info.capabilities()["boolean indexing"], info.default_dtypes()["real floating"]
(True, xb.float64)
>>> info.devices()
(Device('numpy', 'cpu'),)
"""

from __future__ import annotations

from typing import Any

from . import _config, _dtypes as D
from ._devices import Device, bind as _bind, split as _split
from ._dispatch import get_backend
from ._dtypes import DType
from ._errors import ArgumentValueError

__all__ = ["__array_namespace_info__", "devices", "preferred_device"]

# the standard's kind names; bfloat16 is not an Array API dtype and is never listed
_KINDS: dict[str, tuple[DType, ...]] = {
    "bool": (D.bool,),
    "signed integer": D.SIGNED,
    "unsigned integer": D.UNSIGNED,
    "integral": D.INTEGER,
    "real floating": (D.float32, D.float64),
    "complex floating": D.COMPLEX,
    "numeric": D.INTEGER + (D.float32, D.float64) + D.COMPLEX,
}
_STANDARD = (D.bool,) + D.INTEGER + (D.float32, D.float64) + D.COMPLEX


class Devices(tuple[Device, ...]):
    """``devices()``'s answer: a tuple (2025.12) that also concatenates with a list, as the list of 2023.12
    did, so consumers written for either version work (SciPy's test fixture writes ``devices() + [None]``).

    >>> import xbackend as xb
    >>> devs = xb.__array_namespace_info__().devices()
    >>> devs + [None], devs + (None,)
    ([Device('numpy', 'cpu'), None], (Device('numpy', 'cpu'), None))
    """

    __slots__ = ()

    def __add__(self, other: Any) -> Any:
        if isinstance(other, list):
            return list(self) + other
        return tuple.__add__(self, other)

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, list):
            return other + list(self)
        return NotImplemented


class Info:
    """What one backend supports; returned by :func:`__array_namespace_info__`."""

    __slots__ = ("_be", "_dev")

    def __init__(self, backend: Any, dev: Device | None) -> None:
        self._be = backend
        self._dev = dev

    def __repr__(self) -> str:
        return f"<xbackend namespace info for backend {self._be.name!r}>"

    def _device(self, dev: Any) -> Device:
        if dev is None:
            return self._dev if self._dev is not None else self._be.default_device()
        return self._be.check_device(_split(self._be.name, dev)[1])  # another backend's device raises

    def capabilities(self) -> dict[str, Any]:
        """``"boolean indexing"``, ``"data-dependent shapes"`` and ``"max dimensions"``; the Dask backend adds
        ``"lazy": True`` and ``"refusals"`` (what it refuses -> the alternative); the JAX backend ``"views": False``
        (writes rebind the Array) and ``"64-bit dtypes"`` (JAX's ``jax_enable_x64``)."""
        caps = {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": self._be.info_max_dims()}
        extra = getattr(self._be, "capabilities", None)  # a lazy backend adds what it refuses, with the fix
        if extra is not None:
            caps.update(extra())
        return caps

    def default_device(self) -> Device:
        """The device creation functions use for this backend (the configured one, else the backend's)."""
        return _bind(self._dev if self._dev is not None else self._be.default_device(), self._be.name)

    def default_dtypes(self, *, device: Any = None) -> dict[str, DType]:
        """``"real floating"``, ``"complex floating"``, ``"integral"`` and ``"indexing"`` defaults for ``device``."""
        self._device(device)  # validates it
        cfg = _config.current()
        return {"real floating": cfg.default_float, "complex floating": cfg.default_complex,
                "integral": cfg.default_int, "indexing": cfg.default_int}  # fmt: skip

    def devices(self) -> Devices:
        """Every device of this backend on this machine (2025.12: a tuple, see :class:`Devices`), bound to the
        backend."""
        return Devices(_bind(d, self._be.name) for d in self._be.devices())

    def dtypes(self, *, device: Any = None, kind: str | tuple[str, ...] | None = None) -> dict[str, DType]:
        """Array API dtypes this backend holds on ``device``, optionally of a ``kind`` (or tuple of kinds)."""
        held = set(self._be.info_dtypes(self._device(device)))
        if kind is None:
            wanted: tuple[DType, ...] = _STANDARD
        else:
            kinds = (kind,) if isinstance(kind, str) else tuple(kind)
            wanted = ()
            for k in kinds:
                try:
                    wanted += _KINDS[k]
                except (KeyError, TypeError):
                    raise ArgumentValueError(f"unknown dtype kind {k!r}. Fix: use one of {', '.join(_KINDS)}, e.g. "
                                             "kind='real floating'") from None  # fmt: skip
        return {d.name: d for d in _STANDARD if d in wanted and d in held}


def __array_namespace_info__(*, backend: str | None = None) -> Info:
    """The inspection object of the Array API standard for ``backend`` (default: the configured one).

    >>> import xbackend as xb
    >>> sorted(xb.__array_namespace_info__().dtypes(kind="complex floating"))
    ['complex128', 'complex64']
    """
    cfg = _config.current()
    name = backend if backend is not None else cfg.backend
    be = get_backend(name)
    dev = None
    if cfg.device is not None and name == cfg.backend:
        dev = be.check_device(cfg.device)
    return Info(be, dev)


def devices(backend: str | None = None) -> list[Device]:
    """Devices a backend can use on this machine (default: the configured backend).

    The devices name their backend, so ``device=xb.devices("torch")[0]`` creates on torch.

    >>> import xbackend as xb
    >>> xb.devices("numpy")
    [Device('numpy', 'cpu')]
    """
    be = get_backend(backend or _config.current().backend)
    return [_bind(d, be.name) for d in be.devices()]


def preferred_device(backend: str | None = None) -> Device:
    """The backend's first CUDA device when it has a usable one, else its default device (the CPU).

    The one portable spelling of ``"cuda" if torch.cuda.is_available() else "cpu"``: code written for a GPU
    runs unchanged on a CPU-only machine when it asks for ``device=xb.preferred_device("torch")``, while an
    explicit ``device="cuda"`` there is an error (never a silent fallback). Default backend: the configured one.

    The device is bound to the backend (like ``x.device``), so ``device=`` alone picks both.

    >>> import xbackend as xb
    >>> xb.preferred_device("numpy")
    Device('numpy', 'cpu')
    >>> str(xb.preferred_device("torch")) in ("cpu", "cuda:0")
    True
    """
    be = get_backend(backend or _config.current().backend)
    for d in be.devices():
        if d.type == "cuda":
            return _bind(d, be)
    return _bind(be.default_device(), be)
