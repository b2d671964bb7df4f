"""Hypothesis strategies that draw data once (as NumPy) and convert it, so every backend sees the same
values.

Design constraint: built on ``hypothesis.extra.numpy``. Values are drawn on the host and only then
converted with :func:`xbackend.asarray`, so a test can feed the *same* drawn NumPy array to every
target (draw with :func:`host_arrays`, convert per target) and compare with a NumPy oracle. What some
backend cannot hold is left out up front rather than failing later:

- subnormal floats are never drawn (CuPy and some torch kernels flush them to zero);
- ``dtypes(backend=...)`` leaves out the dtypes that backend cannot hold;
- bfloat16 (no NumPy dtype without ml_dtypes) is drawn only when asked for, as float32 host data whose
  values bfloat16 holds exactly.

:func:`rngs` and :func:`random_arrays` go the other way: a drawn *seed* crosses to the target, and the data is
made there by ``xb.random`` (its portable stream gives the same values on every backend), so large inputs on a GPU
need no host copy.

Importing this module needs hypothesis; ``import xbackend.testing`` does not.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from .. import _dtypes as D
from .._dtypes import DType
from .._errors import ArgumentValueError

__all__ = [
    "dtypes", "shapes", "arrays", "host_arrays", "broadcastable_shapes", "mutually_broadcastable_shapes",
    "backends", "devices", "targets", "rngs", "random_arrays",
]  # fmt: skip

_REAL_F = (D.float16, D.float32, D.float64)
_KINDS: dict[str, tuple[DType, ...]] = {
    "bool": (D.bool,), "signed": D.SIGNED, "unsigned": D.UNSIGNED, "integer": D.INTEGER,
    "real floating": _REAL_F, "complex floating": D.COMPLEX,
    "floating": _REAL_F + D.COMPLEX,
    "numeric": D.INTEGER + _REAL_F + D.COMPLEX,
    "real": D.INTEGER + _REAL_F,
    "all": (D.bool,) + D.INTEGER + _REAL_F + D.COMPLEX,
}  # fmt: skip
_WITH_BF16 = ("real floating", "floating", "numeric", "real", "all")


def _holds(backend: str, dt: DType) -> bool:
    from ._targets import backend_holds

    return backend_holds(backend, dt)


def dtypes(kind: str | DType | Sequence[str | DType] = "all", *, backend: str | None = None, bfloat16: bool = False,
           wide_unsigned: bool = True) -> st.SearchStrategy[DType]:  # fmt: skip
    """xbackend dtypes of a kind: ``"bool"``, ``"signed"``, ``"unsigned"``, ``"integer"``,
    ``"real floating"``, ``"complex floating"``, ``"floating"``, ``"real"``, ``"numeric"``, ``"all"``
    (or a list of kinds and dtypes, e.g. ``[xb.float16, xb.float32]``).

    Only dtypes the target can hold are drawn: ``backend=``'s, else the running test's target
    (:func:`~xbackend.testing.current_target`, set by the pytest plugin), asked through
    :meth:`~xbackend.testing.Target.holds` (array-api-strict has no float16). ``bfloat16=True`` adds bfloat16 to the
    floating kinds (left out by default: NumPy, the oracle, cannot hold it without ml_dtypes);
    ``wide_unsigned=False`` leaves out uint16/uint32/uint64, which torch holds but has few kernels for
    (xbackend emulates the common ones; use this for operations it does not emulate yet).

    >>> from xbackend.testing.strategies import dtypes
    >>> from hypothesis import find
    >>> find(dtypes("bool"), lambda d: True)
    xb.bool
    """
    kinds = [kind] if isinstance(kind, (str, DType)) else list(kind)
    pool: list[DType] = []
    for k in kinds:
        if isinstance(k, DType):
            pool += [k] if k not in pool else []
            continue
        if k not in _KINDS:
            raise ArgumentValueError(f"unknown dtype kind {k!r}. Fix: use one of {', '.join(_KINDS)}, e.g. "
                                     "kind='real floating'")  # fmt: skip
        extra = (D.bfloat16,) if bfloat16 and k in _WITH_BF16 else ()
        pool += [d for d in _KINDS[k] + extra if d not in pool]
    if not wide_unsigned:
        pool = [d for d in pool if d not in (D.uint16, D.uint32, D.uint64)]
    if backend is not None:
        pool = [d for d in pool if _holds(backend, d)]
    if not pool:
        raise ArgumentValueError(f"no dtype of kind {kind!r} can be held by backend {backend!r}. Fix: ask for a "
                                 "kind the backend holds, e.g. kind='real floating'")  # fmt: skip
    if backend is not None:
        return st.sampled_from(pool)
    return _for_current_target(tuple(pool))


@st.composite
def _for_current_target(draw: Any, pool: tuple[DType, ...]) -> DType:
    """A dtype of ``pool`` that the running test's target holds (any of ``pool`` outside a target's test)."""
    from ._targets import current_target

    t = current_target()
    held = pool if t is None else tuple(d for d in pool if t.holds(d))
    if not held:
        from hypothesis import reject

        reject()  # pragma: no cover - a test whose whole dtype pool this target lacks draws nothing
    return draw(st.sampled_from(held))


def shapes(*, min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 5) -> st.SearchStrategy:
    """Array shapes (``hypothesis.extra.numpy.array_shapes`` with 0-d and size-0 allowed).

    >>> from xbackend.testing.strategies import shapes
    >>> from hypothesis import find
    >>> find(shapes(min_dims=2, max_dims=2), lambda s: True)
    (0, 0)
    """
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def broadcastable_shapes(shape: tuple[int, ...], **kw: Any) -> st.SearchStrategy:
    """Shapes that broadcast against ``shape`` (keywords as ``hypothesis.extra.numpy.broadcastable_shapes``;
    ``shape`` may have size-0 sides).

    >>> import numpy as np
    >>> from xbackend.testing.strategies import broadcastable_shapes
    >>> from hypothesis import find
    >>> find(broadcastable_shapes((2, 3)), lambda s: len(s) == 2)
    (1, 1)
    """
    if 0 in tuple(shape):  # a size-0 side only broadcasts with 0 or 1: let hypothesis draw 0-sides too
        kw.setdefault("min_side", 0)
    return hnp.broadcastable_shapes(shape, **kw)


def mutually_broadcastable_shapes(num_shapes: int, **kw: Any) -> st.SearchStrategy:
    """``num_shapes`` shapes that broadcast together; draws ``(input_shapes, result_shape)``.

    >>> from xbackend.testing.strategies import mutually_broadcastable_shapes
    >>> from hypothesis import find
    >>> s = find(mutually_broadcastable_shapes(2), lambda s: len(s.result_shape) == 1)
    >>> len(s.input_shapes), s.result_shape
    (2, (1,))
    """
    return hnp.mutually_broadcastable_shapes(num_shapes=num_shapes, **kw)


def _bf16_exact(a: np.ndarray) -> np.ndarray:
    """float32 values rounded toward zero to bfloat16's 8-bit mantissa (NaN stays NaN)."""
    bits = a.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
    out = bits.view(np.float32)
    return np.where(np.isnan(a), np.float32(np.nan), out).astype(np.float32)


