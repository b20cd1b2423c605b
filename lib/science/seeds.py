"""Seeds derived from names: every random stream of the book is named by the parts that make it distinct.

Kept apart from the statistics (lib/science/stats.py) so that a chapter's stored results depend on how its streams
are seeded, not on how some page fits a slope (lib.core.store hashes the modules a computation imports).

    >>> torch.rand(2, generator=generator(0, "panel-a", 12))   # the same parts give the same stream on every run
    tensor([0.9649, 0.3522])
"""
from __future__ import annotations

import hashlib

import torch


def seed_of(*parts) -> int:
    """A 56-bit seed from any tuple of names and numbers: distinct parts give unrelated streams (no arithmetic
    collisions such as (1, 2) vs (2, 1))."""
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:7], "little")


def generator(*parts, device="cpu") -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed_of(*parts))
