"""The speed work of issue 28 on CUDA, held in place on the CPU: what each fast path does, counted.

Design constraint: no timing (the machine is shared and has no GPU). Each test counts something a slowdown
would change - kernel launches and torch ops per draw, synchronising calls, stream objects made per hand-off,
Python calls per step - on fakes that record what the GPU libraries would be asked to do. The xb.random
kernel's counts are in tests/test_random.py (they need its host build of the kernel).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import xbackend as xb
from xbackend._interchange import _transport

CUDA0 = xb.Device("cuda:0")


class _Producer:
    """What a GPU library's ``__dlpack__`` sees: the stream it is asked to order its work before."""

    def __init__(self, lib: "_FakeGpuLib", data: np.ndarray) -> None:
        self.lib, self.data = lib, data

    def __dlpack__(self, stream=None, **kw):
        self.lib.calls.append(("__dlpack__", stream))
        if stream != -1 and stream != self.lib.stream:  # a real producer records an event, the consumer waits
            self.lib.calls.append(("event + wait", stream))
        return self.data.__dlpack__()

    def __dlpack_device__(self):
        return (2, 0)


class _FakeGpuLib:
    """The backend hooks of a CUDA library that ``_transport`` calls, over NumPy memory."""

    def __init__(self, name: str, stream: int) -> None:
        self.name, self.stream, self.calls = name, stream, []

    def device_scope(self, dev):
        return contextlib.nullcontext()

    def stream_handle(self, dev):
        return self.stream

    def export_dlpack(self, x):
        return x

    def dlpack_unsynced(self, x):
        return x.__dlpack__(stream=-1)

    def import_dlpack(self, obj):
        if isinstance(obj, _Producer):  # a consumer's from_dlpack hands the producer its current stream
            self.calls.append(("from_dlpack(producer)", self.stream))
            obj = obj.__dlpack__(stream=self.stream)
        else:
            self.calls.append(("from_dlpack(capsule)", None))
        return np.from_dlpack(_Capsule(obj))


class _Capsule:
    def __init__(self, cap):
        self.cap = cap

    def __dlpack__(self, stream=None, **kw):
        return self.cap

    def __dlpack_device__(self):
        return (1, 0)


@pytest.mark.parametrize("streams", [(0, 0), (7, 7), (0, 7), (7, 0)])
def test_gpu_hand_off_orders_streams_only_when_they_differ(streams):
    """torch <-> CuPy on one device: on one stream the capsule is made with stream=-1 (no event, no stream
    objects: raw cupy.from_dlpack(torch) paid ~10 us for them); on two streams the consumer names its stream and
    the producer orders its work before it (the stream-safety guarantee of issue 20, unchanged)."""
    import sys

    src, dst = _FakeGpuLib("producer", streams[0]), _FakeGpuLib("consumer", streams[1])
    data = np.arange(6.0)
    frames = []

    def ours(frame, event, arg):  # xbackend's own frames (xb.grad on CuPy makes 7 of these moves a step)
        if event == "call" and "/xbackend/" in frame.f_code.co_filename.replace("\\", "/"):
            frames.append(frame.f_code.co_name)

    sys.setprofile(ours)
    try:
        y = _transport(src, _Producer(src, data), xb.float64, CUDA0, dst, CUDA0)
    finally:
        sys.setprofile(None)
    assert frames == ["_transport", "_hand_over"]  # no device-scope context (one GPU), no other frame
    assert np.shares_memory(y, data)
    if streams[0] == streams[1]:
        assert dst.calls == [("from_dlpack(capsule)", None)] and src.calls == [("__dlpack__", -1)]
    else:
        assert dst.calls == [("from_dlpack(producer)", streams[1])]
        assert src.calls == [("__dlpack__", streams[1]), ("event + wait", streams[1])]


def test_torch_runs_on_cupys_stream_without_switching_when_it_is_already_current(monkeypatch):
    """xb.grad on CuPy Arrays runs torch on CuPy's current stream; when that is torch's current stream already
    (the defaults), no stream context is entered per step (torch.cuda.stream + ExternalStream: ~10 us)."""
    pytest.importorskip("torch")
    from xbackend._backends.torch import grad as G

    be = xb.zeros(0, backend="torch")._be
    monkeypatch.setattr(G, "_raw_stream", lambda index: 1234)
    assert be.use_stream(1234, CUDA0) is G._NULL
    assert be.use_stream(None, CUDA0) is G._NULL and be.stream_handle(xb.Device("cpu")) is None


class _FakeGpuBackend(_FakeGpuLib):
    """What ``Array.to(backend=...)``'s GPU hand-off asks of the two backends."""

    def __init__(self, name, stream, holds=("float64",), grad=False, copies=False):
        super().__init__(name, stream)
        self.holds, self.grad, self.copies = holds, grad, copies

    def requires_grad(self, x):
        return self.grad

    def export_dlpack(self, x):
        return _Producer(self, x.data.copy()) if self.copies else x

    def native_dtype(self, dt):
        if dt.name not in self.holds:
            raise xb.UnsupportedDTypeError(f"{self.name} cannot hold {dt}")
        return dt.name

    def check_device(self, dev):
        return dev


