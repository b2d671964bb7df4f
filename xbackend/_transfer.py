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
starts almost at once; there is no size above which the path changes. Without a CUDA device (or for
NumPy/torch-CPU targets) every function falls back to the plain move, so the same code runs - and is
tested, on the fake CUDA of tests/fakecuda.py - on a CPU machine.

Stream safety (each rule is a bug the fake shows without it):

* The device buffer is allocated in the *copy stream's* order and everything the transfer does to it
  (the DMAs, a widening cast) runs on that stream. A buffer dropped half-written - an error in the
  middle of a transfer, a prefetch abandoned with ``break`` - goes back to the copy stream's pool, where
  its next use is ordered after the stale DMAs.
* A result is *handed out* to its consumer - the caller's current stream, or for :func:`prefetch` the
  consumer's current stream at the moment the batch is yielded - by making that stream wait for the
  transfer's last event and recording that the stream uses the memory (torch ``record_stream``; CuPy a
  guarded view), so the allocator does not give the block to the next copy while the consumer's
  kernels still read it. Every leaf of a prefetched batch goes this way (torch CPU tensors, scalars and
  lists too), and nobody blocks the host.
* Pinned memory a DMA may still read or write - the buffer of a dropped :class:`PendingHost`, ring slots
  dropped by :func:`staging_limit` - is kept alive until its event completed (CuPy's pinned pool would
  hand it out again at once). A large device->host buffer is released after its array died, once no
  large copy happened for two seconds (torch's host allocator would keep a power-of-two block pinned
  for good; a loop of large copies keeps reusing it).

