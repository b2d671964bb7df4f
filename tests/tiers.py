"""The test tiers, as data: what the quick tier (``python -m pytest --quick``) leaves to the full run (issue 32).

The full run (``python -m pytest``, the README's command and CI's) runs everything but the ``slow`` marker. The
quick tier is for a newcomer's first check, on a laptop with two cores: every module of the core on NumPy and
torch-CPU, with fewer hypothesis examples (the "quick" profile in conftest.py); it leaves out, by marking them
``full``:

- the targets beyond NumPy and torch-CPU (Dask, array-api-strict, JAX, GPUs): each runs the same tests again;
- the generated and integration suites (whole files below): cross-backend parity draws, the example package's
  own pytest run, the CLI demo, the pytest plugin's sessions, the docs' snippets, process pools;
- single tests that start a Python subprocess or a compiler (listed below with what they cost, measured with
  ``--durations`` on the 2-core CI machine under load).

``-m "not slow and not full"`` selects the same tests with the default hypothesis profile.
"""

from __future__ import annotations

#: the targets the quick tier runs (a test parametrised over any other target is ``full``)
QUICK_BACKENDS = frozenset({"numpy", "torch"})
QUICK_DEVICES = frozenset({"cpu"})

#: whole files that only the full run runs (seconds of test time in the full run, loaded 2-core machine)
FULL_FILES = frozenset({
    "tests/test_parity.py",          # 99 s: generated calls of every public function on every target
    "tests/test_examples.py",        # 81 s: the example package's own pytest sessions
    "tests/test_dask.py",            # 65 s: Dask only, a LocalCluster
    "tests/test_cli.py",             # 55 s: `python -m xbackend info | demo` in subprocesses
    "tests/test_plugin.py",          # 53 s: pytester sessions of the plugin
    "tests/test_bench_plots.py",     # 40 s: renders every benchmark PNG
    "tests/test_docs_snippets.py",   # 42 s: every snippet of README.md and docs/
    "tests/test_hazards.py",         # 42 s: crash-prone checks in subprocesses
    "tests/test_pickle.py",          # 29 s: process pools (spawn, loky)
    "tests/test_lazy_import.py",     # 16 s: fresh interpreters
    "tests/test_consumers.py",       # scikit-learn and SciPy on Arrays
    "tests/test_consumer_suites.py",
    "tests/test_differential.py",
    "tests/test_random_stats.py",
    "tests/test_gpu_fixes.py",
    "tests/test_gpu_checks.py",
    "tests/test_parity_gpu.py",
    "tests/test_boundary_generated.py",  # 35 s: every public name with bad arguments, every target (issue 33)
})  # fmt: skip

#: single tests (node ids without parameters) that start a subprocess or compile, left to the full run
FULL_TESTS = frozenset({
    "tests/test_jit.py::test_inductor_chain_matches_eager_and_reuses_its_trace_for_new_sizes",  # 16 s: Inductor
    "tests/test_jit.py::test_demo_with_jit_agrees_with_numpy",  # 6 s: Inductor
    "tests/test_jit.py::test_cpu_inductor_keeps_matrix_products_as_blas_calls",  # 8 s: Inductor
    "tests/test_grad.py::test_jit_composes_with_grad_on_torch",  # 4 s: Inductor
    "tests/test_config.py::test_environment_variables_in_a_subprocess",
    "tests/test_errors.py::test_errors_caused_by_an_environment_variable_name_it",  # 20 s: subprocesses
    "tests/test_transfer.py::test_ring_moves_300_mb_byte_exactly",  # 14 s: 300 MB
    "tests/test_dispatch.py::test_entry_point_plugins_load_and_broken_ones_warn",  # 13 s: subprocess
    "tests/test_elementwise.py::test_int_min_floor_divide_minus_one_in_subprocess",  # 16 s: subprocesses
    "tests/test_testing_kit.py::test_testing_imports_without_hypothesis",  # 11 s: subprocess
    "tests/test_config.py::test_environment_backend_and_device_in_a_subprocess",  # 9 s
    "tests/test_config.py::test_bad_environment_warns_and_is_ignored",
    "tests/test_devices.py::test_device_mismatch_raises_naming_both",  # 9 s
    "tests/test_devices.py::test_bound_namespace_imports_no_backend",
    "tests/test_autograd.py::test_no_grad_does_not_import_torch",  # 8 s: subprocess
    "tests/test_random.py::test_import_xbackend_does_not_import_xb_random_or_a_backend",
})  # fmt: skip


def is_full(nodeid: str, backend: str | None, device: str | None) -> bool:
    """Whether the test ``nodeid`` (on target ``backend``/``device``, None when it has no target) is left to the
    full run."""
    path, _, rest = nodeid.partition("::")
    if path in FULL_FILES or f"{path}::{rest.partition('[')[0]}" in FULL_TESTS:
        return True
    return backend is not None and (backend not in QUICK_BACKENDS or (device or "cpu") not in QUICK_DEVICES)
