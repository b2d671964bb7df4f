"""Every case issue 19 listed, as an explicit example: the same outcome on every CPU target (``check_call``), and the
outcome xbackend promises (a value, or the typed error).

Finds of the generator's long run (``tools/parity_explore.py``, ``HYPOTHESIS_PROFILE=explore``) are added here too,
so that the bounded CI run keeps checking them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xbackend as xb
from _parity import CPU_TARGETS, ArraySpec, Seq, check_call, materialize

NUMPY = next(t for t in CPU_TARGETS if t.backend == "numpy")

pytestmark = pytest.mark.skipif(len({t.backend for t in CPU_TARGETS}) < 2, reason="needs two CPU targets")


def F(values, dt=xb.float64):  # an Array spec (made on every target)
    return ArraySpec(np.array(values, dtype=dt.name), dt)


def N(values, dt=xb.float64):  # the target's native array of the same values
    return ArraySpec(np.array(values, dtype=dt.name), dt, native=True)


def _outcome(fn, *args, **kwargs):
    """What ``fn`` returns or raises on NumPy (the reference), after check_call proved every target agrees."""
    made = [materialize(a, NUMPY) for a in args]
    try:
        return fn(*made, **kwargs)
    except xb.XBackendError as exc:
        return exc


# (case, function, args, kwargs, expected: a value (list), an error class, or a predicate)
CASES = [
    ("take with a list", xb.take, (F([1.0, 2.0, 3.0]), [0, 2]), {}, [1.0, 3.0]),
    ("where with a list condition", xb.where, ([True, False, True], F([1.0, 2.0, 3.0]), 0.0), {}, [1.0, 0.0, 3.0]),
    ("concat with a list", xb.concat, (Seq((F([1.0, 2.0]), [4.0])),), {}, [1.0, 2.0, 4.0]),
    ("isin with a list", xb.isin, (F([1.0, 2.0]), [1.0]), {}, [True, False]),
    ("float32 + 10**30", lambda x: x + 10**30, (F([1.0], xb.float32),), {}, [np.float32(1e30).item()]),
    ("full float32 with 1e300", lambda: xb.full(2, 1e300, dtype=xb.float32), (), {}, [np.inf, np.inf]),
    ("setitem float32 with 1e300", lambda x: (x.__setitem__(0, 1e300), x)[1], (F([1.0, 2.0], xb.float32),), {},
     [np.inf, 2.0]),
    ("setitem of a row into an element", lambda x: x.__setitem__(0, [1.0, 2.0]), (F([1.0, 2.0]),), {}, xb.ShapeError),
    ("eye(-1)", lambda: xb.eye(-1), (), {}, xb.ArgumentValueError),
    ("fft of nothing", xb.fft.fft, (F([]),), {}, xb.ArgumentValueError),
    ("two ellipses", lambda x: x[..., ...], (F([1.0, 2.0]),), {}, xb.InvalidIndexError),
    ("zeros(2**64)", lambda: xb.zeros(2**64), (), {}, xb.ShapeError),
    ("max keepdims='yes'", lambda x: xb.max(x, keepdims="yes"), (F([1.0]),), {}, xb.ArgumentTypeError),
    ("x + np.longdouble(1)", lambda x: x + np.longdouble(1), (F([1.0]),), {}, xb.UnsupportedDTypeError),
    ("reshape to a wrong size", lambda x: xb.reshape(x, (3,)), (F([1.0, 2.0]),), {}, xb.ShapeError),
    ("stack of different shapes", lambda x, y: xb.stack([x, y]), (F([1.0, 2.0]), F([1.0])), {}, xb.ShapeError),
    ("squeeze of a size-2 axis", lambda x: xb.squeeze(x, axis=0), (F([1.0, 2.0]),), {}, xb.ShapeError),
    ("min over an empty axis", lambda x: xb.min(x), (F([]),), {}, xb.ShapeError),
    ("arange(300, uint8)", lambda: xb.arange(300, dtype=xb.uint8), (), {}, xb.ScalarOverflowError),
    ("arange(-1, 2, uint8)", lambda: xb.arange(-1, 2, dtype=xb.uint8), (), {}, xb.ScalarOverflowError),
    ("asarray(nan, int64)", lambda: xb.asarray(np.nan, dtype=xb.int64), (), {}, xb.DomainError),
    ("linspace num=2.5", lambda: xb.linspace(0, 1, 2.5), (), {}, xb.ArgumentTypeError),
    ("asarray of native arrays", lambda a, b: xb.asarray([a, b]), (N([1.0, 2.0]), N([3.0, 4.0])), {},
     [[1.0, 2.0], [3.0, 4.0]]),
    ("asarray of a float32 memoryview", lambda: xb.asarray(memoryview(np.arange(2, dtype=np.float32))).dtype, (), {},
     lambda d: d is xb.float32),
    ("asarray of a bytes memoryview", lambda: xb.asarray(memoryview(b"\x01\xff")).dtype, (), {},
     lambda d: d is xb.uint8),
    ("np.matrix is a plain 2-d array", lambda: xb.asarray(np.matrix([[1.0, 2.0], [3.0, 4.0]]))[0] * 2, (), {},
     [2.0, 4.0]),
    ("masked arrays are refused", lambda: xb.asarray(np.ma.masked_array([1.0, 2.0], [0, 1])), (), {},
     xb.ArgumentTypeError),
    ("setitem out of int8", lambda y: y.__setitem__(0, 300), (F([1, 2], xb.int8),), {}, xb.ScalarOverflowError),
    ("clip bound above int8 changes nothing", lambda y: xb.clip(y, 0, 300), (F([1, 2], xb.int8),), {}, [1, 2]),
    ("full(2, 300, int8)", lambda: xb.full(2, 300, dtype=xb.int8), (), {}, xb.ScalarOverflowError),
    ("where with 300 and int8", lambda y: xb.where(y > 1, y, 300), (F([1, 2], xb.int8),), {}, xb.ScalarOverflowError),
    ("uint64 + int64", lambda x, y: x + y, (F([1], xb.uint64), F([1], xb.int64)), {}, xb.PromotionError),
    ("bool of two elements", lambda x: bool(x), (F([1.0, 2.0]),), {}, xb.ShapeError),
    # finds of the long run (tools/parity_explore.py)
    ("linspace from inf (NumPy's formula)", lambda: xb.linspace(np.inf, 0, 3), (), {}, [np.nan, np.nan, 0.0]),
    ("linspace with a NaN real part (parts apart)", lambda: xb.linspace(complex(np.nan, 1), False, 3), (), {},
     [complex(np.nan, 1), complex(np.nan, 0.5), 0j]),
    ("eye(2**63, 0)", lambda: xb.eye(2**63, 0), (), {}, xb.ShapeError),
    ("ones((2**63 - 1, 0)) of float64", lambda: xb.ones((2**63 - 1, 0)), (), {}, xb.ShapeError),
    ("ones((2**63 - 1, 0)) of bool holds nothing", lambda: xb.ones((2**63 - 1, 0), dtype=xb.bool).shape, (), {},
     lambda s: s == (2**63 - 1, 0)),
    ("reshape of nothing to (2**62, 0, 4)", lambda x: xb.reshape(x, (2**62, 0, 4)), (F([]),), {}, xb.ShapeError),
    ("broadcast_to (2**62, 0)", lambda x: xb.broadcast_to(x, (2**62, 0)), (F([]),), {}, xb.ShapeError),
    ("astype of floats beyond uint8 saturates", lambda x: xb.astype(x, xb.uint8),
     (F([-3.1695471883971856e16, 300.0, np.nan, np.inf, 2.9]),), {}, [0, 255, 0, 255, 2]),
    ("clip of floats by an int beyond int64", lambda x: xb.clip(x, 10**30), (F([1.0, -2.0]),), {}, [1e30, 1e30]),
    ("clip of float32 by True and -2**63 - 1", lambda x: xb.clip(x, True, -(2**63) - 1), (F([1.0], xb.float32),), {},
     [float(np.float32(-(2.0**63)))]),
    ("cholesky of a matrix holding NaN", xb.linalg.cholesky, (F([[np.nan]], xb.float32),), {}, xb.LinAlgError),
    # issue 28: cuSOLVER (torch-CUDA) gives NaN where LAPACK gives inf; no such matrix has a finite factor
    ("cholesky of a matrix holding inf", xb.linalg.cholesky, (F([[np.inf]]),), {}, xb.LinAlgError),
    ("cholesky of a matrix holding -inf off the diagonal", xb.linalg.cholesky,
     (F([[4.0, -np.inf], [-np.inf, 4.0]], xb.float32),), {}, xb.LinAlgError),
    ("cross of a vector with itself is 0 (no fused multiply-add)", lambda x: xb.linalg.cross(x, x),
     (F([8952.18359375, -9827.51953125, 3.255184704667648e16], xb.float32),), {}, [0.0, 0.0, 0.0]),
    ("matrix_rank with rtol=0 ignores rounding noise", lambda x: xb.linalg.matrix_rank(x, rtol=0.0),
     (F([[True, False, True], [True, False, True]], xb.bool),), {}, lambda r: r.item() == 1),
    ("arange of uint64 values beyond int64", lambda: xb.arange(2**63 - 10, 2**63 + 5, 5, dtype=xb.uint64), (), {},
     [2**63 - 10, 2**63 - 5, 2**63]),
    ("arange spanning more than int64", lambda: xb.arange(-(2**63), 2**63 - 1, 2**63 - 1), (), {},
     [-(2**63), -1, 2**63 - 2]),
    ("log1p of a complex whose 1 + z overflows |.|", xb.log1p, (F([complex(-1.7976931348623157e308,
     -1.7976931348623157e308)], xb.complex128),), {}, lambda r: abs(r[0].item() - (710.1292864836639 - 2.356194490192345j))
     < 1e-9),
    ("vector_norm(ord=inf) of no rows", lambda x: xb.linalg.vector_norm(x, axis=1, ord=np.inf),
     (F(np.zeros((0, 2)), xb.int32),), {}, lambda r: r.shape == (0,) and r.dtype is xb.float64),
    ("reshape with a bool shape entry", lambda x: (xb.reshape(x, (1,)), xb.reshape(x, (True,))), (F([0], xb.int16),),
     {}, xb.ArgumentTypeError),
    ("matrix_rank of a matrix whose largest singular value overflows", xb.linalg.matrix_rank,
     (F([[6.0962706138005745e-09 - 9741.77583617307j, -3501.9179551061434 + 5977.832817677972j,
          0.5 + 2.2250738585072014e-308j], [2.727818706620054e-134 + 3.8236269857847426e-169j,
          -0.0 - 1.7976931348623157e308j, 1.694070898195755e-197 - 7.043975251719073e16j]], xb.complex128),), {},
     lambda r: r.item() == 1),
    ("vector_norm over one element is its magnitude", lambda x: xb.linalg.vector_norm(x, axis=-2, ord=3),
     (F([[4e292, -3e-125]]),), {}, [4e292, 3e-125]),
    ("matrix_norm(ord=2) of a matrix holding inf", lambda x: xb.linalg.matrix_norm(x, ord=2),
     (F([[np.inf, 1.0], [2.0, 3.0]]),), {}, xb.LinAlgError),
    ("matrix_norm(ord=-2) of a matrix holding inf", lambda x: xb.linalg.matrix_norm(x, ord=-2),
     (F([[np.inf, 1.0], [2.0, 3.0]]),), {}, xb.LinAlgError),
    ("matrix_norm(ord='nuc') of a matrix holding inf", lambda x: xb.linalg.matrix_norm(x, ord='nuc'),
     (F([[np.inf, 1.0], [2.0, 3.0]]),), {}, xb.LinAlgError),
]


@pytest.mark.parametrize("case, fn, args, kwargs, expected", CASES, ids=[c[0] for c in CASES])
def test_listed_case_is_the_same_everywhere(case, fn, args, kwargs, expected):
    check_call(case, fn, args, kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no library warning leaks out of a promised behaviour
        warnings.simplefilter("ignore", PendingDeprecationWarning)  # np.matrix's own, when the case makes one
        got = _outcome(fn, *args, **kwargs)
    if isinstance(expected, type):
        assert isinstance(got, expected), (case, got)
    elif callable(expected):
        assert expected(got), (case, got)
    else:
        assert not isinstance(got, Exception), (case, got)
        np.testing.assert_array_equal(np.asarray(got.tolist()), np.asarray(expected))


def test_inverses_agree_to_their_condition_number():
    """A long-run find: pinv of an int32 matrix with condition number ~2e8 differs between LAPACK builds by
    ~3e-9 relative, which is eps times the condition number; the comparison allows that for inverses, no more."""
    check_call("linalg.pinv", xb.linalg.pinv, (F([[-1, 10, 1], [-5, 112217, -2147483648]], xb.int32),), {})


def test_decompositions_agree_to_their_input_norm():
    """A long-run find: svdvals of a complex matrix holding 1.8e308 (its norm overflows: the first singular value is
    inf) gave 2.7026e292 on torch and 2.7043e292 on NumPy for the second. A singular value is accurate to eps times
    the input's norm, here infinite: finite values are not compared, the inf/NaN pattern still is."""
    big = 1.7976931348623157e308j
    a = [[-1 - 877.9987417388147j, -1.7232264291400184e16 + 0j, -5.510063280716944e16 - 1.5417806623336684e16j],
         [big, 2 - 2.694799824799203e16j, big]]  # fmt: skip
    check_call("linalg.svdvals", xb.linalg.svdvals, (F(a, xb.complex128),), {})


