"""Small numerics every chapter uses: log-log slopes, crossings, standard errors, z-scores (seeds: seeds.py).

    >>> loglog_slope([2, 4, 8], [3, 12, 48])
    2.0
"""
from __future__ import annotations

import math

import numpy as np
import torch


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x over the finite positive y; NaN with fewer than two."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(y) & (y > 0)
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0]) if ok.sum() >= 2 else float("nan")


BELOW_GRID = -math.inf   # what log_crossing returns when y starts at or below the threshold


def log_crossing(x, y, threshold: float, strict: bool = False) -> float:
    """The x at which y first falls to `threshold` (below it if strict), interpolated linearly in log x between the
    grid points either side; BELOW_GRID (-inf) if y is there already at x[0], where the grid cannot place the crossing
    (it lies at or below x[0]: a bound, not a value); NaN if it never gets there (above the grid).

        >>> round(log_crossing([10, 20, 40], [1.0, 0.6, 0.3], 0.75), 2)   # between 10 and 20, in log x
        15.42
        >>> log_crossing([10, 20, 40], [0.5, 0.4, 0.3], 0.75)             # below the grid: a bound
        -inf
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    below = np.flatnonzero(y < threshold if strict else y <= threshold)
    if not len(below):
        return float("nan")
    j = below[0]
    if j == 0:
        return BELOW_GRID
    frac = (y[j - 1] - threshold) / (y[j - 1] - y[j])
    return float(np.exp(np.log(x[j - 1]) + frac * (np.log(x[j]) - np.log(x[j - 1]))))


def standard_error(values, axis: int | None = None):
    """Standard error of the mean of independent values (a tensor or an array; n - 1 in the variance): a float,
    or with `axis` an array of the standard errors along that axis.

        >>> standard_error([1.0, 3.0])
        1.0
        >>> standard_error([[1.0, 3.0], [2.0, 2.0]], 1)
        array([1., 0.])
    """
    v = torch.as_tensor(values, dtype=torch.float64).cpu().numpy()
    if axis is None:
        return float(v.std(ddof=1) / math.sqrt(v.size))
    return v.std(axis=axis, ddof=1) / math.sqrt(v.shape[axis])


def zscore(delta, se):
    """delta / se, elementwise; where se = 0 (identical runs) 0 if delta = 0, else +-inf."""
    delta, se = np.asarray(delta, float), np.asarray(se, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, delta / se, np.where(delta == 0, 0.0, np.sign(delta) * np.inf))
