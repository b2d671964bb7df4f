"""Host<->device transfers: the pinned ring, non-blocking copies made safe, prefetch (issues 8, 20).

The CUDA paths run on the CPU on the fake CUDA of ``tests/fakecuda.py``: per-thread current streams and
devices, copies that run only when a wait orders them, a stream-ordered caching allocator, a pinned
pool that reuses freed buffers at once, and a race detector. Each test reads its results the way a
consumer on a stream would (``model.read``) and ends with ``model.races`` empty (the ``cuda`` fixture
checks). The real CUDA versions are in tests/test_gpu_checks.py (``gpu`` marker).
"""

from __future__ import annotations

import collections
import gc
import threading
import time

import os

import numpy as np
import pytest
from fakecuda import FakeCudaBackend, run_in_thread

import xbackend as xb
from xbackend import _transfer as T
from xbackend._array import _new

CUDA0, CUDA1 = xb.device("cuda:0"), xb.device("cuda:1")


@pytest.fixture
def cuda(monkeypatch):
    """The fake CUDA backend (torch flavour), the target of every transfer in the test; no races allowed."""
    be = FakeCudaBackend()
    real = T._target

    def target(backend, device):
        if backend != "fakecuda":
            return real(backend, device)
        return be, be.check_device(xb.device(device)) if device else be.default_device()

    monkeypatch.setattr(T, "_target", target)
    monkeypatch.setattr(T, "_RINGS", {})
    monkeypatch.setattr(T, "_KEEP", [])
    monkeypatch.setattr(T, "_RELEASE", set())
    monkeypatch.setattr(T, "_TIMER", [])
    yield be
    assert not be.model.races, "\n".join(be.model.races[:5])


@pytest.fixture(params=["torch", "cupy"])
def flavoured(request, cuda):
    """The fake in both flavours: record_stream by the allocator (torch) or by a guarded view (CuPy)."""
    cuda.flavour = request.param
    return cuda


@pytest.fixture
def small_ring(monkeypatch):
    """64 KiB slots, first chunk 4 KiB: megabytes already take many chunks and reuse every slot."""
    monkeypatch.setattr(T, "_CHUNK", 64 << 10)
    monkeypatch.setattr(T, "_FIRST", 4 << 10)
    monkeypatch.setattr(T, "_LIMIT", [1 << 20])


@pytest.fixture
def copies(cuda, monkeypatch):
    """(lo, n) of every chunk handed to the DMA, in order."""
    seen: list[tuple[int, int]] = []
    real = cuda.h2d_copy
    monkeypatch.setattr(cuda, "h2d_copy", lambda raw, lo, owner, n, s: seen.append((lo, n)) or real(raw, lo, owner, n, s))
    return seen


def _staged(cuda, host, dt=None, dev=CUDA0):
    """host_to_device's staged path, handed out to this thread's current stream: the native result."""
    hdt = cuda.dtype_of(host)
    x, ev = T._h2d_staged(cuda, T._ring(cuda, dev), dev, host, hdt, hdt if dt is None else dt)
    return T._hand_out(cuda, dev, x, ev)


# --- the pinned ring ---------------------------------------------------------------------------------
def test_ring_reuses_a_slot_only_after_its_event(cuda, small_ring):
    ring = T._Ring(cuda, T._LIMIT[0])
    s0 = ring.take(0)
    dev_buf = cuda.model.malloc(16, cuda.copy_stream(CUDA0))
    s0.event = cuda.h2d_copy(dev_buf, 0, s0.owner, 16, cuda.copy_stream(CUDA0))  # a DMA reads slot 0
    assert ring.take(1) is not s0 and ring.allocations == 2 and not s0.event.done
    assert ring.take(ring.n) is s0  # the same slot again: its DMA had to complete first
    assert s0.event is None and ring.waits == 1 and [k for k, *_ in cuda.model.syncs] == ["event wait"]
    assert ring.allocations == 2 and ring.size * ring.n <= T._LIMIT[0]


