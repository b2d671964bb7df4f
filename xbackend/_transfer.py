"""Host<->device staging: a pipelined ring of pinned buffers, non-blocking copies made safe, prefetch.

Design constraint: fast *and* safe to read. A pageable NumPy array cannot be DMA'd directly; one
thread's memcpy into pinned memory is slower than PCIe, and staging the whole array before the first
byte crosses doubles the time. So a host->device copy here is a pipeline over a ring of pinned slots
(``_CHUNK`` bytes each, a few per backend and device, allocated once):

    fill chunk k into slot k % n  (several threads; NumPy's copyto releases the GIL; it also gathers
                                   strided data, byte-swaps and narrows the dtype in the same pass)
    DMA  chunk k on a copy stream (asynchronous), record an event for its slot
    a slot is filled again only after its event completed

while chunks k+1.. are being filled. The first chunks are small (``_FIRST``, doubling), so the DMA
starts almost at once; there is no size above which the path changes. The caller's current stream
waits on the last event, so the result can be used at once, without blocking the host. A device->host
copy is blocking by default; the asynchronous variant returns a :class:`PendingHost` whose array is
reachable only through ``.result()``, which waits first. Without a CUDA device (or for NumPy/torch-CPU
targets) every function falls back to the plain move, so the same code runs - and is tested, with a
fake GPU - on a CPU machine. Library calls live in the backends (``pinned_alloc``, ``h2d_open``,
``h2d_copy``, ``h2d_close``, ``bytes_as``, ``d2h_start``, ``event_done``, ``event_wait``, ``stream_wait``).
"""

from __future__ import annotations

import collections
import contextvars
import os
import threading
from typing import Any, Iterable, Iterator

import numpy as np

from . import _dtypes as D
from ._array import Array, _new
from ._creation import _target, asarray
from ._devices import Device
from ._dispatch import backend_for_type
from ._dtypes import DType
from ._errors import GradientError
from ._interchange import STAGED, _numpy, _wrap_any, move, to_numpy

__all__ = ["host_to_device", "device_to_host", "prefetch", "PendingHost", "staging_limit"]

_CHUNK = 8 << 20  # bytes per ring slot (a multiple of every itemsize)
_FIRST = 256 << 10  # the first chunk; chunks double up to _CHUNK so the first DMA starts early
_LIMIT = [256 << 20]  # pinned ring memory per (backend, device); see staging_limit()
_THREADED_FROM = 4 << 20  # smaller transfers fill on the caller's thread (a hand-off costs more than it saves)
_THREADS = max(1, min(int(os.environ.get("XBACKEND_STAGING_THREADS", 0)) or (os.cpu_count() or 1), 12))


def staging_limit(nbytes: int | None = None) -> int:
    """Get (and with ``nbytes``, set) the pinned staging memory per backend and device.

    The ring of pinned buffers that stages host->device copies never grows beyond this; a transfer of
    any size streams through it (there is no size limit on transfers). New rings use the new value.

    >>> import xbackend as xb
    >>> xb.staging_limit() >= 1 << 20
    True
    """
    if nbytes is not None:
        if nbytes < 0:
            raise ValueError(f"staging_limit must be >= 0 bytes, got {nbytes}")
        _LIMIT[0] = int(nbytes)
        _RINGS.clear()
    return _LIMIT[0]


class _Slot:
    __slots__ = ("owner", "host", "event")

    def __init__(self, owner: Any, host: np.ndarray) -> None:
        self.owner = owner
        self.host = host
        self.event: Any = None  # the DMA that last read this slot


