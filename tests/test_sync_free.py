"""No hidden host synchronisations on torch-CUDA (issue 20 item 5, issue 28 item 3).

``torch.tensor(v, device="cuda")`` of a host value copies it with ``memcpy_and_sync``: the host waits until
the GPU has drained its queue, which defeats the overlap prefetch exists for. ``bool(t)``, ``t.item()``
and friends wait too. On the CPU, :class:`fakecuda.TorchAsCuda` stands in for CUDA: every tensor says
``is_cuda`` (so xbackend's CUDA branches run) and every call that would make the host wait on a GPU is recorded,
with the xbackend line that made it. Each case runs on torch-CPU under it and must record nothing but its
documented synchronisations (:data:`SYNCS`), and give NumPy's values. On a GPU the same cases run under
``torch.cuda.set_sync_debug_mode`` (``gpu`` marker): "error" where none is allowed, "warn" (counted) elsewhere.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xbackend as xb

torch = pytest.importorskip("torch")
from fakecuda import TorchAsCuda  # noqa: E402


def _inputs(backend, device=None):
    kw = {"backend": backend, "device": device}
    return {
        "x": xb.asarray([-1.5, -0.0, 0.25, 2.0, 3.5], dtype=xb.float32, **kw),
        "b": xb.asarray([True, False, True, False, True], **kw),
        "m": xb.asarray(np.arange(12.0).reshape(3, 4), **kw),
        "i": xb.asarray([2, 0, 1], **kw),
        "u64": xb.asarray(np.array([0, 5, 2**63 + 7, 2**64 - 2], dtype=np.uint64), **kw),
        "u32": xb.asarray(np.array([0, 5, 2**31 + 7, 2**32 - 2], dtype=np.uint32), **kw),
        "c": xb.asarray([1 + 2j, -0.5j, 3.0], dtype=xb.complex64, **kw),
    }


def _setitem(a):
    y = xb.asarray(a["u64"], copy=True)
    y[1] = 9
    return y


# issue 20's list: maximum, minimum, atan2, copysign, hypot, logaddexp, nextafter, the logical functions,
# float % 2.0, clip, ints next to index tensors, the uint emulation (and complex +/-)
CASES = {
    "maximum(x, 0.5)": lambda a: xb.maximum(a["x"], 0.5),
    "minimum(0.5, x)": lambda a: xb.minimum(0.5, a["x"]),
    "atan2(x, 2.0)": lambda a: xb.atan2(a["x"], 2.0),
    "atan2(2.0, x)": lambda a: xb.atan2(2.0, a["x"]),
    "copysign(x, -1.0)": lambda a: xb.copysign(a["x"], -1.0),
    "hypot(x, 3.0)": lambda a: xb.hypot(a["x"], 3.0),
    "logaddexp(x, 1.0)": lambda a: xb.logaddexp(a["x"], 1.0),
    "nextafter(x, 2.0)": lambda a: xb.nextafter(a["x"], 2.0),
    "logical_and(b, True)": lambda a: xb.logical_and(a["b"], True),
    "logical_or(False, b)": lambda a: xb.logical_or(False, a["b"]),
    "logical_xor(b, True)": lambda a: xb.logical_xor(a["b"], True),
    "x % 2.0": lambda a: a["x"] % 2.0,
    "x % -2.0": lambda a: a["x"] % -2.0,
    "clip(x, 0.0, 1.0)": lambda a: xb.clip(a["x"], 0.0, 1.0),
    "clip(x, min=0.5)": lambda a: xb.clip(a["x"], min=0.5),
    "m[i, 1]": lambda a: a["m"][a["i"], 1],
    "m[1, i]": lambda a: a["m"][1, a["i"]],
    "m[i, i]": lambda a: a["m"][a["i"], a["i"]],
    "m[-1, i]": lambda a: a["m"][-1, a["i"] + 1],
    "u64 + 5": lambda a: a["u64"] + 5,
    "u64 * 3": lambda a: a["u64"] * 3,
    "u64 >> 3": lambda a: a["u64"] >> 3,
    "3 >> u64-ish": lambda a: xb.bitwise_right_shift(2**63 + 1, a["u64"] % 64),
    "u64 // 3": lambda a: a["u64"] // 3,
    "u64 % 7": lambda a: a["u64"] % 7,
    "u64 ** 2": lambda a: a["u64"] ** 2,
    "maximum(u64, 7)": lambda a: xb.maximum(a["u64"], 7),
    "clip(u64, 2, 2**63)": lambda a: xb.clip(a["u64"], 2, 2**63),
    "u32 + 7": lambda a: a["u32"] + 7,
    "u32 >> 1": lambda a: a["u32"] >> 1,
    "u64[1] = 9": _setitem,
    "c + 1.0": lambda a: a["c"] + 1.0,
    "c - 2j": lambda a: a["c"] - 2j,
}


#: the documented synchronisations (docs/behaviour.md): an index Array on a GPU is bounds-checked before the kernel
#: (a CUDA kernel asserts and poisons the context instead of raising IndexError): one read of the device per indexing
#: call, however many index Arrays; the Python ints next to them are checked on the host (issue 28: m[1, i] read the
#: device twice, once for the 1)
SYNCS = {"m[i, 1]": 1, "m[1, i]": 1, "m[i, i]": 1, "m[-1, i]": 1}
_BOUNDS_CHECK = "_backends/torch/index.py"


def _same(got, want):
    """Same dtype and shape; values exact, but within 2 ulp for floating transcendental functions."""
    assert got.dtype == want.dtype and got.shape == want.shape
    g, w = got.numpy(), want.numpy()
    if g.dtype.kind in "fc":
        np.testing.assert_allclose(g, w, rtol=2 * np.finfo(g.dtype).eps, atol=0)
        np.testing.assert_array_equal(np.signbit(g.real), np.signbit(w.real))
    else:
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("case", CASES)
def test_python_scalars_never_make_the_host_wait(case):
    a = _inputs("torch")
    with TorchAsCuda() as rec:
        out = CASES[case](a)
    assert len(rec.syncs) == SYNCS.get(case, 0), f"{case}: " + "; ".join(rec.syncs)
    assert all(_BOUNDS_CHECK in s for s in rec.syncs), rec.syncs
    _same(out, CASES[case](_inputs("numpy")))


@pytest.mark.parametrize("key", ["m[5, i]", "m[i, 4]", "m[i + 1, i]", "m[1, u64 index above 2**63]"])
def test_out_of_bounds_indices_raise_before_a_cuda_kernel_sees_them(key):
    """The CUDA branch's bounds check (TorchAsCuda: the one torch-CUDA takes) raises IndexError, as NumPy does."""
    a = _inputs("torch")
    m, i = a["m"], a["i"]
    big = xb.asarray(np.array([2**63 + 1], np.uint64), backend="torch")
    fn = {"m[5, i]": lambda: m[5, i], "m[i, 4]": lambda: m[i, 4], "m[i + 1, i]": lambda: m[i + 1, i],
          "m[1, u64 index above 2**63]": lambda: m[1, big]}[key]  # fmt: skip
    with TorchAsCuda(), pytest.raises(IndexError, match="out of"):
        fn()