@pytest.mark.parametrize("dtype", [xb.float64, xb.float32, xb.int16])
def test_ring_streams_every_byte_in_order(cuda, small_ring, copies, dtype):
    host = np.random.default_rng(0).random((640, 1024)) * 1000  # 5 MB: ~80 chunks through 6+ slots
    out = _staged(cuda, host, dtype)
    np.testing.assert_array_equal(cuda.model.read(out), host.astype(cuda.native_dtype(dtype)))
    los = [lo for lo, _ in copies]
    total = host.size * cuda.native_dtype(dtype).itemsize
    assert los == sorted(los) and los[0] == 0  # handed over in order, contiguous, covering everything
    assert all(lo + n == nxt for (lo, n), nxt in zip(copies, los[1:] + [total]))
    sizes = [n for _, n in copies]
    ring = T._ring(cuda, CUDA0)
    assert sizes[0] == T._FIRST and max(sizes) == ring.size  # small first chunk, doubling to a slot
    assert ring.allocations <= ring.n < len(sizes) and ring.waits > 0  # slots were reused, after waiting


@pytest.mark.parametrize("n", [1, 7, 4095, 4097, 65537, 300_001])
@pytest.mark.parametrize("dt", ["int8", "float16", "float64", "complex128"])
def test_ring_odd_sizes_and_tails(cuda, small_ring, copies, n, dt):
    host = (np.arange(n) % 251).astype(dt)
    np.testing.assert_array_equal(cuda.model.read(_staged(cuda, host)), host)
    assert sum(n_ for _, n_ in copies) == host.nbytes


def test_ring_moves_300_mb_byte_exactly(cuda, copies):
    host = np.arange(75_000_000, dtype=np.uint32)  # 300 MB, default 8 MiB slots
    host[::4097] ^= 0xDEADBEEF
    out = _staged(cuda, host)
    assert np.array_equal(cuda.model.read(out), host)
    ring = T._ring(cuda, CUDA0)
    assert len(copies) > ring.n and ring.allocations <= ring.n


def test_ring_fills_on_several_threads(cuda, small_ring, monkeypatch):
    seen = set()
    real = np.copyto

    def spy(dst, src, casting="same_kind"):
        seen.add(threading.current_thread().name)
        real(dst, src, casting=casting)

    monkeypatch.setattr(T.np, "copyto", spy)
    monkeypatch.setattr(T, "_THREADS", 3)
    host = np.random.default_rng(1).random(1 << 19)
    out = _staged(cuda, host)
    monkeypatch.setattr(T.np, "copyto", real)
    np.testing.assert_array_equal(cuda.model.read(out), host)
    assert any(name.startswith("xbackend-staging") for name in seen)


# --- staged host->device ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["contiguous", "strided", "byteswapped", "narrow", "widen", "0-d", "size-0", "bool",
                                  "strided-wide-rows"])  # fmt: skip
def test_staged_h2d_values_and_dtypes(cuda, small_ring, copies, case):
    base = np.arange(24.0).reshape(4, 6)
    host, dt = {
        "contiguous": (base, xb.float64), "strided": (base[::-1, ::2], xb.float64),
        "byteswapped": (base.astype(">f8"), xb.float64), "narrow": (base, xb.float32),
        "widen": (base.astype(np.int8), xb.float64), "0-d": (np.array(2.5), xb.float64),
        "size-0": (np.zeros((0, 3)), xb.float64), "bool": (base > 10, xb.bool),
        "strided-wide-rows": (np.arange(3 * 20000.0).reshape(3, 20000)[:, ::2], xb.float32),
    }[case]  # fmt: skip
    out = xb.host_to_device(host, backend="fakecuda", device="cuda:0", dtype=dt)
    assert out.dtype == dt and out.device.physical is CUDA0 and out.shape == host.shape
    got = cuda.model.read(out.native)
    np.testing.assert_array_equal(got, host.astype(cuda.native_dtype(dt)))
    assert got.dtype == cuda.native_dtype(dt)
    if case == "narrow":
        assert sum(n for _, n in copies) == host.size * 4  # cast on the host: half the bytes cross
    if case == "widen":  # int8 crosses; widened on the device, on the copy stream, right after the copy
        assert sum(n for _, n in copies) == host.size
        assert "cast on copy0" in cuda.model.log


