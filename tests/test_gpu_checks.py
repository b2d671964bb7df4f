"""Issue 20 on a real GPU: the stream-safety checks of tests/test_transfer.py and tests/test_timer.py, run
against torch-CUDA and CuPy (``gpu`` marker; benchmarks/gpu_check.sh runs this file first).

Each check makes the hazard likely rather than possible: the copy stream is slowed down by a spin kernel
queued before every DMA chunk (so a consumer that does not wait, or an allocation that does not wait,
runs before the copy), and consumers queue a spin before reading. Every check compares every element.
"""

from __future__ import annotations

import contextlib
import gc

import numpy as np
import pytest

import xbackend as xb
from xbackend import _transfer as T
from xbackend._dispatch import get_backend

pytestmark = pytest.mark.gpu
CUDA0 = xb.device("cuda:0")
SPIN = 2_000_000  # GPU clock cycles per spin (about 1 ms on an H200)


def _gpu(backend):
    if not any(t.backend == backend and t.is_gpu for t in xb.testing.available_targets()):
        pytest.skip(f"{backend} has no CUDA device here")
    return get_backend(backend)


_SPIN_KERNEL: list = []


def _spin(backend, stream=None, cycles=SPIN):
    """Device work of ``cycles`` clock cycles on ``stream`` (default: the current one), touching no memory."""
    if backend == "torch":
        import torch

        with torch.cuda.stream(stream) if stream is not None else contextlib.nullcontext():
            torch.cuda._sleep(cycles)
        return
    import cupy

    if not _SPIN_KERNEL:
        _SPIN_KERNEL.append(cupy.RawKernel(
            r'extern "C" __global__ void spin(long long n) { long long t0 = clock64(); while (clock64() - t0 < n) {} }',
            "spin"))  # fmt: skip
    with stream if stream is not None else contextlib.nullcontext():
        _SPIN_KERNEL[0]((1,), (1,), (np.int64(cycles),))


def _side_stream(backend):
    if backend == "torch":
        import torch

        s = torch.cuda.Stream()
        return s, torch.cuda.stream(s)
    import cupy

    s = cupy.cuda.Stream(non_blocking=True)
    return s, s


@pytest.fixture
def slow_copies(monkeypatch):
    """Every staged DMA chunk waits behind a spin on the copy stream (the host is not slowed)."""

    def install(be, cycles=SPIN):
        real = be.h2d_copy

        def slow(raw, lo, owner, n, stream):
            _spin(be.name, stream, cycles)
            return real(raw, lo, owner, n, stream)

        monkeypatch.setattr(be, "h2d_copy", slow)

    return install


def _host(a):
    return xb.device_to_host(a)


@pytest.mark.parametrize("backend", ["torch", "cupy"])
def test_gpu_prefetch_hands_every_leaf_to_a_side_stream_consumer(backend, slow_copies):
    """Item 1: torch CPU tensors and NumPy scalars, consumed on a non-default stream, depth 1."""
    torch = pytest.importorskip("torch")
    be = _gpu(backend)
    slow_copies(be)
    batches = [{"t": torch.full((1 << 18,), float(i)), "a": np.full(1 << 18, -float(i)), "s": np.float64(i)}
               for i in range(6)]  # fmt: skip
    s, ctx = _side_stream(backend)
    with ctx:
        for i, b in enumerate(xb.prefetch(batches, backend=backend, device="cuda:0", depth=1)):
            for k, want in (("t", float(i)), ("a", -float(i)), ("s", float(i))):
                got = xb.to_numpy(b[k] * 1)  # computed on `s`, then read
                assert (got == want).all(), (i, k)


@pytest.mark.parametrize("backend", ["torch", "cupy"])
def test_gpu_prefetch_memory_is_not_reused_under_the_consumers_kernels(backend):
    """Item 2: batch k is dropped while the side stream's kernels that read it are still queued."""
    _gpu(backend)
    batches = [np.full(1 << 20, float(i)) for i in range(8)]
    s, ctx = _side_stream(backend)
    outs = []
    with ctx:
        for x in xb.prefetch(batches, backend=backend, device="cuda:0", depth=2):
            _spin(backend, cycles=4 * SPIN)  # the read below runs late on `s`
            outs.append(x + 1.0)
            del x
        for i, o in enumerate(outs):
            assert (_host(o) == i + 1.0).all(), i


