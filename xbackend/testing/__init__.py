"""Cross-backend testing kit for xbackend and for libraries written with it.

- :func:`assert_close`, :func:`assert_equal`, :func:`assert_same_dtype`: compare Arrays and native
  arrays of any backend and device, with dtype-aware default tolerances;
- :func:`across_backends`: run one function on every usable backend with the same inputs and report
  every disagreement with a reference at once (a failure ends with :func:`diverge`'s report);
- :func:`diverge`: the first xbackend call whose result differs across backends, and why;
- :mod:`xbackend.testing.strategies`: hypothesis strategies that draw once and convert (imported on
  first use, so this package works without hypothesis installed);
- :func:`available_targets`, :func:`selected_targets`: the (backend, device) pairs this machine can run;
- a pytest plugin (entry point ``pytest11``) with the ``xb_target``/``xb_backend``/``xb_device``
  fixtures, ``--xb-backends`` and the ``gpu`` marker.

>>> from xbackend.testing import available_targets
>>> available_targets()[0].id
'numpy-cpu'
"""

from __future__ import annotations

import importlib
from typing import Any

from .._errors import UnknownAttributeError
from ._across import across_backends
from ._diverge import diverge
from ._assert import assert_close, assert_equal, assert_same_dtype, default_tolerance, to_host
from ._shapes import shapes_match
from ._targets import Target, available_targets, current_target, gpu_unavailable_reason, selected_targets

__all__ = [
    "Target", "available_targets", "selected_targets", "gpu_unavailable_reason", "strategies",
    "assert_close", "assert_equal", "assert_same_dtype", "default_tolerance", "to_host", "across_backends",
    "shapes_match", "current_target", "diverge",
]  # fmt: skip


def __getattr__(name: str) -> Any:  # strategies need hypothesis: import it only when asked
    if name == "strategies":
        return importlib.import_module(f"{__name__}.strategies")
    raise UnknownAttributeError(f"module 'xbackend.testing' has no attribute {name!r}. Fix: check the spelling "
                                "against xbackend.testing.__all__")  # fmt: skip
