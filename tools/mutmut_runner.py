"""The test command mutation testing runs per mutant (docs/contributing.md): a targeted, seconds-long subset.

mutmut 2.x counts a mutant as killed only when the command exits with status 1, and pytest exits with 2 when a
mutant breaks collection (an import error) - such a mutant would be reported as *survived*. This runner maps
every failure to 1. It runs on NumPy only (torch is not imported: faster), with the ``ci`` hypothesis profile.

Usage: ``python tools/mutmut_runner.py [rules|dtypes|torch]`` (the test subset for that module).
"""

from __future__ import annotations

import os
import sys

SUBSETS = {
    # the elementwise category table and the promotion table: dtype rules of every function and operator
    "rules": ["tests/test_dtypes.py", "tests/test_elementwise.py", "-k",
              "not oracle and not special and not subprocess and not bfloat16 and not grid"],
    # the promotion table, weak scalars, casts and integer ranges (no subprocess tests: they cost seconds each)
    "dtypes": ["tests/test_dtypes.py", "tests/test_errors.py", "tests/test_elementwise.py", "-k",
               "not oracle and not special and not subprocess and not bfloat16 and not grid and not environment"],
    # the torch uint16/32/64 emulation (imports torch: slower)
    "torch": ["tests/test_elementwise.py", "tests/test_array.py", "-k", "wide_unsigned or uint64 or quietly"],
}

if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "rules"
    if which != "torch":
        os.environ.setdefault("XBACKEND_TEST_BACKENDS", "numpy")
    os.environ.setdefault("HYPOTHESIS_PROFILE", "ci")
    import pytest

    rc = pytest.main(["-x", "-q", "-p", "no:cacheprovider", *SUBSETS[which]])
    sys.exit(0 if rc == 0 else 1)