def _element_strategy(dt: DType, elements: Any, finite: bool) -> Any:
    if dt.kind not in "fc":
        return elements
    if elements is not None and not isinstance(elements, dict):
        return elements
    kw: dict[str, Any] = {"allow_subnormal": False}
    if finite:
        kw.update(allow_nan=False, allow_infinity=False)
    kw.update(elements or {})
    host = np.dtype("float32" if dt is D.bfloat16 else dt.name)
    return hnp.from_dtype(host, **kw)


def host_arrays(dtype: DType | st.SearchStrategy[DType], shape: Any = None, *, elements: Any = None,
                finite: bool = False) -> st.SearchStrategy[np.ndarray]:  # fmt: skip
    """NumPy arrays of an xbackend dtype: the oracle data every backend will receive.

    ``shape`` is a shape, an int or a strategy (default :func:`shapes`); ``elements`` a strategy or a
    dict of ``hypothesis.extra.numpy.from_dtype`` keywords (``{"min_value": -1, "max_value": 1}``);
    ``finite=True`` leaves out NaN and infinities. Subnormal floats are never drawn (CuPy and some
    torch kernels flush them to zero). bfloat16 data comes as float32 holding bfloat16-exact values.

    >>> import xbackend as xb
    >>> from xbackend.testing.strategies import host_arrays
    >>> from hypothesis import find
    >>> find(host_arrays(xb.float32, (2, 3), finite=True), lambda a: (a > 1).all())
    array([[2., 2., 2.],
           [2., 2., 2.]], dtype=float32)
    """
    shape = shapes() if shape is None else shape

    def build(dt: DType) -> st.SearchStrategy[np.ndarray]:
        host = np.dtype("float32" if dt is D.bfloat16 else dt.name)
        strat = hnp.arrays(host, shape, elements=_element_strategy(dt, elements, finite))
        return strat.map(_bf16_exact) if dt is D.bfloat16 else strat

    if isinstance(dtype, DType):
        return build(dtype)
    if isinstance(dtype, str):
        return build(D.dtype(dtype))
    return dtype.flatmap(build)


