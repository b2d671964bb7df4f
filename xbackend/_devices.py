"""Devices as value objects, parsed once at the public edge.

Design constraint: the core compares devices by identity (``a is b``); :func:`device` interns every
Device, so the same place always gives the same object and checks on the hot path stay cheap.
``"cuda"`` without an index means the backend's *current* CUDA device and is resolved by the backend
when it creates data; Arrays always carry a concrete device (``cuda:0``).

A Device is *physical* (``Device('cuda:0')``: a place, no backend) or *bound* to a backend
(``Device('torch', 'cuda:0')``). Arrays keep their physical device internally (``_dev``, what backends
understand); ``x.device`` is the bound one, so ``device=x.device`` lands on x's backend *and* device.
Bound devices are interned too (one per backend and place), so ``is`` works for both kinds.
"""

from __future__ import annotations

from typing import Any, Callable

from ._errors import ArgumentTypeError, BackendMismatchError, UnknownDeviceError

__all__ = ["Device", "device", "bind", "split", "CPU", "DEVICE_TYPES"]

#: the device types a place can name (``"cuda:1"``); the registry reads a backend name of one of them as a device
#: meant (``backend="cuda"``)
DEVICE_TYPES = ("cpu", "cuda", "meta", "mps", "xpu", "fake")
KNOWN_TYPES = DEVICE_TYPES

#: the registry's ``backend_name`` and ``get_backend_class`` (a backend's name from a name, a Backend or the library's
#: module; a name's class, whose lookup raises UnknownBackendError for a typo without importing the library), linked
#: by ``xbackend/_assemble.py``: a Device is a value object below the registry, which builds on it
REGISTRY: list[Callable[[Any], Any]] = []


class Device:
    """Where data lives: a type (``"cpu"``, ``"cuda"``, ``"meta"``, ...), an optional index, and
    optionally the backend it belongs to.

    ``x.device`` names x's backend, so ``device=x.device`` always lands next to ``x``. Devices are
    interned, and two Devices are equal only when they are the same object: the same place *and* the
    same backend (``Device('torch', 'cpu') != Device('numpy', 'cpu') != Device('cpu')``), so they are
    sound dictionary keys. A string compares with the place alone (``x.device == "cpu"``).

    >>> import xbackend as xb
    >>> d = xb.Device("cuda:1")
    >>> d.type, d.index, str(d), d.backend
    ('cuda', 1, 'cuda:1', None)
    >>> xb.Device("cpu") is xb.Device("cpu")
    True
    >>> t = xb.Device("torch", "cpu")
    >>> t, str(t), t.physical is xb.Device("cpu")
    (Device('torch', 'cpu'), 'cpu', True)
    >>> t == "cpu", t == xb.Device("numpy", "cpu"), t == xb.Device("cpu")
    (True, False, False)
    """

    __slots__ = ("type", "index", "backend", "physical", "_str", "_bound")
    type: str
    index: int | None
    backend: str | None
    physical: "Device"
    _str: str
    _bound: dict[str, "Device"]

    def __new__(cls, spec: Any = "cpu", index: Any = None, *, backend: Any = None) -> "Device":
        if isinstance(index, (str, Device)):  # Device('torch', 'cuda:0'): the backend first, as repr writes it
            if backend is not None:
                raise ArgumentTypeError("Device(backend, place) takes the backend once; drop backend=")
            spec, index, backend = index, None, spec
        if isinstance(spec, Device) and index is None:
            d = spec
        else:
            d = device(spec if index is None else f"{spec}:{index}")
        if backend is None:
            return d
        if isinstance(backend, str) and backend not in d.physical._bound:
            REGISTRY[1](backend)  # a typo'd name fails here, without importing the library
        return bind(d, backend)

    @classmethod
    def _make(cls, type_: str, index: int | None, backend: str | None = None,
              physical: "Device | None" = None) -> "Device":  # fmt: skip
        self = object.__new__(cls)
        s = object.__setattr__
        s(self, "type", type_)
        s(self, "index", index)
        s(self, "backend", backend)
        s(self, "physical", self if physical is None else physical)
        s(self, "_str", type_ if index is None else f"{type_}:{index}")
        s(self, "_bound", {})
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Device is immutable")

    def __repr__(self) -> str:
        if self.backend is None:
            return f"Device({self._str!r})"
        return f"Device({self.backend!r}, {self._str!r})"

    def __str__(self) -> str:
        return self._str

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):  # a convenience: "cpu" names a place, whatever the backend
            try:
                other = device(other)
            except UnknownDeviceError:
                return False
            return self.physical is other
        return self is other

    __hash__ = object.__hash__  # interned: identity is equality

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        if self.backend is None:
            return (device, (self._str,))
        return (_bound_device, (self.backend, self._str))  # unpickles to the interned object

    @property
    def is_gpu(self) -> bool:
        return self.type == "cuda"