@pytest.mark.parametrize("backend", ["torch", "cupy"])
def test_gpu_a_failed_transfer_leaves_no_dma_into_reused_memory(backend, slow_copies, monkeypatch):
    """Item 3: fault injection in the middle of a transfer; the dropped buffer's DMAs are still queued."""
    be = _gpu(backend)
    slow_copies(be, 4 * SPIN)
    real, calls = np.copyto, []

    def flaky(dst, src, casting="same_kind"):
        calls.append(1)
        if len(calls) == 6:
            raise MemoryError("injected")
        real(dst, src, casting=casting)

    monkeypatch.setattr(T.np, "copyto", flaky)
    monkeypatch.setattr(T, "_THREADED_FROM", 1 << 30)  # the caller's thread: a deterministic order
    host = np.ones(4 << 20)  # 32 MB: many chunks
    with pytest.raises(MemoryError) as failed:
        xb.host_to_device(host, backend=backend, device="cuda:0")
    del failed
    gc.collect()
    monkeypatch.setattr(T.np, "copyto", real)
    zeros = [xb.zeros(host.size, backend=backend, device="cuda:0") for _ in range(3)]
    xb.synchronize("cuda:0", backend=backend)  # the stale DMAs have run by now
    assert all(not _host(z).any() for z in zeros)
    out = xb.host_to_device(host * 2, backend=backend, device="cuda:0")
    assert (_host(out) == 2.0).all()


@pytest.mark.parametrize("backend", ["torch", "cupy"])
def test_gpu_pinned_buffers_are_not_reused_under_a_dma(backend, slow_copies):
    """Item 4: a dropped PendingHost, and staging_limit() right after a transfer (CuPy's pinned pool hands
    a freed buffer out at once)."""
    be = _gpu(backend)
    old = xb.staging_limit()
    try:
        xb.staging_limit(16 << 20)  # 8 MiB slots
        x = xb.full(1 << 20, 7.0, backend=backend, device="cuda:0")  # 8 MiB: a slot's size
        _spin(backend, cycles=20 * SPIN)  # the D2H below runs late
        xb.device_to_host(x, blocking=False)  # dropped unread
        xb.staging_limit(16 << 20)  # new rings: their pinned slots come from the pool
        b = np.random.default_rng(0).random(1 << 20)
        y = xb.host_to_device(b, backend=backend, device="cuda:0")
        assert (_host(y) == b).all()
        slow_copies(be, 4 * SPIN)
        a = np.random.default_rng(1).random(3 << 20)  # 24 MB through the 2-slot ring: its copies run late
        y1 = xb.host_to_device(a, backend=backend, device="cuda:0")
        xb.staging_limit(16 << 20)  # the old slots are let go while their copies still read them
        c = np.random.default_rng(2).random(3 << 20)
        y2 = xb.host_to_device(c, backend=backend, device="cuda:0")
        assert (_host(y1) == a).all() and (_host(y2) == c).all()
    finally:
        xb.staging_limit(old)


def test_gpu_host_to_device_does_not_synchronise():
    """Item 5 for the transfer itself (the scalar cases are in tests/test_sync_free.py)."""
    torch = pytest.importorskip("torch")
    _gpu("torch")
    host = np.arange(1 << 16, dtype=np.float32)
    xb.host_to_device(host, backend="torch", device="cuda:0")  # warm: ring allocated, streams made
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        x = xb.host_to_device(host, backend="torch", device="cuda:0")
        y = x * 2.0 + 1.0
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert (_host(y) == host * 2 + 1).all()


@pytest.mark.parametrize("backend", ["torch", "cupy"])
def test_gpu_timer_side_streams_and_no_argument(backend):
    """Item 6: what `ms` and `wall_ms` measure, and xb.timer() without an argument waiting for the GPU."""
    _gpu(backend)
    a = xb.ones(10, backend=backend, device="cuda:0")
    xb.synchronize(a)
    s, _ = _side_stream(backend)
    with xb.timer(a) as t:
        _spin(backend, s, 50 * SPIN)  # ~25 ms on a side stream the current stream does not wait for
    assert t.wall_ms > 10 and t.ms < t.wall_ms / 2, t
    with xb.timer() as t0:  # the default device is the CPU (torch) or the GPU (CuPy): either way it waits
        _spin(backend, None, 50 * SPIN)
    assert t0.wall_ms > 10, t0