def arrays(*, dtype: DType | st.SearchStrategy[DType] | None = None, shape: Any = None,
           backend: str | st.SearchStrategy[str] | None = None, device: str | st.SearchStrategy[str] | None = None,
           elements: Any = None, finite: bool = False) -> st.SearchStrategy[Any]:  # fmt: skip
    """xbackend Arrays on ``backend``/``device`` (default: the configured ones), drawn on the host by
    :func:`host_arrays` and converted, so every backend gets exactly the values NumPy would.

    ``dtype``, ``backend`` and ``device`` may be values or strategies (e.g. ``backend=backends()``);
    without ``dtype``, any dtype the backend can hold.

    >>> import xbackend as xb
    >>> from xbackend.testing.strategies import arrays
    >>> from hypothesis import find
    >>> x = find(arrays(dtype=xb.int8, shape=(3,)), lambda x: True)
    >>> x.shape, x.dtype, x.backend
    ((3,), xb.int8, 'numpy')
    """
    from .._creation import asarray

    be_st = backend if isinstance(backend, st.SearchStrategy) else st.just(backend)
    dev_st = device if isinstance(device, st.SearchStrategy) else st.just(device)

    @st.composite
    def draw_array(draw: Any) -> Any:
        be = draw(be_st)
        dev = draw(dev_st)
        if dtype is None:
            dt = draw(dtypes(backend=be) if be is not None else dtypes())
        elif isinstance(dtype, st.SearchStrategy):
            dt = draw(dtype)
            if be is not None and not _holds(be, dt):  # a drawn backend without the drawn dtype: another draw
                from hypothesis import reject

                reject()
        else:
            dt = D.dtype(dtype)
        host = draw(host_arrays(dt, shape, elements=elements, finite=finite))
        return asarray(host, dtype=dt, backend=be, device=dev)

    return draw_array()


def backends() -> st.SearchStrategy[str]:
    """Names of the backends usable here (``XBACKEND_TEST_BACKENDS`` narrows them).

    >>> from xbackend.testing.strategies import backends
    >>> from hypothesis import find
    >>> find(backends(), lambda b: b == "numpy")
    'numpy'
    """
    from ._targets import selected_targets

    return st.sampled_from(sorted({t.backend for t in selected_targets()}))


def devices(backend: str | None = None) -> st.SearchStrategy[str]:
    """Device strings usable here (for one backend, or any).

    >>> from xbackend.testing.strategies import devices
    >>> from hypothesis import find
    >>> find(devices("numpy"), lambda d: True)
    'cpu'
    """
    from ._targets import selected_targets

    return st.sampled_from(sorted({t.device for t in selected_targets() if backend in (None, t.backend)}))