_INTERNED: dict[tuple[str, int | None], Device] = {}
_PARSED: dict[str, Device] = {}


def device(spec: Any) -> Device:
    """Parse ``"cpu"``, ``"cuda"``, ``"cuda:1"`` (or return a Device unchanged); results are interned.

    >>> import xbackend as xb
    >>> xb.device("cuda:0") is xb.device("cuda:0")
    True
    """
    if type(spec) is Device:
        return spec
    if isinstance(spec, str):
        d = _PARSED.get(spec)
        if d is not None:
            return d
        text = spec.strip().lower()
        type_, sep, idx = text.partition(":")
        index: int | None = None
        if sep:
            if not idx.isdigit():
                raise UnknownDeviceError(f"cannot parse device {spec!r}; write it like 'cpu', 'cuda' or 'cuda:1'")
            index = int(idx)
        if type_ not in KNOWN_TYPES:
            raise UnknownDeviceError(
                f"unknown device type {type_!r} in {spec!r}; known types: {', '.join(KNOWN_TYPES)}. "
                "Fix: pass e.g. device='cpu' or device='cuda:0' (xb.devices() lists this machine's)"
            )
        key = (type_, index)
        d = _INTERNED.get(key)
        if d is None:
            d = _INTERNED[key] = Device._make(type_, index)
        _PARSED[spec] = d
        return d
    # foreign device objects (torch.device, cupy.cuda.Device, ...) print as "cuda:0" or expose .type/.index
    t = getattr(spec, "type", None)
    if isinstance(t, str):
        i = getattr(spec, "index", None)
        return device(t if i is None else f"{t}:{i}")
    i = getattr(spec, "id", None)
    if isinstance(i, int):  # cupy.cuda.Device
        return device(f"cuda:{i}")
    raise UnknownDeviceError(f"cannot interpret {spec!r} as a device; use a string like 'cpu' or 'cuda:0'")


def _name(backend: Any) -> str:
    if type(backend) is str:
        return backend
    return REGISTRY[0](backend)  # a Backend or a library's module


def bind(dev: Device, backend: Any) -> Device:
    """The interned device of ``backend`` (a name or Backend) at ``dev``'s place.

    >>> import xbackend as xb
    >>> from xbackend._devices import bind
    >>> bind(xb.Device("cpu"), "numpy") is xb.Device("numpy", "cpu")
    True
    """
    name = _name(backend)
    phys = dev.physical
    if dev.backend is not None and dev.backend != name:
        raise BackendMismatchError(
            f"device {dev!r} belongs to backend {dev.backend!r}, not {name!r}. "
            f"Fix: pass the place alone, e.g. device={str(dev)!r}, or backend={dev.backend!r}"
        )
    b = phys._bound.get(name)
    if b is None:
        if not isinstance(name, str):
            raise ArgumentTypeError(f"a device's backend is a name like 'torch', got {type(name).__name__}. Fix: "
                                    "pass the backend's name, e.g. backend='numpy'")  # fmt: skip
        b = phys._bound[name] = Device._make(phys.type, phys.index, name, phys)
    return b


def _bound_device(backend: str, spec: str) -> Device:
    """Unpickling helper: the interned ``Device(backend, spec)``."""
    return bind(device(spec), backend)


def split(backend: Any, dev: Any) -> tuple[Any, Device | None]:
    """``(backend, physical device)`` from a ``backend=`` and a ``device=`` argument.

    A device bound to a backend decides the backend; given together with a different ``backend=`` it
    raises :class:`~xbackend.BackendMismatchError` with the fix. Plain strings and physical devices keep
    ``backend`` as given (None: the configured default).

    >>> import xbackend as xb
    >>> from xbackend._devices import split
    >>> split(None, xb.Device("torch", "cpu"))
    ('torch', Device('cpu'))
    >>> split("numpy", "cpu")
    ('numpy', Device('cpu'))
    """
    if dev is None:
        return backend, None
    d = dev if type(dev) is Device else device(dev)
    b = d.backend
    if b is None:
        return backend, d
    if backend is not None and _name(backend) != b:
        raise BackendMismatchError(
            f"device={d!r} belongs to backend {b!r}, but backend={_name(backend)!r} was given. "
            f"Fix: pass device={str(d)!r} (the place alone) to create on {_name(backend)!r}, or drop backend="
        )
    return (b if backend is None else backend), d.physical


CPU = device("cpu")
