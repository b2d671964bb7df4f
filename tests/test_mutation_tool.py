"""tools/mutation_ops.py's swap operators on small sources, and tools/mutation.py's module list (issue 33).

Each operator must give exactly the mutant a reviewer would plant by hand; the module list must name files and
test files that exist, so a module that moved is not silently left out of the table. No test run, no mutmut.
"""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import mutation  # noqa: E402
import mutation_ops as M  # noqa: E402


def _applied(source: str, op: str) -> list[str]:
    return [m.apply(source) for m in M.mutants(source, (op,))]


def test_paired_names_swap_in_calls_and_attributes() -> None:
    src = "from math import cos, sin\nimport numpy as np\ndef f(r, t):\n    return [r * cos(t), np.floor(r)]\n"
    assert _applied(src, "name") == [
        src.replace("r * cos(t)", "r * sin(t)"),
        src.replace("np.floor(r)", "np.ceil(r)"),
    ]


def test_a_bare_name_swaps_only_to_a_bound_partner() -> None:
    assert _applied("from math import cos\ny = cos(1.0)\n", "name") == []  # sin unbound: a NameError says nothing
    assert _applied("y = min(1, 2)\n", "name") == ["y = max(1, 2)\n"]  # builtins are bound
    assert _applied("from math import cos, sin\n", "name") == []  # imports are not uses


@pytest.mark.parametrize(("src", "want"), [
    ("y = a < b\n", ["y = a <= b\n"]),
    ("y = a <= b\n", ["y = a < b\n"]),
    ("y = (a) > (b)\n", ["y = (a) >= (b)\n"]),
    ("y = a >= b\n", ["y = a > b\n"]),
    ("y = a < b <= c\n", ["y = a <= b <= c\n", "y = a < b < c\n"]),
    ("y = a == b\n", []),
])  # fmt: skip
def test_compare_swaps_strict_and_non_strict(src: str, want: list[str]) -> None:
    assert _applied(src, "compare") == want


@pytest.mark.parametrize(("src", "want"), [
    ("y = a - b\n", ["y = b - a\n"]),
    ("y = a + b\n", []),  # commutes
    ("y = a * b\n", []),
    ("y = a ** (b + c)\n", ["y = (b + c) ** (a)\n"]),  # a moved compound operand is parenthesised
    ("y = x / n * d\n", ["y = n / x * d\n"]),
])  # fmt: skip
def test_operands_swap_for_operators_that_do_not_commute(src: str, want: list[str]) -> None:
    assert _applied(src, "operands") == want


def test_neighbouring_positional_arguments_swap() -> None:
    assert _applied("y = f(a, b, c=1)\n", "args") == ["y = f(b, a, c=1)\n"]
    assert _applied("y = f(a, b, c)\n", "args") == ["y = f(b, a, c)\n", "y = f(a, c, b)\n"]
    assert _applied("y = f(a, a)\n", "args") == []  # the same text: no change
    assert _applied("y = f(a, *b)\n", "args") == []


def test_neighbouring_elements_of_a_list_argument_swap() -> None:
    src = "z = stack([r * cos(t), r * sin(t)], axis=1)\n"
    assert _applied(src, "elements") == ["z = stack([r * sin(t), r * cos(t)], axis=1)\n"]


def test_a_modulo_is_dropped_but_not_a_format() -> None:
    src = "v = np.uint64(step % _MOD)\n"
    assert _applied(src, "mod") == ["v = np.uint64(step)\n"]
    assert _applied("v = (a + b) % m\n", "mod") == ["v = (a + b)\n"]
    assert _applied("s = '%s' % x\n", "mod") == []


