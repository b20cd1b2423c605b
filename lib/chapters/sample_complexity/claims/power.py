"""The worlds the power of the chapter's rules is measured in (lib.core.power): for each row, its own rule on the
stored runs resampled (the faithful world) and on the stored runs changed so that the theorem's mechanism is absent.

Figure 1's rows read the summary table (results.summary), whose points hold per (panel, model, N) the runs of G
task draws of R seeds each: `resampled` draws each point's task draws with replacement and then the seeds within
each drawn draw, point by point, so no spread is pooled across N; it returns the table, which the measures read as
they read the records. The other worlds move or swap those runs: a model's runs scaled away from the authors' means
(paper-means), the FFN's runs replaced by the slower other model's at each N (4-ffn-gap), the Transformer's counts
moved onto another law of N (1-tr-logN). The attention row reads its stored point: its runs resampled, or their
peaks drawn as attention blind to the codes places them. With a few runs per point a resample often repeats one,
which narrows the spread a row estimates from them (paper-means' sigma).

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> from lib.chapters.sample_complexity.claims import ROWS
    >>> from lib.core.power import power_table
    >>> t = power_table(ROWS, {"4-ffn-gap": WORLDS["4-ffn-gap"]}, P, records, 10)
    >>> [(x["world"][:12], x["pass"] > 0.5) for x in t]
    [('faithful: th', True), ('no gap: the ', False)]
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sample_complexity.results import MODELS, Summary, summary, wide
from lib.core.power import World, resample_seeds

__all__ = ["WORLDS", "bent", "blind", "no_gap", "resampled", "scaled"]


def _entry(e: dict, by_draw: np.ndarray, runs: np.ndarray) -> dict:
    """A summary-table entry (see results.summarize) with these (len(N), G, R) runs."""
    return {**e, "by_draw": by_draw, "runs": runs.reshape(len(by_draw), -1), "censored": np.isnan(runs).sum((1, 2)),
            "mean": by_draw.mean((1, 2))}


def resampled(P: dict, results: dict, rng: np.random.Generator, donors: dict | None = None) -> Summary:
    """The summary table with each (panel, model, N) point's runs drawn again, independently point by point: its G
    task draws with replacement, then R seeds with replacement within each drawn draw; the test sets of a point are
    scores of the same runs and follow the same draw (paired). donors: {(panel, model): {N: (panel, model)}}, a point
    whose runs are drawn from another model's point of the same N instead (in its own number of draws and seeds)."""
    table, out = summary(P, results), Summary()
    for panel, models in table.items():
        for m, tests in models.items():
            first = next(iter(tests.values()))
            _, G, R = first["by_draw"].shape
            swap = (donors or {}).get((panel, m), {})
            points = []                          # per N: the source entries, the row of N there, the runs drawn
            for N in first["N"]:
                src = table[swap[N][0]][swap[N][1]] if N in swap else tests
                _, G0, R0 = next(iter(src.values()))["by_draw"].shape
                points.append((src, next(iter(src.values()))["N"].index(N),
                               (rng.integers(0, G0, G)[:, None], rng.integers(0, R0, (G, R)))))
            for test, e in tests.items():
                by_draw = np.stack([src[test]["by_draw"][j][d, s] for src, j, (d, s) in points])
                runs = np.stack([src[test]["runs"][j].reshape(src[test]["by_draw"].shape[1:])[d, s]
                                 for src, j, (d, s) in points])
                out.setdefault(panel, {}).setdefault(m, {})[test] = _entry(e, by_draw, runs)
    return out


def scaled(table: dict, factor, models=MODELS, panels=("a", "b")) -> Summary:
    """The table with every run of `models` in `panels` times `factor` (a number, or a function of N): their means
    moved by that factor, their spread on the log scale kept."""
    out = Summary({p: {m: dict(t) for m, t in ms.items()} for p, ms in table.items()})
    for p in panels:
        for m in models:
            for test, e in out.get(p, {}).get(m, {}).items():
                f = np.array([factor(N) if callable(factor) else factor for N in e["N"]], float)[:, None, None]
                out[p][m][test] = _entry(e, e["by_draw"] * f, e["runs"].reshape(e["by_draw"].shape) * f)
    return out