def test_zero_d_results_go_to_numpy_matplotlib_and_dlpack():
    """The host-side protocols take 0-d results on every eager CPU target (Dask refuses implicit computes)."""
    for t in CPU_TARGETS:
        if t.backend == "dask":
            continue
        x = xb.asarray([1.0, 2.0], backend=t.backend)
        loss = [xb.sum(x), xb.mean(x)]
        assert np.asarray(x[0]).shape == () and float(np.asarray(xb.sum(x) + 1)) == 4.0
        assert bool(np.isclose(x[0], 1.0)) and np.asarray(loss).tolist() == [3.0, 1.5]  # plt.plot(loss) does this
        if t.backend in ("numpy", "torch"):
            torch = pytest.importorskip("torch")
            assert torch.from_dlpack(x[0]).item() == 1.0


def test_native_tensors_in_a_list_stay_on_their_backend():
    torch = pytest.importorskip("torch")
    x = xb.asarray([torch.ones(2), torch.ones(2)])  # the configured backend is NumPy: the tensors decide
    assert x.backend == "torch" and x.shape == (2, 2)
    g = xb.asarray([torch.ones(2, requires_grad=True)])  # stacked by torch: the graph is kept, nothing raw escapes
    assert g.backend == "torch" and g.requires_grad
    with pytest.raises(xb.BackendMismatchError, match="xb.asarray"):
        xb.asarray([torch.ones(2), np.ones(2)])  # two places in one list: refused with the fix


def test_linalg_errors_are_numpy_linalg_errors():
    for t in CPU_TARGETS:
        x = xb.zeros((2, 2), backend=t.backend)
        with pytest.raises(np.linalg.LinAlgError, match="singular"):
            xb.linalg.inv(x).numpy()  # Dask raises when it computes


def test_documented_names_are_exported_and_backend_modules_are_names():
    assert issubclass(xb.ChunkingError, xb.XBackendError) and issubclass(xb.ChunkingError, ValueError)
    torch = pytest.importorskip("torch")
    assert xb.zeros(2, backend=torch).backend == "torch"  # backend=torch (the module) means "torch"
    with pytest.raises(xb.ArgumentTypeError, match="backend must be a name"):
        xb.zeros(2, backend=3)
    from xbackend.testing import across_backends

    with pytest.raises(ValueError, match="did you mean 'numpy'"):
        across_backends(lambda v: v, np.ones(2), backends=["numpy", "nmupy"])
