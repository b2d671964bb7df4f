"""The Array put together, in one visible place: its whole surface, every attribute with its provider, in order.

Design constraint: importing a module changes nothing. ``xbackend/_array.py`` defines the class with what needs
nothing above it; every other part is implemented where it belongs (the operators with the dtype rules, ``x.to``
with the moves between backends, ``x[key]`` with indexing) and put on the Array here, by
:func:`assemble`, which ``xbackend/__init__.py`` calls once, last. The same call puts the public functions behind the
boundary, the one way out for errors, and fills the links a lower module keeps for a higher one (the registry for an
unpickled backend and for a Device's backend name, the configuration for ``dtype=float``, the pinned ring for large
host->CUDA moves).
What an Array is, in the order it is put together (provider: attributes):

- ``_array.py``, the class body: the slots ``_data _dt _dev _be __weakref__``, ``__array_priority__``, the
  properties ``dtype device backend native shape ndim size T mT``, the conversions ``__repr__ __str__ __format__
  __bool__ __int__ __float__ __complex__ __index__ _scalar item tolist __array__ __dlpack_device__ to_device
  astype detach __copy__``, lazy results ``compute persist``, ``__len__ __iter__``, and the private constructor
  ``_new``
- ``_operators.py``: ``__add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__
  __truediv__ __rtruediv__ __itruediv__ __floordiv__ __rfloordiv__ __ifloordiv__ __mod__ __rmod__ __imod__
  __pow__ __rpow__ __ipow__ __and__ __rand__ __iand__ __or__ __ror__ __ior__ __xor__ __rxor__ __ixor__
  __lshift__ __rlshift__ __ilshift__ __rshift__ __rrshift__ __irshift__ __matmul__ __rmatmul__ __imatmul__
  __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __neg__ __pos__ __abs__ __invert__ __hash__``
- ``_grad/autograd.py``: ``grad requires_grad is_leaf requires_grad_ backward``
- ``_interchange.py``: ``to numpy __dlpack__``
- ``_indexing.py``: ``__getitem__ __setitem__``
- ``_pickling.py``: ``__reduce__ __deepcopy__``
- ``_namespace.py``: ``__array_namespace__``
- ``_boundary.py`` wraps the methods its ``METHODS`` names (``to``, ``numpy``, ``__setitem__``, ...): a native
  exception leaves them as a typed error
- ``_methods.py``, NumPy's methods and ufuncs: ``reshape swapaxes sum prod mean max min any all __array_ufunc__``
- ``_habits.py``, NumPy's and torch's habits: ``copy clone cpu cuda transpose __round__``; then, for every other
  library's attribute an Array lacks (``x.float()``, ``x.numel()``, ``x.std()``), a property that refuses with the
  xbackend spelling

``tests/test_assemble.py`` holds this list against the code: what the class body defines and what :func:`assemble`
puts on the Array (:data:`SURFACE`) are the Array's attributes, all of them, and no other module changes the Array.
"""

from __future__ import annotations

import types
from typing import Any

from . import _backend, _boundary, _config, _devices, _dispatch, _dtypes, _habits, _indexing, _interchange, _methods
from . import _namespace, _operators as O, _pickling, _transfer
from ._array import Array
from ._grad import autograd

__all__ = ["assemble", "SURFACE"]

#: ``x op y``, ``y op x`` and ``x op= y``: the dunders' stem and the elementwise function they compute
ARITHMETIC = (("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
              ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "pow"), ("and", "bitwise_and"),
              ("or", "bitwise_or"), ("xor", "bitwise_xor"), ("lshift", "bitwise_left_shift"),
              ("rshift", "bitwise_right_shift"))  # fmt: skip
#: ``x op y`` with a bool result, elementwise (the standard's comparison operators)
COMPARISONS = (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
               ("ge", "greater_equal"))  # fmt: skip
#: ``op x``
UNARY = (("neg", "negative"), ("pos", "positive"), ("abs", "abs"), ("invert", "bitwise_invert"))

