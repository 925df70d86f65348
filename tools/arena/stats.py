"""The arena's statistics, in plain Python: mean and confidence interval over
independent samples (deals), Student's t test against a null value (percentiles: ``tools.stats``).

Why over deals: in duplicate format each deal is played once per rotation of the
line-up, so every strategy meets the same luck. A deal's result for a strategy -
its mean win share per seat over the deal's rotations - is one paired sample: the
luck of the deal cancels inside it, and deals are independent of each other.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-15:
            break
    return h


def regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * regularized_beta(df / (df + t * t), df / 2.0, 0.5)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (bisection on ``t_cdf``)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be strictly between 0 and 1")
    low, high = -1e4, 1e4
    for _ in range(64):  # 2e4 / 2**64: far below any digit printed
        middle = (low + high) / 2.0
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


@dataclass(frozen=True)
class Estimate:
    """A mean over ``n`` independent samples, its standard error and a confidence
    interval (Student's t); with one sample the interval is unknown (nan)."""

    n: int
    mean: float
    stderr: float
    low: float
    high: float


def _mean_stderr(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    if n == 0:
        raise ValueError("no samples")
    mean = math.fsum(values) / n
    if n == 1:
        return mean, math.nan
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n)


def estimate(values: Sequence[float], level: float = 0.95) -> Estimate:
    mean, stderr = _mean_stderr(values)
    n = len(values)
    if n == 1:
        return Estimate(1, mean, math.nan, math.nan, math.nan)
    half = t_quantile(0.5 + level / 2.0, n - 1) * stderr
    return Estimate(n, mean, stderr, mean - half, mean + half)


@dataclass(frozen=True)
class TTest:
    """Student's one-sample t test of "the true mean is ``null``", two-sided."""

    null: float
    t: float
    p: float


def t_test(values: Sequence[float], null: float) -> TTest:
    mean, stderr = _mean_stderr(values)
    if len(values) < 2:
        return TTest(null, math.nan, math.nan)
    if stderr == 0.0:
        if mean == null:
            return TTest(null, 0.0, 1.0)
        return TTest(null, math.copysign(math.inf, mean - null), 0.0)
    t = (mean - null) / stderr
    return TTest(null, t, 2.0 * t_cdf(-abs(t), len(values) - 1))
