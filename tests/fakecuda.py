"""A fake CUDA on the CPU: the one model every transfer, prefetch and timer test runs on (issue 20).

Design constraint: a GPU bug must be visible on a CPU machine, as wrong values or as a reported race.
So the model keeps the behaviours that make GPU code go wrong, and nothing else:

* **Streams, per-thread.** Each device has a default stream; side streams are made on demand. Each
  thread has its own current device and, per device, its own current stream (``torch.cuda.stream`` /
  ``with cupy_stream:``), both starting at device 0 and its default stream, as CUDA's do.
* **Lazy execution.** Work queued on a stream runs only when the host waits for it (an event wait, a
  stream or device synchronize), and then only what that wait orders: the stream's earlier work and,
  through ``wait_event``, the work of the streams it waits on. A consumer that forgot to wait reads what
  the memory held before the copy: a poison pattern (NaN for floats, -1 for integers). A stream made
  ``eager`` runs each op as soon as what it waits for has run (a copy engine running ahead of compute).
* **A race detector.** Every device op, and every host write into pinned memory, carries a vector clock
  (happens-before through stream order, recorded events, stream waits and host waits); two accesses to
  the same bytes, one of them a write, neither ordered before the other, are a race: ``model.races``.
* **A stream-ordered caching allocator** (torch's CUDACachingAllocator, CuPy's pool): a freed block goes
  back to its owning stream's free list and is handed to the next allocation on that stream at once -
  unless ``record_stream`` named other streams; then it waits for events recorded on them at the free.
* **A pinned host pool that reuses a freed buffer at once** (CuPy's ``PinnedMemoryPool``: no event
  guard; power-of-two sizes and no release, as torch's host allocator keeps what it pinned).
* **A device clock.** An op takes ``duration`` seconds of device time, starts no earlier than its
  launch (so an idle stream's events include the gap) and after what it waits for; a host wait blocks
  until the device time it waits for.
* **A sync log** (``model.syncs``): every host wait, with its kind and the thread.

:class:`FakeCudaBackend` puts xbackend's backend hooks (the staging protocol of ``xbackend/_transfer.py``,
``synchronize``, ``timing_event``, ``astype``) on top, with a ``torch`` flavour (``record_stream`` in the
allocator; kernels follow their operand's device) and a ``cupy`` flavour (``record_stream`` is the guarded
view of ``cupy/fixes.FreeAfter``; a kernel launched on another device than its operands' raises).

:class:`TorchAsCuda` is the model for torch's own CUDA branches: CPU tensors that say ``is_cuda``, with every call
a CUDA tensor would synchronise the host on recorded (issue 28; tests/test_sync_free.py).
"""

from __future__ import annotations

import collections
import contextlib
import threading
import time
import weakref
from typing import Any, Callable

import numpy as np

import xbackend as xb
from xbackend._backends.cupy import fixes as F
from xbackend._backends.numpy.backend import NumpyBackend

HOST = 0  # the host's agent id in the vector clocks (one host clock: thread hand-offs are synchronised)


class FakeCudaError(RuntimeError):
    """What CUDA would refuse (a kernel launched on a device that does not hold its operands)."""


def _join(into: dict[int, int], other: dict[int, int]) -> None:
    for k, v in other.items():
        if v > into.get(k, 0):
            into[k] = v


class Event:
    """A CUDA event: ``done`` once the stream reached it; ``time`` is the device time it was reached at."""

    def __init__(self, stream: "Stream", marker: "Op") -> None:
        self.stream, self.marker = stream, marker
        self.vc = marker.vc
        self.time = float("nan")

    @property
    def done(self) -> bool:
        return self.marker.done

    def query(self) -> bool:
        return self.stream.model.query(self)

    def synchronize(self) -> None:
        self.stream.model.host_wait(self)


class Op:
    __slots__ = ("stream", "fn", "duration", "launch", "vc", "epoch", "done", "event", "waits", "name")

    def __init__(self, stream: "Stream", name: str, fn: Callable[[], None] | None, duration: float,
                 waits: "Event | None") -> None:  # fmt: skip
        self.stream, self.name, self.fn, self.duration, self.waits = stream, name, fn, duration, waits
        self.launch = time.perf_counter()
        self.done = False
        self.event: Event | None = None
        self.vc: dict[int, int] = {}
        self.epoch = 0


