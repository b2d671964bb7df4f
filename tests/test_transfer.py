"""Host<->device transfers: pinned staging pool, non-blocking copies made safe, prefetch.

The CUDA paths are exercised on the CPU through a fake GPU backend (NumPy memory, events that complete
only when waited on), so the pool's reuse/bounding and the staging casts are tested here; the real
CUDA versions carry the ``gpu`` marker.
"""

from __future__ import annotations

import collections
import time

import numpy as np
import pytest

import xbackend as xb
from xbackend import _transfer as T
from xbackend._array import _new
from xbackend._backends.numpy import NumpyBackend

CUDA0 = xb.device("cuda:0")


class FakeEvent:
    def __init__(self) -> None:
        self.done = False


class FakeGPU(NumpyBackend):
    """NumPy memory pretending to live on cuda:0. Its DMA is lazy, as a GPU's may be: a queued copy reads
    its pinned source only when its event (or a later one) is waited on, or when the transfer closes; so
    refilling a slot before its copy's event completed corrupts the result. Events complete only when
    waited on (the worst case for the host)."""

    name = "fakegpu"

    def __init__(self) -> None:
        super().__init__()
        self.waits = 0
        self.copies: list[int] = []  # bytes per transfer
        self.offsets: list[tuple[int, int]] = []  # (lo, n) per chunk, in queue order
        self.pending: collections.deque = collections.deque()
        self.stream_waits = 0

    def check_device(self, dev):
        return dev

    def device_of(self, x):
        return CUDA0

    def to_device(self, x, dev):
        return x

    def pinned_alloc(self, nbytes):
        buf = np.empty(nbytes, dtype=np.uint8)
        return buf, buf

    def h2d_open(self, nbytes, dev):
        self.copies.append(nbytes)
        self.offsets = []
        return np.empty(nbytes, dtype=np.uint8)

    def h2d_copy(self, out, buf, lo, n):
        ev = FakeEvent()
        self.pending.append((ev, out, lo, buf, n))
        self.offsets.append((lo, n))
        return ev

    def _run(self, upto=None):
        while self.pending:
            ev, out, lo, buf, n = self.pending.popleft()
            out[lo : lo + n] = buf[:n]  # the DMA reads the pinned slot now
            ev.done = True
            if ev is upto:
                return

    def h2d_close(self, out, wait=True):
        self._run()
        return out, FakeEvent()

    def stream_wait(self, ev, dev):
        self.stream_waits += 1

    def timing_event(self, dev):  # an event recorded on the current stream (after a device-side cast)
        ev = FakeEvent()
        ev.done = True
        return ev

    def bytes_as(self, raw, dt, shape):
        return raw.view(self.native_dtype(dt)).reshape(shape)

    def d2h_start(self, x):
        return np.ascontiguousarray(x).reshape(-1).view(np.uint8).copy(), FakeEvent()

    def event_done(self, ev):
        return ev is None or ev.done

    def event_wait(self, ev):
        self.waits += 1
        self._run(upto=ev)
        ev.done = True


@pytest.fixture
def fake():
    return FakeGPU()


@pytest.fixture
def small_ring(monkeypatch):
    """64 KiB slots, first chunk 4 KiB: megabytes already take many chunks and reuse every slot."""
    monkeypatch.setattr(T, "_CHUNK", 64 << 10)
    monkeypatch.setattr(T, "_FIRST", 4 << 10)
    old = xb.staging_limit()
    xb.staging_limit(1 << 20)
    yield
    xb.staging_limit(old)


def _ring(fake):
    return T._Ring(fake, T._LIMIT[0])


# --- the pinned ring ---------------------------------------------------------------------------------
def test_ring_reuses_a_slot_only_after_its_event(fake, small_ring):
    ring = _ring(fake)
    s0 = ring.take(0)
    ev = FakeEvent()
    s0.event = ev
    assert ring.take(1) is not s0 and ring.allocations == 2
    assert ring.take(ring.n) is s0  # the same slot again: waited for its copy first
    assert ev.done and fake.waits == 1 and s0.event is None
    assert ring.allocations == 2 and ring.size * ring.n <= xb.staging_limit()