class _Ring:
    """Pinned slots of ``size`` bytes for one backend and device; one transfer uses the ring at a time.

    ``take(i)`` returns slot ``i`` (allocated on first use) after waiting for the DMA that last read it.
    """

    def __init__(self, be: Any, limit: int) -> None:
        self.be = be
        self.size = max(64 << 10, min(_CHUNK, limit // 2))
        self.n = max(2, min(limit // self.size, _THREADS + 2))
        self.slots: list[_Slot] = []
        self.lock = threading.Lock()
        self.allocations = 0
        self.waits = 0

    def take(self, i: int) -> _Slot:
        i %= self.n
        if i == len(self.slots):
            owner, host = self.be.pinned_alloc(self.size)
            self.slots.append(_Slot(owner, host))
            self.allocations += 1
        s = self.slots[i]
        if s.event is not None:
            if not self.be.event_done(s.event):
                self.waits += 1
                self.be.event_wait(s.event)
            s.event = None
        return s


_RINGS: dict[tuple[str, Device], _Ring] = {}


def _ring(be: Any, dev: Device) -> _Ring:
    key = (be.name, dev)
    r = _RINGS.get(key)
    if r is None:
        r = _RINGS[key] = _Ring(be, _LIMIT[0])
    return r


def _staged(be: Any, dev: Device) -> bool:
    return dev.type == "cuda" and hasattr(be, "h2d_open")


def _host_array(data: Any) -> tuple[np.ndarray, DType]:
    """Host data as (NumPy array, its xbackend dtype); refuses device data and grad tensors."""
    if isinstance(data, np.ndarray):
        return data, _numpy().dtype_of(data)
    if type(data) is not Array:
        if isinstance(data, np.generic) or hasattr(type(data), "__module__") and _is_native(data):
            data = _wrap_any(data)
        else:
            data = asarray(data, backend="numpy")
    if data._dev.type != "cpu":
        raise ValueError(f"host_to_device() needs host data, got a {data.backend} Array on {data._dev}; "
                         "use x.to(device=...) to move device data")  # fmt: skip
    return to_numpy(data), data._dt


def _is_native(obj: Any) -> bool:
    return backend_for_type(type(obj)) is not None


def host_to_device(data: Any, *, backend: str | None = None, device: Any = None, dtype: DType | None = None) -> Array:
    """Copy host data (NumPy, a CPU Array or tensor, Python lists) to ``device`` through pinned memory.

    The copy streams through a ring of pinned buffers, filled by several threads while the previous
    chunk crosses the bus, on a side stream; the caller's current stream waits for it, so the result
    can be used at once. ``dtype=`` casts on the side that moves fewer bytes (on the host while staging
    when narrowing). On a CPU target (or without CUDA) this is ``xb.asarray(...)``.

    >>> import numpy as np, xbackend as xb
    >>> xb.host_to_device(np.arange(3), backend="numpy", dtype=xb.float32).tolist()
    [0.0, 1.0, 2.0]
    """
    be, dev = _target(backend, device)
    host, hdt = _host_array(data)
    dt = hdt if dtype is None else D.dtype(dtype)
    if not _staged(be, dev):
        return move(_new(host, hdt, _numpy().device_of(host), _numpy()), backend=be.name, device=dev, dtype=dt)
    return _h2d_staged(be, _ring(be, dev), dev, host, hdt, dt)[0]


def staged_to_device(be: Any, dev: Device, host: np.ndarray, dt: DType) -> Any:
    """Native array of ``be`` on ``dev`` holding ``host`` (dtype ``dt``) through the pinned ring, or None
    when ``be``/``dev`` has no staged path (``Array.to``/``asarray`` use this for large host arrays)."""
    if not _staged(be, dev):
        return None
    return _h2d_staged(be, _ring(be, dev), dev, host, dt, dt)[0]._data


STAGED[0] = staged_to_device


def _pieces(nbytes: int, first: int, size: int, align: int) -> list[tuple[int, int]]:
    """Byte ranges covering ``[0, nbytes)``: ``first`` bytes, doubling up to ``size``; multiples of ``align``."""
    out, lo, step = [], 0, max(align, min(first, size) // align * align)
    size = max(align, size // align * align)
    while lo < nbytes:
        hi = min(lo + step, nbytes)
        out.append((lo, hi))
        lo = hi
        step = min(step * 2, size)
    return out


def _h2d_staged(be: Any, ring: _Ring, dev: Device, host: np.ndarray, hdt: DType, dt: DType,
                wait: bool = True) -> tuple[Array, Any]:  # fmt: skip
    """Stream ``host`` through ``ring`` to ``dev``: (Array, event of the last copy). ``wait=False`` leaves
    ordering the consumer's stream after the event to the caller (``be.stream_wait``)."""
    sdt = dt if dt.itemsize < hdt.itemsize else hdt  # stage narrow: fewer bytes cross the bus
    snp = _numpy().native_dtype(sdt)
    isz = snp.itemsize
    nbytes = host.size * isz
    rows = None  # strided data goes by leading-axis rows (copyto gathers them); else flat by elements
    if not host.flags.c_contiguous:
        rb = host[0].size * isz if host.ndim and host.shape[0] else 0
        if host.ndim and 0 < rb <= ring.size:
            rows = rb
        else:
            host = np.ascontiguousarray(host, dtype=snp)  # rows larger than a slot: gather once first
    if rows is None:
        pieces = _pieces(nbytes, _FIRST, ring.size, isz)
        flat = host.reshape(-1)
    else:
        per = max(1, ring.size // rows) * rows
        pieces = [(lo, min(lo + per, nbytes)) for lo in range(0, nbytes, per)]

    def fill(slot: _Slot, lo: int, hi: int) -> None:
        if rows is None:
            dst, src = slot.host[: hi - lo].view(snp), flat[lo // isz : hi // isz]
        else:
            src = host[lo // rows : hi // rows]
            dst = slot.host[: hi - lo].view(snp).reshape(src.shape)
        np.copyto(dst, src, casting="unsafe")

    depth = min(_THREADS, ring.n - 1)
    with ring.lock:
        session = be.h2d_open(nbytes, dev)
        if nbytes < _THREADED_FROM or _THREADS == 1:  # small: no thread hand-offs (fill k while k-1 crosses)
            for k, (lo, hi) in enumerate(pieces):
                slot = ring.take(k)
                fill(slot, lo, hi)
                slot.event = be.h2d_copy(session, slot.owner, lo, hi - lo)
        else:
            pool = _pool()
            inflight: collections.deque[tuple[_Slot, int, int, Any]] = collections.deque()
            nxt = 0
            try:
                for k in range(len(pieces)):
                    while nxt < len(pieces) and nxt < k + depth:  # keep `depth` fills running
                        slot = ring.take(nxt)  # waits for the DMA that last read this slot (chunk nxt - ring.n)
                        lo, hi = pieces[nxt]
                        inflight.append((slot, lo, hi, pool.submit(fill, slot, lo, hi)))
                        nxt += 1
                    slot, lo, hi, fut = inflight.popleft()
                    fut.result()
                    slot.event = be.h2d_copy(session, slot.owner, lo, hi - lo)  # chunk k crosses; k+1.. fill
            except BaseException:
                for item in inflight:  # no fill may still write into a slot once the ring is released
                    item[3].cancel() or item[3].exception()
                raise
        widen = sdt is not dt  # the cast runs on this thread's current stream: it must wait for the copy
        raw, event = be.h2d_close(session, wait or widen)
    out = _new(be.bytes_as(raw, sdt, host.shape), sdt, dev, be)
    if not widen:
        return out, event
    out = move(out, dtype=dt)
    return out, (be.timing_event(dev) if not wait else event)  # an event after the cast, for the consumer


_POOL: list[Any] = []


def _pool() -> Any:
    if not _POOL:
        from concurrent.futures import ThreadPoolExecutor

        _POOL.append(ThreadPoolExecutor(_THREADS, thread_name_prefix="xbackend-staging"))
    return _POOL[0]


class PendingHost:
    """The result of ``device_to_host(x, blocking=False)``: the copy may still be running.

    ``result()`` waits for the copy and returns the NumPy array; ``done()`` asks without waiting.
    """

    __slots__ = ("_array", "_event", "_be")

    def __init__(self, array: np.ndarray, event: Any, be: Any) -> None:
        self._array = array
        self._event = event
        self._be = be

    def done(self) -> bool:
        return self._event is None or self._be.event_done(self._event)

    def result(self) -> np.ndarray:
        if self._event is not None:
            self._be.event_wait(self._event)
            self._event = None
        return self._array

    def __repr__(self) -> str:
        state = "done" if self.done() else "running"
        return f"<PendingHost {self._array.shape} {self._array.dtype} ({state})>"


def device_to_host(x: Any, *, blocking: bool = True) -> np.ndarray | PendingHost:
    """Copy an Array to host memory (pinned when it comes from a CUDA device).

    ``blocking=True`` returns the NumPy array after the copy finished. ``blocking=False`` starts the copy
    on the current stream and returns a :class:`PendingHost`; its ``.result()`` waits, so unsynchronised
    memory is never handed out. CPU Arrays come back as :func:`to_numpy` gives them (shared where safe).

    >>> import xbackend as xb
    >>> xb.device_to_host(xb.asarray([1.0, 2.0]))
    array([1., 2.])
    >>> xb.device_to_host(xb.asarray([1.0]), blocking=False).result()
    array([1.])
    """
    a = x if type(x) is Array else _wrap_any(x)
    be = a._be
    if be.requires_grad(a._data):
        raise GradientError(f"the {be.name} Array on {a._dev} requires grad; copying it to the host would drop its "
                            "autograd graph. Fix: x.detach() first")  # fmt: skip
    if a._dev.type != "cuda" or not hasattr(be, "d2h_start"):
        h = to_numpy(a)
        return h if blocking else PendingHost(h, None, be)
    hnp = _numpy().native_dtype(a._dt)  # typed error (bfloat16 without ml_dtypes) before the copy starts
    raw, event = be.d2h_start(a._data)
    p = PendingHost(raw.view(hnp).reshape(a.shape), event, be)
    return p.result() if blocking else p


def _tree(fn: Any, batch: Any) -> Any:
    t = type(batch)
    if t is tuple or t is list:
        return t(_tree(fn, b) for b in batch)
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # namedtuple
        return t(*(_tree(fn, b) for b in batch))
    if isinstance(batch, dict):
        return t((k, _tree(fn, v)) for k, v in batch.items())
    if isinstance(batch, (np.ndarray, np.generic)) or t is Array or _is_native(batch):
        return fn(batch)
    return batch  # labels, strings, ... pass through


def prefetch(iterable: Iterable[Any], *, backend: str | None = None, device: Any = None,
             dtype: DType | None = None, depth: int = 2) -> Iterator[Any]:  # fmt: skip
    """Iterate over host batches as device Arrays, copying the next ``depth`` batches ahead.

    Each batch (an array, or tuples/lists/dicts of arrays; other leaves pass through) is sent with
    :func:`host_to_device` while the caller computes on the current one, so on a GPU the copy of batch
    k+1 overlaps the compute of batch k. Results equal a plain loop of ``xb.asarray(batch, ...)``.

    >>> import numpy as np, xbackend as xb
    >>> batches = [np.full(2, i) for i in range(3)]
    >>> [b.tolist() for b in xb.prefetch(batches, backend="numpy", dtype=xb.float32)]
    [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    """
    if depth < 1:
        raise ValueError(f"prefetch depth must be >= 1, got {depth}")
    be, dev = _target(backend, device)

    def send(leaf: Any) -> Array:
        return host_to_device(leaf, backend=be.name, device=dev, dtype=dtype)

    if not _staged(be, dev):
        return _prefetch_inline(iterable, send, depth)
    events: list[Any] = []

    def send_async(leaf: Any) -> Array:  # on the prefetch thread; the consumer's stream waits at hand-out
        if type(leaf) is not np.ndarray and not (type(leaf) is Array and leaf._dev.type == "cpu"):
            return send(leaf)
        host, hdt = _host_array(leaf)
        out, ev = _h2d_staged(be, _ring(be, dev), dev, host, hdt, hdt if dtype is None else D.dtype(dtype), False)
        events.append(ev)
        return out

    def gen() -> Iterator[Any]:
        it = iter(iterable)
        ctx = contextvars.copy_context()  # xb.using(...) applies on the prefetch thread too
        ex = _prefetch_thread()
        queue: collections.deque[Any] = collections.deque()

        def start(batch: Any) -> Any:
            return ex.submit(ctx.copy().run, _tree_collect, send_async, batch, events)

        for batch in it:
            queue.append(start(batch))
            if len(queue) >= depth:
                break
        while queue:
            current, evs = queue.popleft().result()
            for batch in it:  # start the next copy before handing out the current batch
                queue.append(start(batch))
                break
            for ev in evs:
                be.stream_wait(ev, dev)
            yield current

    return gen()


def _tree_collect(fn: Any, batch: Any, events: list[Any]) -> tuple[Any, list[Any]]:
    """``_tree(fn, batch)`` and the copy events it produced (one prefetch thread: no interleaving)."""
    del events[:]
    out = _tree(fn, batch)
    evs = list(events)
    del events[:]
    return out, evs


def _prefetch_inline(iterable: Iterable[Any], send: Any, depth: int) -> Iterator[Any]:
    def gen() -> Iterator[Any]:
        it = iter(iterable)
        queue: collections.deque[Any] = collections.deque()
        for batch in it:
            queue.append(_tree(send, batch))
            if len(queue) >= depth:
                break
        while queue:
            current = queue.popleft()
            for batch in it:
                queue.append(_tree(send, batch))
                break
            yield current

    return gen()


_PREFETCH: list[Any] = []


def _prefetch_thread() -> Any:
    """One thread runs the copies of every prefetch (they share the pinned ring anyway)."""
    if not _PREFETCH:
        from concurrent.futures import ThreadPoolExecutor

        _PREFETCH.append(ThreadPoolExecutor(1, thread_name_prefix="xbackend-prefetch"))
    return _PREFETCH[0]