class Stream:
    """A CUDA stream (the CuPy-style methods ``record`` and ``wait_event`` are what ``FreeAfter`` calls)."""

    def __init__(self, model: "CudaModel", device: int, name: str) -> None:
        self.model, self.device, self.name = model, device, name
        self.id = model._agent()
        self.queue: collections.deque[Op] = collections.deque()
        self.vc: dict[int, int] = {self.id: 0}
        self.t = 0.0  # device time this stream has reached
        self.eager = False

    def __repr__(self) -> str:
        return f"<fake stream {self.name} on cuda:{self.device}>"

    @property
    def ptr(self) -> int:
        return self.id

    def record(self) -> Event:
        return self.model.record(self)

    def wait_event(self, ev: Event) -> None:
        self.model.wait_event(self, ev)

    def synchronize(self) -> None:
        self.model.stream_synchronize(self)


class Block:
    """Device or pinned host memory: the bytes, the owning stream, and the access history."""

    def __init__(self, model: "CudaModel", nbytes: int, kind: str, device: int, stream: Stream | None) -> None:
        self.mem = np.full(max(nbytes, 1), 0xFF, dtype=np.uint8)  # poison: NaN / -1 until written
        self.nbytes, self.kind, self.device, self.stream = nbytes, kind, device, stream
        self.recorded: set[Stream] = set()
        self.history: list[tuple[int, int, bool, int, int, str]] = []  # (lo, hi, write, agent, epoch, what)
        self.id = model._agent()


class _Handle:
    """The owner of a NumPy view of a block; when the last view dies, the block is freed (finalizer)."""

    def __init__(self, block: Block, n: int, keep: Any = None) -> None:
        self.block, self.keep = block, keep
        self.__array_interface__ = {"shape": (n,), "typestr": "|u1", "version": 3,
                                    "data": (block.mem.ctypes.data, False)}  # fmt: skip


def handle_of(x: Any) -> _Handle | None:
    b = x
    while isinstance(b, np.ndarray):
        b = b.base
    return b if isinstance(b, _Handle) else None


def _weak(x: np.ndarray) -> Callable[[], np.ndarray]:
    """What a queued op holds of an operand: like a device pointer, not the array. A view of fake memory is
    rebuilt from its block when the op runs (the array may be gone by then, as a tensor freed right after
    a launch is); other (host) arrays are kept."""
    h = handle_of(x)
    if h is None:
        return lambda: x
    mem, shape, strides, dtype = h.block.mem, x.shape, x.strides, x.dtype
    off = x.__array_interface__["data"][0] - mem.ctypes.data
    return lambda: np.ndarray(shape, dtype, buffer=mem, offset=off, strides=strides)


def _span(x: np.ndarray, block: Block) -> tuple[int, int]:
    from numpy.lib.array_utils import byte_bounds

    lo, hi = byte_bounds(x)
    base = block.mem.ctypes.data
    return lo - base, hi - base