#: every attribute :func:`assemble` put on the Array -> the module that provides it, in the order put
SURFACE: dict[str, str] = {}


def _put(provider: str, attrs: dict[str, Any]) -> None:
    """Put ``attrs`` on the Array; an attribute is put once, and never over one the class body defines."""
    for name, value in attrs.items():
        if name in SURFACE or name in Array.__dict__:
            raise RuntimeError(f"Array.{name} is provided twice ({SURFACE.get(name, '_array')} and {provider})")
        setattr(Array, name, value)
        SURFACE[name] = provider


def assemble(root: types.ModuleType) -> None:
    """Put the Array together and the public functions of ``root`` (the ``xbackend`` package) behind the boundary.

    Called once, by ``xbackend/__init__.py`` after it imported every public name; the order below matters where a
    later part reads an earlier one (the boundary wraps methods already put; the habits forward to the wrapped
    public functions and refuse only names the Array lacks by then)."""
    if SURFACE:
        return

    # the links a lower module cannot import: an unpickled backend resolves to the registry's instance, a Device
    # bound to a backend checks the name there, dtype=float reads the configured default float, large host->CUDA
    # moves take _transfer's pinned ring
    _backend._lookup[:] = [_dispatch.get_backend]
    _devices.REGISTRY[:] = [_dispatch.backend_name, _dispatch.get_backend_class]  # Device("torch", "cpu") names
    _dtypes._CURRENT_CONFIG[:] = [_config.current]
    _interchange.STAGED[0] = _transfer.staged_to_device

    # the arithmetic, bitwise and comparison operators: one implementation per arity, shared with the public
    # functions (xb.add is what x + y runs)
    for stem, name in ARITHMETIC:
        forward = O.binary(name)
        _put("_operators", {f"__{stem}__": forward, f"__r{stem}__": O.binary(name, reflected=True),
                            f"__i{stem}__": O.inplace(name, forward)})  # fmt: skip
    _put("_operators", {"__matmul__": O.matmul, "__rmatmul__": O.rmatmul, "__imatmul__": O.imatmul})
    for stem, name in COMPARISONS:
        _put("_operators", {f"__{stem}__": O.binary(name)})
    for stem, name in UNARY:
        _put("_operators", {f"__{stem}__": O.unary(name)})
    _put("_operators", {"__hash__": None})  # __eq__ is elementwise: an Array is no dict key

    # autograd, where the backend has it (torch); elsewhere None/False, or GradientError with the fix
    _put("_grad/autograd", {"grad": autograd.grad_property, "requires_grad": autograd.requires_grad_property,
                            "is_leaf": autograd.is_leaf_property, "requires_grad_": autograd.requires_grad_,
                            "backward": autograd.backward})  # fmt: skip

    # moving data, indexing, pickle and deep copy, the bound namespace
    _put("_interchange", {"to": _interchange.array_to, "numpy": _interchange.array_numpy,
                          "__dlpack__": _interchange.array_dlpack})  # fmt: skip
    _put("_indexing", {"__getitem__": _indexing.getitem, "__setitem__": _indexing.setitem})
    _put("_pickling", {"__reduce__": _pickling.reduce_array, "__deepcopy__": _pickling.deepcopy_array})
    _put("_namespace", {"__array_namespace__": _namespace.array_namespace})

    # the one way out: public functions and the Array's methods translate native exceptions into typed errors
    _boundary.install(root, [n for n in root.__all__ if n != "random"])
    _boundary.install(root.linalg, root.linalg.__all__, "linalg.")
    _boundary.install(root.fft, root.fft.__all__, "fft.")
    _boundary.install_methods(Array)

    # NumPy's methods and ufuncs, then NumPy's and torch's habits: forwarding to the public functions above
    _put("_methods", _methods.methods(root))
    _put("_habits", _habits.habits(root))
    _put("_habits", _habits.refusals(root, Array))

    # the namespaces bound to one backend and device copy the finished package
    _namespace.install(root)
