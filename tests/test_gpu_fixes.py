"""The smaller GPU fixes of issue 20 (item 6), each shown on the CPU with a fake of the hazard.

- ``@xb.jit``'s direct path traced once and ignored torch's global state changing afterwards;
- CUDA-graph modes return static output buffers that the next call overwrites;
- ``device="cuda"`` was resolved once and cached, ignoring a later ``set_device``;
- pickled GPU Arrays ignored ``torch.load(map_location=...)``.
The transfer, prefetch and timer parts of item 6 are in tests/test_transfer.py and tests/test_timer.py.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from fakecuda import FakeCudaBackend

import xbackend as xb
from xbackend import _dispatch
from xbackend._creation import _target

torch = pytest.importorskip("torch")


def _runner(f):
    (entry,) = [e for e in f._cache.values() if hasattr(e, "run")]
    return entry.run


@pytest.mark.parametrize("change", ["deterministic algorithms", "default dtype", "grad mode"])
def test_jit_direct_path_traces_again_when_torch_global_state_changes(change):
    """Dynamo guards autocast, TF32, deterministic algorithms, the default dtype...; the direct path must too
    (a graph traced under one state has that state's kernels and casts baked in)."""
    on, off = {
        "deterministic algorithms": (lambda: torch.use_deterministic_algorithms(True),
                                     lambda: torch.use_deterministic_algorithms(False)),
        "default dtype": (lambda: torch.set_default_dtype(torch.float64),
                          lambda: torch.set_default_dtype(torch.float32)),
        "grad mode": (lambda: torch.set_grad_enabled(False), lambda: torch.set_grad_enabled(True)),
    }[change]  # fmt: skip

    @xb.jit(backend_options={"backend": "eager"})
    def f(x):
        return x * 2.0 + 1.0

    x = xb.asarray([1.0, 2.0], backend="torch")
    assert f(x).tolist() == [3.0, 5.0]
    run = _runner(f)
    assert run.paths == ["direct"] and len(run.traces) == 1
    on()
    try:
        assert f(x).tolist() == [3.0, 5.0]
        assert len(run.traces) == 2  # traced (and compiled) again under the new state
    finally:
        off()
    f(x)
    assert len(run.traces) == 2  # back to the first state: its trace serves again


def test_jit_cuda_graph_outputs_are_copied_out(monkeypatch):
    """mode="reduce-overhead" replays a CUDA graph into static buffers; the next call overwrites them. A
    fake compiler that returns the same output tensors on every call stands in for it on the CPU."""

    def static_outputs(gm, **kw):
        bufs: list = []

        def run(*xs):
            outs = gm(*xs)
            if not bufs:
                bufs.extend(o.clone() for o in outs)
            for b, o in zip(bufs, outs):
                b.copy_(o)
            return list(bufs)

        return run

    monkeypatch.setattr(torch, "compile", static_outputs)

    @xb.jit(backend_options={"mode": "reduce-overhead"})
    def f(x):
        return x + 1.0

    a = f(xb.asarray([1.0, 2.0], backend="torch"))
    b = f(xb.asarray([5.0, 6.0], backend="torch"))
    assert a.tolist() == [2.0, 3.0] and b.tolist() == [6.0, 7.0]
    assert _runner(f).paths == ["dynamo"]


def test_device_cuda_follows_the_current_device(monkeypatch):
    """`device="cuda"` means the backend's current device; caching its first resolution ignored a later
    torch.cuda.set_device / `with cupy.cuda.Device(1):`."""
    be = FakeCudaBackend(ndev=2)
    monkeypatch.setitem(_dispatch._instances, "fakecuda", be)
    assert _target("fakecuda", "cuda")[1] == xb.device("cuda:0")
    with be.model.device(1):
        assert _target("fakecuda", "cuda")[1] == xb.device("cuda:1")
        assert _target("fakecuda", "cuda:0")[1] == xb.device("cuda:0")  # an explicit index stays
    assert _target("fakecuda", "cuda")[1] == xb.device("cuda:0")


def _forged_gpu_pickle(index):
    """What pickling a torch Array on cuda:<index> gives (made on the CPU: the payload is a host copy)."""
    x = xb.asarray([1.0, -2.0], backend="torch")
    fn, args = x.__reduce__()

    class Forged:
        def __reduce__(self):
            return fn, (args[0], args[1], args[2], f"cuda:{index}", False)

    return Forged()


def test_torch_load_map_location_applies_to_gpu_arrays(tmp_path):
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    path = tmp_path / "arrays.pt"
    torch.save({"a": _forged_gpu_pickle(n + 3)}, path)
    with pytest.raises(xb.UnknownDeviceError, match=f"cuda:{n + 3}"):
        torch.load(path, weights_only=False)  # no map_location: the same device, or the typed error
    for where in ("cpu", torch.device("cpu"), {f"cuda:{n + 3}": "cpu"}):
        back = torch.load(path, weights_only=False, map_location=where)["a"]
        assert back.device.physical == xb.device("cpu") and back.tolist() == [1.0, -2.0], where
    assert pickle.loads(pickle.dumps(xb.asarray([3.0], backend="torch"))).tolist() == [3.0]  # plain pickle: as before


def test_fork_started_workers_are_documented():
    """A process forked after its parent used CUDA cannot use CUDA; the pickling docs say to use spawn."""
    from xbackend import _pickling

    assert "spawn" in _pickling.reduce_array.__doc__
    text = (__import__("pathlib").Path(__file__).parents[1] / "docs" / "interchange.md").read_text()
    assert "spawn" in text and "map_location" in text
