"""Precision as a parameter (lib.science.precision): float32 points keep their specs and keys; bfloat16 points run
their matmuls in bfloat16 under autocast, with float32 weights, under keys of their own."""
from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch

from lib.chapters.sample_complexity import compute as sc
from lib.core import params
from lib.core.store import key_of, spec_dict
from lib.core.sweep import Point, run_point
from lib.science.precision import InPrecision, unwrap, with_precision


@dataclass(frozen=True)
class Spec:
    n: int


def probe(spec: Spec, device: str) -> dict:
    """What a run sees: the dtype of a matmul of float32 tensors, and of the float32 weight it multiplies."""
    w = torch.ones(spec.n, spec.n)
    return {"matmul": str((w @ w).dtype), "weight": str(w.dtype)}


def test_float32_is_the_plain_spec_and_bfloat16_runs_in_autocast():
    spec = Spec(3)
    assert with_precision(spec, "float32") is spec and unwrap(spec) is spec
    b16 = with_precision(spec, "bfloat16")
    assert isinstance(b16, InPrecision) and unwrap(b16) is spec
    assert key_of(spec_dict(b16)) != key_of(spec_dict(spec))
    assert run_point(Point(("x",), spec, probe), "cpu")["matmul"] == "torch.float32"
    out = run_point(Point(("x",), b16, probe), "cpu")
    assert out["matmul"] == "torch.bfloat16" and out["weight"] == "torch.float32"
    assert not torch.is_autocast_enabled("cpu")                     # left as it was
    with pytest.raises(ValueError, match="float32, bfloat16"):
        with_precision(spec, "float16")


def test_a_profile_names_its_precision_and_float32_keeps_every_key():
    P = params.resolve("sample_complexity", "quick")
    assert P["precision"] == "float32"
    plain = [key_of(spec_dict(p.spec)) for p in sc.points({k: v for k, v in P.items() if k != "precision"})]
    assert [key_of(spec_dict(p.spec)) for p in sc.points(P)] == plain    # as stored before it was a parameter
    b16 = sc.points(params.resolve("sample_complexity", "quick", {"precision": "bfloat16"}))
    assert all(isinstance(p.spec, InPrecision) for p in b16) and not set(plain) & {key_of(spec_dict(p.spec)) for p in b16}
    with pytest.raises(params.ParamError, match="precision"):
        params.resolve("sample_complexity", "quick", {"precision": "float16"})