@pytest.mark.parametrize("case", ["int // int", "int % int", "complex ** complex"])
def test_cuda_branches_of_integer_division_and_complex_pow_need_no_wait(case):
    """Integer division by zero gives 0 (NumPy's rule): on the CPU torch checks for zeros first (cheap
    there); on CUDA that check would make the host wait, so the CUDA branch always masks. Run it on the
    CPU by making tensors report ``is_cuda`` (TorchAsCuda)."""
    fn = {
        "int // int": lambda a, b: a // b, "int % int": lambda a, b: a % b,
        "complex ** complex": lambda a, b: a ** b,
    }[case]  # fmt: skip
    cplx = case.startswith("complex")
    args = ([1 + 1j, 2.0, -0.5j, 0j], [2.0, 0.5 + 1j, 3.0, 0j]) if cplx else ([7, -7, 5, 0, -9], [2, 0, -3, 0, 4])
    want = fn(*(xb.asarray(v, backend="numpy") for v in args))
    a, b = (xb.asarray(v, backend="torch") for v in args)
    with TorchAsCuda() as rec:
        got = fn(a, b)
    assert not rec.syncs, "; ".join(rec.syncs)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6 if cplx else 0, equal_nan=True)


def _cuda_torch():
    if not any(t.backend == "torch" and t.is_gpu for t in xb.testing.available_targets()):
        pytest.skip("torch has no CUDA device here")


@pytest.mark.gpu
@pytest.mark.parametrize("case", list(CASES) + ["int // int"])
def test_gpu_python_scalars_never_synchronise(case):
    _cuda_torch()
    a = _inputs("torch", "cuda")
    d = xb.asarray([1, 0, 2], backend="torch", device="cuda")  # (made before the check: a host list must be copied)
    fn = CASES.get(case) or (lambda a: a["i"] // d)
    expected = SYNCS.get(case, 0)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error" if expected == 0 else "warn")
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            out = fn(a)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    syncs = [w for w in seen if "called a synchronizing" in str(w.message)]  # (not the prototype notice)
    assert len(syncs) == expected, [str(w.message) for w in syncs]
    if case in CASES:
        _same(out, CASES[case](_inputs("numpy")))
