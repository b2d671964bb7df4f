"""The peers a user would pick instead of xbackend, as calls of the ops ``overhead.py`` times.

Optional bench dependencies (``requirements/bench.txt``): array-api-compat (its namespace for the native
array; it returns native arrays, so operators and indexing are the raw calls and get no column), autoray
(``autoray.do``: dispatch on the argument's type by name) and EagerPy (wrapper tensors, like xbackend's
Array). A peer that is not installed, or has no such op, gets ``-`` in the table.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Callable

PEERS = ("compat", "autoray", "eagerpy")
_MODULES = {"compat": "array_api_compat", "autoray": "autoray", "eagerpy": "eagerpy"}


def installed() -> list[str]:
    """The peers importable here, in table order."""
    return [p for p in PEERS if importlib.util.find_spec(_MODULES[p]) is not None]


def version(peer: str) -> str:
    from importlib.metadata import PackageNotFoundError, version as v

    try:
        return v({"compat": "array-api-compat", "autoray": "autoray", "eagerpy": "eagerpy"}[peer])
    except PackageNotFoundError:
        return "?"


def calls(peer: str, backend: str, device: str, n: int, a: Any, b: Any, A: Any,
          shape2: tuple[int, ...]) -> dict[str, Callable[[], Any]]:  # fmt: skip
    """op name (as in ``overhead.cases``) -> a call of ``peer`` on the native arrays ``a``, ``b``, ``A``."""
    if backend == "torch":
        import torch

        f32, f64 = torch.float32, torch.float64
    else:
        import numpy as np

        f32, f64 = np.float32, np.float64
    if peer == "compat":
        from array_api_compat import array_namespace

        xp = array_namespace(a)
        dev = {"device": device} if backend == "torch" else {}
        return {
            "a + b": lambda: xp.add(a, b), "a * 2.0": lambda: xp.multiply(a, 2.0), "exp": lambda: xp.exp(a),
            "sum": lambda: xp.sum(a), "matmul": lambda: xp.matmul(A, A), "reshape": lambda: xp.reshape(a, shape2),
            "astype": lambda: xp.astype(a, f32), "zeros": lambda: xp.zeros(n, **dev),
            "zeros dtype=": lambda: xp.zeros(n, dtype=f64),
        }  # fmt: skip
    if peer == "autoray":
        from autoray import do

        return {
            "a + b": lambda: do("add", a, b), "a * 2.0": lambda: do("multiply", a, 2.0), "exp": lambda: do("exp", a),
            "sum": lambda: do("sum", a), "matmul": lambda: do("matmul", A, A),
            "reshape": lambda: do("reshape", a, shape2), "astype": lambda: do("astype", a, "float32"),
            "zeros": lambda: do("zeros", (n,), like=backend),
            "zeros dtype=": lambda: do("zeros", (n,), like=backend, dtype=f64),
        }  # fmt: skip
    if peer == "eagerpy":
        import eagerpy as ep

        ea, eb, eA = ep.astensor(a), ep.astensor(b), ep.astensor(A)
        return {
            "a + b": lambda: ea + eb, "a * 2.0": lambda: ea * 2.0, "exp": lambda: ea.exp(), "sum": lambda: ea.sum(),
            "matmul": lambda: eA @ eA, "a[1:-1]": lambda: ea[1:-1], "reshape": lambda: ea.reshape(shape2),
            "astype": lambda: ea.astype(f32), "zeros": lambda: ep.zeros(ea, n),
        }  # fmt: skip
    raise ValueError(f"unknown peer {peer!r}; known: {', '.join(PEERS)}")
