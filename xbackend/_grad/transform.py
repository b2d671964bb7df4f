"""``xb.grad`` and ``xb.value_and_grad``: gradients of a function written against xbackend, on every backend
that has them - NumPy and CuPy included.

Design constraint: the gradient of one function is the same on every backend (to float tolerance), and data
never moves silently. This module names no backend; each backend says how it is differentiated
(``AutogradContract`` in ``_backend.py``):

* torch Arrays: torch's autograd (``value_and_grad`` of the torch backend: ``torch.autograd.grad`` on fresh
  leaves aliasing the inputs; nothing is accumulated into ``.grad``);
* JAX Arrays: ``jax.value_and_grad`` (the function is traced, xbackend's Python running on the tracers);
* NumPy and CuPy Arrays (``grad_via = "torch"``): every Array argument on the differentiated Arrays' backend and
  device is moved to torch *without a copy* (``Array.to``: NumPy through shared memory, with the documented
  copies for read-only, negatively strided or byte-swapped memory that torch cannot share safely; CuPy through
  DLPack), ``f`` runs on those views inside ``xb.using(backend="torch", device=...)`` (so its creation
  functions land next to them) and on the CuPy stream current at the call; the value, the gradients and the
  aux Arrays come back on the inputs' backend and device, again without a copy. Without torch: the typed
  error of the registry, naming the install;
* every other backend (Dask, array-api-strict): :class:`~xbackend.GradientError` with the backend's fix.

Gradients have their inputs' dtypes, shapes and structure (an argument may be a tuple, list or dict of
Arrays: a model's parameters). Inside another ``xb.grad``'s function the graph is kept, so gradients can be
differentiated again.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from .. import _config
from .._array import MIXED_PLACES, Array, _alloc, _check_partner, _new
from .autograd import ACTIVE
from .._dispatch import get_backend
from .._errors import ArgumentTypeError, ArgumentValueError, BackendUnavailableError, GradientError
from . import closures
from .._interchange import _transport
from .._jit import _rebuild  # the same container specs ("a": the i-th Array, "c": a constant, containers)

__all__ = ["grad", "value_and_grad"]

_CONTAINERS = (tuple, list, dict)


# --- arguments and results as flat lists of Arrays ---------------------------------------------------
def _flatten(obj: Any, arrays: list[Array], diff: list[int] | None, where: Any) -> Any:
    """``obj`` with each Array replaced by its index in ``arrays``; a spec for :func:`_rebuild`. ``diff``
    (for a differentiated argument) collects those indices, and every leaf must then be an Array. ``where``
    names ``obj`` in an error: ``(function, argument index, path)``."""
    t = type(obj)
    if t is Array:
        if diff is not None:
            diff.append(len(arrays))
        arrays.append(obj)
        return ("a", len(arrays) - 1)
    if t is tuple or t is list:
        return (t, tuple(_flatten(v, arrays, diff, (*where[:2], f"{where[2]}[{i}]")) for i, v in enumerate(obj)))
    if t is dict:
        return (dict, tuple((k, _flatten(v, arrays, diff, (*where[:2], f"{where[2]}[{k!r}]"))) for k, v in obj.items()))
    if diff is not None:
        f, i, path = where
        raise ArgumentTypeError(
            f"xb.grad differentiates Arrays (or tuples, lists and dicts of them), but argument {i}{path} of {_name(f)} "
            f"is a {t.__name__}. Fix: pass it as an Array on the backend of the other Arrays, e.g. xb.asarray(value) "
            "(or leave it out of argnums)"
        )
    return ("c", obj)


def _argnums(argnums: int | Sequence[int]) -> tuple[tuple[int, ...], bool]:
    """``(argnums as a tuple, whether one was given as an int)``, checked once at decoration."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return (argnums,), True
    if isinstance(argnums, (tuple, list)) and argnums and all(
        isinstance(i, int) and not isinstance(i, bool) for i in argnums
    ):
        if len(set(argnums)) != len(argnums):
            raise ArgumentValueError(f"argnums must not repeat an argument, got {tuple(argnums)}. Fix: name each "
                                     f"argument once, e.g. argnums={tuple(dict.fromkeys(argnums))}")  # fmt: skip
        return tuple(argnums), False
    raise ArgumentTypeError(f"argnums must be an int or a non-empty tuple of ints, got {argnums!r}. Fix: name the "
                            "differentiated positional arguments by position, e.g. argnums=(0, 1)")  # fmt: skip