def _gpu_array(be, data):
    from xbackend._array import _new

    return _new(_Producer(be, data), xb.float64, CUDA0, be)


def test_a_gpu_move_on_one_stream_is_one_capsule_and_a_few_calls(monkeypatch):
    """``x.to(backend="cupy")`` of a torch-CUDA Array (and back), on one stream: one DLPack capsule made with
    stream=-1, imported; no stream objects, no event, no copy (issue 28: the moves cost 24.5 vs 16.8 us and
    12.5 vs 6.0 us against raw from_dlpack). Counted: the Python and C calls of one move."""
    import sys

    from xbackend import _interchange as I

    src, dst = _FakeGpuBackend("gpu_a", 5), _FakeGpuBackend("gpu_b", 5)
    monkeypatch.setattr(I, "_backend", lambda name: dst)
    monkeypatch.setattr(I, "_HOPS", {})
    data = np.arange(4.0)
    a = _gpu_array(src, data)
    y, copied = I._move(a, "gpu_b", None, None, None)
    assert not copied and y._be is dst and y._dev is CUDA0 and np.shares_memory(y._data, data)
    assert src.calls == [("__dlpack__", -1)] and dst.calls == [("from_dlpack(capsule)", None)]
    seen = []

    def ours(frame, event, arg):  # frames of xbackend's own move code (the backends' hooks are fakes here)
        if event == "call" and "/xbackend/" in frame.f_code.co_filename.replace("\\", "/"):
            seen.append(frame.f_code.co_name)

    sys.setprofile(ours)
    try:
        a.to(backend="gpu_b")
    finally:
        sys.setprofile(None)
    # 7 today: the boundary, Array.to, move, _move, the hop and its hand-off, the Array; the general path
    # makes about 20 (torch -> NumPy on the CPU: 19 - target device, cast checks, grad guard, transport,
    # two data pointers)
    assert len(seen) <= 7, seen


@pytest.mark.parametrize("case", ["two streams", "requires grad", "a copy", "a dtype the target lacks"])
def test_a_gpu_move_leaves_every_decision_to_the_general_path(case):
    """Whatever needs ordering, refusing or copying goes the general way (stream sync, GradientError, copy
    semantics, the typed dtype error): the hand-off says None."""
    from xbackend._interchange import _gpu_hop

    src = _FakeGpuBackend("gpu_a", 5, grad=case == "requires grad", copies=case == "a copy")
    dst = _FakeGpuBackend("gpu_b", 6 if case == "two streams" else 5,
                          holds=() if case == "a dtype the target lacks" else ("float64",))  # fmt: skip
    assert _gpu_hop(src, dst, CUDA0)(_gpu_array(src, np.arange(3.0))) is None
    assert dst.calls == [] and ("__dlpack__", -1) not in src.calls


# lines as the benchmarks print them (the H200 run of 2026-12-04), and the same rows where the goals hold
_LOGS_0412 = {
    "gpu_random.md": """target                op                            n       raw µs        xb µs   ratio  best+ µs  goal
torch-cuda:0          random f32 portable    10000000           58          173   4.156            ratio <= 2: NO
torch-cuda:0          random f64 portable    10000000           57          367   7.490
torch-cuda:0          normal f32 portable    10000000           58          822  17.999
torch-cuda:0          integers portable      10000000           59          575  11.327
torch-cuda:0          random portable             100       17.072       75.390   4.416    50.124
""",
    "grad_gpu_table.txt": """row                                ms   ratio  note
xb.grad cupy                    1.025    2.44  goal <= 1.2: MISSED
xb.grad torch                   0.619    1.34  goal <= 1.1: MISSED
""",
    "demo_gpu.txt": """target        dtype    loss start -> end      max |w - w_numpy|  xbackend   raw lib  ratio
cupy-cuda:0   float64  0.6931 -> 0.2846                2.22e-16    0.259s    0.084s  3.10x
""",
    "interchange.md": """| numpy -> torch (cpu) | 1 KB | 0.556 | 6.62 | 1 | yes |
| torch (cuda) -> cupy | 1024 B | 16.8 | 24.5 | 1.46 | NO |
| cupy -> torch (cuda) | 1073741824 B | 7.33 | 14.2 | 1.94 | NO |
""",
    "jit_gpu.txt": """torch-cuda:0  chain         0.182     0.190     0.081     2.24    2.33       11.1  compiled
torch-cuda:0  logreg        0.274     0.309     0.176     1.55    1.75        1.9  compiled
torch-cuda:0  xent          0.155     0.332     0.098     1.58    3.38        2.1  compiled
""",
}
_MET = {"173": "100", "367": "100", "822": "110", "575": "99", "75.390": "21.000", "2.44": "1.19", "1.34": "1.10",
        "3.10x": "1.25x", "| 6.62 |": "| 1.2 |", "1.46": "1.05", "1.94": "0.98", "1.55": "2.60", "1.58": "3.10"}


