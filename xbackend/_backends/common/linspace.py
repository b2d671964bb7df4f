"""``linspace``'s values, computed by one formula on every backend.

Libraries compute evenly spaced values differently: NumPy as ``i * step + start`` with the last value set to
``stop``; ``torch.linspace`` from both ends towards the middle; CuPy refuses complex endpoints. For finite
endpoints the results differ in the last bits; for an infinite or NaN endpoint they differ outright
(``linspace(inf, 0, 3)`` is ``[nan, nan, 0]`` on NumPy, ``[nan, inf, nan]`` on torch). xbackend's rule is
NumPy's formula, step for step in float64, written once here against any namespace whose arrays support
``*``, ``/``, ``+`` and ``y[-1] = v`` (NumPy, CuPy, torch), so every backend gives NumPy's bits.

Complex endpoints follow the Array API standard: the real and imaginary parts are spaced separately
(``linspace(a + bj, c + dj) == linspace(a, c) + 1j * linspace(b, d)``). For finite endpoints that is what
NumPy's complex arithmetic gives as well; a NaN or infinite part stays in its own part instead of spreading
into both, as it does on NumPy (``docs/ecosystem.md``, known differences).
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["real_linspace", "complex_parts"]


def real_linspace(arange: Callable[[int], Any], start: float, stop: float, num: int, endpoint: bool) -> Any:
    """NumPy's ``linspace`` formula for float endpoints; ``arange(n)`` gives float64 ``0 .. n-1``.

    >>> import numpy as np
    >>> f64 = lambda n: np.arange(n, dtype=np.float64)
    >>> real_linspace(f64, 0.0, 1.0, 5, True).tolist(), real_linspace(f64, 0.0, 1.0, 4, False).tolist()
    ([0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.25, 0.5, 0.75])
    >>> with np.errstate(all="ignore"):
    ...     real_linspace(f64, float("inf"), 0.0, 3, True).tolist()
    [nan, nan, 0.0]
    """
    div = num - 1 if endpoint else num
    y = arange(num)
    delta = stop - start  # Python floats: IEEE float64, inf - inf is nan (no exception)
    if div > 0:
        step = delta / div
        y = y / div * delta if step == 0 else y * step  # step == 0: a denormal delta (NumPy's gh-5437)
    else:  # no values, or one value with endpoint=True: NumPy multiplies by delta
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y[-1] = stop
    return y


def complex_parts(start: Any, stop: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    """The (start, stop) pairs of the real and of the imaginary parts.

    >>> complex_parts(1 + 2j, 3)
    ((1.0, 3.0), (2.0, 0.0))
    """
    s, e = complex(start), complex(stop)
    return (s.real, e.real), (s.imag, e.imag)
