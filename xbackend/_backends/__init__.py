"""The backends' floor: one package per library, with the same file names where files have the same role.

Design constraint: every quirk of a library lives here, in exactly one place, and nothing here imports the Array or
anything above it (``tests/test_import_graph.py``): a backend works on native arrays and xbackend's value objects
(:class:`~xbackend.DType`, :class:`~xbackend.Device`), and the registry (``xbackend/_dispatch.py``) loads its class by
import path, on first use.

- ``numpy/``, ``torch/``, ``cupy/``, ``dask/``: ``backend.py`` the backend class; beside it one module per concern
  (``fast.py`` fast paths, ``linalg.py``, ``index.py``, ``grad.py``, ``jit.py``, ...);
- ``generic/``: any library with the Array API standard (array-api-strict, JAX), written against the standard's
  namespace; JAX's gradients and compiler (``grad.py``, ``jit.py``);
- ``common/``: what several backends share: kernels written once over a NumPy-like namespace (``kernels.py``),
  index-key walks (``keys.py``), ``arange``/``linspace`` helpers.

``xb.random``'s per-library engines live with ``xb.random`` (``xbackend/random/``).
"""