The library calls live in the backends; a backend with a staged path provides ``pinned_alloc(nbytes)``
-> (owner, uint8 view), ``copy_stream(dev)``, ``current_stream(dev)``, ``alloc_on(nbytes, dev, stream)``,
``stream_scope(stream)``, ``h2d_copy(raw, lo, owner, n, stream)`` -> event, ``record_event(stream)``,
``wait_event(stream, event)``, ``record_stream(x, stream)`` -> x, ``bytes_as(raw, dt, shape)``,
``d2h_start(x)`` -> (uint8 host view, event), ``event_done(event)``, ``event_wait(event)`` and, optionally,
``pinned_release()``.
"""

from __future__ import annotations

import collections
import contextvars
import os
import threading
import time
import weakref
from typing import Any, Iterable, Iterator

import numpy as np

from . import _dtypes as D
from ._array import Array, _new
from ._coerce import asarray, target as _target
from ._devices import Device
from ._dtypes import DType
from ._errors import ArgumentTypeError, ArgumentValueError, GradientError
from ._coerce import is_native as _is_native, wrap_native
from ._interchange import _numpy, move, to_numpy

__all__ = ["host_to_device", "device_to_host", "prefetch", "PendingHost", "staging_limit"]

_CHUNK = 8 << 20  # bytes per ring slot (a multiple of every itemsize)
_FIRST = 256 << 10  # the first chunk; chunks double up to _CHUNK so the first DMA starts early
_LIMIT = [256 << 20]  # pinned ring memory per (backend, device); see staging_limit()
_THREADED_FROM = 4 << 20  # smaller transfers fill on the caller's thread (a hand-off costs more than it saves)
_THREADS = max(1, min(int(os.environ.get("XBACKEND_STAGING_THREADS", 0)) or (os.cpu_count() or 1), 12))
_RELEASE_FROM = 16 << 20  # device->host buffers from this size are released after their array died ...
_RELEASE_AFTER = 2.0  # ... once no such copy started for this many seconds (a loop reuses the cached block)


def staging_limit(nbytes: int | None = None) -> int:
    """Get (and with ``nbytes``, set) the pinned staging memory per backend and device.

    The ring of pinned buffers that stages host->device copies never grows beyond this; a transfer of
    any size streams through it (there is no size limit on transfers). New rings use the new value;
    the old rings' buffers are let go once the copies reading them have completed.

    >>> import xbackend as xb
    >>> xb.staging_limit() >= 1 << 20
    True
    """
    if nbytes is not None:
        if type(nbytes) is bool or not hasattr(nbytes, "__index__"):
            raise ArgumentTypeError(f"staging_limit() takes a size in bytes (an int), got {type(nbytes).__name__}. "
                                    "Fix: e.g. xb.staging_limit(64 << 20)")  # fmt: skip
        nbytes = int(nbytes)
        if nbytes < 0:
            raise ArgumentValueError(f"staging_limit() must be >= 0 bytes, got {nbytes}. Fix: pass a size in bytes, "
                                     "e.g. xb.staging_limit(64 << 20)")  # fmt: skip
        _LIMIT[0] = int(nbytes)
        old = list(_RINGS.values())
        _RINGS.clear()
        for r in old:
            r.retire()
    return _LIMIT[0]


# -- pinned memory a DMA may still use ------------------------------------------------------------
_KEEP: list[tuple[Any, Any, Any]] = []  # (backend, event, object): kept alive until the event completed
_KEEP_LOCK = threading.Lock()
_RELEASE: set[Any] = set()  # backends whose cached pinned memory should be released (pinned_release)
_LAST_BIG = [0.0]  # time.monotonic() of the last large device->host copy
_TIMER: list[Any] = []  # the one pending release timer, if any


def _keep(be: Any, ev: Any, obj: Any) -> None:
    """Hold ``obj`` (pinned memory a DMA reads or writes) until ``ev`` completed: a pool that reuses a
    freed buffer at once (CuPy's) must not hand it to the next user while the DMA still runs."""
    if ev is not None:
        with _KEEP_LOCK:
            _KEEP.append((be, ev, obj))


def _drain() -> None:
    """Let go of the kept buffers whose events completed; release pinned caches asked for (cheap)."""
    if _KEEP:
        with _KEEP_LOCK:
            _KEEP[:] = [k for k in _KEEP if not k[0].event_done(k[1])]
    if _RELEASE:
        _flush_releases()


def _flush_releases() -> None:
    """Release the pinned caches asked for, once no large device->host copy started for _RELEASE_AFTER
    seconds (else try again later: a loop of large copies keeps reusing its cached block)."""
    if time.monotonic() - _LAST_BIG[0] < _RELEASE_AFTER:
        _schedule()
        return
    while _RELEASE:
        try:
            be = _RELEASE.pop()
        except KeyError:
            return
        be.pinned_release()


def _fire() -> None:
    _TIMER.clear()
    _flush_releases()


def _schedule() -> None:
    if _TIMER or not _RELEASE:
        return
    try:
        t = threading.Timer(_RELEASE_AFTER, _fire)
        t.daemon = True
        _TIMER.append(t)
        t.start()
    except RuntimeError:  # interpreter shutdown: nothing left to release for
        _TIMER.clear()


def _released(be: Any) -> None:
    """A large device->host buffer died: release the backend's cached pinned memory when no large copy
    happened for a while (this runs in the array's finalizer, before the buffer itself has gone back to
    the allocator; a timer thread, or the next transfer, does the release)."""
    _RELEASE.add(be)
    _schedule()


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

    def retire(self) -> None:
        """Drop the slots (after the transfer using the ring, if any); a slot whose DMA may still read it
        is kept alive until that DMA completed."""
        with self.lock:
            for s in self.slots:
                _keep(self.be, s.event, s.owner)
            self.slots = []


_RINGS: dict[tuple[str, Device], _Ring] = {}


def _ring(be: Any, dev: Device) -> _Ring:
    key = (be.name, dev)
    r = _RINGS.get(key)
    if r is None:  # two threads may get here at once: one ring wins (a ring allocates its slots on first use)
        r = _RINGS.setdefault(key, _Ring(be, _LIMIT[0]))
    return r


def _staged(be: Any, dev: Device) -> bool:
    return dev.type == "cuda" and hasattr(be, "alloc_on")


def _host_array(data: Any) -> tuple[np.ndarray, DType]:
    """Host data as (NumPy array, its xbackend dtype); refuses device data and grad tensors."""
    if isinstance(data, np.ndarray):
        return data, _numpy().dtype_of(data)
    if type(data) is not Array:
        if isinstance(data, np.generic) or hasattr(type(data), "__module__") and _is_native(data):
            data = wrap_native(data)
        else:
            data = asarray(data, backend="numpy")
    if data._dev.type != "cpu":
        raise ArgumentValueError(f"host_to_device() needs host data, got a {data.backend} Array on {data._dev}; "
                         "use x.to(device=...) to move device data")  # fmt: skip
    return to_numpy(data, copy=None), data._dt  # no copy before the copy to the device


def _hand_out(be: Any, dev: Device, x: Any, ev: Any) -> Any:
    """``x`` (a transfer's result, in the copy stream's pool) made safe to use on this thread's current
    stream of ``dev``: the stream waits for ``ev`` (the host does not), and the allocator learns that the
    stream uses the memory, so the block is not given to the next copy before the stream's work on it."""
    cur = be.current_stream(dev)
    be.wait_event(cur, ev)
    return be.record_stream(x, cur)


def host_to_device(data: Any, *, backend: str | None = None, device: Any = None, dtype: DType | None = None) -> Array:
    """Copy host data (NumPy, a CPU Array or tensor, Python lists) to ``device`` through pinned memory.

    The copy streams through a ring of pinned buffers, filled by several threads while the previous
    chunk crosses the bus, on a side stream; the caller's current stream waits for it, so the result
    can be used at once, without blocking the host. ``dtype=`` casts on the side that moves fewer bytes (on
    the host while staging when narrowing). On a CPU target (or without CUDA) this is ``xb.asarray(...)``.

    >>> import numpy as np, xbackend as xb
    >>> xb.host_to_device(np.arange(3), backend="numpy", dtype=xb.float32).tolist()
    [0.0, 1.0, 2.0]
    """
    be, dev = _target(backend, device)
    host, hdt = _host_array(data)
    dt = hdt if dtype is None else D.dtype(dtype)
    if not _staged(be, dev):
        return move(_new(host, hdt, _numpy().device_of(host), _numpy()), backend=be.name, device=dev, dtype=dt)
    x, ev = _h2d_staged(be, _ring(be, dev), dev, host, hdt, dt)
    return _new(_hand_out(be, dev, x, ev), dt, dev, be)


def staged_to_device(be: Any, dev: Device, host: np.ndarray, dt: DType) -> Any:
    """Native array of ``be`` on ``dev`` holding ``host`` (dtype ``dt``) through the pinned ring, ready for
    the caller's current stream, or None when ``be``/``dev`` has no staged path (``Array.to``/``asarray``
    use this for large host arrays)."""
    if not _staged(be, dev):
        return None
    x, ev = _h2d_staged(be, _ring(be, dev), dev, host, dt, dt)
    return _hand_out(be, dev, x, ev)



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


def _h2d_staged(be: Any, ring: _Ring, dev: Device, host: np.ndarray, hdt: DType, dt: DType) -> tuple[Any, Any]:
    """Stream ``host`` through ``ring`` to ``dev``: (native array of dtype ``dt``, event after its last
    copy or cast). The memory belongs to the copy stream; no other stream waits yet (see _hand_out)."""
    D.check_cast(hdt, dt)
    _drain()
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
    cs = be.copy_stream(dev)
    with be.device_scope(dev):
        with ring.lock:
            # in the copy stream's order: if this transfer fails half-way, the block goes back to the copy
            # stream's pool, where its next use waits for the DMAs already queued into it
            raw = be.alloc_on(nbytes, dev, cs)
            if nbytes < _THREADED_FROM or _THREADS == 1:  # small: no thread hand-offs (fill k while k-1 crosses)
                for k, (lo, hi) in enumerate(pieces):
                    slot = ring.take(k)
                    fill(slot, lo, hi)
                    slot.event = be.h2d_copy(raw, lo, slot.owner, hi - lo, cs)
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
                        slot.event = be.h2d_copy(raw, lo, slot.owner, hi - lo, cs)  # chunk k crosses; k+1.. fill
                except BaseException:
                    for item in inflight:  # no fill may still write into a slot once the ring is released
                        item[3].cancel() or item[3].exception()
                    raise
        x = be.bytes_as(raw, sdt, host.shape)
        if sdt is not dt:  # widen on the device, on the copy stream: after the copy, in the same order
            with be.stream_scope(cs):
                x = be.astype(x, dt)
        return x, be.record_event(cs)


_POOL: list[Any] = []


def _pool() -> Any:
    if not _POOL:
        from concurrent.futures import ThreadPoolExecutor

        _POOL.append(ThreadPoolExecutor(_THREADS, thread_name_prefix="xbackend-staging"))
    return _POOL[0]


class PendingHost:
    """The result of ``device_to_host(x, blocking=False)``: the copy may still be running.

    ``result()`` waits for the copy and returns the NumPy array; ``done()`` asks without waiting.
    Dropping it unread is safe: its pinned buffer is kept until the copy completed.
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
    From 16 MiB, the pinned buffer is released once the array died and no such copy started for two
    seconds (pinned memory is scarce; the allocator would keep it for good, rounded up to a power of two).

    >>> import xbackend as xb
    >>> xb.device_to_host(xb.asarray([1.0, 2.0]))
    array([1., 2.])
    >>> xb.device_to_host(xb.asarray([1.0]), blocking=False).result()
    array([1.])
    """
    a = x if type(x) is Array else wrap_native(x)
    be = a._be
    if be.requires_grad(a._data):
        raise GradientError(f"the {be.name} Array on {a._dev} requires grad; copying it to the host would drop its "
                            "autograd graph. Fix: x.detach() first")  # fmt: skip
    if a._dev.type != "cuda" or not hasattr(be, "d2h_start"):
        h = to_numpy(a, copy=None)  # host data already: as it is (the CPU's device_to_host copies nothing)
        return h if blocking else PendingHost(h, None, be)
    hnp = _numpy().native_dtype(a._dt)  # typed error (bfloat16 without ml_dtypes) before the copy starts
    _drain()
    raw, event = be.d2h_start(a._data)
    if raw.nbytes >= _RELEASE_FROM and hasattr(be, "pinned_release"):
        _LAST_BIG[0] = time.monotonic()
        weakref.finalize(raw, _released, be)
    p = PendingHost(raw.view(hnp).reshape(a.shape), event, be)
    if blocking:
        return p.result()
    _keep(be, event, raw)  # dropped unread, the buffer must outlive the DMA writing it
    return p


def _tree(fn: Any, batch: Any) -> Any:
    t = type(batch)
    if t is tuple or t is list:
        return t(_tree(fn, b) for b in batch)
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # namedtuple
        return t(*(_tree(fn, b) for b in batch))
    if isinstance(batch, dict):
        return t((k, _tree(fn, v)) for k, v in batch.items())
    if t is _Sent or isinstance(batch, (np.ndarray, np.generic)) or t is Array or _is_native(batch):
        return fn(batch)
    return batch  # labels, strings, ... pass through


class _Sent:
    """A leaf copied by the prefetch thread, not yet handed out: (native, dtype, event of its copy)."""

    __slots__ = ("x", "dt", "ev")

    def __init__(self, x: Any, dt: DType, ev: Any) -> None:
        self.x, self.dt, self.ev = x, dt, ev


def prefetch(iterable: Iterable[Any], *, backend: str | None = None, device: Any = None,
             dtype: DType | None = None, depth: int = 2) -> Iterator[Any]:  # fmt: skip
    """Iterate over host batches as device Arrays, copying the next ``depth`` batches ahead.

    Each batch (an array, or tuples/lists/dicts of arrays; other leaves pass through) is sent with
    :func:`host_to_device` while the caller computes on the current one, so on a GPU the copy of batch
    k+1 overlaps the compute of batch k. Results equal a plain loop of ``xb.asarray(batch, ...)``.
    On a GPU, a batch is handed to the stream that is current when it is yielded (``with
    torch.cuda.stream(s):`` around the loop body included): that stream waits for its copies, and the
    memory is not reused before that stream's work on it finished.

    >>> import numpy as np, xbackend as xb
    >>> batches = [np.full(2, i) for i in range(3)]
    >>> [b.tolist() for b in xb.prefetch(batches, backend="numpy", dtype=xb.float32)]
    [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    """
    if type(depth) is bool or not hasattr(depth, "__index__"):
        raise ArgumentTypeError(f"prefetch depth takes an int, got {type(depth).__name__}. Fix: e.g. depth=2")
    if depth < 1:
        raise ArgumentValueError(f"prefetch depth must be >= 1, got {depth}. Fix: stage at least one batch ahead, "
                                 "e.g. depth=2")  # fmt: skip
    be, dev = _target(backend, device)

    if not _staged(be, dev):
        return _prefetch_inline(iterable, lambda leaf: host_to_device(leaf, backend=be.name, device=dev, dtype=dtype),
                                depth)  # fmt: skip

    def send(leaf: Any) -> _Sent:  # on the prefetch thread: every leaf kind takes the event path
        host, hdt = _host_array(leaf)
        dt = hdt if dtype is None else D.dtype(dtype)
        x, ev = _h2d_staged(be, _ring(be, dev), dev, host, hdt, dt)
        return _Sent(x, dt, ev)

    def hand_out(s: _Sent) -> Array:  # on the consumer's thread, to its current stream
        return _new(_hand_out(be, dev, s.x, s.ev), s.dt, dev, be)

    def gen() -> Iterator[Any]:
        it = iter(iterable)
        ctx = contextvars.copy_context()  # xb.using(...) applies on the prefetch thread too
        ex = _prefetch_thread()
        queue: collections.deque[Any] = collections.deque()

        def start(batch: Any) -> Any:
            return ex.submit(ctx.copy().run, _tree, send, batch)

        try:
            for batch in it:
                queue.append(start(batch))
                if len(queue) >= depth:
                    break
            while queue:
                sent = queue.popleft().result()
                for batch in it:  # start the next copy before handing out the current batch
                    queue.append(start(batch))
                    break
                yield _tree(hand_out, sent)
        finally:  # abandoned (break, close()): copies not started are cancelled; the others finish on
            for fut in queue:  # the copy stream, and their buffers go back to its pool, ordered after them
                fut.cancel()

    return gen()


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
