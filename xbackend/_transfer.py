"""Host<->device staging: pinned buffers, non-blocking copies with the right synchronisation, prefetch.

Design constraint: fast *and* safe to read. A host->device copy goes host -> pinned staging buffer (one
NumPy pass that also gathers strided data, byte-swaps and casts) -> device on a dedicated copy stream;
the caller's current stream then waits on the copy's event, so the result is ordered before anything
the caller runs next, without blocking the host. Staging buffers come from a bounded pool and are
reused only after their copy's event has completed. A device->host copy is blocking by default; the
asynchronous variant returns a :class:`PendingHost` whose array is reachable only through
``.result()``, which waits first. Without a CUDA device (or for NumPy/torch-CPU targets) every
function here falls back to the plain blocking move, so the same code runs - and is tested - on a CPU
machine. Library calls live in the backends (``pinned_alloc``, ``h2d_bytes``, ``bytes_as``,
``d2h_start``, ``event_done``, ``event_wait``).
"""

from __future__ import annotations

import collections
import threading
from typing import Any, Iterable, Iterator

import numpy as np

from . import _dtypes as D
from ._array import Array, _new
from ._devices import Device
from ._dtypes import DType
from ._errors import GradientError
from ._interchange import _numpy, _wrap_any, move, to_numpy

__all__ = ["host_to_device", "device_to_host", "prefetch", "PendingHost", "staging_limit"]

_MIN_BUFFER = 1 << 20  # 1 MiB: small transfers share a bucket
_LIMIT = [256 << 20]  # bytes of pinned staging memory per (backend, device); see staging_limit()


def staging_limit(nbytes: int | None = None) -> int:
    """Get (and with ``nbytes``, set) the pinned staging memory allowed per backend and device.

    Transfers larger than the limit skip staging and use the library's plain copy.

    >>> import xbackend as xb
    >>> xb.staging_limit() >= 1 << 20
    True
    """
    if nbytes is not None:
        if nbytes < 0:
            raise ValueError(f"staging_limit must be >= 0 bytes, got {nbytes}")
        _LIMIT[0] = int(nbytes)
    return _LIMIT[0]


class _Buffer:
    __slots__ = ("owner", "host", "size")

    def __init__(self, owner: Any, host: np.ndarray) -> None:
        self.owner = owner
        self.host = host
        self.size = host.nbytes


class _Staging:
    """A bounded pool of pinned host buffers for one backend and device.

    ``acquire`` returns a free buffer of at least ``nbytes`` (allocating while under the limit, else
    waiting for the oldest in-flight copy); ``release(buf, event)`` returns it once ``event`` completes.
    """

    def __init__(self, be: Any) -> None:
        self.be = be
        self.free: list[_Buffer] = []
        self.busy: collections.deque[tuple[_Buffer, Any]] = collections.deque()
        self.total = 0
        self.lock = threading.Lock()
        self.allocations = 0

    def _reap(self) -> None:
        while self.busy and self.be.event_done(self.busy[0][1]):
            self.free.append(self.busy.popleft()[0])

    def acquire(self, nbytes: int) -> _Buffer | None:
        limit = _LIMIT[0]
        size = max(_MIN_BUFFER, 1 << max(nbytes - 1, 0).bit_length())
        if size > limit:
            size = nbytes
        if nbytes > limit:
            return None
        with self.lock:
            while True:
                self._reap()
                fits = [b for b in self.free if b.size >= nbytes]
                if fits:
                    best = min(fits, key=lambda b: b.size)
                    self.free.remove(best)
                    return best
                while self.free and self.total + size > limit:  # drop idle buffers that are too small
                    self.total -= self.free.pop().size
                if self.total + size <= limit:
                    owner, host = self.be.pinned_alloc(size)
                    self.total += size
                    self.allocations += 1
                    return _Buffer(owner, host)
                if not self.busy:
                    return None
                self.be.event_wait(self.busy[0][1])  # bounded: wait for the oldest copy to finish

    def release(self, buf: _Buffer, event: Any) -> None:
        with self.lock:
            self.busy.append((buf, event))


_POOLS: dict[tuple[str, Device], _Staging] = {}


def _pool(be: Any, dev: Device) -> _Staging:
    key = (be.name, dev)
    p = _POOLS.get(key)
    if p is None:
        p = _POOLS[key] = _Staging(be)
    return p


def _staged(be: Any, dev: Device) -> bool:
    return dev.type == "cuda" and hasattr(be, "h2d_bytes")


