"""The pytest plugin's part of ``diverge``: a failed test on one target ends with where it parts from NumPy.

Design constraint: it changes nothing for a passing test and costs nothing until a test fails. When a test that
takes the plugin's ``xb_target``/``xb_backend``/``xb_device`` fails with an ``AssertionError`` on a target other
than ``numpy-cpu``, its body runs twice more, recorded: with the fixtures of ``numpy-cpu`` and again with its own
(its other fixtures as they were). The traces are compared as :func:`~xbackend.testing.diverge` compares them,
and the report is added to the failure as a section ("where the backends part"), printed after the traceback.
Left alone: hypothesis tests (their body is a search, not a run), coroutines, tests that parametrise the target
themselves with ids, and runs with ``--xb-diverge=no``.
"""

from __future__ import annotations

import inspect
from typing import Any

from ._targets import Target, _CURRENT, available_targets

__all__ = ["report_for"]

_NAMES = ("xb_target", "xb_backend", "xb_device")
REFERENCE = "numpy-cpu"


def _fixtures(item: Any, target: Target) -> dict[str, Any]:
    names = [n for n in inspect.signature(item.obj).parameters if n in item.funcargs]
    values = {n: item.funcargs[n] for n in names}
    for n, v in (("xb_target", target), ("xb_backend", target.backend), ("xb_device", target.device)):
        if n in values:
            values[n] = v
    return values


def report_for(item: Any) -> str | None:
    """The divergence report of a failed test ``item`` against its run on ``numpy-cpu``, or None."""
    from ._diverge import compare_traces, record_run

    target = getattr(getattr(item, "callspec", None), "params", {}).get("xb_target")
    fn = getattr(item, "obj", None)
    if (not isinstance(target, Target) or target.id == REFERENCE or fn is None or hasattr(fn, "hypothesis")
            or inspect.iscoroutinefunction(fn)):  # fmt: skip
        return None
    ref = next((t for t in available_targets() if t.id == REFERENCE), None)
    if ref is None:
        return None
    traces = []
    for t in (ref, target):
        token = _CURRENT.set(t)
        try:
            traces.append(record_run(t.id, fn, (), _fixtures(item, t)))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001 - pytest.skip()/fail() in the body (no Exception): nothing to show
            return None
        finally:
            _CURRENT.reset(token)
    if traces[0].error is not None and traces[1].error is not None and not traces[0].calls:
        return None  # the test fails on NumPy as well, before any xbackend call: nothing to compare
    return str(compare_traces(traces[0], traces[1]))
