"""One way in: how every public function turns its array-like arguments into Arrays.

Design constraint: a function never decides this on its own, and the way in is fast: exact-type dict lookups,
Python scalars checked with Python arithmetic, lists looked at by builtins that loop in C, each kind of data
converted once. The rule (DESIGN.md, "Parity by construction"):

* **Arrays** are taken as they are. The Array operands of one call must share a backend and a device; otherwise
  :class:`~xbackend.BackendMismatchError` / :class:`~xbackend.DeviceMismatchError` name both and the fix.
* **Native arrays** (``numpy.ndarray``, ``torch.Tensor``, ``cupy.ndarray``, ...) are Arrays of their own backend
  and device: accepted next to Arrays of the same place, refused with the fix otherwise. A move between backends
  or devices is never implicit - not even NumPy to torch on the CPU.
* **Python data** - scalars, NumPy scalars, nested lists and tuples, buffers (``memoryview``, ``array.array``) -
  has no place: it takes the backend and device of the call's Arrays (the configured ones when there are none),
  like NumPy's own lists. Next to an Array it is *weak*, as Python scalars are: it takes the Array's dtype when its
  kind (bool < int < float < complex) is not higher and its ints fit (else :class:`~xbackend.ScalarOverflowError`),
  and the default dtype of its kind otherwise. The same range checks and dtype rules hold on every backend.

The package, by concern: ``_scalars`` (Python and NumPy scalars), ``_natives`` (native arrays), ``_sequences``
(lists, tuples, buffers: host-side checks), ``_place`` (the backend and device of a call), ``_asarray`` (every kind
of data to an Array), ``_operands`` (arguments next to an Array), ``_keys`` (index keys and ``__setitem__`` values).

>>> import xbackend as xb
>>> x = xb.asarray([1, 2], dtype=xb.int8)
>>> (x + [3, 4]).dtype, (x + [0.5, 1.5]).dtype    # a list next to an Array is weak, like a scalar
(xb.int8, xb.float64)
>>> xb.take(xb.arange(5.0), [0, 4]).tolist()       # host indices land where the Array lives
[0.0, 4.0]
"""

from __future__ import annotations

from ._scalars import ROUNDED, SCALARS, fit_scalar, py_scalar, scalar_array, scalar_dtype
from ._natives import first_array, is_native, wrap_native
from ._sequences import HOST_SEQUENCES, holds_arrays, host_data, weak_dtype
from ._place import resolve, target
from ._asarray import asarray, asarray_leaf, from_arrays, host_native, leaf, weak, weak_native
from ._operands import index_array, operand, operator_operand, placed, to_array
from ._keys import native_key, setitem_value

__all__ = ["ROUNDED", "SCALARS", "HOST_SEQUENCES",
           "asarray", "asarray_leaf", "first_array", "fit_scalar", "from_arrays",
           "holds_arrays", "host_data", "host_native", "index_array", "is_native", "leaf", "native_key", "operand",
           "operator_operand", "placed", "py_scalar", "resolve", "scalar_array", "scalar_dtype", "setitem_value",
           "target", "to_array", "weak", "weak_dtype", "weak_native", "wrap_native"]  # fmt: skip
