"""Examples the API reference adds to public names whose docstrings have none yet (read by ``docs/conf.py``).

They run with the site's doctests (``sphinx-build -b doctest``, in ``tests/test_docs_build.py``). A name whose
docstring gains its own example is skipped here; move an example into the docstring when its module is next edited.
"""

from __future__ import annotations

EXAMPLES: dict[str, str] = {
    "xbackend.get_config": """
>>> import xbackend as xb
>>> with xb.using(default_float=xb.float32):
...     xb.get_config().default_float
xb.float32
>>> xb.get_config().default_int
xb.int64
""",
    "xbackend.backend_names": """
>>> import xbackend as xb
>>> {"numpy", "torch", "cupy"} <= set(xb.backend_names())   # built-ins, and installed plugins
True
""",
    "xbackend.register_backend": """
>>> import xbackend as xb
>>> from xbackend._backends.numpy.backend import NumpyBackend
>>> class LoudNumpy(NumpyBackend):          # a backend overrides only where its library differs
...     name = "loud_numpy"
...     module = "loudlib"                  # the top-level module whose array types it owns
>>> issubclass(LoudNumpy, xb.Backend)
True

``xb.register_backend("loud_numpy", LoudNumpy)`` then makes ``backend="loud_numpy"`` work in this process (it
changes the process-wide registry, so the example above does not run it); a package registers through the
``xbackend.backends`` entry point instead (see the design notes).
""",
    "xbackend.empty_like": """
>>> import xbackend as xb
>>> x = xb.asarray([[1, 2], [3, 4]], dtype=xb.int32)
>>> e = xb.empty_like(x)                    # same shape, dtype, backend and device; values undefined
>>> e.shape, e.dtype, e.backend
((2, 2), xb.int32, 'numpy')
""",
    "xbackend.ones_like": """
>>> import xbackend as xb
>>> xb.ones_like(xb.asarray([1.5, 2.5])).tolist()
[1.0, 1.0]
>>> xb.ones_like(xb.asarray([1.5, 2.5]), dtype=xb.int8).dtype
xb.int8
""",
    "xbackend.Moved": """
>>> import numpy as np, xbackend as xb
>>> m = xb.moved(np.arange(3.0), backend="torch")
>>> m.copied, m.array.backend                # NumPy -> torch on the CPU shares memory
(False, 'torch')
""",
    "xbackend.PendingHost": """
>>> import xbackend as xb
>>> pending = xb.device_to_host(xb.arange(3.0), blocking=False)
>>> pending.result().tolist()
[0.0, 1.0, 2.0]
""",
    "xbackend.XBackendError": """
>>> import xbackend as xb
>>> try:
...     xb.asarray([1], dtype=xb.int8) + 200
... except xb.XBackendError as e:            # every deliberate error of xbackend
...     print(type(e).__name__, isinstance(e, OverflowError))
ScalarOverflowError True
""",
    "xbackend.Backend": """
>>> import xbackend as xb
>>> be = xb.asarray([1.0])._be               # the backend instance behind an Array (private attribute)
>>> isinstance(be, xb.Backend), be.name
(True, 'numpy')
""",
    "xbackend.BackendInfo": """
>>> import xbackend as xb
>>> info = xb.backends()["numpy"]
>>> info.installed, info.usable, "cpu" in info.devices
(True, True, True)
""",
    "xbackend.linalg.EighResult": """
>>> import xbackend as xb
>>> w, v = xb.linalg.eigh(xb.asarray([[2.0, 0.0], [0.0, 1.0]]))
>>> w.tolist()
[1.0, 2.0]
""",
    "xbackend.linalg.EigResult": """
>>> import xbackend as xb
>>> r = xb.linalg.eig(xb.asarray([[2.0, 0.0], [0.0, 1.0]]))
>>> r.eigenvalues.dtype                      # complex on every backend
xb.complex128
""",
    "xbackend.linalg.QRResult": """
>>> import xbackend as xb
>>> q, r = xb.linalg.qr(xb.asarray([[3.0, 0.0], [4.0, 5.0]]))
>>> bool(xb.all(xb.abs(q @ r - xb.asarray([[3.0, 0.0], [4.0, 5.0]])) < 1e-12))
True
""",
    "xbackend.linalg.SlogdetResult": """
>>> import xbackend as xb
>>> sign, logabsdet = xb.linalg.slogdet(xb.asarray([[2.0, 0.0], [0.0, -3.0]]))
>>> sign.item(), round(logabsdet.item(), 12) == round(float(xb.log(xb.asarray(6.0))), 12)
(-1.0, True)
""",
    "xbackend.linalg.SVDResult": """
>>> import xbackend as xb
>>> u, s, vh = xb.linalg.svd(xb.asarray([[3.0, 0.0], [0.0, 4.0]]))
>>> s.tolist()
[4.0, 3.0]
""",
}
