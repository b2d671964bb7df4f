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
    with pytest.raises(Exception):  # noqa: B017 - each library words it differently
        x @ x
