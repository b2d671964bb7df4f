"""``python -m xbackend diverge module:function``: run a function on two backends, print where they part.

The arguments come from the function's module, by convention:

- ``make_<function>_args()`` if the module defines it, else ``make_args()``;
- it returns the positional arguments as a tuple, the keyword arguments as a dict, or one argument as anything
  else (NumPy arrays are fine: they are copied onto each backend, as ``across_backends`` does);
- a function without required parameters needs neither.

``module`` is an importable name (``mypkg.losses``) or a path to a ``.py`` file (``tests/cases.py``). The report is
printed and the full trace (every call, its line, inputs and outputs) written as JSON to ``--json`` (default:
``diverge-<function>.json``). The exit status is 1 when the backends part, 0 when they agree, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from typing import Any, Callable

from .._errors import ArgumentValueError

__all__ = ["add_parser", "main", "load"]


def add_parser(sub: Any) -> None:
    """Add the ``diverge`` subcommand to ``python -m xbackend``'s subparsers."""
    p = sub.add_parser("diverge", help="the first xbackend call whose result differs across backends",
                       description=__doc__.split("\n\n")[0].replace("``", ""))  # fmt: skip
    p.add_argument("target", metavar="module:function", help="e.g. mypkg.losses:huber or cases.py:column_means")
    p.add_argument("--backends", default="numpy,torch", help="comma-separated backends or targets (first: reference)")
    p.add_argument("--json", default=None, help="file for the full trace (default: diverge-<function>.json)")
    p.add_argument("--rtol", type=float, default=None)
    p.add_argument("--atol", type=float, default=None)


def _module(spec: str) -> Any:
    if spec.endswith(".py") or os.sep in spec:
        path = os.path.abspath(spec)
        name = os.path.splitext(os.path.basename(path))[0]
        s = importlib.util.spec_from_file_location(name, path)
        if s is None or s.loader is None or not os.path.isfile(path):
            raise ArgumentValueError(f"no Python file at {spec!r}. Fix: give the path of an existing .py file")
        mod = importlib.util.module_from_spec(s)
        sys.modules.setdefault(name, mod)
        if os.path.dirname(path) not in sys.path:
            sys.path.insert(0, os.path.dirname(path))  # the file's own imports of its neighbours
        s.loader.exec_module(mod)
        return mod
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(spec)


def load(target: str) -> tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]:
    """The function named by ``module:function`` and the arguments its module builds."""
    mod_name, sep, attr = target.rpartition(":")
    if not sep or not mod_name or not attr:
        raise ArgumentValueError(f"expected module:function, got {target!r}. Fix: name it like mypkg.losses:huber or "
                                 "cases.py:f")  # fmt: skip
    mod = _module(mod_name)
    fn: Any = mod
    for part in attr.split("."):
        fn = getattr(fn, part)
    short = attr.rpartition(".")[2]
    make = getattr(mod, f"make_{short}_args", None) or getattr(mod, "make_args", None)
    if make is None:
        import inspect

        required = [p for p in inspect.signature(fn).parameters.values()
                    if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]  # fmt: skip
        if required:
            raise ArgumentValueError(f"{target} takes {len(required)} required argument(s), and its module defines neither "
                             f"make_{short}_args() nor make_args(). Fix: add make_args() returning them as a tuple")
        return fn, (), {}
    built = make()
    if isinstance(built, tuple):
        return fn, built, {}
    if isinstance(built, dict):
        return fn, (), built
    return fn, (built,), {}


def main(args: Any) -> int:
    """Run the subcommand with the parsed ``args``."""
    from ._diverge import diverge

    try:
        fn, a, k = load(args.target)
    except (ValueError, ImportError, AttributeError, FileNotFoundError) as exc:
        print(f"python -m xbackend diverge: {exc}", file=sys.stderr)
        return 2
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    try:
        report = diverge(fn, *a, backends=backends, rtol=args.rtol, atol=args.atol, **k)
    except (ValueError, RuntimeError) as exc:  # an unusable backend, fewer than two
        print(f"python -m xbackend diverge: {exc}", file=sys.stderr)
        return 2
    print(report)
    path = args.json or f"diverge-{getattr(fn, '__name__', 'function')}.json"
    report.write_json(path)
    print(f"full trace: {path}")
    return 1 if report.found else 0


if __name__ == "__main__":  # pragma: no cover - python -m xbackend diverge is the entry
    parser = argparse.ArgumentParser(prog="python -m xbackend")
    add_parser(parser.add_subparsers(dest="command", required=True))
    sys.exit(main(parser.parse_args()))
