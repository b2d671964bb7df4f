"""The plain test command for one module's mutants (docs/contributing.md): its whole test subset, one process.

``tools/mutation.py`` is the fast way (per-line test selection and a fork server); this runner is the simple one,
for ``mutmut run --runner "python tools/mutmut_runner.py MODULE"`` by hand or to re-check one mutant with the
module's full subset. The subsets (test files and backends) are ``tools/mutation.py``'s ``MODULES``.

mutmut 2.x counts a mutant as killed only when the command exits with status 1, and pytest exits with 2 when a
mutant breaks collection (an import error) - such a mutant would be reported as *survived*. This runner maps
every failure to 1. It runs in one process (no pytest-xdist: the project's addopts say ``-n auto``), with the
deterministic ``ci`` hypothesis profile unless HYPOTHESIS_PROFILE says otherwise.

Usage: ``python tools/mutmut_runner.py MODULE`` (a name from ``MODULES``: _rules, _dtypes, _torch_uint, ...).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutation import MODULES, _tests  # noqa: E402

if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "_rules"
    backends, tests = MODULES[which][1], _tests(which)  # globs expanded (tests/test_random*.py)
    os.environ.setdefault("XBACKEND_TEST_BACKENDS", backends)
    os.environ.setdefault("HYPOTHESIS_PROFILE", "ci")
    import pytest

    rc = pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-o", "addopts=", "-m",
                      "not slow and not gpu", *tests])  # fmt: skip
    sys.exit(0 if rc == 0 else 1)