def test_host_to_device_never_blocks_the_host_and_serves_the_callers_stream(cuda, small_ring):
    side = cuda.model.new_stream(0, "consumer")
    host = np.random.default_rng(2).random(7000)  # fits in the ring: no slot to wait for
    with cuda.model.use_stream(side):
        x = xb.host_to_device(host, backend="fakecuda", device="cuda:0")
        assert not cuda.model.syncs  # no wait on the host, only a stream wait
        y = xb.host_to_device(host[:1000], backend="fakecuda", device="cuda:0", dtype=xb.float32)
        np.testing.assert_array_equal(cuda.model.read(x.native), host)  # `side` waited for the copy
        np.testing.assert_array_equal(cuda.model.read(y.native), host[:1000].astype(np.float32))


def test_a_result_used_on_the_default_stream_is_not_overwritten_by_the_next_transfer(flavoured, small_ring):
    """The block of a freed result goes back to the copy stream's pool; the next copy into it must wait for
    the kernels that read it (torch: record_stream; CuPy: FreeAfter). The copy stream runs ahead (eager)."""
    cuda = flavoured
    cuda.copy_stream(CUDA0).eager = True
    outs = []
    for i in range(4):
        x = xb.host_to_device(np.full(5000, float(i)), backend="fakecuda", device="cuda:0")
        outs.append(cuda.model.launch(lambda a: a * 2, x.native, duration=0.001))  # queued, not run
        del x  # the consumer is done with it as far as the host can tell
    for i, o in enumerate(outs):
        np.testing.assert_array_equal(cuda.model.read(o), 2.0 * i)


def test_staging_reuses_the_ring_across_many_transfers(cuda, small_ring):
    for i in range(50):
        out = _staged(cuda, np.full(1000 + i, float(i)))
        got = cuda.model.read(out)
        assert got[0] == i and got[-1] == i
    ring = T._ring(cuda, CUDA0)
    assert ring.allocations <= ring.n and ring.size * ring.n <= T._LIMIT[0]


def test_staging_limit_bounds_the_ring(cuda):
    old = xb.staging_limit()
    try:
        xb.staging_limit(4 << 20)
        r = T._Ring(cuda, T._LIMIT[0])
        assert r.size * r.n <= 4 << 20 and r.n >= 2
        with pytest.raises(xb.ArgumentValueError, match=r"staging_limit\(\) must be >= 0 bytes, got -1. Fix: "):
            xb.staging_limit(-1)
    finally:
        xb.staging_limit(old)


def test_staging_limit_right_after_a_transfer_keeps_the_slots_its_copies_read(cuda, small_ring):
    """Issue 20 item 4: the old ring's pinned slots go back to a pool that reuses them at once; a new
    ring refilling one while the old copy still reads it would corrupt the old transfer."""
    old = xb.staging_limit()
    try:
        a = np.random.default_rng(3).random(40_000)  # 320 KB: several chunks, every slot of the ring
        x = xb.host_to_device(a, backend="fakecuda", device="cuda:0")  # its copies have not run (lazy)
        xb.staging_limit(1 << 20)  # new rings: the old slots are let go
        b = np.random.default_rng(4).random(40_000)
        y = xb.host_to_device(b, backend="fakecuda", device="cuda:0")
        np.testing.assert_array_equal(cuda.model.read(x.native), a)
        np.testing.assert_array_equal(cuda.model.read(y.native), b)
    finally:
        xb.staging_limit(old)


def test_a_failing_fill_leaves_no_fill_running_and_no_dma_into_freed_memory(cuda, small_ring, monkeypatch):
    """Issue 20 item 3: the copies queued before the error still write the dropped buffer; the allocator
    must not hand that block to other work before they ran (it is in the copy stream's pool)."""
    real = np.copyto
    calls = []

    def flaky(dst, src, casting="same_kind"):
        calls.append(threading.current_thread().name)
        if len(calls) == 6:
            raise MemoryError("simulated")
        time.sleep(0.01)  # slow fills: several are queued or running when one fails
        real(dst, src, casting=casting)

    monkeypatch.setattr(T.np, "copyto", flaky)
    monkeypatch.setattr(T, "_THREADS", 4)
    monkeypatch.setattr(T, "_THREADED_FROM", 1 << 10)
    host = np.random.default_rng(3).random(1 << 17)  # 1 MB: the threaded path, many chunks
    with pytest.raises(MemoryError) as failed:
        xb.host_to_device(host, backend="fakecuda", device="cuda:0")
    del failed  # its traceback held the dropped buffer
    gc.collect()
    n = len(calls)
    time.sleep(0.1)
    assert len(calls) == n  # nothing still filling after the error
    monkeypatch.setattr(T.np, "copyto", real)
    zeros = cuda.model.launch(lambda a: np.zeros(host.nbytes, np.uint8), np.zeros(1))  # new work, default stream
    cuda.model.synchronize_all()  # the stale DMAs run now
    assert not cuda.model.read(zeros).any()
    out = xb.host_to_device(host, backend="fakecuda", device="cuda:0")  # the ring is usable again
    np.testing.assert_array_equal(cuda.model.read(out.native), host)


