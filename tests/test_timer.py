"""xb.synchronize and xb.timer: wait for the device, time with its events (CPU: perf_counter).

The CUDA paths run on the fake CUDA of tests/fakecuda.py, whose device clock runs work of a given
duration, starts it no earlier than its launch (idle gaps) and blocks a host wait until the device got
there; the real CUDA versions are in tests/test_gpu_checks.py (``gpu`` marker).
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from fakecuda import FakeCudaBackend

import xbackend as xb
from xbackend import _dispatch
from xbackend._array import _new

CUDA0 = xb.device("cuda:0")


@pytest.fixture
def cuda(monkeypatch):
    be = FakeCudaBackend()
    monkeypatch.setitem(_dispatch._instances, "fakecuda", be)  # a loaded backend, as torch or CuPy would be
    return be


def _array(cuda):
    return _new(cuda.model.malloc(24, cuda.model.current_stream()).view(np.float64), xb.float64, CUDA0, cuda)


def test_timer_on_the_cpu_measures_the_block():
    x = xb.ones(10)
    with xb.timer(x) as t:
        time.sleep(0.02)
    assert 19 <= t.ms < 1000 and t.ms == t.wall_ms and t.s == t.ms / 1e3
    assert "ms" in repr(t)
    with xb.timer() as t2:  # the default device
        pass
    assert 0 <= t2.ms < 50


def test_timer_waits_for_queued_device_work_and_reads_events(cuda):
    x = _array(cuda)
    cuda.model.sleep(0.03)  # earlier work: not counted
    with xb.timer(x) as t:
        cuda.model.sleep(0.02)  # asynchronous: returns at once
    kinds = [k for k, *_ in cuda.model.syncs]
    assert kinds.count("device synchronize") == 2  # waited on entry and before reporting
    # the device clock between the two events: the 20 ms of work (plus any idle gap a loaded host leaves between
    # launches), never the earlier 30 ms, and within the host's own wait
    assert 19 <= t.ms <= t.wall_ms + 0.5
    assert t.wall_ms >= 19  # the host waited for the work too


def test_timer_counts_the_streams_idle_gaps(cuda):
    """Documented: the events span the current stream's timeline, including time it waited for the host."""
    x = _array(cuda)
    with xb.timer(x) as t:
        time.sleep(0.03)  # the host is busy; the stream idles
        cuda.model.sleep(0.01)
    assert t.ms >= 39 and t.wall_ms >= 39


def test_timer_ms_misses_other_streams_wall_ms_does_not(cuda):
    """Documented: `ms` is the current stream's; work on a side stream it does not wait for shows in
    `wall_ms` only (the exit wait is device-wide)."""
    x = _array(cuda)
    side = cuda.model.new_stream(0, "side")
    with xb.timer(x) as t:
        cuda.model.sleep(0.04, stream=side)
    assert t.wall_ms >= 39 and t.wall_ms - t.ms >= 35  # the side stream's 40 ms is in wall_ms only (load adds to both)


def test_timer_and_synchronize_without_argument_wait_for_the_gpus_in_use(cuda):
    """Issue 20 item 6: the default device is the CPU (NumPy, torch); a bare xb.timer() / xb.synchronize()
    used to wait for nothing, so GPU work escaped the measurement."""
    _array(cuda)
    with xb.timer() as t:
        cuda.model.sleep(0.03)
    assert t.wall_ms >= 29 and t.ms >= 29
    cuda.model.sleep(0.01)
    n = len(cuda.model.syncs)
    xb.synchronize()
    assert len(cuda.model.syncs) == n + 1 and not any(s.queue for s in cuda.model.streams)
    xb.synchronize(backend="numpy")  # backend= narrows it to that backend's places
    assert len(cuda.model.syncs) == n + 1


def test_synchronize_waits_for_the_device_of_an_array(cuda):
    x = _array(cuda)
    cuda.model.sleep(0.0)
    xb.synchronize(x)
    assert [k for k, *_ in cuda.model.syncs] == ["device synchronize"] and not cuda.model.default[0].queue


def test_synchronize_accepts_devices_natives_and_none():
    xb.synchronize()
    xb.synchronize("cpu")
    xb.synchronize(xb.device("cpu"))
    xb.synchronize(np.zeros(2))
    xb.synchronize(xb.ones(2).device, backend="numpy")


def test_timer_with_a_broken_block_still_reports_and_raises():
    with pytest.raises(ZeroDivisionError):
        with xb.timer() as t:
            1 / 0
    assert t.ms >= 0


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["torch", "cupy"])
def test_gpu_timer_waits_for_queued_kernels(backend):
    targets = [t for t in xb.testing.available_targets() if t.backend == backend and t.is_gpu]
    if not targets:
        pytest.skip(f"{backend} has no CUDA device here")
    a = xb.ones((4096, 4096), dtype=xb.float32, backend=backend, device="cuda")
    xb.synchronize(a)
    with xb.timer(a) as t:
        for _ in range(10):
            b = a @ a  # 1.4e12 flops: > 1 ms on any GPU (an H200 peaks near 1e15 flop/s in TF32)
    assert t.ms > 1.0, t  # the device's time, not the microseconds of queueing the launches
    assert t.wall_ms >= 0.9 * t.ms  # the host waited for it
    with xb.timer(b) as t_host:
        h = b.numpy()  # the seeds' example: a device->host copy, timed after it finished
    assert h[0, 0] == 4096.0 and t_host.ms > 0