def targets() -> st.SearchStrategy[Any]:
    """(backend, device) :class:`~xbackend.testing.Target` pairs usable here.

    >>> from xbackend.testing.strategies import targets
    >>> from hypothesis import find
    >>> find(targets(), lambda t: True).id
    'numpy-cpu'
    """
    from ._targets import selected_targets

    return st.sampled_from(list(selected_targets()))


def _place(backend: str | None, device: str | None) -> tuple[str | None, str | None]:
    """``backend``/``device``, else the running test's target (the pytest plugin), else None (the context)."""
    if backend is None and device is None:
        from ._targets import current_target

        t = current_target()
        if t is not None:
            return t.backend, t.device
    return backend, device


def rngs(*, backend: str | None = None, device: str | None = None) -> st.SearchStrategy[Any]:
    """Portable ``xb.random`` generators seeded from a drawn integer, placed on ``backend``/``device`` (default:
    the running test's target, else the configured place): a given seed draws the same numbers on every target.

    >>> from xbackend.testing.strategies import rngs
    >>> from hypothesis import find
    >>> find(rngs(backend="numpy"), lambda g: True).random(2).shape
    (2,)
    """
    from ..random import default_rng

    def build(seed: int) -> Any:
        b, d = _place(backend, device)
        return default_rng(seed, backend=b, device=d)

    return st.integers(0, 2**64 - 1).map(build)


def random_arrays(dtype: DType | st.SearchStrategy[DType], shape: Any = None, *, backend: str | None = None,
                  device: str | None = None, distribution: str = "uniform", low: Any = None,
                  high: Any = None) -> st.SearchStrategy[Any]:  # fmt: skip
    """Arrays made on the target by ``xb.random`` from a drawn seed: no host data and no copy, and the same values
    on every backend for the same seed (floats and integers bit for bit; ``distribution="normal"`` within an ulp
    or two).

    Floats: ``"uniform"`` in ``[low, high)`` (default ``[0, 1)``) or ``"normal"`` (mean ``low``, default 0,
    standard deviation ``high``, default 1); integers: ``[low, high]`` (default: the dtype's whole range); bool:
    fair coins. ``shape`` as for :func:`host_arrays`; the place as for :func:`rngs`.

    >>> import xbackend as xb
    >>> from xbackend.testing.strategies import random_arrays
    >>> from hypothesis import find
    >>> x = find(random_arrays(xb.float32, (2, 3), backend="numpy", low=-1, high=1), lambda x: True)
    >>> x.shape, x.dtype, bool(xb.all((x >= -1) & (x < 1)))
    ((2, 3), xb.float32, True)
    """
    if distribution not in ("uniform", "normal"):
        raise ArgumentValueError(f"distribution must be 'uniform' or 'normal', got {distribution!r}. Fix: pass one "
                                 "of them, e.g. distribution='normal'")  # fmt: skip
    shape_st = shapes() if shape is None else shape if isinstance(shape, st.SearchStrategy) else st.just(shape)
    dt_st = dtype if isinstance(dtype, st.SearchStrategy) else st.just(D.dtype(dtype))

    @st.composite
    def draw_array(draw: Any) -> Any:
        dt, shp = draw(dt_st), draw(shape_st)
        g = draw(rngs(backend=backend, device=device))
        if dt is D.bool:
            return g.bernoulli(0.5, shp)
        if dt.kind in "iu":
            info = D.iinfo(dt)
            lo = info.min if low is None else int(low)
            hi = info.max if high is None else int(high)
            return g.integers(lo, hi, shp, dtype=dt, endpoint=True)
        if dt.kind != "f":
            raise ArgumentValueError(f"random_arrays draws bool, integer and real floating dtypes, not {dt}. Fix: "
                                     "ask for one of those, e.g. dtype=xb.float64")  # fmt: skip
        if distribution == "normal":
            return g.normal(0.0 if low is None else low, 1.0 if high is None else high, shp, dtype=dt)
        return g.uniform(0.0 if low is None else low, 1.0 if high is None else high, shp, dtype=dt)

    return draw_array()