def test_large_host_to_cuda_moves_use_the_ring_small_ones_the_library(cuda, copies):
    from xbackend import _interchange as I
    from xbackend._dispatch import get_backend

    np_be = get_backend("numpy")
    big = np.random.default_rng(2).random(I._STAGE_FROM // 8 + 3)  # just over the threshold
    y = I._transport(np_be, big, xb.float64, xb.device("cpu"), cuda, CUDA0)
    assert sum(n for _, n in copies) == big.nbytes
    np.testing.assert_array_equal(cuda.model.read(y), big)
    small = np.arange(10.0)
    y = I._transport(np_be, small, xb.float64, xb.device("cpu"), cuda, CUDA0)
    assert sum(n for _, n in copies) == big.nbytes  # the library's own copy (from_host)
    np.testing.assert_array_equal(y, small)


# --- device->host ------------------------------------------------------------------------------------
def _on_device(cuda, a):
    raw = cuda.model.malloc(a.nbytes, cuda.model.current_stream())
    out = raw.view(a.dtype).reshape(a.shape)
    cuda.model.copy(out, a, cuda.model.current_stream(), "fill")
    return _new(out, cuda.dtype_of(a), CUDA0, cuda)


def test_async_d2h_is_reachable_only_after_the_event(cuda):
    x = _on_device(cuda, np.arange(6.0).reshape(2, 3))
    p = xb.device_to_host(x, blocking=False)
    assert isinstance(p, xb.PendingHost) and not p.done()
    assert "running" in repr(p) and not cuda.model.syncs
    h = p.result()
    assert p.done() and len(cuda.model.syncs) == 1
    np.testing.assert_array_equal(h, np.arange(6.0).reshape(2, 3))
    h2 = xb.device_to_host(x)  # blocking: waited before returning
    assert isinstance(h2, np.ndarray) and len(cuda.model.syncs) == 2


def test_a_dropped_pending_host_keeps_its_buffer_until_the_copy_completed(cuda, small_ring):
    """Issue 20 item 4: a pinned pool that reuses freed buffers at once (CuPy's) would give the buffer a
    DMA still writes to the next user - here the ring of a host->device copy."""
    x = _on_device(cuda, np.full(8192, 7.0))  # 64 KiB: the size of a ring slot
    xb.device_to_host(x, blocking=False)  # dropped unread, its DMA still queued
    b = np.random.default_rng(5).random(8192)
    y = xb.host_to_device(b, backend="fakecuda", device="cuda:0")  # a new ring: pinned slots from the pool
    np.testing.assert_array_equal(cuda.model.read(y.native), b)
    cuda.model.synchronize_all()
    T._drain()
    assert not T._KEEP  # let go once the copy completed


def test_large_device_to_host_buffers_are_released_when_their_array_dies(cuda, monkeypatch):
    """Issue 20 item 6: the host allocator keeps what it pinned (torch: a power of two above the size)."""
    monkeypatch.setattr(T, "_RELEASE_FROM", 1 << 16)
    monkeypatch.setattr(T, "_RELEASE_AFTER", 0.2)
    x = _on_device(cuda, np.ones(300_000))  # 2.4 MB -> a 4 MiB pinned block
    for _ in range(3):  # a loop of large copies: the cached block is reused, not released in between
        h = xb.device_to_host(x)
        assert h.sum() == 300_000
    assert cuda.model.pinned_cached() > 0 and T._RELEASE
    del h
    time.sleep(1.0)  # idle: the timer releases
    assert cuda.model.pinned_cached() == 0 and not T._RELEASE
    small = xb.device_to_host(_on_device(cuda, np.ones(10)))
    del small  # below the threshold: the pool keeps it for the next copy
    assert cuda.model.pinned_cached() > 0


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_cpu_fallbacks(backend):
    pytest.importorskip(backend)
    x = xb.host_to_device(np.arange(4.0), backend=backend, dtype=xb.float32)
    assert x.backend == backend and x.dtype == xb.float32 and x.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert xb.host_to_device([1, 2], backend=backend).dtype == xb.int64
    h = xb.device_to_host(x)
    assert h.dtype == np.float32 and h.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert xb.device_to_host(x, blocking=False).result().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_host_to_device_refuses_device_data_grad_and_dropping_the_imaginary_part(cuda):
    torch = pytest.importorskip("torch")
    with pytest.raises(xb.GradientError):
        xb.host_to_device(torch.ones(2, requires_grad=True), backend="torch")
    with pytest.raises(ValueError, match="host data"):
        xb.host_to_device(xb.ones(2, backend="torch", device="meta"), backend="torch")
    for backend in ("numpy", "fakecuda"):  # the staged path refuses what the plain move refuses
        with pytest.raises(xb.UnsupportedDTypeError, match="imaginary"):
            xb.host_to_device(np.ones(3, complex), backend=backend, device="cuda:0" if backend != "numpy" else None,
                              dtype=xb.float32)  # fmt: skip


def test_pinning_degrades_gracefully_without_cuda():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("CUDA present: pinning is real here")
    x = xb.host_to_device(np.ones(3), backend="torch", device="cpu")  # no pin_memory error on a CPU build
    assert x.tolist() == [1.0, 1.0, 1.0]


# --- prefetch ----------------------------------------------------------------------------------------
def test_prefetch_structures_and_order():
    batches = [(np.full(2, i), {"y": np.int64(i), "name": f"b{i}"}) for i in range(5)]
    out = list(xb.prefetch(batches, backend="numpy", dtype=xb.float32))
    assert len(out) == 5
    for i, (x, d) in enumerate(out):
        assert x.dtype == xb.float32 and x.tolist() == [i, i]
        assert d["name"] == f"b{i}" and d["y"].item() == i


@pytest.mark.parametrize("where", ["numpy", "fakecuda"])
@pytest.mark.parametrize("depth", [1, 2, 4])
def test_prefetch_reads_ahead_exactly_depth_batches(request, where, depth):
    if where == "fakecuda":
        request.getfixturevalue("cuda")
    pulled = []

    def source():
        for i in range(6):
            pulled.append(i)
            yield np.full(1, float(i))

    it = xb.prefetch(source(), backend=where, device="cuda:0" if where != "numpy" else None, depth=depth)
    first = next(it)
    assert xb.device_to_host(first).tolist() == [0.0]
    assert len(pulled) == min(6, depth + 1)  # the next copies start before batch 0 is handed out
    assert [xb.device_to_host(b).tolist()[0] for b in it] == list(range(1, 6))


def test_prefetch_rejects_bad_depth_and_handles_empty():
    with pytest.raises(ValueError):
        xb.prefetch([], depth=0)
    assert list(xb.prefetch([], backend="numpy")) == []


def _leafy_batches(n):
    """Batches with every kind of leaf a data loader yields: NumPy arrays, torch CPU tensors, NumPy
    scalars, labels (passed through)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    return [{"x": rng.random((300, 40)), "t": torch.from_numpy(rng.random(700)), "s": np.float64(i), "tag": f"b{i}"}
            for i in range(n)]  # fmt: skip


def _expected(batch):
    return {"x": batch["x"], "t": batch["t"].numpy(), "s": np.asarray(batch["s"])}


@pytest.mark.parametrize("consumer", ["default stream", "side stream"])
def test_prefetch_hands_every_leaf_kind_to_the_consumers_stream(cuda, small_ring, consumer):
    """Issue 20 item 1: torch CPU tensors, scalars and lists went through host_to_device on the prefetch
    thread, where only that thread's current stream waited: a consumer on another stream read them
    before their copy landed."""
    batches = _leafy_batches(5)
    s = cuda.model.current_stream(0) if consumer == "default stream" else cuda.model.new_stream(0, "consumer")
    with cuda.model.use_stream(s):
        for b, got in zip(batches, xb.prefetch(batches, backend="fakecuda", device="cuda:0", depth=2)):
            assert got["tag"] == b["tag"]
            for k, want in _expected(b).items():
                np.testing.assert_array_equal(cuda.model.read(got[k].native), want, err_msg=k)


def test_prefetch_outputs_are_not_reused_under_the_consumers_kernels(flavoured, small_ring):
    """Issue 20 item 2: the consumer frees batch k while its kernels (queued, not run) still read it; the
    next copies (the copy engine runs ahead) must not be given that block."""
    cuda = flavoured
    cuda.copy_stream(CUDA0).eager = True
    s = cuda.model.new_stream(0, "consumer")
    batches = [np.full(20_000, float(i)) for i in range(8)]
    outs = []
    with cuda.model.use_stream(s):
        for x in xb.prefetch(batches, backend="fakecuda", device="cuda:0", depth=2):
            outs.append(cuda.model.launch(lambda a: a + 1, x.native, duration=0.0005))
            del x  # freed here, as a training loop's `for batch in ...` does at the next batch
        for i, o in enumerate(outs):
            np.testing.assert_array_equal(cuda.model.read(o), i + 1.0)


def test_an_abandoned_prefetch_leaves_no_dma_into_freed_memory(cuda, small_ring):
    """Issue 20 item 3: `break` drops batches whose copies are still queued; their blocks must not reach
    other work before those copies ran."""
    batches = [np.full(30_000, float(i)) for i in range(6)]
    for x in xb.prefetch(batches, backend="fakecuda", device="cuda:0", depth=3):
        break
    del x
    time.sleep(0.05)  # the prefetch thread finishes what it started
    work = [cuda.model.launch(lambda a: np.full(30_000, -5.0), np.zeros(1)) for _ in range(4)]
    cuda.model.synchronize_all()
    for w in work:
        np.testing.assert_array_equal(cuda.model.read(w), -5.0)


def test_prefetch_does_not_block_the_consumer(cuda, small_ring):
    batches = [np.full(10_000, float(i)) for i in range(5)]
    for x in xb.prefetch(batches, backend="fakecuda", device="cuda:0", depth=2):
        cuda.model.launch(lambda a: a * 2, x.native)
    assert not [s for s in cuda.model.syncs if s[2] == threading.current_thread().name]


def test_prefetch_copies_and_casts_run_on_the_prefetch_thread(cuda, small_ring, monkeypatch):
    threads = []
    real = T._h2d_staged
    monkeypatch.setattr(T, "_h2d_staged", lambda *a, **k: threads.append(threading.current_thread().name) or real(*a, **k))
    out = list(xb.prefetch([np.array([1.5, 2.5]), np.array([3.5])], backend="fakecuda", device="cuda:0", depth=1,
                           dtype=xb.float32))  # fmt: skip
    assert [o.dtype for o in out] == [xb.float32, xb.float32] and cuda.model.read(out[1].native).tolist() == [3.5]
    wide = list(xb.prefetch([np.array([1, 2], dtype=np.int8)], backend="fakecuda", device="cuda:0", dtype=xb.float64))
    assert wide[0].dtype == xb.float64 and cuda.model.read(wide[0].native).tolist() == [1.0, 2.0]
    assert "cast on copy0" in cuda.model.log  # widened on the device, ordered after the copy
    assert threads and all(t.startswith("xbackend-prefetch") for t in threads)


def test_prefetch_and_host_to_device_on_a_second_gpu(cuda, small_ring):
    """Issue 20 item 6: the prefetch thread's current device is cuda:0; a widening cast for cuda:1 must
    run on cuda:1 (CuPy launches on the current device)."""
    cuda.flavour = "cupy"
    batches = [np.arange(5, dtype=np.int16) + i for i in range(3)]
    with cuda.model.device(1):
        got = [cuda.model.read(b.native) for b in
               xb.prefetch(batches, backend="fakecuda", device="cuda:1", dtype=xb.float64)]  # fmt: skip
    for g, b in zip(got, batches):
        np.testing.assert_array_equal(g, b)
    y = run_in_thread(lambda: xb.host_to_device(batches[0], backend="fakecuda", device="cuda:1", dtype=xb.float32))
    assert y.device.physical is CUDA1
    with cuda.model.device(1):
        np.testing.assert_array_equal(cuda.model.read(y.native), batches[0])


def test_prefetch_is_lazy():
    calls = collections.Counter()

    def source():
        calls["start"] += 1
        yield np.zeros(1)

    it = xb.prefetch(source(), backend="numpy")
    time.sleep(0)
    assert calls["start"] == 0  # nothing is pulled before iteration starts
    assert len(list(it)) == 1


def test_interchange_benchmark_smoke(tmp_path):
    """benchmarks/interchange.py runs on a CPU machine and writes its tables (quick mode)."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "interchange.py"
    spec = importlib.util.spec_from_file_location("_xb_bench_interchange", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.SIZES.pop("100 MB")
    assert mod.main(["--quick", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "interchange.md").read_text()
    assert "numpy -> torch (cpu)" in text and "torch (cpu) -> numpy" in text  # and it asserted zero-copy


def test_native_device_tensors_are_refused_as_device_data():
    """A native tensor that is not on the host (here torch's 'meta') is refused with the same typed error and
    text as a device Array, not converted through NumPy (which fails differently)."""
    torch = pytest.importorskip("torch")
    for data in (torch.ones(2, device="meta"), xb.ones(2, backend="torch", device="meta")):
        with pytest.raises(xb.ArgumentValueError) as info:
            xb.host_to_device(data, backend="torch")
        assert str(info.value).startswith("host_to_device() needs host data, got a torch Array on meta; "), info.value


def test_the_idle_release_timer_runs_from_the_modules_own_state(monkeypatch):
    """The release timer (large device->host buffers died: release the cached pinned memory once idle) with the
    module's own timer list, not a fixture's: the release happens, once, and leaves nothing pending."""
    released = []

    class Backend:
        def pinned_release(self):
            released.append(1)

    monkeypatch.setattr(T, "_RELEASE_AFTER", 0.05)
    monkeypatch.setattr(T, "_LAST_BIG", [0.0])
    assert not T._TIMER and not T._RELEASE
    T._released(Backend())
    for _ in range(200):
        if released and not T._TIMER:
            break
        time.sleep(0.01)
    assert released == [1] and not T._TIMER and not T._RELEASE


class _Label:
    """A user's label object that happens to have a ``_fields`` attribute (not a tuple)."""

    _fields = ("name",)

    def __iter__(self):
        raise AssertionError("a label must pass through untouched, never be taken apart")


def test_prefetch_passes_non_tuple_objects_with_fields_through():
    label = _Label()
    Point = collections.namedtuple("Point", "x y")
    out = list(xb.prefetch([(np.ones(2), label, Point(np.zeros(1), 3))], backend="numpy"))
    (x, lab, p), = out
    assert lab is label and x.tolist() == [1.0, 1.0]
    assert type(p) is Point and p.x.tolist() == [0.0] and type(p.x) is xb.Array and p.y == 3


@pytest.mark.parametrize("limit", [0, 1, 100 << 10])
def test_a_staging_limit_below_two_slots_still_streams_every_byte(cuda, limit):
    """staging_limit(n) accepts any n >= 0: a limit too small for two slots still gets a working ring (two
    minimum-size slots), never a division by zero or an empty slot."""
    old = xb.staging_limit()
    try:
        xb.staging_limit(limit)
        a = np.arange(50_000, dtype=np.float64)
        y = _staged(cuda, a)
        cuda.model.synchronize_all()
        np.testing.assert_array_equal(cuda.model.read(y), a)
        ring = T._ring(cuda, CUDA0)
        assert ring.n >= 2 and ring.size >= 1 << 10
    finally:
        xb.staging_limit(old)


def test_bfloat16_torch_arrays_come_to_the_host():
    """torch's ``Tensor.numpy()`` refuses bfloat16: the move takes the general path (ml_dtypes' bfloat16)."""
    pytest.importorskip("torch")
    pytest.importorskip("ml_dtypes")
    x = xb.asarray([1.5, -2.0], dtype=xb.bfloat16, backend="torch")
    h = x.numpy()
    assert str(h.dtype) == "bfloat16" and h.astype(np.float32).tolist() == [1.5, -2.0]


# --- the staging schedule docs/interchange.md promises ------------------------------------------------------------
KIB, MIB = 1 << 10, 1 << 20


def test_the_staging_schedule_is_the_documented_one(cuda, copies, monkeypatch):
    """docs/interchange.md: 8 MiB slots, at most 256 MiB of them by default, the first chunk 256 KiB and the
    chunks doubling (up to a slot); a ring of at least two slots, the staging threads the CPU count up to 12."""
    host = np.arange(40 * MIB // 4, dtype=np.float32)  # 40 MiB
    out = _staged(cuda, host)
    assert np.array_equal(cuda.model.read(out), host)
    sizes = [n for _, n in copies]
    want, step = [], 256 * KIB
    while sum(want) < 40 * MIB:  # 256 KiB, 512 KiB, ... 8 MiB, 8 MiB, ..., the tail
        want.append(min(step, 40 * MIB - sum(want)))
        step = min(2 * step, 8 * MIB)
    assert sizes == want and [lo for lo, _ in copies] == [sum(want[:i]) for i in range(len(want))]
    ring = T._ring(cuda, CUDA0)
    assert ring.size == 8 * MIB and xb.staging_limit() == 256 * MIB and ring.n == min(32, T._THREADS + 2)
    assert T._THREADS == max(1, min(int(os.environ.get("XBACKEND_STAGING_THREADS", 0)) or (os.cpu_count() or 1),
                                    12))  # fmt: skip
    tiny = T._Ring(cuda, 64 * KIB)  # a limit below two slots: two slots of the smallest size
    assert (tiny.size, tiny.n) == (64 * KIB, 2)
    half = T._Ring(cuda, 10 * MIB)  # slots of half the limit, at most 8 MiB
    assert (half.size, half.n) == (5 * MIB, 2)


@pytest.mark.parametrize("cpus, env, want", [(2, None, 2), (64, None, 12), (None, None, 1), (8, "3", 3),
                                             (8, "40", 12)])  # fmt: skip
def test_staging_threads_follow_the_cpu_count_up_to_12(monkeypatch, cpus, env, want):
    import importlib

    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    if env is None:
        monkeypatch.delenv("XBACKEND_STAGING_THREADS", raising=False)
    else:
        monkeypatch.setenv("XBACKEND_STAGING_THREADS", env)
    src = importlib.util.find_spec("xbackend._transfer").origin
    ns: dict = {}
    line = next(ln for ln in open(src).read().splitlines() if ln.startswith("_THREADS ="))
    exec(line, {"os": os}, ns)  # the module's own rule, run under this environment
    assert ns["_THREADS"] == want


def test_rings_are_per_device_and_buffers_from_16_mib_are_released(cuda, copies, monkeypatch):
    """docs/interchange.md: a ring per backend and device; from 16 MiB (16 MiB included) a device->host buffer is
    released when its array dies, below it the pool keeps it."""
    a = xb.host_to_device(np.ones(3 * MIB // 8), backend="fakecuda", device="cuda:0")
    b = xb.host_to_device(np.full(3 * MIB // 8, 2.0), backend="fakecuda", device="cuda:1")
    assert xb.device_to_host(a).sum() == 3 * MIB // 8 and xb.device_to_host(b).sum() == 3 * MIB // 4
    assert sorted(T._RINGS, key=str) == [("fakecuda", CUDA0), ("fakecuda", CUDA1)]
    monkeypatch.setattr(T, "_RELEASE_AFTER", 3600.0)  # (the timer must not run the release during the test)
    for nbytes, released in ((16 * MIB, True), (16 * MIB - 8, False)):
        T._RELEASE.clear()
        h = xb.device_to_host(_on_device(cuda, np.ones(nbytes // 8)))
        assert h.nbytes == nbytes
        del h
        assert bool(T._RELEASE) is released, nbytes
