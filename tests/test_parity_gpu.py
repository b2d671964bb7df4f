"""Issue 19's listed cases on the CUDA targets (torch-CUDA, CuPy): the same outcome as NumPy on the CPU.

The CPU targets run the generated parity tests in CI (``tests/test_parity.py``); a GPU machine runs these through
``benchmarks/gpu_check.sh``. Their code paths that only a device takes: Python numbers made on the device without a
host round trip (``scalar_array``), the reductions behind the shift-count and linalg finiteness checks, device
index bounds.
"""

from __future__ import annotations

import pytest

from xbackend.testing import available_targets

from _parity import check_call
from test_parity_cases import CASES

GPU_TARGETS = [t for t in available_targets() if t.is_gpu]

pytestmark = pytest.mark.gpu


@pytest.mark.skipif(not GPU_TARGETS, reason="no CUDA target here")
@pytest.mark.parametrize("case, fn, args, kwargs, expected", CASES, ids=[c[0] for c in CASES])
def test_listed_case_is_the_same_on_the_gpu(case, fn, args, kwargs, expected):
    check_call(case, fn, args, kwargs, targets=GPU_TARGETS)