def test_gpu_goals_reads_every_goal_from_the_benchmarks_logs(tmp_path):
    """benchmarks/gpu_goals.py turns gpu_check.sh's logs into issue 28's verdicts: the 2026-12-04 numbers as
    the issue states them (0.34x, 0.16x, 0.07x, 0.10x; +58 µs; ...), all met once the rows say so, and a goal
    whose row is missing is not met."""
    import sys
    from pathlib import Path

    bench = str(Path(__file__).resolve().parents[1] / "benchmarks")
    if bench not in sys.path:
        sys.path.append(bench)
    import gpu_goals

    old, new, empty = tmp_path / "old", tmp_path / "new", tmp_path / "empty"
    for d in (old, new, empty):
        d.mkdir()
    for name, text in _LOGS_0412.items():
        (old / name).write_text(text)
        for a, b in _MET.items():
            text = text.replace(a, b)
        (new / name).write_text(text)
    before = [g for section in gpu_goals.SECTIONS for g in section(old)]
    assert [m for _, m, _ in before[:5]] == ["0.34x (173 vs 58 µs)", "0.16x (367 vs 57 µs)", "0.07x (822 vs 58 µs)",
                                             "0.10x (575 vs 59 µs)", "+58.3 µs (75.4 vs 17.1)"]  # fmt: skip
    assert [met for _, _, met in before] == [False] * 11 + [True, False, False] and len(before) == 14
    assert gpu_goals.main([str(old)]) == 1 and gpu_goals.main([str(new)]) == 0
    assert all(met for *_, met in (g for section in gpu_goals.SECTIONS for g in section(new)))
    assert {met for section in gpu_goals.SECTIONS for *_, met in section(empty)} == {None}
    assert gpu_goals.main([str(empty)]) == 1


_VIEW_OPS = frozenset({"detach", "view", "alias", "t", "expand", "as_strided", "slice", "lift_fresh", "_to_copy"})


def test_an_xb_grad_step_launches_what_raw_torch_does_and_never_waits(monkeypatch):
    """One step of the demo's model: xb.grad on torch issues the kernels raw torch autograd issues plus one (the
    0-d tensor of logaddexp's 0.0), on NumPy the same ones but the update, which NumPy makes (the moves are
    views, no kernels), and on torch no
    call that would wait for a GPU (tests/fakecuda.py's TorchAsCuda: the CUDA branches, every sync recorded). On the H200 the step was
    1.34x (torch) and 2.44x (CuPy) raw torch: an extra kernel, copy or sync per step would show here first."""
    torch = pytest.importorskip("torch")
    from torch.utils._python_dispatch import TorchDispatchMode

    from fakecuda import TorchAsCuda
    from xbackend._demo import log_loss

    class Kernels(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.names = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = func.overloadpacket.__name__
            if name not in _VIEW_OPS:
                self.names.append(name)
            return func(*args, **(kwargs or {}))

    rng = np.random.default_rng(0)
    X_np, y_np = rng.standard_normal((64, 4)), (rng.random(64) < 0.3).astype(np.float64)
    Xt, yt, zero = torch.from_numpy(X_np), torch.from_numpy(y_np), torch.zeros((), dtype=torch.float64)
    raw_p = [torch.zeros(4, dtype=torch.float64), torch.zeros((), dtype=torch.float64)]

    def raw_step():
        w, b = (p.requires_grad_(True) for p in raw_p)
        z = Xt @ w + b
        loss = (torch.logaddexp(zero, z) - yt * z).mean()
        gw, gb = torch.autograd.grad(loss, (w, b))
        raw_p[:] = [w.detach() - 0.5 * gw, b.detach() - 0.5 * gb]

    vg = xb.value_and_grad(log_loss, argnums=(0, 1))

    def xb_step(p, X, y):
        def step():
            loss, (gw, gb) = vg(p[0], p[1], X, y)
            p[:] = [p[0] - 0.5 * gw, p[1] - 0.5 * gb]
        return step

    on_torch = xb_step([xb.zeros(4, backend="torch"), xb.zeros((), backend="torch")], xb.asarray(Xt), xb.asarray(yt))
    on_numpy = xb_step([xb.zeros(4), xb.zeros(())], xb.asarray(X_np), xb.asarray(y_np))
    counts = {}
    for name, step in {"raw": raw_step, "xb torch": on_torch, "xb numpy": on_numpy}.items():
        step()
        with Kernels() as k, TorchAsCuda() as s:
            step()
        if name != "xb numpy":  # (NumPy's way back is .numpy() of CPU tensors: a view, no wait; CuPy's is DLPack)
            assert s.syncs == [], (name, s.syncs)
        counts[name] = sorted(k.names)
    assert counts["xb torch"] == sorted(counts["raw"] + ["full"]), counts
    assert sorted(counts["xb numpy"] + ["mul", "mul", "sub", "sub"]) == counts["xb torch"], counts  # (update: NumPy)
