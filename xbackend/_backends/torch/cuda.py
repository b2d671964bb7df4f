"""The CUDA side of the torch backend: streams, events, pinned memory, the staging protocol, waits.

Design constraint: host and device work in the order xbackend promises, and nothing here makes the host
wait unless it is the point (``synchronize``, ``event_wait``). The staging protocol is the one
``xbackend/_transfer.py`` describes: a staged copy allocates from the copy stream's pool
(``alloc_on``), its DMAs and casts run there, and its result is handed to the consumer's stream with
``wait_event`` + ``record_stream`` (torch's caching allocator then keeps the block until the work queued
on that stream when it is freed has finished). :class:`TorchCudaMixin` is part of
:class:`~xbackend._backends.torch.TorchBackend`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._backend import Backend
from ..._devices import Device, device as _device
from ..._dtypes import DType

torch: Any = None  # the torch module: bound by torch.py's _import_torch() before any backend runs


class TorchCudaMixin(Backend):
    """Part of :class:`~xbackend._backends.torch.TorchBackend`: see the module docstring."""

    def pinned_alloc(self, nbytes: int) -> tuple[Any, np.ndarray]:
        """A page-locked host buffer of ``nbytes`` bytes: (owner tensor, uint8 NumPy view)."""
        buf = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
        return buf, buf.numpy()

    def pinned_release(self) -> None:
        """Release the pinned blocks torch's host allocator caches (it keeps every block it pinned)."""
        fn = getattr(getattr(torch, "accelerator", None), "empty_host_cache", None) or getattr(
            torch._C, "_host_emptyCache", None)  # fmt: skip
        if fn is not None:
            fn()

    # The staging protocol of xbackend/_transfer.py (its docstring says how the pieces fit).
    def copy_stream(self, dev: Device) -> Any:
        """The side stream staged copies run on (one per device, made once)."""
        streams = self.__dict__.setdefault("_copy_streams", {})
        s = streams.get(dev.index or 0)
        if s is None:
            s = streams[dev.index or 0] = torch.cuda.Stream(device=f"cuda:{dev.index or 0}")
        return s

    def current_stream(self, dev: Device) -> Any:
        return torch.cuda.current_stream(dev.index or 0)

    def alloc_on(self, nbytes: int, dev: Device, stream: Any) -> Any:
        """``nbytes`` of device memory from ``stream``'s pool (the caching allocator allocates in the current
        stream's order, and reuses a freed block only there, unless ``record_stream`` named other streams)."""
        with torch.cuda.stream(stream):
            return torch.empty(nbytes, dtype=torch.uint8, device=f"cuda:{dev.index or 0}")

    def stream_scope(self, stream: Any) -> Any:
        return torch.cuda.stream(stream)

    def h2d_copy(self, raw: Any, lo: int, owner: Any, n: int, stream: Any) -> Any:
        """Queue ``owner[:n]`` (pinned) -> ``raw[lo:lo + n]`` on ``stream``; the event says when ``owner`` may
        be refilled (torch's host allocator also records it, so a freed pinned buffer waits for it)."""
        with torch.cuda.stream(stream):
            raw[lo : lo + n].copy_(owner[:n], non_blocking=True)
            ev = torch.cuda.Event()
            ev.record(stream)
        return ev

    def record_event(self, stream: Any) -> Any:
        ev = torch.cuda.Event()
        ev.record(stream)
        return ev

    def wait_event(self, stream: Any, ev: Any) -> None:
        stream.wait_event(ev)  # the stream waits; the host does not

    def record_stream(self, x: Any, stream: Any) -> Any:
        """``x`` is used on ``stream`` too: its block is not reused before the work queued there when it is
        freed has finished (a no-op when ``stream`` is the one it was allocated on)."""
        x.record_stream(stream)
        return x

    def bytes_as(self, raw: Any, dt: DType, shape: tuple[int, ...]) -> Any:
        return raw.view(self.native_dtype(dt)).reshape(shape)

    def d2h_start(self, x: Any) -> tuple[np.ndarray, Any]:
        """Start an asynchronous copy of ``x`` into pinned host memory on the current stream:
        (uint8 host view, event). The host view is undefined until the event completes."""
        x = x.detach().resolve_conj().resolve_neg().contiguous()
        n = x.numel() * x.element_size()
        buf = torch.empty(n, dtype=torch.uint8, pin_memory=True)
        with torch.cuda.device(x.device.index or 0):
            cur = torch.cuda.current_stream()
            if n:
                buf.copy_(x.reshape(-1).view(torch.uint8), non_blocking=True)
            ev = torch.cuda.Event()
            ev.record(cur)
        return buf.numpy(), ev

    def event_done(self, ev: Any) -> bool:
        return ev is None or bool(ev.query())

    def event_wait(self, ev: Any) -> None:
        if ev is not None:
            ev.synchronize()

    def timing_event(self, dev: Device) -> Any:
        """A timing CUDA event recorded now on ``dev``'s current stream (for ``xb.timer``)."""
        with torch.cuda.device(dev.index or 0):
            ev = torch.cuda.Event(enable_timing=True)
            ev.record()
        return ev

    def elapsed_ms(self, start: Any, end: Any) -> float:
        end.synchronize()
        return float(start.elapsed_time(end))

    def synchronize(self, dev: Device) -> None:
        if dev.type == "cuda":
            torch.cuda.synchronize(dev.index)

    def gpu_devices_in_use(self) -> list[Device]:
        """The CUDA devices torch has worked on in this process (what ``xb.synchronize()`` waits for):
        none before CUDA is initialised; else the current device and those holding memory."""
        if not torch.cuda.is_initialized():
            return []
        cur = torch.cuda.current_device()
        return [_device(f"cuda:{i}") for i in range(torch.cuda.device_count())
                if i == cur or torch.cuda.memory_reserved(i) > 0]  # fmt: skip

    def restore_location(self, place: str) -> str:
        """Where ``torch.load(..., map_location=...)`` puts data pickled on ``place`` (``place`` itself
        outside ``torch.load`` or without a map_location; a callable map_location cannot be applied)."""
        get = getattr(getattr(torch, "_utils", None), "_get_restore_location", None)
        try:
            where = place if get is None else get(place)
        except RuntimeError:  # a callable map_location: torch applies it to storages only
            return place
        return str(where)
