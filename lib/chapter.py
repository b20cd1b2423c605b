"""What every chapter notebook does around its experiment: read and check its parameters, pick the device,
open its results store, show the parameters used, write claims.json and provenance.json, print provenance.

    >>> ch = Chapter("sample_complexity", globals())   # right after the parameters cell
    >>> ch.finish(claims)                               # last cell: claims.json, provenance.json, provenance line
"""
from __future__ import annotations

import os
import time

from . import params as params_mod
from .claims import Claim, tally, to_markdown
from .store import Store, environment


def resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    params_mod.check_device(device, "parameters")
    return device


class Chapter:
    def __init__(self, name: str, namespace: dict):
        self.name = name
        self.t0 = time.perf_counter()
        schema = params_mod.load_schema(name)
        # Values as papermill injected them, checked again so that a notebook run by hand is checked too.
        self.params = {k: params_mod.check_value(p, namespace[k], "parameters cell") for k, p in schema.items()}
        self.profile = self.params.get("profile", "custom")
        self.device = resolve_device(self.params.get("device", "auto"))
        self.store = Store(name, self.profile)
        self.force = os.environ.get("BOOK_FORCE") == "1"
        self.env = environment(self.device)

    def parameters_table(self):
        """A readable table of the parameters this run used (papermill's injected cell is hidden)."""
        from IPython.display import Markdown

        schema = params_mod.load_schema(self.name)
        rows = ["| parameter | value | meaning |", "|---|---|---|"]
        for k, v in self.params.items():
            rows.append(f"| `{k}` | `{v}` | {schema[k].help} |")
        return Markdown("\n".join(rows))

    def finish(self, claims: list[Claim], extra: dict | None = None):
        """Write claims.json and provenance.json for this run; return the claim table and provenance line."""
        from IPython.display import Markdown

        wall = time.perf_counter() - self.t0
        rows = [c.as_dict() for c in claims]
        self.store.write("claims.json", rows)
        seeds = {k: v for k, v in self.params.items() if "seed" in k}
        prov = {"chapter": self.name, "profile": self.profile, "wall_s": round(wall, 2), "seeds": seeds,
                "params": self.params, **self.env, **(extra or {})}
        self.store.write("provenance.json", prov)
        passed, failed = tally(rows)
        line = (f"**Provenance.** profile `{self.profile}` · commit `{self.env['commit']}` · lib `{self.env['lib_hash']}` · "
                f"device {self.env['device']} · torch {self.env['torch']} · seeds "
                + ", ".join(f"`{k}={v}`" for k, v in seeds.items())
                + f" · wall time {wall:.1f} s · claims {passed} passed, {failed} failed.")
        return Markdown(to_markdown(rows)), Markdown(line)