# --- the public functions ----------------------------------------------------------------------------
def value_and_grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0, *,
                   has_aux: bool = False) -> Callable[..., Any]:  # fmt: skip
    """A function that returns ``f``'s value and its gradient with respect to the arguments ``argnums``.

    ``f`` takes Arrays (and anything else) and returns a 0-d real floating Array, the loss - or, with
    ``has_aux=True``, a pair ``(loss, aux)`` where ``aux`` is passed back as it is (its Arrays detached).
    The differentiated arguments are Arrays of one backend and device, or tuples, lists or dicts of them;
    each gradient has its argument's structure, shapes, dtype, backend and device.

    Works on torch Arrays (autograd), JAX Arrays (``jax.grad``), and NumPy and CuPy Arrays, which are
    differentiated through torch's autograd on zero-copy views (torch must be installed). Dask and other
    backends raise :class:`~xbackend.GradientError` with the fix. See the guide page "Training with
    gradients" for a training loop written once for every backend.

    Parameters
    ----------
    f
        The function to differentiate, written against xbackend.
    argnums
        Which positional arguments to differentiate: an int (the gradient is returned as it is) or a tuple
        of ints (a tuple of gradients, in that order).
    has_aux
        ``f`` returns ``(loss, aux)``; the result is then ``((loss, aux), gradients)``.

    Returns
    -------
    callable
        ``g(*args, **kwargs) -> (loss, gradients)``; ``loss`` is a 0-d Array on the inputs' backend.

    Examples
    --------
    >>> import xbackend as xb
    >>> def loss(w, x):
    ...     return xb.sum((x @ w - 1.0) ** 2)
    >>> x = xb.asarray([[1.0, 2.0], [3.0, 4.0]])                       # NumPy Arrays
    >>> value, g = xb.value_and_grad(loss)(xb.asarray([0.5, 0.5]), x)  # residuals 0.5, 2.5; g = 2 x.T r
    >>> float(value), g.tolist(), g.backend
    (6.5, [16.0, 22.0], 'numpy')
    """
    nums, single = _argnums(argnums)

    @functools.wraps(f)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        return _run(f, nums, single, has_aux, args, kwargs)

    return value_and_grad_f


def grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0, *, has_aux: bool = False) -> Callable[..., Any]:
    """A function that returns the gradient of ``f`` with respect to the arguments ``argnums``.

    As :func:`value_and_grad`, without the value: ``g(*args)`` returns the gradient (a tuple of them when
    ``argnums`` is a tuple), or ``(gradients, aux)`` with ``has_aux=True``. Nested calls differentiate
    again: ``xb.grad(xb.grad(f))`` is the second derivative (torch and JAX Arrays, and NumPy and CuPy ones
    through torch).

    Examples
    --------
    >>> import xbackend as xb
    >>> def f(x):
    ...     return xb.sum(xb.sin(x))
    >>> x = xb.asarray([0.0, 1.0])
    >>> xb.grad(f)(x).tolist() == xb.cos(x).tolist()
    True
    >>> d2 = xb.grad(lambda x: xb.sum(xb.grad(f)(x)))(x)         # the second derivative, -sin(x)
    >>> xb.all(xb.abs(d2 + xb.sin(x)) < 1e-15).item()
    True
    """
    vg = value_and_grad(f, argnums, has_aux=has_aux)

    @functools.wraps(f)
    def grad_f(*args: Any, **kwargs: Any) -> Any:
        value, grads = vg(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return grad_f


# --- one call ------------------------------------------------------------------------------------------
def _run(f: Callable[..., Any], nums: tuple[int, ...], single: bool, has_aux: bool, args: tuple[Any, ...],
         kwargs: dict[str, Any]) -> Any:  # fmt: skip
    n = len(args)
    for i in nums:
        if not -n <= i < n:
            raise ArgumentTypeError(f"argnums {nums} names argument {i}, but {_name(f)} was called with {n} positional "
                            "argument(s). Fix: pass the differentiated arguments positionally")  # fmt: skip
    pos = nums if min(nums) >= 0 else tuple(i % n for i in nums)
    # the common call - every argument an Array, no keywords - needs no flattening: the arguments are the
    # Arrays, each differentiated argument one of them (specs None); anything else is flattened
    specs: list[Any] | None = None
    kspecs: dict[str, Any] | None = None
    flat = not kwargs
    if flat:
        for a in args:
            if type(a) is not Array:
                flat = False
                break
    if flat:
        arrays: Any = args
        wrt: Any = pos
    else:
        arrays = []
        by_arg: dict[int, list[int]] = {}
        specs = []
        for i, a in enumerate(args):
            if type(a) is Array:  # the common argument: no call
                if i in pos:
                    by_arg[i] = [len(arrays)]
                specs.append(("a", len(arrays)))
                arrays.append(a)
            else:
                specs.append(_flatten(a, arrays, by_arg.setdefault(i, []) if i in pos else None, (f, i, "")))
        kspecs = {k: _flatten(v, arrays, None, (f, k, "")) for k, v in kwargs.items()} if kwargs else None
        wrt = [j for i in pos for j in by_arg[i]]
        if not wrt:
            raise ArgumentTypeError(f"the arguments {nums} of {_name(f)} hold no Array to differentiate. Fix: pass "
                                    "the parameters as Arrays, e.g. xb.asarray(w), or point argnums at "
                                    "them")  # fmt: skip
    first = arrays[wrt[0]]
    be, dev = first._be, first._dev
    for j in wrt:
        a = arrays[j]
        if a._be is not be or a._dev is not dev:
            _check_partner(first, a)
        if a._dt.kind != "f":
            raise GradientError(
                f"xb.grad differentiates real floating-point Arrays; one of the arguments {nums} is {a._dt}. Fix: "
                "cast it first, e.g. w = w.astype(xb.float64) (or leave it out of argnums)"
            )
    via = be.grad_via
    if via is None:
        engine, edev, cfg = be, dev, None
        natives = [a._data for a in arrays]
    else:  # every Array of the differentiated ones' backend and device, as a view on the engine
        engine, edev, move_in, move_out = _route(be, dev, via)
        natives = [move_in(a._data, a._dt) if a._be is be and a._dev is dev else a._data for a in arrays]
        cfg = _creating_on(engine, edev)
    out_meta: list[Any] = [None, None, ()]  # value dtype, aux spec, aux (dtype, device, backend) per Array

    def on_natives(xs: list[Any]) -> tuple[Any, list[Any]]:
        # f's arguments: the Arrays of the differentiated ones' backend and device on the engine (their views,
        # or the fresh leaves), the others as they are
        if via is None:
            rebuilt = [_wrap(x, a._dt, a._dev, a._be) for x, a in zip(xs, arrays)]
        else:
            rebuilt = [_wrap(x, a._dt, edev, engine) if a._be is be and a._dev is dev else
                       _wrap(x, a._dt, a._dev, a._be) for x, a in zip(xs, arrays)]  # fmt: skip
        token = ACTIVE.set(ACTIVE.get() + (engine,))
        ctoken = None if cfg is None else _config._ctx.set(cfg)
        # a global or closure Array of the inputs' place meets the views as a constant, as on torch (closures.py)
        htoken = None if via is None else closures.enter((be, dev, engine, edev, move_in))
        try:
            if specs is None:
                out = f(*rebuilt)
            else:
                a = [_rebuild(s, rebuilt) for s in specs]
                out = f(*a, **{k: _rebuild(s, rebuilt) for k, s in kspecs.items()}) if kspecs else f(*a)
        finally:
            if htoken is not None:
                MIXED_PLACES.reset(htoken)
            if ctoken is not None:
                _config._ctx.reset(ctoken)
            ACTIVE.reset(token)
        aux: Any = None
        if has_aux:
            if type(out) is not tuple or len(out) != 2:
                raise ArgumentTypeError(f"has_aux=True: {_name(f)} must return a pair (loss, aux), got "
                                        f"{type(out).__name__}. Fix: return (loss, aux) from it, or drop "
                                        "has_aux=True")  # fmt: skip
            out, aux = out
        value = _loss(out, engine, f)
        out_meta[0] = value._dt
        if not has_aux:
            return value._data, []
        aux_arrays: list[Array] = []
        out_meta[1] = _flatten(aux, aux_arrays, None, (f, "aux", ""))
        out_meta[2] = [(x._dt, x._dev, x._be) for x in aux_arrays]
        return value._data, [x._data for x in aux_arrays]

    nested = bool(ACTIVE.get())
    if via is None:
        v, gs, aux_natives = engine.value_and_grad(on_natives, natives, tuple(wrt), nested)
        places = [(dv, b) for _, dv, b in out_meta[2]]
    else:
        with engine.use_stream(be.stream_handle(dev), edev):  # the engine works on the inputs' stream
            v, gs, aux_natives = engine.value_and_grad(on_natives, natives, tuple(wrt), nested)
            # back where the inputs live, without a copy (still on that stream); a gradient has its input's
            # dtype, the value the dtype f's loss had
            v = move_out(v, out_meta[0])
            gs = [move_out(g, arrays[j]._dt) for g, j in zip(gs, wrt)]
            if has_aux:
                home = [b is engine and dv is edev for _, dv, b in out_meta[2]]
                aux_natives = [move_out(x, dt) if h else x for x, h, (dt, _, _) in zip(aux_natives, home, out_meta[2])]
                places = [(dev, be) if h else (dv, b) for h, (_, dv, b) in zip(home, out_meta[2])]
    value = _new(v, out_meta[0], dev, be)
    if specs is None:  # each differentiated argument is one Array: its gradient, in argnums' order
        grads = [_new(g, arrays[j]._dt, dev, be) for g, j in zip(gs, wrt)]
        result = grads[0] if single else tuple(grads)
    else:
        by_index = {j: _new(g, arrays[j]._dt, dev, be) for g, j in zip(gs, wrt)}
        result = _rebuild(specs[pos[0]], by_index) if single else tuple(_rebuild(specs[i], by_index) for i in pos)
    if has_aux:
        aux_list = [_new(x, dt, dv, b) for x, (dt, _, _), (dv, b) in zip(aux_natives, out_meta[2], places)]
        return (value, _rebuild(out_meta[1], aux_list)), result
    return value, result


def _wrap(x: Any, dt: Any, dev: Any, be: Any) -> Array:
    """An Array around an engine's native array (a tensor or a tracer: never a NumPy scalar, so ``_new``'s
    check is not needed)."""
    a = _alloc()
    a._data = x
    a._dt = dt
    a._dev = dev
    a._be = be
    return a


_ROUTES: dict[Any, tuple[Any, Any, Any]] = {}  # (backend, device, engine) -> (engine's device, movers in and out)


def _route(be: Any, dev: Any, via: str) -> tuple[Any, Any, Callable[[Any, Any], Any], Callable[[Any, Any], Any]]:
    """How ``be``'s Arrays on ``dev`` are differentiated: the engine (asked every time: the registry may
    replace it), its device and the movers there and back (looked up once per engine; a device the engine
    refuses raises every time: nothing is stored then)."""
    engine = _engine(be, via)
    key = (be, dev, engine)
    route = _ROUTES.get(key)
    if route is None:
        edev = engine.check_device(dev)
        route = (edev, _mover(be, dev, engine, edev), _mover(engine, edev, be, dev))
        if len(_ROUTES) > 64:
            _ROUTES.clear()
        _ROUTES[key] = route
    return (engine, *route)


_MOVERS: dict[Any, Callable[[Any, Any], Any]] = {}  # (source, its device, destination, its device) -> mover


def _mover(src: Any, sdev: Any, dst: Any, ddev: Any) -> Callable[[Any, Any], Any]:
    """``move(x, dt)``: a native ``x`` of ``src`` on ``sdev`` (dtype ``dt``) as a native array of ``dst`` on
    ``ddev`` - ``Array.to``'s transport (sharing memory where that is safe), without its copy bookkeeping:
    ``xb.grad`` never writes into its inputs. Between two host backends it is the two backends' own calls
    (what the transport does there), looked up once per pair."""
    key = (src, sdev, dst, ddev)
    move = _MOVERS.get(key)
    if move is None:
        if sdev.type == "cpu" and ddev.type == "cpu" and src is not dst:
            to_host, from_host = src.to_host, dst.from_host

            def move(x: Any, dt: Any) -> Any:
                return from_host(to_host(x), dt, ddev, None)

        else:

            def move(x: Any, dt: Any) -> Any:
                return _transport(src, x, dt, sdev, dst, ddev)

        if len(_MOVERS) > 64:
            _MOVERS.clear()
        _MOVERS[key] = move
    return move


def _name(f: Any) -> str:
    return f"{getattr(f, '__qualname__', None) or getattr(f, '__name__', None) or 'f'}()"


def _engine(be: Any, via: str) -> Any:
    """The backend that differentiates ``be``'s Arrays; unusable: the registry's error, naming the install."""
    try:
        return get_backend(via)
    except BackendUnavailableError as exc:
        raise BackendUnavailableError(
            f"xb.grad differentiates {be.name} Arrays with {via}'s autograd (on zero-copy views of them), and {exc}"
        ) from exc


_VIA_CONFIGS: dict[Any, Any] = {}  # (config in force, engine name, device) -> the config f runs under


def _creating_on(engine: Any, dev: Any) -> Any:
    """The config of ``xb.using(backend=engine, device=dev)`` on top of the one in force, cached (so its
    creation cache survives calls): ``f``'s creation functions make Arrays next to the views it gets."""
    cur = _config.current()
    key = (cur, engine.name, dev)
    cfg = _VIA_CONFIGS.get(key)
    if cfg is None:
        if len(_VIA_CONFIGS) > 32:
            _VIA_CONFIGS.clear()
        with _config.using(backend=engine.name, device=dev) as cfg:
            pass
        _VIA_CONFIGS[key] = cfg
    return cfg


def _loss(out: Any, engine: Any, f: Any) -> Array:
    """``f``'s result, checked: a 0-d real floating Array of the backend that differentiates it."""
    if type(out) is not Array:
        raise GradientError(
            f"xb.grad needs {_name(f)} to return a 0-d Array (the loss), got {type(out).__name__}. "
            + ("float(...) and .item() leave the graph: keep the value an Array. " if isinstance(out, float) else "")
            + "Fix: return an Array, e.g. xb.sum(...) or xb.mean(...)"
        )
    if out.ndim != 0:
        raise GradientError(f"xb.grad needs {_name(f)} to return a 0-d Array (a scalar loss), got shape "
                            f"{out.shape}. Fix: reduce it, e.g. return xb.sum(out) or xb.mean(out)")  # fmt: skip
    if out._dt.kind != "f":
        raise GradientError(f"xb.grad needs {_name(f)} to return a real floating-point Array, got {out._dt}. Fix: "
                            "compute the loss in floating point, e.g. xb.astype(out, xb.float64)")  # fmt: skip
    if out._be is not engine:
        raise GradientError(
            f"{_name(f)} returned a {out._be.name} Array, but its differentiated arguments are on {engine.name}: "
            "the result does not come from them. Fix: compute the loss from the differentiated arguments"
        )
    return out