def test_a_field_is_dropped_from_a_key_tuple() -> None:
    src = "key = (cur, engine.name, dev)\n"
    want = ["key = (engine.name, dev)\n", "key = (cur, dev)\n", "key = (cur, engine.name)\n"]
    assert _applied(src, "keyfield") == want
    assert _applied("v = d.get((a, b))\n", "keyfield") == ["v = d.get((b,))\n", "v = d.get((a,))\n"]
    assert _applied("_C = {}\n_C[a, b] = 1\n", "keyfield") == ["_C = {}\n_C[b,] = 1\n", "_C = {}\n_C[a,] = 1\n"]
    assert _applied("y = self._cache[a, b]\n", "keyfield") == ["y = self._cache[b,]\n", "y = self._cache[a,]\n"]
    assert _applied("y = arr[a, b]\n", "keyfield") == []  # indexing an array, not a key
    assert _applied("lo, hi = (a, b)\n", "keyfield") == []


def test_mutants_are_numbered_per_line_in_source_order_and_compile() -> None:
    src = "s = 'é'\ny = f(a - b, c)\nz = a < b\n"  # a non-ASCII line: ast's columns count bytes
    ms = M.mutants(src)
    assert [(m.lineno, m.index, m.op) for m in ms] == [(2, 0, "operands"), (2, 1, "args"), (3, 0, "compare")]
    assert ms[0].apply(src) == "s = 'é'\ny = f(b - a, c)\nz = a < b\n"
    assert ms[0].line == "y = f(a - b, c)"
    with pytest.raises(AssertionError):
        ms[0].apply(src.replace("a - b", "a - d"))  # the source changed under the mutant


def test_the_sample_is_a_seeded_hash() -> None:
    picks = [M.in_sample("x.py", f"line {i}", 0, 4) for i in range(400)]
    assert picks == [M.in_sample("x.py", f"line {i}", 0, 4) for i in range(400)]  # deterministic
    assert 60 < sum(picks) < 140
    assert picks != [M.in_sample("x.py", f"line {i}", 0, 4, "1") for i in range(400)]  # another seed, another sample
    assert all(M.in_sample("x.py", "y", 3, 1, "s") for _ in range(3))


def test_the_modules_and_their_test_files_exist() -> None:
    for name, (path, backends, tests, sample, _strings) in mutation.MODULES.items():
        assert os.path.exists(os.path.join(ROOT, path)), f"{name}: {path} moved"
        missing = [t for t in tests if "*" not in t and not os.path.exists(os.path.join(ROOT, t))]
        assert not missing, f"{name}: {missing}"
        assert mutation._tests(name), name
        assert sample >= 1 and set(backends.split(",")) <= {"numpy", "torch", "dask", "cubed", "array_api_strict"}
    assert set(mutation.SWAP_SAMPLE) <= set(mutation.MODULES)
    named = {mutation.MODULES[m][0] for m in mutation.MODULES}
    common = "xbackend/_backends/common/"
    for path in ("xbackend/_boundary.py", common + "linspace.py", common + "arange.py", "xbackend/_grad",
                 "xbackend/random/_draws.py", "xbackend/random/_philox.py"):  # fmt: skip
        assert path in named  # issue 33's modules


@pytest.mark.parametrize("profile", ["mutation", "ci", "quick"])
def test_the_examples_stated_per_profile_are_the_profiles(profile: str) -> None:
    assert mutation.examples(profile) == settings.get_profile(profile).max_examples


def test_each_planted_slip_matches_the_code_once_and_compiles() -> None:
    import plant_slips

    assert len(plant_slips.SLIPS) == 6 and len({s.name for s in plant_slips.SLIPS}) == 6
    for s in plant_slips.SLIPS:
        with open(os.path.join(ROOT, s.path)) as f:
            text = f.read()
        assert text.count(s.old) == 1, f"{s.name}: the code moved; update tools/plant_slips.py"
        assert s.new != s.old
        compile(text.replace(s.old, s.new), s.path, "exec")
        assert plant_slips.selection(ROOT, s.tests), s.name


