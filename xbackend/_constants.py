"""The Array API standard's constants (e, inf, nan, newaxis, pi): plain Python floats and ``None``.

>>> import xbackend as xb
>>> xb.pi, xb.e, xb.inf, xb.newaxis is None
(3.141592653589793, 2.718281828459045, inf, True)
>>> xb.asarray([[1, 2]])[:, xb.newaxis].shape
(1, 1, 2)
"""

from __future__ import annotations

import math

__all__ = ["e", "inf", "nan", "newaxis", "pi"]

e: float = math.e
inf: float = math.inf
nan: float = math.nan
newaxis: None = None
pi: float = math.pi