class CudaModel:
    """Devices, streams, events, the two allocators, the race detector and the logs (see the module)."""

    def __init__(self, ndev: int = 2) -> None:
        self.lock = threading.RLock()
        self._ids = 0
        self.ndev = ndev
        self.default = [Stream(self, d, f"default{d}") for d in range(ndev)]
        self.streams: list[Stream] = list(self.default)
        self.local = threading.local()
        self.host_vc: dict[int, int] = {HOST: 0}
        self.free: dict[Stream, list[Block]] = collections.defaultdict(list)
        self.pending_free: list[tuple[Block, list[Event]]] = []
        self.pinned_free: dict[int, list[Block]] = collections.defaultdict(list)
        self.freed: list[Block] = []  # released by finalizers; sorted out at the next allocation
        self.races: list[str] = []
        self.syncs: list[tuple[str, str, str]] = []
        self.log: list[str] = []  # ops in execution order
        self.allocations = 0
        self.used: set[int] = set()
        self.realtime = True

    def _agent(self) -> int:
        self._ids += 1
        return self._ids

    # -- per-thread state ----------------------------------------------------------------------
    def current_device(self) -> int:
        return getattr(self.local, "device", 0)

    def current_stream(self, device: int | None = None) -> Stream:
        d = self.current_device() if device is None else device
        cur = getattr(self.local, "streams", None)
        return self.default[d] if cur is None or d not in cur else cur[d]

    @contextlib.contextmanager
    def device(self, index: int) -> Any:
        old = self.current_device()
        self.local.device = index
        try:
            yield
        finally:
            self.local.device = old

    @contextlib.contextmanager
    def use_stream(self, s: Stream, switch_device: bool = True) -> Any:
        """``s`` current on its device for this thread (``torch.cuda.stream(s)`` also makes its device
        current; ``with cupy_stream:`` does not: ``switch_device=False``)."""
        if not hasattr(self.local, "streams"):
            self.local.streams = {}
        old = self.local.streams.get(s.device)
        self.local.streams[s.device] = s
        try:
            with self.device(s.device) if switch_device else contextlib.nullcontext():
                yield s
        finally:
            if old is None:
                self.local.streams.pop(s.device, None)
            else:
                self.local.streams[s.device] = old

    def new_stream(self, device: int = 0, name: str = "side", eager: bool = False) -> Stream:
        with self.lock:
            s = Stream(self, device, name)
            s.eager = eager
            self.streams.append(s)
            return s

    # -- the race detector ------------------------------------------------------------------------
    def _access(self, block: Block, lo: int, hi: int, write: bool, agent: int, epoch: int, vc: dict[int, int],
                what: str) -> None:  # fmt: skip
        if hi <= lo:
            return
        for plo, phi, pw, pa, pe, pwhat in block.history:
            if phi <= lo or hi <= plo or not (pw or write) or pa == agent:
                continue
            if vc.get(pa, 0) < pe:
                self.races.append(f"{what} [{lo}:{hi}) of {block.kind} block {block.id} races with {pwhat} "
                                  f"[{plo}:{phi}) (no event, stream wait or host wait orders them)")  # fmt: skip
        block.history.append((lo, hi, write, agent, epoch, what))

    def host_write(self, x: np.ndarray, what: str = "host write") -> None:
        h = handle_of(x)
        if h is None:
            return
        with self.lock:
            self.host_vc[HOST] += 1
            lo, hi = _span(x, h.block)
            self._access(h.block, lo, hi, True, HOST, self.host_vc[HOST], dict(self.host_vc), what)

    # -- queueing and running ---------------------------------------------------------------------
    def enqueue(self, s: Stream, name: str, fn: Callable[[], None] | None = None, duration: float = 0.0,
                reads: tuple[Any, ...] = (), writes: tuple[Any, ...] = (), waits: Event | None = None) -> Op:  # fmt: skip
        with self.lock:
            op = Op(s, name, fn, duration, waits)
            _join(s.vc, self.host_vc)  # what the host did or saw before the launch happens before the op
            if waits is not None:
                _join(s.vc, waits.vc)
            s.vc[s.id] = s.vc.get(s.id, 0) + 1
            op.vc, op.epoch = dict(s.vc), s.vc[s.id]
            self.used.add(s.device)
            for arrs, w in ((reads, False), (writes, True)):
                for a in arrs:
                    h = handle_of(a)
                    if h is not None:
                        lo, hi = _span(a, h.block)
                        self._access(h.block, lo, hi, w, s.id, op.epoch, op.vc, f"{name} on {s.name}")
            s.queue.append(op)
            if s.eager:
                self._run_ready(s)
            return op

    def _run_ready(self, s: Stream) -> None:
        while s.queue and (s.queue[0].waits is None or s.queue[0].waits.done):
            self._execute(s.queue.popleft())

    def _execute(self, op: Op) -> None:
        s = op.stream
        start = max(s.t, op.launch)
        if op.waits is not None:
            start = max(start, op.waits.time)
        s.t = start + op.duration
        if op.fn is not None:
            op.fn()
        if op.event is not None:
            op.event.time = s.t
        op.done = True
        self.log.append(f"{op.name} on {s.name}")

    def _run_to(self, op: Op) -> None:
        s = op.stream
        while not op.done:
            head = s.queue[0]
            if head.waits is not None and not head.waits.done:
                self._run_to(head.waits.marker)
            s.queue.popleft()
            self._execute(head)

    def record(self, s: Stream) -> Event:
        with self.lock:
            op = self.enqueue(s, "event")
            ev = op.event = Event(s, op)
            if op.done:  # an eager stream ran it already
                ev.time = s.t
            return ev

    def wait_event(self, s: Stream, ev: Event) -> None:
        self.enqueue(s, "wait", waits=ev)

    def _host_block(self, kind: str, where: str, until: float, vc: dict[int, int]) -> None:
        self.syncs.append((kind, where, threading.current_thread().name))
        _join(self.host_vc, vc)
        if self.realtime:
            delay = until - time.perf_counter()
            if delay > 0:
                time.sleep(delay)

    def query(self, ev: Event) -> bool:
        """``cudaEventQuery``: no wait; a host that saw the event complete is ordered after its work."""
        with self.lock:
            if ev.done:
                _join(self.host_vc, ev.vc)
            return ev.done

    def host_wait(self, ev: Event) -> None:
        with self.lock:
            self._run_to(ev.marker)
            self._host_block("event wait", ev.stream.name, ev.time, ev.vc)

    def stream_synchronize(self, s: Stream) -> None:
        with self.lock:
            if s.queue:
                self._run_to(s.queue[-1])
            self._host_block("stream synchronize", s.name, s.t, dict(s.vc))

    def device_synchronize(self, device: int) -> None:
        with self.lock:
            for s in [s for s in self.streams if s.device == device]:
                if s.queue:
                    self._run_to(s.queue[-1])
            until = max((s.t for s in self.streams if s.device == device), default=0.0)
            vc: dict[int, int] = {}
            for s in self.streams:
                if s.device == device:
                    _join(vc, s.vc)
            self._host_block("device synchronize", f"cuda:{device}", until, vc)

    def busy_devices(self) -> list[int]:
        """The devices this process has allocated on or launched on (torch: CUDA initialised there)."""
        return sorted(self.used)

    # -- allocators -------------------------------------------------------------------------------
    def _sort_freed(self) -> None:
        while self.freed:
            b = self.freed.pop()
            if b.kind == "pinned":
                self.pinned_free[b.nbytes].append(b)  # at once: no event guard
            elif b.recorded - {b.stream}:
                self.pending_free.append((b, [self.record(s) for s in b.recorded - {b.stream}]))
                b.recorded = set()
            else:
                assert b.stream is not None
                self.free[b.stream].append(b)
        still = []
        for b, evs in self.pending_free:
            if all(e.done for e in evs):  # the allocator saw the events complete: ordered after them
                for e in evs:
                    _join(self.host_vc, e.vc)
                assert b.stream is not None
                self.free[b.stream].append(b)
            else:
                still.append((b, evs))
        self.pending_free = still

    def _view(self, block: Block, n: int, keep: Any = None) -> np.ndarray:
        h = _Handle(block, n, keep)
        weakref.finalize(h, self.freed.append, block)  # list.append: safe from any thread, at any time
        return np.asarray(h)

    def malloc(self, nbytes: int, s: Stream) -> np.ndarray:
        """``nbytes`` of device memory in ``s``'s order: a free block of ``s`` is reused at once."""
        with self.lock:
            self._sort_freed()
            size = max(512, -(-nbytes // 512) * 512)
            self.used.add(s.device)
            pool = self.free[s]
            fit = [b for b in pool if b.nbytes >= size]
            if fit:
                b = min(fit, key=lambda b: b.nbytes)
                pool.remove(b)
            else:
                b = Block(self, size, "device", s.device, s)
                self.allocations += 1
            return self._view(b, nbytes)

    def record_stream(self, x: np.ndarray, s: Stream) -> None:
        h = handle_of(x)
        assert h is not None, "record_stream on memory the fake did not allocate"
        h.block.recorded.add(s)

    def pinned_alloc(self, nbytes: int) -> np.ndarray:
        """Page-locked host memory (power-of-two sizes); a freed buffer is reused at once."""
        with self.lock:
            self._sort_freed()
            size = 1 << max(9, (max(nbytes, 1) - 1).bit_length())
            pool = self.pinned_free[size]
            b = pool.pop() if pool else Block(self, size, "pinned", -1, None)
            return self._view(b, nbytes)

    def pinned_cached(self) -> int:
        """Bytes of pinned memory the pool keeps for reuse (freed, not released)."""
        with self.lock:
            self._sort_freed()
            return sum(b.nbytes for bs in self.pinned_free.values() for b in bs)

    def pinned_release(self) -> None:
        with self.lock:
            self._sort_freed()
            self.pinned_free.clear()

    # -- operations the backend and the tests launch ----------------------------------------------
    def copy(self, dst: np.ndarray, src: np.ndarray, s: Stream, name: str = "copy") -> Op:
        """``dst[...] = src`` on ``s`` when it runs (a DMA or a device-to-device copy)."""
        d, r, shape = _weak(dst), _weak(src), dst.shape

        def fn() -> None:
            np.copyto(d(), r().reshape(shape), casting="unsafe")

        return self.enqueue(s, name, fn, reads=(src,), writes=(dst,))

    def launch(self, fn: Callable[..., Any], *inputs: np.ndarray, duration: float = 0.0, stream: Stream | None = None,
               name: str = "kernel") -> np.ndarray:  # fmt: skip
        """A kernel on the current stream (or ``stream``): returns its output, written when it runs."""
        s = self.current_stream() if stream is None else stream
        proto = np.asarray(fn(*[np.zeros(i.shape, i.dtype) for i in inputs]))
        raw = self.malloc(proto.nbytes, s)
        out = raw.view(proto.dtype).reshape(proto.shape)
        o, ins = _weak(out), [_weak(i) for i in inputs]

        def run() -> None:
            o()[...] = fn(*[i() for i in ins])

        self.enqueue(s, name, run, duration, reads=inputs, writes=(out,))
        return out

    def sleep(self, seconds: float, stream: Stream | None = None) -> None:
        """``torch.cuda._sleep``: device work of ``seconds`` touching no memory."""
        self.enqueue(self.current_stream() if stream is None else stream, "sleep", None, seconds)

    def read(self, x: np.ndarray) -> np.ndarray:
        """What a consumer on the current stream reads: a copy to the host after the stream's earlier work."""
        s = self.current_stream()
        out = np.empty(x.shape, x.dtype)
        src = _weak(x)
        self.enqueue(s, "read", lambda: np.copyto(out, src()), reads=(x,))
        self.host_wait(self.record(s))
        return out

    def synchronize_all(self) -> None:
        for d in range(self.ndev):
            self.device_synchronize(d)


class FakeCudaBackend(NumpyBackend):
    """xbackend's CUDA backend hooks on :class:`CudaModel` (NumPy memory on devices ``cuda:0..ndev-1``)."""

    name = "fakecuda"
    fixed_default_device = False

    def __init__(self, ndev: int = 2, flavour: str = "torch") -> None:
        super().__init__()
        self.model = CudaModel(ndev)
        self.flavour = flavour
        self._copy_streams: dict[int, Stream] = {}

    # -- devices --------------------------------------------------------------------------------
    def check_device(self, dev: xb.Device) -> xb.Device:
        if dev.type != "cuda":
            raise xb.UnknownDeviceError(f"fakecuda has CUDA devices only, not {dev}")
        if dev.index is None:
            return xb.device(f"cuda:{self.model.current_device()}")
        if dev.index >= self.model.ndev:
            raise xb.UnknownDeviceError(f"fakecuda has {self.model.ndev} devices, not {dev}")
        return dev

    def default_device(self) -> xb.Device:
        return xb.device(f"cuda:{self.model.current_device()}")

    def devices(self) -> list[xb.Device]:
        return [xb.device(f"cuda:{i}") for i in range(self.model.ndev)]

    def device_of(self, x: Any) -> xb.Device:
        h = handle_of(x)
        return xb.device(f"cuda:{h.block.device if h is not None and h.block.device >= 0 else 0}")

    def to_device(self, x: Any, dev: xb.Device) -> Any:
        return x

    def device_scope(self, dev: xb.Device) -> Any:
        return self.model.device(dev.index or 0) if dev.type == "cuda" else contextlib.nullcontext()

    def gpu_devices_in_use(self) -> list[xb.Device]:
        return [xb.device(f"cuda:{d}") for d in self.model.busy_devices()]

    # -- the staging protocol (xbackend/_transfer.py) ---------------------------------------------
    def pinned_alloc(self, nbytes: int) -> tuple[Any, np.ndarray]:
        v = self.model.pinned_alloc(nbytes)
        return v, v

    def pinned_release(self) -> None:
        self.model.pinned_release()

    def copy_stream(self, dev: xb.Device) -> Stream:
        i = dev.index or 0
        s = self._copy_streams.get(i)
        if s is None:
            s = self._copy_streams[i] = self.model.new_stream(i, f"copy{i}")
        return s

    def current_stream(self, dev: xb.Device) -> Stream:
        return self.model.current_stream(dev.index or 0)

    def alloc_on(self, nbytes: int, dev: xb.Device, stream: Stream) -> np.ndarray:
        return self.model.malloc(nbytes, stream)

    def stream_scope(self, stream: Stream) -> Any:
        return self.model.use_stream(stream, switch_device=self.flavour == "torch")

    def h2d_copy(self, raw: np.ndarray, lo: int, owner: np.ndarray, n: int, stream: Stream) -> Event:
        src = owner[:n]
        self.model.host_write(src, "staging fill")  # the host filled the slot just before queueing its DMA
        self.model.copy(raw[lo : lo + n], src, stream, "H2D")
        return self.model.record(stream)

    def record_event(self, stream: Stream) -> Event:
        return self.model.record(stream)

    def wait_event(self, stream: Stream, ev: Event) -> None:
        self.model.wait_event(stream, ev)

    def record_stream(self, x: np.ndarray, stream: Stream) -> np.ndarray:
        if self.flavour == "torch":
            self.model.record_stream(x, stream)
            return x
        h = handle_of(x)
        assert h is not None
        cs = self._copy_streams.get(h.block.device)
        if cs is None or stream is cs or x.size == 0:
            return x
        keep = F.FreeAfter(x, stream, cs, self.model.device(h.block.device))
        lo, _ = _span(x, h.block)
        alias = _Handle(h.block, lo + x.nbytes, keep)  # the same bytes; holding it holds `keep`
        return np.asarray(alias)[lo : lo + x.nbytes].view(x.dtype).reshape(x.shape)

    def bytes_as(self, raw: Any, dt: Any, shape: tuple[int, ...]) -> Any:
        return raw.view(self.native_dtype(dt)).reshape(shape)

    def d2h_start(self, x: Any) -> tuple[np.ndarray, Event]:
        dev = self.device_of(x)
        s = self.model.current_stream(dev.index)
        buf = self.model.pinned_alloc(x.nbytes)
        self.model.copy(buf.view(x.dtype).reshape(x.shape), x, s, "D2H")
        return buf, self.model.record(s)

    def event_done(self, ev: Event | None) -> bool:
        return ev is None or self.model.query(ev)

    def event_wait(self, ev: Event | None) -> None:
        if ev is not None:
            self.model.host_wait(ev)

    def timing_event(self, dev: xb.Device) -> Event:
        return self.model.record(self.model.current_stream(dev.index or 0))

    def elapsed_ms(self, start: Event, end: Event) -> float:
        self.model.host_wait(end)
        return (end.time - start.time) * 1e3

    def synchronize(self, dev: xb.Device) -> None:
        if dev.type == "cuda":
            self.model.device_synchronize(dev.index or 0)

    # -- the one kernel the transfer path launches -----------------------------------------------
    def astype(self, x: Any, dt: Any, copy: bool = True) -> Any:
        nd = self.native_dtype(dt)
        dev = self.device_of(x).index or 0
        if self.flavour == "cupy" and self.model.current_device() != dev:
            raise FakeCudaError(f"a kernel launched on cuda:{self.model.current_device()} reads memory of cuda:{dev} "
                                "(CuPy launches on the current device)")  # fmt: skip
        return self.model.launch(lambda a: a.astype(nd), x, stream=self.model.current_stream(dev), name="cast")


def run_in_thread(fn: Callable[[], Any]) -> Any:
    """``fn()`` on a fresh thread (its own current device and streams), returning its result."""
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


# -- torch tensors that act as CUDA tensors, for the host-synchronisation checks ---------------------------------
#: Tensor methods and torch functions after which the host has waited for a CUDA device: their result is on the host
#: (``item``, ``bool(t)``, ``tolist``, ``.cpu()``, ...) or its size depends on the data (``nonzero``, ``unique``,
#: ``masked_select``, ``repeat_interleave`` without ``output_size``)
SYNCING = frozenset(
    "item tolist __bool__ __int__ __float__ __index__ __complex__ __len__ __format__ __repr__ cpu numpy nonzero "
    "argwhere masked_select unique unique_consecutive repeat_interleave equal allclose _local_scalar_dense".split()
)  # fmt: skip


class TorchAsCuda:
    """torch CPU tensors that take xbackend's CUDA branches, with every host synchronisation a CUDA tensor would make
    recorded (issue 28): ``is_cuda`` is True for every tensor, and a torch function mode records each syncing call
    (:data:`SYNCING`; a host value copied to a device by ``torch.tensor``/``torch.as_tensor``, which is
    ``memcpy_and_sync``; ``.to("cpu")``; a boolean mask in ``x[mask]``/``x[mask] = v``, a ``nonzero`` inside) with
    the xbackend line that made it. ``syncs`` lists them; on a GPU ``torch.cuda.set_sync_debug_mode("error")`` is
    the real check (tests/test_sync_free.py runs both).

    What it cannot see: a sync inside a torch kernel that the CPU build does not make (none known for the calls
    xbackend makes), and values that differ on CUDA (the values are the CPU kernels')."""

    def __init__(self) -> None:
        import torch
        from torch.overrides import TorchFunctionMode

        self.torch = torch
        self.syncs: list[str] = []
        rec = self

        class _Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
                kwargs = kwargs or {}
                why = rec._why(func, args, kwargs)
                if why is not None:
                    rec.syncs.append(f"{why} at {_xbackend_line()}")
                return func(*args, **kwargs)

        self._mode = _Mode()
        self._old: Any = None

    def _why(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
        torch = self.torch
        name = getattr(func, "__name__", str(func))
        if name in SYNCING:
            return f"{name}()"
        if name in ("tensor", "as_tensor") and kwargs.get("device") is not None and not isinstance(
            args[0] if args else None, torch.Tensor
        ):
            return f"torch.{name}(host value, device=...) (memcpy_and_sync)"
        if name == "to" and any(str(a) == "cpu" or getattr(a, "type", None) == "cpu"
                                for a in (*args[1:], kwargs.get("device"))):  # fmt: skip
            return ".to('cpu')"
        if name in ("__getitem__", "__setitem__", "index_put_", "index_put") and len(args) > 1:
            key = args[1] if type(args[1]) is tuple else (args[1],)
            if any(isinstance(k, torch.Tensor) and k.dtype == torch.bool and k.ndim > 0 for k in key):
                return f"{name} with a boolean mask (nonzero)"
        return None

    def __enter__(self) -> "TorchAsCuda":
        torch = self.torch
        self._old = torch.Tensor.__dict__.get("is_cuda")  # (None: inherited from torch._C.TensorBase)
        torch.Tensor.is_cuda = property(lambda t: True)  # type: ignore[method-assign, assignment]
        self._mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._mode.__exit__(*exc)
        if self._old is None:
            del self.torch.Tensor.is_cuda
        else:
            self.torch.Tensor.is_cuda = self._old  # type: ignore[method-assign]


def _xbackend_line() -> str:
    """The innermost frame in xbackend's own code (not its tests): where a recorded call was made."""
    import traceback

    frames = [f for f in traceback.extract_stack()[:-1] if "/xbackend/" in f.filename.replace("\\", "/")
              and "/tests/" not in f.filename.replace("\\", "/")]  # fmt: skip
    if not frames:
        return "?"
    f = frames[-1]
    return f"{f.filename.replace(chr(92), '/').split('/xbackend/')[-1]}:{f.lineno}"
