"""Scaled sizes keep the kind of size upstream wrote; the full tier's sizes break it."""
from __future__ import annotations

import pytest

from repair.kernelbench.sizes import FLOOR, as_case_value, is_size, odd, one, past_pow2, scalable, scale, tidy


@pytest.mark.parametrize("original, target, expected", [
    (4096, 200.0, 128),  # a power of two stays one
    (4095, 200.0, 127),  # 2^k - 1 stays 2^m - 1
    (393216, 20073.0, 19456),  # a multiple of 1024 stays one
    (1000, 50.0, 48),  # a multiple of 8 stays one
    (112, 20.0, 16),  # ... of 16
    (1001, 300.0, 299),  # odd stays odd
    (4096, 0.0, 1),
    (4095, 0.5, 1),
    (393216, 3.0, 2),  # too small for 1024: the largest power of two that fits
    (100, 500.0, 100),  # never above upstream's
])
def test_tidy_keeps_the_kind_of_size(original, target, expected):
    assert tidy(original, target) == expected


def test_scale_leaves_small_constants_and_scales_tuples_part_by_part():
    assert scale(3, 0.01) == 3 and scale(FLOOR, 0.01) == FLOOR
    assert scale(4096, 1 / 16) == 256
    assert scale((3, 4096), 1 / 16) == [3, 256]
    assert scale(4096, 1e-9) == 1


def test_full_tier_sizes_are_odd_or_just_past_a_power_of_two():
    assert odd(4096, 4096) == 3073 and odd(32, 4096) == 25 and all(odd(v, 4096) % 2 for v in range(1, 300))
    assert past_pow2(4096, 4096) == 4097 and past_pow2(5120, 393216) == 4097 and past_pow2(1, 4096) == 2
    assert odd(3, 3) == 3 and past_pow2(3, 3) == 3  # a constant left as written stays so
    assert odd([32, 3], (4096, 3)) == [25, 3]
    assert one(4096) == 1 and one((4096, 3)) == [1, 3]


def test_what_counts_as_a_size():
    assert is_size(4096) and is_size((4096, 3)) and not is_size(True) and not is_size(0) and not is_size(1.5)
    assert not is_size(()) and not is_size("4096")
    assert scalable(17) and not scalable(16) and scalable((3, 4096)) and not scalable((3, 16))
    assert as_case_value((1, 2)) == [1, 2] and as_case_value(3) == 3
