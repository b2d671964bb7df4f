"""Built-in backends: one module per library; every library quirk lives in exactly one of them."""

from __future__ import annotations

import importlib
from typing import Any, Callable

#: ``@xb.jit`` compilers of libraries that the generic Array-API backend holds (it has no module per
#: library to define ``compile`` in): top-level module -> (module under xbackend._backends, function).
#: :meth:`xbackend.Backend.compile` asks here; a backend class that defines ``compile`` itself wins.
JIT_HOOKS: dict[str, tuple[str, str]] = {"jax": ("generic.jit", "compile_jax")}


def jit_hook_for(module: str) -> Callable[..., Any] | None:
    """The compile hook for arrays of library ``module`` (imported on first use), or ``None``: eager."""
    where = JIT_HOOKS.get(module)
    if where is None:
        return None
    hook: Callable[..., Any] = getattr(importlib.import_module(f"{__name__}.{where[0]}"), where[1])
    return hook


#: ``xb.random``'s per-library parts (portable-stream ``Source``, native ``Native`` engine): backend name (or
#: top-level module) -> module under xbackend._backends, imported on first use. A backend missing here runs
#: the portable stream with xbackend operations (:class:`xbackend.random._source.PhiloxSource`) and has no
#: native stream of its own.
RANDOM: dict[str, str] = {"numpy": "_numpy", "torch": "_torch", "cupy": "_cupy", "dask": "_dask"}  # fmt: skip