def no_gap(P: dict, results: dict, rng: np.random.Generator) -> Summary:
    """4-ffn-gap without the gap: panel (b)'s FFN runs at each N drawn from the runs of the slower of the RNN and the
    Transformer at that N (by their stored means), the other models resampled as they are."""
    b = summary(P, results)["b"]
    slower = {N: ("b", max(("rnn", "transformer"), key=lambda m: b[m]["task"]["mean"][b[m]["task"]["N"].index(N)]))
              for N in b["ffn"]["task"]["N"]}
    return resampled(P, results, rng, {("b", "ffn"): slower})


def bent(law: str):
    """A world for 1-tr-logN: the Transformer's runs (panel (a) and the wide sweep) rescaled at each N so that the
    mean the row reads there (wide.series: the task's test set) is `law` fitted to those means, their spread about it
    kept; then resampled. (Rescaling by the law over the log law instead would keep the curvature of the residuals
    about the log law, and with it much of the log law's lead.)"""
    def draw(P: dict, results: dict, rng: np.random.Generator) -> Summary:
        table = summary(P, results)
        w = wide.series(table, P, "task")
        means = w["runs"].mean(1)
        fit = wide.fit_laws(w["N"], means, (law,) if law != "power" else ())[law]["params"]
        to = dict(zip(w["N"], wide.law_curve(law, fit, w["N"]) / means))
        return resampled(P, scaled(table, lambda N: to.get(N, 1.0), ("transformer",), ("a", "wide")), rng)
    return draw


def _moved(models, factor):
    """A world whose `models` need `factor` times the samples of the stored runs (resampled)."""
    return lambda P, results, rng: resampled(P, scaled(summary(P, results), factor, models), rng)


def _attention(P: dict, records: dict) -> dict:
    """The attention point alone (what its row reads)."""
    key = ("attention", "transformer", P.get("attention_N", 0))
    return {key: records[key]} if key in records else {}


def blind(P: dict, records: dict, rng: np.random.Generator) -> dict:
    """The attention point's runs resampled, with each run's peaks drawn as attention blind to the codes places them:
    at t_i with chance 1/N at each position (what the row's rule holds a majority against)."""
    out = resample_seeds(P, _attention(P, records), rng)
    for rec in out.values():
        res = rec["result"]
        res["peak_k"] = rng.binomial(res["peak_n"], 1 / P["attention_N"], len(res["peak_k"])).tolist()
    return out


FAITHFUL = World("faithful: the stored runs, resampled by task draw and by seed within each point", True, resampled)
WORLDS = {
    "paper-means": (FAITHFUL,
                    World("the FFN's runs ×1.3: a model that is not the authors'", False, _moved(("ffn",), 1.3)),
                    World("every run ×1.15: models that are not the authors'", False, _moved(MODELS, 1.15))),
    "4-ffn-gap": (FAITHFUL, World("no gap: the FFN's runs at each N drawn from the slower of the RNN and the "
                                  "Transformer", False, no_gap)),
    "1-tr-logN": (FAITHFUL, *(World(f"{name}: the Transformer's runs rescaled at each N onto {law} fitted to their "
                                    "means, their spread kept", polylog, bent(key)) for key, name, law, polylog in (
        ("log2", "(ln N)² growth, polylogarithmic as Theorem 4 allows", "$a + b(\\ln N)^2$", True),
        ("offset-power", "a power with an offset", "$a + cN^{0.2}$", False),
        ("power", "a power of N", "$cN^p$", False),
        ("linear", "a line", "$a + bN$", False)))),
    "5-attn-reads-t": (
        World("faithful: the stored attention runs, resampled by seed", True,
              lambda P, records, rng: resample_seeds(P, _attention(P, records), rng)),
        World("blind to the codes: each run's peaks at t_i drawn with chance 1/N", False, blind)),
}
