"""The worlds the power of the chapter's rules is measured in (lib.core.power): for each row, its own rule on the
stored runs resampled (the faithful world) and on the stored runs changed so that the theorem's mechanism is absent.
Figure 1's rows read the summary table, which `resampled` draws again point by point (no spread is pooled across N)
and hands to the measures as they take the records; the other worlds move or swap its runs (WORLDS names each). With
a few runs per point a resample often repeats one, which narrows the spread a row estimates from them (paper-means'
sigma).

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> from lib.chapters.sample_complexity.claims import ROWS
    >>> from lib.core.power import power_table
    >>> t = power_table(ROWS, {"4-ffn-gap": WORLDS["4-ffn-gap"]}, P, records, 10)
    >>> [(x["world"][:12], x["pass"] > 0.5) for x in t]
    [('faithful: th', True), ('no gap: the ', False)]
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sample_complexity.results import MODELS, SLOPE_FROM, Summary, summary, wide
from lib.chapters.sample_complexity.results.authors import CLAIM_TEST
from lib.core.power import World, resample_seeds
from lib.science.stats import loglog_slope

__all__ = ["WORLDS", "blind", "donor", "no_gap", "onto", "regrown", "resampled"]


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


def _mean(table: dict, panel: str, model: str, N: int) -> float:
    e = table[panel][model][CLAIM_TEST[panel]]
    return float(e["mean"][e["N"].index(N)])


def donor(panel: str, model: str, pick):
    """A world in which `model` of `panel` has, at each N, the runs of the model that `pick(mean)` names (mean(m): a
    model's stored mean at that N), the other models resampled as they are."""
    def draw(P: dict, results: dict, rng: np.random.Generator) -> Summary:
        t = summary(P, results)
        Ns = t[panel][model][CLAIM_TEST[panel]]["N"]
        return resampled(P, results, rng, {(panel, model): {N: (panel, pick(lambda m, N=N: _mean(t, panel, m, N)))
                                                            for N in Ns}})
    return draw


def regrown(models, growth, panels=("a", "b")):
    """A world in which every run of `models` in `panels` is multiplied at each N by `growth(P, t, m, N)` (t: the
    stored summary table), its mean moved and its spread on the log scale kept; then resampled."""
    def draw(P: dict, results: dict, rng: np.random.Generator) -> Summary:
        t = summary(P, results)
        out = Summary({p: {m: dict(tests) for m, tests in ms.items()} for p, ms in t.items()})
        for p in panels:
            for m in models:
                for test, e in out.get(p, {}).get(m, {}).items():
                    f = np.array([growth(P, t, m, N) for N in e["N"]], float)[:, None, None]
                    out[p][m][test] = _entry(e, e["by_draw"] * f, e["runs"].reshape(e["by_draw"].shape) * f)
        return resampled(P, out, rng)
    return draw


def _slope(t: dict, m: str) -> float:
    """A model's stored log-log slope over panel (a)'s N from SLOPE_FROM, as the slope rows fit it."""
    e = t["a"][m]["authors"]
    keep = [i for i, n in enumerate(e["N"]) if n >= SLOPE_FROM["a"]]
    return loglog_slope([e["N"][i] for i in keep], e["mean"][keep])


def _as_ffn(P: dict, t: dict, m: str, N: int) -> float:
    """The factor that makes a panel (b) model's mean grow from the panel's first N as the FFN's does."""
    n0 = t["b"]["ffn"]["task"]["N"][0]
    return _mean(t, "b", "ffn", N) / _mean(t, "b", "ffn", n0) * _mean(t, "b", m, n0) / _mean(t, "b", m, N)


def _same_protocol(P: dict, results: dict, rng: np.random.Generator) -> Summary:
    """test-protocol without the effect: panel (a)'s runs scored on 1STR prompts as on the authors' test set."""
    t = resampled(P, results, rng)
    return Summary({**t, "a": {m: {**tests, "task": tests["authors"]} for m, tests in t["a"].items()}})


def onto(law: str):
    """1-tr-logN's worlds: the factor that moves the Transformer's mean at N (wide.series: the task's test set) onto
    `law` fitted to those means. (Rescaling by the law over the log law instead would keep the curvature of the
    residuals about the log law, and with it much of the log law's lead.)"""
    def growth(P: dict, t: dict, m: str, N: int) -> float:
        w = wide.series(t, P, "task")
        means = w["runs"].mean(1)
        fit = wide.fit_laws(w["N"], means, () if law == "power" else (law,))[law]["params"]
        return dict(zip(w["N"], wide.law_curve(law, fit, w["N"]) / means)).get(N, 1.0)
    return growth


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
no_gap = donor("b", "ffn", lambda mean: max(("rnn", "transformer"), key=mean))
NO_LEAD = World("no Transformer lead: its runs at each N drawn from the cheaper of the RNN and the FFN", False,
                donor("a", "transformer", lambda mean: min(("rnn", "ffn"), key=mean)))
AS_RNN = World("FFN as RNN: the FFN's runs at each N drawn from the RNN's", False,
               donor("a", "ffn", lambda mean: "rnn"))
flatter = lambda P, t, m, N: N ** (min(_slope(t, "rnn"), _slope(t, "ffn")) - _slope(t, m))
LAWS = (("log2", "(ln N)² growth, polylogarithmic as Theorem 4 allows", "$a + b(\\ln N)^2$", True),
        ("offset-power", "a power with an offset", "$a + cN^{0.2}$", False),
        ("power", "a power of N", "$cN^p$", False),
        ("linear", "a line", "$a + bN$", False))
WORLDS = {
    "1-tr-fewest": (FAITHFUL, NO_LEAD),
    "1-gap-largest-N": (FAITHFUL, NO_LEAD),
    "2-tr-flattest": (FAITHFUL, World("no flatter Transformer: its runs rescaled to the log-log slope of the flatter "
                                      "other model", False, regrown(("transformer",), flatter, ("a",)))),
    "2-ffn-superlinear": (FAITHFUL, World("a linear FFN: its runs rescaled to a log-log slope of 1", False,
                                          regrown(("ffn",), lambda P, t, m, N: N ** (1 - _slope(t, m)), ("a",)))),
    "3-ffn-below-rnn": (FAITHFUL, AS_RNN),
    "3-ffn-above-rnn": (FAITHFUL, AS_RNN),
    "4-rnn-milder": (FAITHFUL, World("no milder growth: the RNN's and the Transformer's runs rescaled to grow as the "
                                     "FFN's does over panel (b)", False,
                                     regrown(("rnn", "transformer"), _as_ffn, ("b",)))),
    "test-protocol": (FAITHFUL, World("no protocol effect: the 1STR test scores the runs as the authors' test does",
                                      False, _same_protocol)),
    "paper-means": (FAITHFUL,
                    World("the FFN's runs ×1.3: a model that is not the authors'", False,
                          regrown(("ffn",), lambda *_: 1.3)),
                    World("every run ×1.15: models that are not the authors'", False,
                          regrown(MODELS, lambda *_: 1.15))),
    "4-ffn-gap": (FAITHFUL, World("no gap: the FFN's runs at each N drawn from the slower of the RNN and the "
                                  "Transformer", False, no_gap)),
    "1-tr-logN": (FAITHFUL, *(World(f"{name}: the Transformer's runs rescaled at each N onto {law} fitted to their "
                                    "means, their spread kept", polylog,
                                    regrown(("transformer",), onto(key), ("a", "wide")))
                              for key, name, law, polylog in LAWS)),
    "5-attn-reads-t": (
        World("faithful: the stored attention runs, resampled by seed", True,
              lambda P, records, rng: resample_seeds(P, _attention(P, records), rng)),
        World("blind to the codes: each run's peaks at t_i drawn with chance 1/N", False, blind)),
}
