"""Shape comparison that knows the Array API standard's rule for data-dependent sizes.

Design constraint: a lazy backend (Dask) reports ``None`` for a size it knows only after computing
(boolean masks, ``nonzero``, ``unique_*``); the standard allows exactly that, so a test compares known
sizes and accepts ``None`` - and nothing else - in place of a size.
"""

from __future__ import annotations

from typing import Any

__all__ = ["shapes_match"]


def shapes_match(actual: Any, expected: Any) -> bool:
    """Whether ``actual`` (may hold ``None``) is ``expected`` with some sizes unknown.

    >>> from xbackend.testing import shapes_match
    >>> shapes_match((None, 3), (5, 3)), shapes_match((4, 3), (5, 3)), shapes_match((3,), (3, 1))
    (True, False, False)
    """
    actual, expected = tuple(actual), tuple(expected)
    return len(actual) == len(expected) and all(a is None or a == e for a, e in zip(actual, expected))
