"""Small numerics every chapter uses: seeds derived from names, log-log slopes, standard errors, z-scores.

    >>> gen = generator(0, "panel-a", 12)          # the same parts give the same stream on every run
    >>> loglog_slope([2, 4, 8], [3, 12, 48])       # 2.0
"""
from __future__ import annotations

import hashlib
import math

import numpy as np
import torch


def seed_of(*parts) -> int:
    """A 56-bit seed from any tuple of names and numbers: distinct parts give unrelated streams (no arithmetic
    collisions such as (1, 2) vs (2, 1))."""
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:7], "little")


def generator(*parts, device="cpu") -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed_of(*parts))


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x over the finite positive y; NaN with fewer than two."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(y) & (y > 0)
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0]) if ok.sum() >= 2 else float("nan")


def standard_error(values) -> float:
    """Standard error of the mean of independent values (a tensor or an array)."""
    values = torch.as_tensor(values, dtype=torch.float64).flatten()
    return float(values.std() / math.sqrt(values.numel()))


def zscore(delta, se):
    """delta / se, elementwise; where se = 0 (identical runs) 0 if delta = 0, else +-inf."""
    delta, se = np.asarray(delta, float), np.asarray(se, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, delta / se, np.where(delta == 0, 0.0, np.sign(delta) * np.inf))
