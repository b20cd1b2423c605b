"""The worlds the power of the chapter's rules is measured in (lib.core.power): for each row, its own rule on the
stored runs resampled (the faithful world: results.bootstrap.resampled, point by point, task draws then seeds within
each drawn draw, no spread pooled across N), on the stored runs moved to what the paper shows (the authors' means:
the world with the mechanism in which a FAIL would have passed) and on the stored runs changed so that the mechanism
is absent (WORLDS names each). With a few runs per point a resample often repeats one, which narrows the spread a row
estimates from them (paper-means' sigma).

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> from lib.chapters.sample_complexity.claims import ROWS
    >>> from lib.core.power import power_table
    >>> t = power_table(ROWS, {"4-ffn-gap": WORLDS["4-ffn-gap"]}, P, records, 10)
    >>> [(x["world"][:12], x["pass"] > 0.5) for x in t]
    [('faithful: th', True), ("the authors'", True), ('no gap: the ', False)]
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sample_complexity.results import MODELS, Summary, summary
from lib.chapters.sample_complexity.results.attention import point
from lib.chapters.sample_complexity.results.authors import CLAIM_TEST, paper_means
from lib.chapters.sample_complexity.results.bootstrap import resampled, rescaled
from lib.chapters.sample_complexity.results.figure1 import mean_at, stored_slope
from lib.chapters.sample_complexity.results.wide import law_factors
from lib.core.power import World, resample_seeds

__all__ = ["WORLDS", "blind", "donor", "moved", "resampled"]


def donor(panel: str, model: str, pick):
    """A world in which `model` of `panel` has, at each N, the runs of the model that `pick(mean)` names (mean(m): a
    model's stored mean at that N), the other models resampled as they are."""
    def draw(P: dict, results: dict, rng: np.random.Generator) -> Summary:
        t = summary(P, results)
        return resampled(P, t, rng, {(panel, model): {N: (panel, pick(lambda m, N=N: mean_at(t, panel, m, N)))
                                                      for N in t[panel][model][CLAIM_TEST[panel]]["N"]}})
    return draw


def moved(factor, models=MODELS, panels=("a", "b")):
    """A world in which every run of `models` in `panels` is multiplied at each N by factor(t, panel, model, N) (t:
    the stored summary table), its mean moved and its spread on the log scale kept; then resampled."""
    def draw(P: dict, results: dict, rng: np.random.Generator) -> Summary:
        t = summary(P, results)
        return resampled(P, rescaled(t, {(p, m): {N: factor(t, p, m, N) for N in next(iter(t[p][m].values()))["N"]}
                                         for p in panels if p in t for m in models if m in t[p]}), rng)
    return draw


def _as_ffn(t: dict, p: str, m: str, N: int) -> float:
    """The factor that makes a panel (b) model's mean grow from the panel's first N as the FFN's does."""
    n0 = t["b"]["ffn"]["task"]["N"][0]
    return mean_at(t, "b", "ffn", N) / mean_at(t, "b", "ffn", n0) * mean_at(t, "b", m, n0) / mean_at(t, "b", m, N)


def _authors(t: dict, p: str, m: str, N: int) -> float:
    """The factor that moves a model's mean at N onto the authors' re-run mean (1 where they have none)."""
    ref = paper_means(p)[m]
    return ref[N] / mean_at(t, p, m, N) if N in ref else 1.0


def _same_protocol(P: dict, results: dict, rng: np.random.Generator) -> Summary:
    """test-protocol without the effect: panel (a)'s runs scored on 1STR prompts as on the authors' test set."""
    t = resampled(P, results, rng)
    return Summary({**t, "a": {m: {**tests, "task": tests["authors"]} for m, tests in t["a"].items()}})


def blind(P: dict, records: dict, rng: np.random.Generator) -> dict:
    """The attention point's runs resampled, with each run's peaks drawn as attention blind to the codes places them:
    at t_i with chance 1/N at each position (what the row's rule holds a majority against)."""
    out = resample_seeds(P, point(P, records), rng)
    for rec in out.values():
        res = rec["result"]
        res["peak_k"] = rng.binomial(res["peak_n"], 1 / P["attention_N"], len(res["peak_k"])).tolist()
    return out


FAITHFUL = World("faithful: the stored runs, resampled by task draw and by seed within each point", True, resampled)
AUTHORS = World("the authors' means: every model's runs moved at each N onto the authors' re-run mean, their spread "
                "kept", True, moved(_authors))
NO_LEAD = World("no Transformer lead: its runs at each N drawn from the cheaper of the RNN and the FFN", False,
                donor("a", "transformer", lambda mean: min(("rnn", "ffn"), key=mean)))
AS_RNN = World("FFN as RNN: the FFN's runs at each N drawn from the RNN's", False, donor("a", "ffn", lambda mean: "rnn"))


def _fig1(*without: World) -> tuple:
    """A Figure 1 row's worlds: faithful, the authors' means, and those without the mechanism."""
    return (FAITHFUL, AUTHORS, *without)


LAWS = (("log", "one power of ln N, the law the row tests", "$a + b\\ln N$", True),
        ("log2", "(ln N)² growth, which Theorem 4 allows but this row does not test", "$a + b(\\ln N)^2$", True),
        ("offset-power", "a power with an offset", "$a + cN^{0.2}$", False),
        ("power", "a power of N", "$cN^p$", False),
        ("linear", "a line", "$a + bN$", False))
WORLDS = {
    "1-tr-fewest": _fig1(NO_LEAD),
    "1-gap-largest-N": _fig1(NO_LEAD),
    "2-tr-flattest": _fig1(World("no flatter Transformer: its runs rescaled to the log-log slope of the flatter other "
                                "model", False, moved(lambda t, p, m, N: N ** (min(stored_slope(t, "rnn"), stored_slope(
                                    t, "ffn")) - stored_slope(t, m)), ("transformer",), ("a",)))),
    "2-ffn-superlinear": _fig1(World("a linear FFN: its runs rescaled to a log-log slope of 1", False,
                                    moved(lambda t, p, m, N: N ** (1 - stored_slope(t, m)), ("ffn",), ("a",)))),
    "3-ffn-below-rnn": _fig1(AS_RNN),
    "3-ffn-above-rnn": _fig1(AS_RNN),
    "4-ffn-gap": _fig1(World("no gap: the FFN's runs at each N drawn from the slower of the RNN and the Transformer",
                            False, donor("b", "ffn", lambda mean: max(("rnn", "transformer"), key=mean)))),
    "4-rnn-milder": _fig1(World("no milder growth: the RNN's and the Transformer's runs rescaled to grow as the FFN's "
                               "does over panel (b)", False, moved(_as_ffn, ("rnn", "transformer"), ("b",)))),
    "test-protocol": (FAITHFUL, World("no protocol effect: the 1STR test scores the runs as the authors' test does",
                                      False, _same_protocol)),
    "paper-means": _fig1(World("the FFN's runs ×1.3: a model that is not the authors'", False,
                              moved(lambda *_: 1.3, ("ffn",))),
                        World("every run ×1.15: models that are not the authors'", False, moved(lambda *_: 1.15))),
    "1-tr-logN": (FAITHFUL, *(World(f"{name}: the Transformer's runs rescaled at each N onto {law} fitted to their "
                                    "means, their spread kept", polylog,
                                    moved(lambda t, p, m, N, key=key: law_factors(t, key).get(N, 1.0), ("transformer",),
                                          ("a", "wide")))
                              for key, name, law, polylog in LAWS)),
    "5-attn-reads-t": (
        World("faithful: the stored attention runs, resampled by seed", True,
              lambda P, records, rng: resample_seeds(P, point(P, records), rng)),
        World("blind to the codes: each run's peaks at t_i drawn with chance 1/N", False, blind)),
}
