"""Devices as value objects, parsed once at the public edge.

Design constraint: the core compares devices by identity (``a is b``); :func:`device` interns every
Device, so the same place always gives the same object and checks on the hot path stay cheap.
``"cuda"`` without an index means the backend's *current* CUDA device and is resolved by the backend
when it creates data; Arrays always carry a concrete device (``cuda:0``).
"""

from __future__ import annotations

from typing import Any

from ._errors import UnknownDeviceError

__all__ = ["Device", "device", "CPU"]

KNOWN_TYPES = ("cpu", "cuda", "meta", "mps", "xpu", "fake")


class Device:
    """Where data lives: a type (``"cpu"``, ``"cuda"``, ``"meta"``, ...) and an optional index.

    >>> import xbackend as xb
    >>> d = xb.Device("cuda:1")
    >>> d.type, d.index, str(d)
    ('cuda', 1, 'cuda:1')
    >>> xb.Device("cpu") is xb.Device("cpu")
    True
    """

    __slots__ = ("type", "index", "_str")

    def __new__(cls, spec: Any = "cpu", index: int | None = None) -> "Device":
        if isinstance(spec, Device) and index is None:
            return spec
        return device(spec if index is None else f"{spec}:{index}")

    @classmethod
    def _make(cls, type_: str, index: int | None) -> "Device":
        self = object.__new__(cls)
        object.__setattr__(self, "type", type_)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "_str", type_ if index is None else f"{type_}:{index}")
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Device is immutable")

    def __repr__(self) -> str:
        return f"Device({self._str!r})"

    def __str__(self) -> str:
        return self._str

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = device(other)
            except UnknownDeviceError:
                return False
        return self is other

    __hash__ = object.__hash__

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (device, (self._str,))

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


CPU = device("cpu")
