"""Statistics for reports: Wilson intervals, the exact McNemar test, unbiased pass@k."""
from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; (0, 1) when n == 0."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes}/{n}")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class PairedTable:
    both: int
    only_a: int
    only_b: int
    neither: int

    @classmethod
    def from_outcomes(cls, a: dict[str, bool], b: dict[str, bool]) -> "PairedTable":
        keys = sorted(set(a) & set(b))
        return cls(
            both=sum(a[k] and b[k] for k in keys),
            only_a=sum(a[k] and not b[k] for k in keys),
            only_b=sum(b[k] and not a[k] for k in keys),
            neither=sum(not a[k] and not b[k] for k in keys),
        )

    @property
    def mcnemar_p(self) -> float:
        return mcnemar_exact(self.only_a, self.only_b)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (binomial test, p = 1/2)."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021) from n samples of which c passed."""
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"need 0 <= c <= n and k >= 1, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod((n - c - i) / (n - i) for i in range(k))
