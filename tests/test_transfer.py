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
    """NumPy memory pretending to live on cuda:0; events complete only when waited on (worst case)."""

    name = "fakegpu"

    def __init__(self) -> None:
        super().__init__()
        self.waits = 0
        self.copies: list[int] = []

    def check_device(self, dev):
        return dev

    def device_of(self, x):
        return CUDA0

    def to_device(self, x, dev):
        return x

    def pinned_alloc(self, nbytes):
        buf = np.empty(nbytes, dtype=np.uint8)
        return buf, buf

    def h2d_bytes(self, buf, nbytes, dev, fill=None, chunk=1 << 62):
        self.copies.append(nbytes)
        out = np.empty(nbytes, dtype=np.uint8)
        for lo in range(0, nbytes, chunk):  # the same chunk loop as the CUDA backends
            hi = min(lo + chunk, nbytes)
            if fill is not None:
                fill(lo, hi)
            out[lo:hi] = buf[lo:hi]
        self.chunks = -(-nbytes // chunk) if nbytes else 0
        return out, FakeEvent()

    def bytes_as(self, raw, dt, shape):
        return raw.view(self.native_dtype(dt)).reshape(shape)

    def d2h_start(self, x):
        return np.ascontiguousarray(x).reshape(-1).view(np.uint8).copy(), FakeEvent()

    def event_done(self, ev):
        return ev is None or ev.done

    def event_wait(self, ev):
        self.waits += 1
        ev.done = True


@pytest.fixture
def fake():
    return FakeGPU()


@pytest.fixture
def small_limit():
    old = xb.staging_limit()
    xb.staging_limit(4 << 20)
    yield
    xb.staging_limit(old)


# --- staging pool ----------------------------------------------------------------------------------
def test_pool_reuses_a_buffer_only_after_its_event(fake, small_limit):
    pool = T._Staging(fake)
    b1 = pool.acquire(1000)
    ev = FakeEvent()
    pool.release(b1, ev)
    b2 = pool.acquire(1000)
    assert b2 is not b1  # b1's copy may still be running
    ev.done = True
    pool.release(b2, FakeEvent())
    assert pool.acquire(500) is b1  # completed: reused
    assert pool.allocations == 2


def test_pool_is_bounded_and_waits_for_the_oldest_copy(fake, small_limit):
    pool = T._Staging(fake)
    held = []
    for _ in range(4):  # 4 x 1 MiB fills the 4 MiB limit
        b = pool.acquire(1 << 20)
        held.append(b)
        pool.release(b, FakeEvent())
    assert pool.total == 4 << 20
    b = pool.acquire(1 << 20)  # must wait for the oldest copy instead of allocating
    assert fake.waits == 1 and b is held[0] and pool.total == 4 << 20
    assert pool.acquire(8 << 20) is None  # larger than the limit: not staged


def test_pool_drops_idle_small_buffers_to_fit_a_large_one(fake, small_limit):
    pool = T._Staging(fake)
    bufs = [pool.acquire(1 << 20) for _ in range(3)]
    for b in bufs:
        pool.release(b, None)  # completed copies
    assert pool.total == 3 << 20
    big = pool.acquire((2 << 20) + 1)  # rounds up to 4 MiB: the idle 1 MiB buffers must go
    assert big.size == 4 << 20 and pool.total == 4 << 20 and pool.allocations == 4


# --- staged host->device ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["contiguous", "strided", "byteswapped", "narrow", "widen", "0-d", "size-0", "bool"])
def test_staged_h2d_values_and_dtypes(fake, small_limit, case):
    base = np.arange(24.0).reshape(4, 6)
    host, dt = {
        "contiguous": (base, xb.float64), "strided": (base[::-1, ::2], xb.float64),
        "byteswapped": (base.astype(">f8"), xb.float64), "narrow": (base, xb.float32),
        "widen": (base.astype(np.int8), xb.float64), "0-d": (np.array(2.5), xb.float64),
        "size-0": (np.zeros((0, 3)), xb.float64), "bool": (base > 10, xb.bool),
    }[case]  # fmt: skip
    hdt = fake.dtype_of(host)
    pool = T._Staging(fake)
    out = T._h2d_staged(fake, pool, CUDA0, host, hdt, dt)
    assert out.dtype == dt and out.device.physical is CUDA0 and out.shape == host.shape
    np.testing.assert_array_equal(out.native, host.astype(fake.native_dtype(dt)))
    assert out.native.dtype == fake.native_dtype(dt)
    if case == "narrow":
        assert fake.copies[-1] == host.size * 4  # cast on the host: half the bytes cross
    if case == "widen":
        assert fake.copies[-1] == host.size  # int8 crosses, widened on the device


def test_staged_h2d_larger_than_limit_falls_back(fake, monkeypatch):
    monkeypatch.setattr(T, "_LIMIT", [1024])
    pool = T._Staging(fake)
    host = np.arange(1000.0)
    moved = []
    monkeypatch.setattr(T, "move", lambda a, **kw: moved.append(kw) or a)
    T._h2d_staged(fake, pool, CUDA0, host, xb.float64, xb.float64)
    assert moved and fake.copies == []


@pytest.mark.parametrize("dtype", [xb.float64, xb.float32, xb.int16])
def test_pipelined_chunks_stage_every_byte(fake, monkeypatch, dtype):
    monkeypatch.setattr(T, "_CHUNK", 1 << 16)  # 64 KiB chunks; 5 MB host: chunked and threaded
    host = np.random.default_rng(0).random((640, 1024)) * 1000
    out = T._h2d_staged(fake, T._Staging(fake), CUDA0, host, xb.float64, dtype)
    assert fake.chunks > 1
    np.testing.assert_array_equal(out.native, host.astype(fake.native_dtype(dtype)))


def test_parallel_copy_matches_copyto():
    src = np.arange(3_000_001, dtype=np.float64)
    dst = np.empty(src.size, dtype=np.float32)
    T._copy_parallel(dst, src)
    np.testing.assert_array_equal(dst, src.astype(np.float32))


def test_staging_reuses_buffers_across_many_transfers(fake, small_limit):
    pool = T._Staging(fake)
    for i in range(50):
        out = T._h2d_staged(fake, pool, CUDA0, np.full(1000, float(i)), xb.float64, xb.float64)
        assert out.native[0] == i
    assert pool.allocations <= 4 and pool.total <= xb.staging_limit()


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


def test_prefetch_matches_a_plain_loop_on_the_fake_gpu(fake, small_limit, monkeypatch):
    import xbackend._creation as C

    monkeypatch.setattr(C, "_target", lambda b, d: (fake, CUDA0))
    rng = np.random.default_rng(0)
    batches = [rng.random((8, 4)) for _ in range(6)]
    got = [b.native.copy() for b in xb.prefetch(batches, depth=2)]
    for g, b in zip(got, batches):
        np.testing.assert_array_equal(g, b)
    assert len(fake.copies) == 6


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