def test_each_row_states_its_sample_and_examples(tmp_path, monkeypatch) -> None:
    import json

    import mutation_table

    monkeypatch.setattr(mutation_table, "STATE", str(tmp_path))
    monkeypatch.setattr(mutation_table, "ROOT", str(tmp_path))  # no mutmut cache: the swap row only
    monkeypatch.setattr(mutation_table, "EQUIVALENTS", str(tmp_path / "none.txt"))
    path = mutation.MODULES["_arange"][0]
    rows = [{"path": path, "op": "mod", "lineno": 26, "index": i, "line": "v = ...", "old": "a % b", "new": "a",
             "status": s, "tests": []} for i, s in enumerate(["killed", "survived", "skipped", "killed"])]  # fmt: skip
    (tmp_path / "swaps-_arange.json").write_text(json.dumps({"mutants": rows}))
    (tmp_path / "meta-_arange.json").write_text(json.dumps(
        {"swaps": {"date": "2026-12-05", "profile": "ci", "max_examples": 40, "k": 2, "seed": "7"}}))
    row = mutation_table.table(["_arange"]).splitlines()[-1].split()
    assert row[:9] == [path, "swaps", "4", "3", "2", "0", "1", "0", "33.3%"]
    assert " ".join(row[9:]) == "3 of 4 (1 in ~2, seed '7') 40 (ci) 2026-12-05"


def test_a_report_keeps_the_rows_of_modules_run_elsewhere(tmp_path, monkeypatch) -> None:
    """Copies that ran different modules add up: the committed report's rows and equivalents of a module not run
    here are kept, those of a module run here are replaced, in MODULES' order."""
    import json

    import mutation_table

    table = tmp_path / "mutation.txt"
    for name, value in (("STATE", tmp_path), ("ROOT", tmp_path), ("EQUIVALENTS", tmp_path / "none.txt"),
                        ("TABLE", table)):  # fmt: skip
        monkeypatch.setattr(mutation_table, name, str(value))
    arange, linspace = mutation.MODULES["_arange"][0], mutation.MODULES["_linspace"][0]
    old_row = f"{arange:<38} swaps       5      5      5       0        0     0          0.0%  (kept)"
    stale = f"{linspace:<38} swaps       9      9      1       0        8     0         88.9%  (replaced)"
    table.write_text("intro\n\nmodule  family ...\n-----\n" + stale + "\n" + old_row + "\n\nEquivalent mutants\n"
                     f"  {arange}:3 (swap mutant 0 of the line) a - b\n      kept reason\n"
                     f"  {linspace}:9 (mutant 1 of the line) x\n      stale reason\n")  # fmt: skip
    rows = [{"path": linspace, "op": "mod", "lineno": 2, "index": 0, "line": "v = a % b", "old": "a % b", "new": "a",
             "status": "killed", "tests": []}]  # fmt: skip
    (tmp_path / "swaps-_linspace.json").write_text(json.dumps({"mutants": rows}))
    mutation_table.report()
    text = table.read_text()
    assert old_row in text and "kept reason" in text
    assert "(replaced)" not in text and "stale reason" not in text
    assert text.index(linspace) < text.index(arange)  # MODULES' order: _linspace is listed before _arange


def test_the_tests_that_ran_a_line_are_picked_before_the_module_s_own(monkeypatch) -> None:
    """A line only one slow test executed also takes the module's own (faster) tests: the one that executed it must
    still be run, first, whatever the cap leaves for the others."""
    monkeypatch.setattr(mutation, "CAP_S", 10.0)
    tests = {f"tests/test_own.py::test_{i}": {"dur": 3.0, "ok": True} for i in range(5)}
    tests["tests/test_own.py::test_slow"] = {"dur": 8.0, "ok": True}
    picked = mutation._order(set(tests), tests, frozenset({"tests/test_own.py"}), {"tests/test_own.py::test_slow"})
    assert picked[0] == "tests/test_own.py::test_slow" and sum(tests[n]["dur"] for n in picked) <= 10.0
    assert "tests/test_own.py::test_slow" not in mutation._order(set(tests), tests, frozenset({"tests/test_own.py"}))
