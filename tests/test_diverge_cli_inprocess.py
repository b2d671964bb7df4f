"""``python -m xbackend diverge`` run in this process (its parser and ``main``), so each of its exits, its loading of a
file or a module and its arguments are seen by coverage; tests/test_cli.py runs the real command in a subprocess."""

from __future__ import annotations

import argparse
import json
import sys

import pytest

from xbackend.testing import _diverge_cli as cli

CASES = '''
import numpy as np
import xbackend as xb


def agree(x):
    return xb.sum(x * 2.0)


def make_agree_args():
    return (np.arange(4.0),)


def parts(x, scale=1.0):
    return x * scale + (1.0 if x.backend == "numpy" else 2.0)


def make_args():
    return {"x": np.arange(3.0), "scale": 3.0}


def single(x):
    return x + 0.0


def make_single_args():
    return np.ones(2)
'''
BARE = '''
def needs_two(a, b):
    return a + b
'''


def _run(argv, tmp_path):
    parser = argparse.ArgumentParser(prog="python -m xbackend")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["diverge", *argv])
    if args.json is None:
        args.json = str(tmp_path / "trace.json")
    return cli.main(args)


@pytest.fixture
def cases(tmp_path, monkeypatch):
    d = tmp_path / "pkgdir"
    d.mkdir()
    (d / "xb_cli_cases.py").write_text(CASES)
    (d / "xb_cli_bare.py").write_text(BARE)  # no make_args: a function with required arguments cannot be run
    monkeypatch.setattr(sys, "path", list(sys.path))  # the file's folder is put on sys.path: undone after
    monkeypatch.delitem(sys.modules, "xb_cli_cases", raising=False)
    return d / "xb_cli_cases.py"


def test_exit_0_when_every_backend_agrees_and_the_trace_is_written(cases, tmp_path, capsys):
    assert _run([f"{cases}:agree", "--backends", "numpy, numpy"], tmp_path) == 0
    out = capsys.readouterr().out
    assert "agree on every xbackend call" in out and f"full trace: {tmp_path / 'trace.json'}" in out
    data = json.loads((tmp_path / "trace.json").read_text())
    assert data["function"] == "agree" and [c["name"] for c in data["traces"]["numpy-cpu"]["calls"]] == [
        "Array.__mul__", "sum"]  # fmt: skip
    assert str(cases.parent) in sys.path  # the file's neighbours importable
    assert sys.modules["xb_cli_cases"].__file__ == str(cases)  # registered under its name (pickling, self-imports)


def test_exit_1_with_the_report_when_backends_part_and_make_args_may_be_a_dict(cases, tmp_path, capsys):
    pytest.importorskip("torch")
    assert _run([f"{cases}:parts", "--backends", "numpy,torch", "--atol", "0.5", "--rtol", "0"], tmp_path) == 1
    out = capsys.readouterr().out
    assert "numpy-cpu and torch-cpu part at call #" in out and "control flow" not in out
    assert "rtol=0, atol=0.5" in out  # the tolerances given on the command line


def test_a_single_value_from_make_args_is_the_one_argument(cases, tmp_path):
    assert _run([f"{cases}:single", "--backends", "numpy,numpy"], tmp_path) == 0


def test_a_module_name_is_imported_from_the_working_directory(cases, tmp_path, monkeypatch):
    monkeypatch.chdir(cases.parent)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(cases.parent))])
    assert _run(["xb_cli_cases:agree", "--backends", "numpy,numpy"], tmp_path) == 0


@pytest.mark.parametrize("target, words", [
    ("nowhere/missing.py:f", "no Python file at"),
    ("no_colon_here", "expected module:function"),
    ("{bare}:needs_two", "takes 2 required argument(s), and its module defines neither make_needs_two_args() nor"),
    ("{cases}:no_such_function", "has no attribute"),
])  # fmt: skip
def test_exit_2_when_the_target_cannot_be_loaded(cases, tmp_path, capsys, target, words):
    assert _run([target.format(cases=cases, bare=cases.parent / "xb_cli_bare.py")], tmp_path) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m xbackend diverge: ") and words in err


@pytest.mark.parametrize("backends, words", [("numpy", "at least two backends"), ("numpy,tourch", "'tourch'")])
def test_exit_2_when_the_backends_cannot_run_it(cases, tmp_path, capsys, backends, words):
    assert _run([f"{cases}:agree", "--backends", backends], tmp_path) == 2
    assert words in capsys.readouterr().err
