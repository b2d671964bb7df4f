"""xb.synchronize and xb.timer: wait for the device, time with its events (CPU: perf_counter).

A fake CUDA backend whose "device" finishes its queued work only when synchronised shows that the
timer waits before it reports; the real CUDA versions carry the ``gpu`` marker.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import xbackend as xb
from xbackend._array import _new
from xbackend._backends.numpy import NumpyBackend

CUDA0 = xb.device("cuda:0")


class FakeEvent:
    def __init__(self, be):
        self.be = be
        self.at = None  # device time, known once the device got there

    def synchronize(self):
        self.be.synchronize(CUDA0)


class SlowGPU(NumpyBackend):
    """Work queued with ``launch(seconds)`` runs when the device is synchronised (a lazy device clock)."""

    name = "slowgpu"

    def __init__(self):
        super().__init__()
        self.queue: list[float | FakeEvent] = []
        self.clock = 0.0
        self.syncs = 0

    def check_device(self, dev):
        return dev

    def device_of(self, x):
        return CUDA0

    def launch(self, seconds):
        self.queue.append(seconds)

    def synchronize(self, dev):
        self.syncs += 1
        for item in self.queue:
            if isinstance(item, FakeEvent):
                item.at = self.clock
            else:
                time.sleep(item)
                self.clock += item
        self.queue.clear()

    def timing_event(self, dev):
        ev = FakeEvent(self)
        self.queue.append(ev)
        return ev

    def elapsed_ms(self, start, end):
        end.synchronize()
        return (end.at - start.at) * 1e3


def test_timer_on_the_cpu_measures_the_block():
    x = xb.ones(10)
    with xb.timer(x) as t:
        time.sleep(0.02)
    assert 19 <= t.ms < 1000 and t.ms == t.wall_ms and t.s == t.ms / 1e3
    assert "ms" in repr(t)
    with xb.timer() as t2:  # the default device
        pass
    assert 0 <= t2.ms < 50


def test_timer_waits_for_queued_device_work_and_reads_events():
    be = SlowGPU()
    x = _new(np.zeros(3), xb.float64, CUDA0, be)
    be.launch(0.03)  # earlier work: not counted
    with xb.timer(x) as t:
        be.launch(0.02)  # asynchronous: returns at once
    assert be.syncs >= 2 and not be.queue  # waited on entry and before reporting
    assert t.ms == pytest.approx(20, abs=1e-6)  # the device clock between the two events
    assert t.wall_ms >= 19  # the host waited for the work too


def test_synchronize_waits_for_the_device_of_an_array():
    be = SlowGPU()
    x = _new(np.zeros(3), xb.float64, CUDA0, be)
    be.launch(0.0)
    xb.synchronize(x)
    assert be.syncs == 1 and not be.queue


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
