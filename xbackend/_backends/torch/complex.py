"""torch's complex functions where CUDA's kernels differ from the CPU's: one formula on every device.

Design constraint: no device-only branch. torch-CUDA computes complex functions with its own device math (c10/thrust
complex): other special values at non-finite input (the 2026-12-04 oracle grid: ``sin``, ``sinh``, ``asin``, ``tan``,
``asinh``, ``acosh``; array-api-tests: ``acosh(0 + nan j)``), ``sqrt`` in polar form (``sqrt(-4 + 0j)`` had a real
part of -8.7e-08), ``log1p`` overflowing where ``|1 + z|`` does. Each correction here runs on the CPU too, where it
changes nothing torch computes right, so CPU tests run it (tests/test_torch_backend.py feeds it CUDA-like kernels).
No synchronisation: every step is elementwise.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..._dtypes import DType

torch: Any = None  # the torch module: bound by torch.py's _import_torch() before any backend runs

#: complex functions whose special values at non-finite input are NumPy's by table (CuPy's backend patches the same
#: list, cupy/fixes.patch_nonfinite)
NONFINITE_TABLE = frozenset("asin asinh acosh sin sinh tan tanh expm1".split())

# a part's class: +0, -0, +inf, -inf, NaN; a finite nonzero part is class 5 (not in the table)
_PARTS = (0.0, -0.0, math.inf, -math.inf, math.nan)


def nonfinite_table(name: str, dt: DType, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``fn`` (torch's kernel for complex ``name``, or xbackend's formula) with the NumPy backend's value wherever
    each part of ``z`` is +-0, +-inf or NaN and one is not finite: 21 points, looked up in a 25-entry table made
    once from the NumPy backend's kernel (per device), with no synchronisation. (Where a part is finite and not 0,
    torch-CUDA agreed with NumPy on the grid: those stay ``fn``'s.)"""
    from ..._dispatch import get_backend

    grid = np.empty(25, dtype=np.dtype(dt.name))
    grid.real = np.repeat(_PARTS, 5)
    grid.imag = np.tile(_PARTS, 5)
    with np.errstate(all="ignore"):
        values = np.asarray(get_backend("numpy").kernel(name, dt)(grid), dtype=grid.dtype)
    tables: dict[Any, Any] = {}

    def patched(z: Any) -> Any:
        r = fn(z)
        table = tables.get(z.device)
        if table is None:
            table = tables[z.device] = torch.from_numpy(values).to(z.device)
        ca, cb = _part_class(z.real), _part_class(z.imag)
        use = (ca < 5) & (cb < 5) & ((ca >= 2) | (cb >= 2))
        return torch.where(use, table[(ca * 5 + cb).clamp_(max=24)], r)

    return patched


def _part_class(v: Any) -> Any:
    """0: +0, 1: -0, 2: +inf, 3: -inf, 4: NaN, 5: finite and not 0 (int64, elementwise)."""
    zero = torch.signbit(v).to(torch.int64)
    return torch.where(torch.isnan(v), 4, torch.where(torch.isinf(v), torch.where(v > 0, 2, 3),
                                                      torch.where(v == 0, zero, 5)))  # fmt: skip


def csqrt(z: Any) -> Any:
    """The principal square root of complex ``z``: the larger part of the root from torch's kernel, the smaller from
    ``b / (2 * larger)`` (Kahan's scheme, as C99's csqrt): exact on the axes and accurate where a polar-form kernel
    cancels (torch-CUDA: sqrt(-4 + 0j) = -8.7e-08 + 2j in complex64). The real part is never -0."""
    r = torch.sqrt(z)
    a, b = z.real, z.imag
    t_re, t_im = r.real.abs(), r.imag.abs()
    right = a >= 0
    re = torch.where(right, t_re, b.abs() / (2 * t_im))
    im = torch.where(right, b / (2 * t_re), torch.copysign(t_im, b))
    refine = torch.isfinite(a) & torch.isfinite(b) & ((a != 0) | (b != 0))
    re = torch.where(refine, re, r.real)
    im = torch.where(refine, im, r.imag)
    return torch.complex(torch.where(re == 0, torch.zeros_like(re), re), im)  # a zero real part is +0


def clog1p(z: Any) -> Any:
    """Complex ``log1p``: torch's, with ``log|z|`` for infinite ``z`` (torch gives NaN + NaN j there when a part is
    NaN) and, where ``|1 + z|`` overflows (torch-CUDA: inf for -1.8e308 - 1.8e308j, not 710.13), the log of
    ``w = 1 + z`` scaled by its larger part: ``log(m) + log|w / m|`` with ``m = max(|re w|, |im w|)``."""
    r = torch.where(torch.isinf(z), torch.log(z), torch.log1p(z))
    a = z.real + 1
    b = z.imag
    m = torch.maximum(a.abs(), b.abs())
    big = torch.isinf(r.real) & torch.isfinite(z.real) & torch.isfinite(b) & (m > 1)
    m = torch.where(big, m, torch.ones_like(m))  # (elsewhere unused; 1 keeps the division harmless)
    re = torch.log(m) + torch.log(torch.hypot(a / m, b / m))
    r = torch.where(big, torch.complex(re, torch.atan2(b, a)), r)
    # both parts tiny (torch-CPU: NaN + NaN j at subnormal parts): log|1 + z| = log1p(x (2 + x) + y^2) / 2, and
    # arg(1 + z) = atan2(y, 1 + x), as the NumPy-based backends compute near 0 (common/kernels.py)
    x = z.real
    tiny = (x.abs() < 2.0**-60) & (b.abs() < 2.0**-60)
    near = torch.complex(0.5 * torch.log1p(x * (2 + x) + b * b), torch.atan2(b, a))
    return torch.where(tiny, near, r)
