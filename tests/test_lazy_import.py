"""`import xbackend` imports NumPy only: torch, cupy, dask and jax load on first use."""

import subprocess
import sys

CODE = """
import sys, time
t = time.perf_counter()
import xbackend as xb
heavy = [m for m in ("torch", "cupy", "dask", "jax") if m in sys.modules]
assert not heavy, heavy
xb.asarray([1.0, 2.0]) + 1          # numpy work loads nothing else
xb.result_type(xb.int8, xb.float32)
xb.Device("cuda:1")                  # devices are parsed without a backend
heavy = [m for m in ("torch", "cupy", "dask", "distributed", "jax", "array_api_strict") if m in sys.modules]
assert not heavy, heavy
xb.backend_names(); xb.__array_namespace_info__().capabilities()   # questions import nothing either
heavy = [m for m in ("torch", "cupy", "dask", "distributed", "jax", "array_api_strict") if m in sys.modules]
assert not heavy, heavy
print("ok")
"""


def test_import_loads_no_backend_library():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_torch_loads_on_first_use():
    code = "import sys, xbackend as xb; xb.zeros(2, backend='torch'); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if "not usable" in out.stderr or "BackendUnavailableError" in out.stderr:
        import pytest

        pytest.skip("torch not installed")
    assert out.stdout.strip() == "True", out.stderr


def test_dask_loads_on_first_use_and_distributed_never():
    code = ("import sys, xbackend as xb; x = xb.zeros(2, backend='dask'); "
            "print('dask' in sys.modules, 'distributed' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if "not usable" in out.stderr:
        import pytest

        pytest.skip("dask not installed")
    assert out.stdout.strip() == "True False", out.stderr
