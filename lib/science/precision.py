"""Precision as a parameter (issue 41): a point computed with its matrix products in bfloat16.

`torch.autocast` runs the matmuls, convolutions and recurrent cells of a point's run in bfloat16 while its weights,
gradients, optimiser state and losses stay float32 (autocast's own lists: `mse_loss` and reductions run in float32),
on a CPU with AVX-512 BF16 or AMX and on a GPU alike. A chapter opts in by wrapping its specs with `with_precision`;
the sweep runner (`lib.core.sweep.run_point`) then runs the plain spec inside autocast. The wrapper is a type of its
own, so a float32 point is its plain spec, keyed as it always was: the float32 points stored before precision was a
parameter stay valid, and a bfloat16 point never takes a float32 point's place in the store.

    >>> from lib.chapters.sample_complexity import compute as sc; from lib.core import params
    >>> P = params.resolve("sample_complexity", "quick")
    >>> f32, b16 = (sc.points({**P, "precision": p})[0].spec for p in ("float32", "bfloat16"))
    >>> type(f32).__name__, type(b16).__name__, b16.spec == f32, b16.precision
    ('FigurePoint', 'InPrecision', True, 'bfloat16')
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PRECISIONS = ("float32", "bfloat16")


@dataclass(frozen=True)
class InPrecision:
    """A spec whose run has its matmuls in `precision` (torch.autocast); every other number as the spec says."""
    spec: Any          # the chapter's own frozen spec, as its run function takes it
    precision: str     # one of PRECISIONS other than float32


def with_precision(spec, precision: str):
    """`spec` itself in float32 (its key unchanged), else wrapped."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision: expected one of {', '.join(PRECISIONS)}, got {precision!r}")
    return spec if precision == "float32" else InPrecision(spec, precision)


def unwrap(spec):
    """The chapter's own spec (what its run function and its readers see)."""
    return spec.spec if isinstance(spec, InPrecision) else spec


def run(point, device: str) -> dict:
    """point.run(spec, device); an InPrecision spec's run inside autocast on the device's type."""
    if not isinstance(point.spec, InPrecision):
        return point.run(point.spec, device)
    import torch

    with torch.autocast(torch.device(device).type, dtype=getattr(torch, point.spec.precision)):
        return point.run(point.spec.spec, device)