@pytest.mark.parametrize("dtype", [xb.float64, xb.float32, xb.int16])
def test_ring_streams_every_byte_in_order(fake, small_ring, dtype):
    host = np.random.default_rng(0).random((640, 1024)) * 1000  # 5 MB: ~80 chunks through 6+ slots
    ring = _ring(fake)
    out, _ = T._h2d_staged(fake, ring, CUDA0, host, xb.float64, dtype)
    np.testing.assert_array_equal(out.native, host.astype(fake.native_dtype(dtype)))
    los = [lo for lo, _ in fake.offsets]
    assert los == sorted(los) and los[0] == 0  # handed over in order, contiguous, covering everything
    assert all(lo + n == nxt for (lo, n), nxt in zip(fake.offsets, los[1:] + [fake.copies[-1]]))
    sizes = [n for _, n in fake.offsets]
    assert sizes[0] == T._FIRST and max(sizes) == ring.size  # small first chunk, doubling to a slot
    assert ring.allocations <= ring.n < len(sizes) and fake.waits > 0  # slots were reused, after waiting


@pytest.mark.parametrize("n", [1, 7, 4095, 4097, 65537, 300_001])
@pytest.mark.parametrize("dt", ["int8", "float16", "float64", "complex128"])
def test_ring_odd_sizes_and_tails(fake, small_ring, n, dt):
    host = (np.arange(n) % 251).astype(dt)
    out, _ = T._h2d_staged(fake, _ring(fake), CUDA0, host, fake.dtype_of(host), fake.dtype_of(host))
    np.testing.assert_array_equal(out.native, host)
    assert sum(n_ for _, n_ in fake.offsets) == host.nbytes


def test_ring_moves_300_mb_byte_exactly(fake):
    host = np.arange(75_000_000, dtype=np.uint32)  # 300 MB, default 8 MiB slots
    host[::4097] ^= 0xDEADBEEF
    ring = _ring(fake)
    out, _ = T._h2d_staged(fake, ring, CUDA0, host, xb.uint32, xb.uint32)
    assert np.array_equal(out.native, host)
    assert len(fake.offsets) > ring.n and ring.allocations <= ring.n


def test_ring_fills_on_several_threads(fake, small_ring, monkeypatch):
    seen = set()
    real = np.copyto

    def spy(dst, src, casting="same_kind"):
        import threading

        seen.add(threading.current_thread().name)
        real(dst, src, casting=casting)

    monkeypatch.setattr(T.np, "copyto", spy)
    monkeypatch.setattr(T, "_THREADS", 3)
    host = np.random.default_rng(1).random(1 << 19)
    out, _ = T._h2d_staged(fake, T._Ring(fake, T._LIMIT[0]), CUDA0, host, xb.float64, xb.float64)
    np.testing.assert_array_equal(out.native, host)
    assert any(name.startswith("xbackend-staging") for name in seen)


# --- staged host->device ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["contiguous", "strided", "byteswapped", "narrow", "widen", "0-d", "size-0", "bool",
                                  "strided-wide-rows"])  # fmt: skip
def test_staged_h2d_values_and_dtypes(fake, small_ring, case):
    base = np.arange(24.0).reshape(4, 6)
    host, dt = {
        "contiguous": (base, xb.float64), "strided": (base[::-1, ::2], xb.float64),
        "byteswapped": (base.astype(">f8"), xb.float64), "narrow": (base, xb.float32),
        "widen": (base.astype(np.int8), xb.float64), "0-d": (np.array(2.5), xb.float64),
        "size-0": (np.zeros((0, 3)), xb.float64), "bool": (base > 10, xb.bool),
        "strided-wide-rows": (np.arange(3 * 20000.0).reshape(3, 20000)[:, ::2], xb.float32),
    }[case]  # fmt: skip
    hdt = fake.dtype_of(host)
    out, _ = T._h2d_staged(fake, _ring(fake), CUDA0, host, hdt, dt)
    assert out.dtype == dt and out.device.physical is CUDA0 and out.shape == host.shape
    np.testing.assert_array_equal(out.native, host.astype(fake.native_dtype(dt)))
    assert out.native.dtype == fake.native_dtype(dt)
    if case == "narrow":
        assert fake.copies[-1] == host.size * 4  # cast on the host: half the bytes cross
    if case == "widen":
        assert fake.copies[-1] == host.size  # int8 crosses, widened on the device


def test_staging_reuses_the_ring_across_many_transfers(fake, small_ring):
    ring = _ring(fake)
    for i in range(50):
        out, _ = T._h2d_staged(fake, ring, CUDA0, np.full(1000 + i, float(i)), xb.float64, xb.float64)
        assert out.native[0] == i and out.native[-1] == i
    assert ring.allocations <= ring.n and ring.size * ring.n <= xb.staging_limit()