def _host_array(data: Any) -> tuple[np.ndarray, DType]:
    """Host data as (NumPy array, its xbackend dtype); refuses device data and grad tensors."""
    if isinstance(data, np.ndarray):
        return data, _numpy().dtype_of(data)
    if type(data) is not Array:
        if isinstance(data, np.generic) or hasattr(type(data), "__module__") and _is_native(data):
            data = _wrap_any(data)
        else:
            from ._creation import asarray

            data = asarray(data, backend="numpy")
    if data._dev.type != "cpu":
        raise ValueError(f"host_to_device() needs host data, got a {data.backend} Array on {data._dev}; "
                         "use x.to(device=...) to move device data")  # fmt: skip
    return to_numpy(data), data._dt


def _is_native(obj: Any) -> bool:
    from ._dispatch import backend_for_type

    return backend_for_type(type(obj)) is not None


def host_to_device(data: Any, *, backend: str | None = None, device: Any = None, dtype: DType | None = None) -> Array:
    """Copy host data (NumPy, a CPU Array or tensor, Python lists) to ``device`` through pinned memory.

    The copy runs on a side stream and the caller's current stream waits for it, so the result can be
    used at once; the host is not blocked. ``dtype=`` casts on the side that moves fewer bytes (on the
    host while staging when narrowing). On a CPU target (or without CUDA) this is ``xb.asarray(...)``.

    >>> import numpy as np, xbackend as xb
    >>> xb.host_to_device(np.arange(3), backend="numpy", dtype=xb.float32).tolist()
    [0.0, 1.0, 2.0]
    """
    from ._creation import _target

    be, dev = _target(backend, device)
    host, hdt = _host_array(data)
    dt = hdt if dtype is None else D.dtype(dtype)
    if not _staged(be, dev):
        return move(_new(host, hdt, _numpy().device_of(host), _numpy()), backend=be.name, device=dev, dtype=dt)
    return _h2d_staged(be, _pool(be, dev), dev, host, hdt, dt)


def _h2d_staged(be: Any, pool: _Staging, dev: Device, host: np.ndarray, hdt: DType, dt: DType) -> Array:
    sdt = dt if dt.itemsize < hdt.itemsize else hdt  # stage narrow: fewer bytes cross the bus
    snp = _numpy().native_dtype(sdt)
    nbytes = host.size * snp.itemsize
    buf = pool.acquire(nbytes)
    if buf is None:  # larger than the staging limit: the library's own copy
        return move(_new(host, hdt, _numpy().device_of(host), _numpy()), backend=be.name, device=dev, dtype=dt)
    staging = buf.host[:nbytes].view(snp)
    if host.flags.c_contiguous and nbytes > _CHUNK:  # pipelined: stage chunk i+1 while chunk i crosses
        flat = host.reshape(-1)
        isz = snp.itemsize

        def fill(lo: int, hi: int) -> None:
            _copy_parallel(staging[lo // isz:hi // isz], flat[lo // isz:hi // isz])

        raw, event = be.h2d_bytes(buf.owner, nbytes, dev, fill, _CHUNK)
    else:
        np.copyto(staging.reshape(host.shape), host, casting="unsafe")  # one pass: gather, byte-swap, cast
        raw, event = be.h2d_bytes(buf.owner, nbytes, dev)
    pool.release(buf, event)
    out = _new(be.bytes_as(raw, sdt, host.shape), sdt, dev, be)
    return out if sdt is dt else move(out, dtype=dt)


_CHUNK = 16 << 20  # bytes per pipelined chunk (a multiple of every itemsize)
_THREADS: list[Any] = []


def _copy_parallel(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[...] = src`` (1-D, casting) on up to 4 threads: one thread's memcpy is slower than PCIe."""
    n = dst.shape[0]
    if n * dst.itemsize < (4 << 20):
        np.copyto(dst, src, casting="unsafe")
        return
    if not _THREADS:
        from concurrent.futures import ThreadPoolExecutor

        _THREADS.append(ThreadPoolExecutor(4, thread_name_prefix="xbackend-staging"))
    step = -(-n // 4)
    parts = [(dst[i:i + step], src[i:i + step]) for i in range(0, n, step)]
    for f in [_THREADS[0].submit(np.copyto, d, s_, casting="unsafe") for d, s_ in parts]:
        f.result()  # NumPy releases the GIL while copying


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
    from ._creation import _target

    be, dev = _target(backend, device)

    def send(leaf: Any) -> Array:
        return host_to_device(leaf, backend=be.name, device=dev, dtype=dtype)

    def gen() -> Iterator[Any]:
        it = iter(iterable)
        queue: collections.deque[Any] = collections.deque()
        for batch in it:
            queue.append(_tree(send, batch))
            if len(queue) >= depth:
                break
        while queue:
            current = queue.popleft()
            for batch in it:  # start the next copy before handing out the current batch
                queue.append(_tree(send, batch))
                break
            yield current

    return gen()
