"""The uncertainty of Figure 1's claims: a one-sided hierarchical bootstrap over task draws and seeds.

A claim about Figure 1 is a statement about means of a few seeds, and the authors draw u and the position codes once
per N, so their seeds never average over that draw. Each claim is therefore tested on a one-sided bootstrap: the
runs of a (model, N) are resampled hierarchically (task draws with replacement, then seeds within each draw), and a
direction ("A needs fewer samples than B") passes where at least LEVEL of the replicates show it. A threshold on a
ratio is held against the replicates' lower (or upper) LEVEL bound. A model trained on one task draw is resampled
over its seeds only; the page says which models have several draws. The power of the claims' rules (claims/power.py)
draws whole result sets the same way (`resampled`) and moves their runs (`rescaled`).

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> from lib.chapters.sample_complexity.results import summarize; table = summarize(P, records)
    >>> B = boot(table, P, "a", "authors"); round(lower(B["ffn"][6] / B["transformer"][6]), 2)   # the ratio's 5% bound
    1.68
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sample_complexity.results import MODELS, Summary, summary
from lib.core.power import resample_cells
from lib.science.seeds import seed_of

N_BOOT = 2000
LEVEL = 0.95


def replicates(entry: dict, key: tuple, draws: int | None = None) -> np.ndarray:
    """(N_BOOT, len(N)) bootstrap means of one table entry. draws: task draws per replicate (default: the entry's
    own count; 1 gives the spread of a single-draw mean like the authors'). The stream depends on `key` alone, so the
    two test sets of panel (a), which score the same runs, are resampled with the same indices (paired)."""
    by_draw = entry["by_draw"]
    n, G, R = by_draw.shape
    g = draws or G
    rng = np.random.default_rng(seed_of("bootstrap", *key, g))
    di = rng.integers(0, G, (N_BOOT, n, g))
    si = rng.integers(0, R, (N_BOOT, n, g, R))
    return by_draw[np.arange(n)[None, :, None, None], di[..., None], si].mean((2, 3))


def boot(table: dict, P: dict, panel: str, test: str) -> dict:
    """{model: {N: (N_BOOT,) replicate means}} of one panel and test set (the models this run has)."""
    out = {}
    for m in (m for m in MODELS if test in table[panel].get(m, {})):
        entry = table[panel][m][test]
        reps = replicates(entry, (P["seed"], panel, m))
        out[m] = {n: reps[:, i] for i, n in enumerate(entry["N"])}
    return out


def slope(grid, ys) -> np.ndarray:
    """Least-squares log-log slope of each replicate: ys (..., len(grid))."""
    x = np.log(np.asarray(grid, float))
    y = np.log(np.asarray(ys, float))
    x = x - x.mean()
    return ((y - y.mean(-1, keepdims=True)) * x).sum(-1) / (x * x).sum()


def lower(v) -> float:
    return float(np.quantile(v, 1 - LEVEL))


def upper(v) -> float:
    return float(np.quantile(v, LEVEL))


def _entry(e: dict, by_draw: np.ndarray, runs: np.ndarray) -> dict:
    """A summary-table entry (results.summarize) holding these (len(N), G, R) runs."""
    return {**e, "by_draw": by_draw, "runs": runs.reshape(len(by_draw), -1), "censored": np.isnan(runs).sum((1, 2)),
            "mean": by_draw.mean((1, 2))}


def resampled(P: dict, results: dict, rng: np.random.Generator, donors: dict | None = None) -> Summary:
    """The summary table drawn again point by point, as the bootstrap above draws it: at each (panel, model, N) its G
    task draws with replacement, then the seeds of each drawn draw within it (lib.core.power.resample_cells, one call
    for the whole table, which draws k times the stored seeds inside `seeds_times(k)`); a point's test sets score the
    same runs and follow the same draw. donors: {(panel, model): {N: (panel, model)}}, a point whose runs are drawn
    from another model's point at the same N instead (in this point's number of draws)."""
    table, blocks, res = summary(P, results), [], {}
    tests = sorted({t for ms in table.values() for e in ms.values() for t in e})
    for panel, models in table.items():
        for m, entries in models.items():
            first = next(iter(entries.values()))
            Ns, G = first["N"], first["by_draw"].shape[1]
            src = [table[s[0]][s[1]] if (s := (donors or {}).get((panel, m), {}).get(N)) else entries for N in Ns]
            at = [next(iter(s.values()))["N"].index(N) for s, N in zip(src, Ns)]
            drawn = [rng.integers(0, next(iter(s.values()))["by_draw"].shape[1], G) for s in src]
            got = {f"{f} {t}": np.stack([np.asarray(s[t][f][j]).reshape(s[t]["by_draw"].shape[1], -1)[d]
                                         if t in entries else np.full(first["by_draw"].shape[1:], np.nan)
                                         for s, j, d in zip(src, at, drawn)]) for t in tests for f in ("by_draw", "runs")}
            n, G, R = got[f"by_draw {next(iter(entries))}"].shape
            cells = len(res.get("cell", [])) and res["cell"][-1] + 1          # (N, drawn draw): the cells' labels
            res.setdefault("cell", []).extend(np.repeat(np.arange(cells, cells + n * G), R).tolist())
            for key, v in got.items():
                res.setdefault(key, []).extend(v.ravel().tolist())
            blocks.append((panel, m, entries, n * G * R, (n, G)))
    res = resample_cells({"p": {"spec": {}, "result": res}}, rng, lambda r: [(r, "p")], lambda r: r["cell"])["p"]["result"]
    out, start, times = Summary(), 0, len(res["cell"]) // sum(b[3] for b in blocks)     # times: seeds_times' k
    for panel, m, entries, size, shape in blocks:
        part = {key: np.reshape(v[start: start + size * times], (*shape, -1)) for key, v in res.items() if key != "cell"}
        out.setdefault(panel, {})[m] = {t: _entry(e, part[f"by_draw {t}"], part[f"runs {t}"]) for t, e in entries.items()}
        start += size * times
    return out


def rescaled(table: dict, factors: dict) -> Summary:
    """The summary table with the runs of each (panel, model) in `factors` multiplied at each N by its factor
    ({(panel, model): {N: factor}}; an N not named keeps its runs): a mean moved, its spread on the log scale kept."""
    out = Summary({p: dict(ms) for p, ms in table.items()})
    for (p, m), f in factors.items():
        if m in out.get(p, {}):
            out[p][m] = {t: _entry(e, e["by_draw"] * (x := np.array([f.get(N, 1.0) for N in e["N"]])[:, None, None]),
                                   e["runs"].reshape(e["by_draw"].shape) * x) for t, e in out[p][m].items()}
    return out