def test_staging_limit_bounds_the_ring():
    old = xb.staging_limit()
    try:
        xb.staging_limit(4 << 20)
        r = T._Ring(FakeGPU(), T._LIMIT[0])
        assert r.size * r.n <= 4 << 20 and r.n >= 2
        with pytest.raises(ValueError):
            xb.staging_limit(-1)
    finally:
        xb.staging_limit(old)


# --- device->host ------------------------------------------------------------------------------------
def test_async_d2h_is_reachable_only_after_the_event(fake):
    x = _new(np.arange(6.0).reshape(2, 3), xb.float64, CUDA0, fake)
    p = xb.device_to_host(x, blocking=False)
    assert isinstance(p, xb.PendingHost) and not p.done()
    assert "running" in repr(p)
    h = p.result()
    assert p.done() and fake.waits == 1
    np.testing.assert_array_equal(h, np.arange(6.0).reshape(2, 3))
    h2 = xb.device_to_host(x)  # blocking: waited before returning
    assert isinstance(h2, np.ndarray) and fake.waits == 2


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_cpu_fallbacks(backend):
    pytest.importorskip(backend)
    x = xb.host_to_device(np.arange(4.0), backend=backend, dtype=xb.float32)
    assert x.backend == backend and x.dtype == xb.float32 and x.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert xb.host_to_device([1, 2], backend=backend).dtype == xb.int64
    h = xb.device_to_host(x)
    assert h.dtype == np.float32 and h.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert xb.device_to_host(x, blocking=False).result().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_host_to_device_refuses_device_data_and_grad():
    torch = pytest.importorskip("torch")
    with pytest.raises(xb.GradientError):
        xb.host_to_device(torch.ones(2, requires_grad=True), backend="torch")
    with pytest.raises(ValueError, match="host data"):
        xb.host_to_device(xb.ones(2, backend="torch", device="meta"), backend="torch")


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


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_prefetch_reads_ahead_exactly_depth_batches(depth):
    pulled = []

    def source():
        for i in range(6):
            pulled.append(i)
            yield np.full(1, i)

    it = xb.prefetch(source(), backend="numpy", depth=depth)
    first = next(it)
    assert first.tolist() == [0]
    assert len(pulled) == min(6, depth + 1)  # the next copies start before batch 0 is handed out
    assert [b.tolist()[0] for b in it] == list(range(1, 6))


def test_prefetch_rejects_bad_depth_and_handles_empty():
    with pytest.raises(ValueError):
        xb.prefetch([], depth=0)
    assert list(xb.prefetch([], backend="numpy")) == []


def test_prefetch_matches_a_plain_loop_on_the_fake_gpu(fake, small_ring, monkeypatch):
    monkeypatch.setattr(T, "_target", lambda b, d: (fake, CUDA0))
    rng = np.random.default_rng(0)
    batches = [(rng.random((300, 40)), {"y": rng.random(5), "tag": i}) for i in range(6)]
    got = [(x.native.copy(), d["y"].native.copy(), d["tag"]) for x, d in xb.prefetch(batches, depth=2)]
    for (gx, gy, tag), (bx, d) in zip(got, batches):
        np.testing.assert_array_equal(gx, bx)
        np.testing.assert_array_equal(gy, d["y"])
        assert tag == d["tag"]
    assert len(fake.copies) == 12  # copied on the prefetch thread ...
    assert fake.stream_waits == 12  # ... and each handed out only after the consumer's stream waits for it


def test_prefetch_copies_run_on_the_prefetch_thread(fake, small_ring, monkeypatch):
    import threading

    monkeypatch.setattr(T, "_target", lambda b, d: (fake, CUDA0))
    threads = []
    real = T._h2d_staged
    monkeypatch.setattr(T, "_h2d_staged", lambda *a, **k: threads.append(threading.current_thread().name) or real(*a, **k))
    out = list(xb.prefetch([np.array([1.5, 2.5]), np.array([3.5])], depth=1, dtype=xb.float32))
    assert [o.dtype for o in out] == [xb.float32, xb.float32] and out[1].native.tolist() == [3.5]
    wide = list(xb.prefetch([np.array([1, 2], dtype=np.int8)], dtype=xb.float64))  # cast on the device after the copy
    assert wide[0].dtype == xb.float64 and wide[0].native.tolist() == [1.0, 2.0]
    assert threads and all(t.startswith("xbackend-prefetch") for t in threads)


