"""Sizes for derived cases: a constant scaled down keeping its kind, and the odd and tail sizes of the full tier.

A scaled size keeps the character of the one upstream wrote, so the compact tier stays the happy path it was: a
power of two stays a power of two, 2^k - 1 stays 2^m - 1, a multiple of 1024 (or 64, or 16) stays one as far as it
can, an odd size stays odd. Constants of `FLOOR` or less (channels, kernel sizes, heads) are never scaled. The full
tier then breaks exactly that: odd sizes (a multiple of no block size), sizes just past a power of two, a size of 1.
"""
from __future__ import annotations

import math
from typing import Any

FLOOR = 16  # constants of this value or less are left as upstream wrote them
_TIDY = 1024  # the largest power of two a scaled size keeps dividing by


def is_size(value: Any) -> bool:
    """An int constant (not a bool) of at least 1, or a tuple/list of them: what a case may scale."""
    if isinstance(value, (tuple, list)):
        return bool(value) and all(is_size(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def scalable(value: Any) -> bool:
    """A size with a part above FLOOR (a tuple scales element by element)."""
    if isinstance(value, (tuple, list)):
        return any(scalable(v) for v in value)
    return value > FLOOR


def tidy(original: int, target: float) -> int:
    """`target` rounded down to a size of `original`'s kind; between 1 and `original`."""
    if target >= original:
        return original
    t = max(1, int(target))
    if original & (original - 1) == 0:  # a power of two
        return 1 << (t.bit_length() - 1)
    if original & (original + 1) == 0:  # 2^k - 1
        return (1 << ((t + 1).bit_length() - 1)) - 1
    g = math.gcd(original, _TIDY)
    while g > 1 and t < g:
        g //= 2
    r = max(1, t // g * g)
    if original % 2 and r % 2 == 0:
        r -= 1
    return max(1, r)


def scale(value: Any, factor: float) -> Any:
    """A size constant scaled by `factor` (0 < factor <= 1): each part above FLOOR, tidily, never below 1."""
    if isinstance(value, (tuple, list)):
        return [scale(v, factor) for v in value]
    return tidy(value, value * factor) if value > FLOOR else value


def odd(value: Any, original: Any) -> Any:
    """A size that is a multiple of no block size: an odd number near three quarters of `value`."""
    if isinstance(value, (tuple, list)):
        return [odd(v, o) for v, o in zip(value, original)]
    return value if original <= FLOOR else ((3 * value) // 4) | 1


def past_pow2(value: Any, original: Any) -> Any:
    """The size just past the largest power of two not above `value` (2^m + 1)."""
    if isinstance(value, (tuple, list)):
        return [past_pow2(v, o) for v, o in zip(value, original)]
    return value if original <= FLOOR else (1 << (value.bit_length() - 1)) + 1


def one(value: Any) -> Any:
    """A size of 1 (every part of a tuple that scales)."""
    if isinstance(value, (tuple, list)):
        return [1 if v > FLOOR else v for v in value]
    return 1


def as_case_value(value: Any) -> Any:
    """How a case writes a constant: tuples become lists (CASES is JSON data)."""
    return list(value) if isinstance(value, tuple) else value
