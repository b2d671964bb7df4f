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


FAKE_JAX = """
import json, os
with open(os.environ["XB_FAKE_JAX_LOG"], "a") as f:  # what JAX would read when it starts
    f.write(json.dumps({k: os.environ.get(k) for k in ("JAX_PLATFORMS", "XLA_PYTHON_CLIENT_PREALLOCATE",
                                                        "JAX_ENABLE_X64")}) + "\\n")
raise ImportError("a stand-in for jax: it records the environment at its import and stops there")
"""


def test_the_suite_keeps_jax_off_the_gpu_before_jax_can_import(tmp_path):
    """Issue 28: on a GPU machine the README's command (xdist workers) stopped with an INTERNALERROR, each worker's JAX
    preallocating 75 % of the GPU. tests/conftest.py sets JAX_PLATFORMS=cpu and XLA_PYTHON_CLIENT_PREALLOCATE=false
    (both read when JAX starts) before anything imports JAX. Shown here with a stand-in ``jax`` package first on the
    path, in an xdist worker of a pytest run from a user's environment (none of these variables set): every import of
    it sees both. (Without a GPU this cannot show the out-of-memory itself.)"""
    import json
    import os

    (tmp_path / "jax").mkdir()
    (tmp_path / "jax" / "__init__.py").write_text(FAKE_JAX)
    log = tmp_path / "env.jsonl"
    env = {k: v for k, v in os.environ.items() if k not in ("JAX_PLATFORMS", "XLA_PYTHON_CLIENT_PREALLOCATE",
                                                              "JAX_ENABLE_X64", "XBACKEND_TEST_BACKENDS")}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), root, env.get("PYTHONPATH", "")])
    env["XB_FAKE_JAX_LOG"] = str(log)
    out = subprocess.run([sys.executable, "-m", "pytest", "-n", "1", "-q", "--co", "-p", "no:cacheprovider",
                          "tests/test_cli.py::test_portable_training_matches_plain_numpy"],
                         capture_output=True, text=True, timeout=300, env=env, cwd=root)  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    seen = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    assert seen, "the run never imported jax: the targets were not probed\n" + out.stdout
    assert all(s == {"JAX_PLATFORMS": "cpu", "XLA_PYTHON_CLIENT_PREALLOCATE": "false", "JAX_ENABLE_X64": "1"}
               for s in seen), seen