# --- GPU ----------------------------------------------------------------------------------------------
def _gpu_backends():
    return [b for b in ("torch", "cupy") if any(t.backend == b and t.is_gpu for t in xb.testing.available_targets())]


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["torch", "cupy"])
def test_gpu_pinned_h2d_and_d2h_values(backend):
    if backend not in _gpu_backends():
        pytest.skip(f"{backend} has no CUDA device here")
    rng = np.random.default_rng(0)
    for shape, dt in [((1000, 3), xb.float64), ((17,), xb.float32), ((), xb.int32), ((0, 2), xb.float64)]:
        host = rng.random(shape) * 100
        x = xb.host_to_device(host, backend=backend, device="cuda", dtype=dt)
        want = host.astype(dt.name)
        np.testing.assert_array_equal(xb.device_to_host(x), want)
        np.testing.assert_array_equal(xb.device_to_host(x, blocking=False).result(), want)


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["torch", "cupy"])
def test_gpu_async_d2h_never_hands_out_unsynchronised_memory(backend):
    if backend not in _gpu_backends():
        pytest.skip(f"{backend} has no CUDA device here")
    n = 50 << 20  # 400 MB of float64
    bad = 0
    for i in range(10):
        x = xb.full(n // 8, float(i), backend=backend, device="cuda")
        p = xb.device_to_host(x, blocking=False)
        h = p.result()
        bad += int(h[-1] != i) + int(h[0] != i)
    assert bad == 0


@pytest.mark.gpu
def test_gpu_host_buffer_may_be_overwritten_after_return():
    if "torch" not in _gpu_backends():
        pytest.skip("torch has no CUDA device here")
    host = np.arange(1 << 20, dtype=np.float64)
    x = xb.host_to_device(host, backend="torch", device="cuda")
    host[:] = -1.0  # the staging copy decoupled the source
    h = x.numpy()
    assert h[0] == 0.0 and h[-1] == (1 << 20) - 1 and (h >= 0).all()


@pytest.mark.gpu
def test_gpu_prefetch_results_equal_a_plain_loop():
    for backend in _gpu_backends():
        batches = [np.random.default_rng(i).random((256, 64)) for i in range(8)]
        got = [b.numpy() for b in xb.prefetch(batches, backend=backend, device="cuda", dtype=xb.float32)]
        for g, b in zip(got, batches):
            np.testing.assert_array_equal(g, b.astype(np.float32))


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


def test_large_host_to_cuda_moves_use_the_ring_small_ones_the_library(fake):
    from xbackend import _interchange as I
    from xbackend._dispatch import get_backend

    np_be = get_backend("numpy")
    big = np.random.default_rng(2).random(I._STAGE_FROM // 8 + 3)  # just over the threshold
    y = I._transport(np_be, big, xb.float64, xb.device("cpu"), fake, CUDA0)
    assert fake.copies == [big.nbytes]
    np.testing.assert_array_equal(y, big)
    small = np.arange(10.0)
    y = I._transport(np_be, small, xb.float64, xb.device("cpu"), fake, CUDA0)
    assert fake.copies == [big.nbytes]  # the library's own copy (from_host)
    np.testing.assert_array_equal(y, small)


def test_a_failing_fill_leaves_no_fill_running(fake, small_ring, monkeypatch):
    import threading

    real = np.copyto
    calls = []

    def flaky(dst, src, casting="same_kind"):
        calls.append(threading.current_thread().name)
        if len(calls) == 3:
            raise MemoryError("simulated")
        time.sleep(0.02)  # slow fills: several are queued or running when one fails
        real(dst, src, casting=casting)

    monkeypatch.setattr(T.np, "copyto", flaky)
    monkeypatch.setattr(T, "_THREADS", 4)
    ring = _ring(fake)
    host = np.random.default_rng(3).random(1 << 20)  # 8 MB: the threaded path
    with pytest.raises(MemoryError):
        T._h2d_staged(fake, ring, CUDA0, host, xb.float64, xb.float64)
    n = len(calls)
    time.sleep(0.2)
    assert len(calls) == n  # nothing still filling after the error
    monkeypatch.setattr(T.np, "copyto", real)
    out, _ = T._h2d_staged(fake, ring, CUDA0, host, xb.float64, xb.float64)  # the ring is usable again
    np.testing.assert_array_equal(out.native, host)
