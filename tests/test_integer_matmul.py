"""Integer matmul is exact on every target (torch on CUDA has no integer GEMM: pytorch/pytorch#44428)."""

from __future__ import annotations

import numpy as np
import pytest

import xbackend as xb
from xbackend.testing import assert_equal

SHAPES = [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (1, 3, 4)),
          ((2, 1, 2, 3), (4, 3, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 2))]  # fmt: skip


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "uint32"])
def test_integer_matmul_matches_numpy(xb_target, dtype):
    rng = np.random.default_rng(0)
    for sa, sb in SHAPES:
        a = rng.integers(0, 50, sa).astype(dtype)
        b = rng.integers(0, 50, sb).astype(dtype)
        x = xb.asarray(a, backend=xb_target.backend, device=xb_target.device)
        y = xb.asarray(b, backend=xb_target.backend, device=xb_target.device)
        assert_equal(x @ y, np.matmul(a, b))


def test_integer_matmul_shape_mismatch_raises(xb_target):
    x = xb.ones((2, 3), dtype=xb.int64, backend=xb_target.backend, device=xb_target.device)
    with pytest.raises(xb.ShapeError, match=r"\(2, 3\) and \(2, 3\)"):  # one typed error on every backend
        x @ x


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int8"])
def test_cuda_integer_matmul_fallback_on_the_cpu(dtype):
    """The CUDA-only path (no integer GEMM on CUDA) runs on CPU tensors here, against np.matmul. int64 data
    whose products and sums overflow int32 catches an accumulator narrower than the dtype; narrow dtypes
    must wrap exactly as NumPy's do."""
    torch = pytest.importorskip("torch")
    from xbackend._backends.torch.linalg import _int_matmul_by_sum

    rng = np.random.default_rng(1)
    info = np.iinfo(dtype)
    hi = min(info.max, 3 * 2**31) if dtype == "int64" else info.max
    lo = max(info.min, -hi)
    for sa, sb in SHAPES:
        a = rng.integers(lo, hi, sa, dtype=dtype, endpoint=True)
        b = rng.integers(lo, hi, sb, dtype=dtype, endpoint=True)
        got = _int_matmul_by_sum(torch.from_numpy(a), torch.from_numpy(b))
        with np.errstate(over="ignore"):
            want = np.asarray(np.matmul(a, b))
        assert got.dtype == torch.from_numpy(want).dtype
        np.testing.assert_array_equal(got.numpy(), want)
    if dtype == "int64":  # products and sums beyond int32, yet exact in int64
        a = np.array([[2**31 + 7, -(2**31) - 3, 5], [1, 2**30, -(2**31)]], dtype=np.int64)
        b = np.array([[3, 2**31 - 1], [2**31, 1], [-7, 2**31]], dtype=np.int64)
        want = np.matmul(a, b)
        assert np.abs(want).max() > 2**32 and np.abs(want).max() < 2**63
        np.testing.assert_array_equal(_int_matmul_by_sum(torch.from_numpy(a), torch.from_numpy(b)).numpy(), want)
