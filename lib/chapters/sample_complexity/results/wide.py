"""Theorem 1's headline beyond Figure 1: does the Transformer's sample count grow like log N, or like a power of N?

Figure 1 spans N = 4..12, a factor of 3, over which a + b ln N and c N^p are both straight enough to fit (the
Transformer's log-log slope there is about 0.9 in this book's runs and in the authors'). The wide sweep
(`wide_models` at `N_wide`, panel (a)'s 1STR task and protocol) reaches N = 128 in the paper profile. Three laws, each with two
parameters, are fitted to the mean sample count per N by least squares on the log scale (the seeds' spread is about
proportional to the mean), N >= 4 as in Figure 1's slope claims, task draw 0 (the wide points have one draw):

- log: n = a + b ln N (Theorem 4's "depends on N only through log N");
- power: n = c N^p;
- linear: n = a + b N (a count proportional to N, like the FFN's lower bound).

With two parameters each, Akaike's criterion reduces to the residual sums of squares: dAIC = k ln(RSS_1 / RSS_2) for
k lengths. Its uncertainty is a bootstrap over the seeds of each N (2,000 replicates). The claim `1-tr-logN` that
holds the comparison to a rule is claims/wide.py's. No computation imports this module.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> from lib.chapters.sample_complexity.results import summarize
    >>> w = series(summarize(P, records), P, "task"); w["N"], sorted(fit_laws(w["N"], w["runs"].mean(1)))
    ([4, 6, 8, 10, 12, 16, 32, 64, 128], ['linear', 'log', 'power'])
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sample_complexity.results.bootstrap import LEVEL, N_BOOT
from lib.science.seeds import seed_of

FROM_N = 4                  # as Figure 1's slope claims: N = 2 is cheap for every model
LAWS = ("log", "power", "linear")
LAW_TEXT = {"log": "$a + b\\ln N$", "power": "$cN^p$", "linear": "$a + bN$"}
SAME_GAIN = 1.5             # doubling_note: gains per doubling within this ratio read "about the same"


def series(table: dict, P: dict, test: str = "task", model: str = "transformer") -> dict | None:
    """{"N": [...], "runs": (len(N), R) samples, "censored": per N} of one model over N_a and N_wide (N >= FROM_N), its
    first task draw only (the wide points have no other); None if the run has no wide points of it."""
    wide = table.get("wide", {}).get(model, {}).get(test)
    if wide is None:
        return None
    parts = [table.get("a", {}).get(model, {}).get(test), wide]
    Ns, runs, cens = [], [], []
    for e in parts:
        if e is None:
            continue
        for i, n in enumerate(e["N"]):
            if n >= FROM_N and n not in Ns:
                Ns.append(n)
                runs.append(e["by_draw"][i, 0])       # censored runs at the cap
                cens.append(int(np.isnan(e["runs"][i][: e["by_draw"].shape[2]]).sum()))
    order = np.argsort(Ns)
    return {"N": [Ns[i] for i in order], "runs": np.array([runs[i] for i in order], float),
            "censored": [cens[i] for i in order]}


BASES = {"log": np.log, "linear": lambda N: N, "log2": lambda N: np.log(N) ** 2, "offset-power": lambda N: N ** 0.2}


def fit_laws(N, means, laws=("log", "linear")) -> dict:
    """{law: {"params": (..., 2), "rss": (...,)}} of the power law and of each law a + b g(N) of `laws` (g: BASES)
    fitted to `means` (..., len(N)) on the log scale; the leading axes (bootstrap replicates) are fitted at once. The
    laws a + b g(N): Gauss-Newton from the weighted linear fit, so that every law sits at its own log-scale optimum."""
    x = np.log(np.asarray(N, float))
    y = np.log(np.asarray(means, float))
    out = {}
    xc = x - x.mean()
    p = ((y - y.mean(-1, keepdims=True)) * xc).sum(-1) / (xc * xc).sum()
    c = y.mean(-1) - p * x.mean()
    out["power"] = {"params": np.stack([np.exp(c), p], -1), "rss": ((y - c[..., None] - p[..., None] * x) ** 2).sum(-1)}
    for law in laws:
        g = BASES[law](np.exp(x))
        G = np.stack([np.ones_like(g), g], -1)                       # (k, 2)
        Y = np.exp(y)
        W = 1.0 / Y ** 2                                             # relative errors: the log scale to first order
        A = np.einsum("...k,ki,kj->...ij", W, G, G)
        beta = np.linalg.solve(A, np.einsum("...k,ki,...k->...i", W, G, Y)[..., None])[..., 0]
        for _ in range(20):                                          # Gauss-Newton on sum (y - ln(a + b g))^2
            f = np.clip(beta @ G.T, 1e-9, None)
            r = y - np.log(f)
            J = G[None] / f[..., None] if f.ndim > 1 else G / f[:, None]
            JtJ = np.einsum("...ki,...kj->...ij", J, J)
            step = np.linalg.solve(JtJ + 1e-12 * np.eye(2), np.einsum("...ki,...k->...i", J, r)[..., None])[..., 0]
            beta = beta + step
        f = np.clip(beta @ G.T, 1e-9, None)
        out[law] = {"params": beta, "rss": ((y - np.log(f)) ** 2).sum(-1)}
    return out


def law_curve(law: str, params, N) -> np.ndarray:
    """A fitted law's sample count at N."""
    N = np.asarray(N, float)
    a, b = params
    return a * N ** b if law == "power" else a + b * BASES[law](N)


def replicate_means(w: dict, key: tuple) -> np.ndarray:
    """(N_BOOT, len(N)) bootstrap means: each N's seeds resampled with replacement."""
    runs = w["runs"]
    rng = np.random.default_rng(seed_of("bootstrap", "wide", *key))
    idx = rng.integers(0, runs.shape[1], (N_BOOT, runs.shape[0], runs.shape[1]))
    return runs[np.arange(runs.shape[0])[None, :, None], idx].mean(-1)


def compare(w: dict, key: tuple) -> dict:
    """The three laws on the means and on every bootstrap replicate: the fits, dAIC of each law against the log law
    (positive: the log law fits better), its LEVEL lower bound, and the share of replicates in which the log law
    fits best of the three, and its lead in ΔAIC over the better other law per replicate ("lead_reps": at least 0
    where the log law is best)."""
    N, means = w["N"], w["runs"].mean(1)
    fits = fit_laws(N, means)
    reps = fit_laws(N, replicate_means(w, key))
    k = len(N)
    d_aic = {law: k * np.log(fits[law]["rss"] / fits["log"]["rss"]) for law in LAWS if law != "log"}
    d_reps = {law: k * np.log(reps[law]["rss"] / reps["log"]["rss"]) for law in d_aic}
    best = np.argmin(np.stack([reps[law]["rss"] for law in LAWS]), 0)
    return {"fits": fits, "d_aic": d_aic, "d_aic_lower": {law: float(np.quantile(v, 1 - LEVEL)) for law, v in d_reps.items()},
            "lead_reps": np.minimum(*d_reps.values()),
            "log_best": float(np.mean(best == LAWS.index("log"))),
            "best": LAWS[int(np.argmin([fits[law]["rss"] for law in LAWS]))]}


def local_slopes(w: dict) -> tuple[list[float], np.ndarray]:
    """Log-log slopes between consecutive lengths of the series (at their geometric midpoints)."""
    N = np.asarray(w["N"], float)
    m = np.log(w["runs"].mean(1))
    return list(np.sqrt(N[1:] * N[:-1])), np.diff(m) / np.diff(np.log(N))


def doubling_note(table: dict, P: dict, test: str = "task") -> str:
    """What each doubling of N adds to the Transformer's mean count beyond Figure 1, in words: under a log law every
    doubling adds the same b ln 2; under a power law each adds more than the last. "" without a wide sweep."""
    w = series(table, P, test)
    if w is None:
        return ""
    N, m = w["N"], w["runs"].mean(1)
    pairs = [(a, b) for a in N for b in N if b == 2 * a and a >= max(P["N_a"])]
    if len(pairs) < 2:
        return ""
    gains = [m[N.index(b)] - m[N.index(a)] for a, b in pairs]
    steps = ", ".join(f"{g:+,.0f} from $N$ = {a} to {b}" for g, (a, b) in zip(gains, pairs))
    spread = max(gains) / min(gains) if min(gains) > 0 else float("inf")
    trend = np.polyfit(np.arange(len(gains)), gains, 1)[0] / np.mean(gains) if np.mean(gains) > 0 else 0.0
    how = ("about the same number of samples, as a logarithm of $N$ does (a power of $N$ would add more with each "
           "doubling)" if spread < SAME_GAIN else
           "more samples with each doubling, as a power of $N$ does" if trend > 0 else
           "fewer samples with each doubling: slower than a logarithm of $N$")
    return f"Beyond Figure 1 each doubling of $N$ adds {how} to the Transformer's mean ({steps})."


def overlapping_pairs(P: dict, N: int, draw: int = 0) -> int:
    """Pairs of the position codes of task draw `draw` at N (the codes every run of that point sees, qstr.QSTR) whose
    overlap exceeds 1/2 in absolute value, which Assumption 3 of the theorem rules out."""
    from lib.science.qstr import QSTR

    E = QSTR(N=N, d=P["d"], d_e_rule=P["d_e_rule"], task_seed=P["task_seed"] + draw).E.double()
    G = (E @ E.T).abs().numpy()
    return int((G[np.triu_indices(N, 1)] > 0.5 + 1e-9).sum())


def law_note(table: dict, P: dict, test: str = "task") -> str:
    """What the log law leaves, in words, from the stored means: the residual rms of each law on the log scale, the
    log law's error at the largest N, the gain of every doubling of N and from which N it stays about the same
    (within SAME_GAIN), and how many pairs of each draw's position codes break Assumption 3 (`overlapping_pairs`:
    the authors' protocol draws them so). "" without a wide sweep; with fewer than three lengths, or no doubling
    among them, or gains that never settle, a sentence that says so where the numbers would stand."""
    w = series(table, P, test)
    if w is None:
        return ""
    N, m = w["N"], w["runs"].mean(1)
    if len(N) < 3:
        return (f"The wide sweep has {len(N) or 'no'} length{'' if len(N) == 1 else 's'} from $N = {FROM_N}$ on"
                + (f" ($N$ = {', '.join(map(str, N))})" if N else "") + ": laws of two parameters each fit that "
                "exactly, so this run leaves them no residual to compare; that needs three lengths or more.")
    fits = fit_laws(N, m)
    rms = {law: float(np.sqrt(fits[law]["rss"] / len(N))) for law in LAWS}
    off = law_curve("log", fits["log"]["params"], N[-1]) / m[-1] - 1
    pairs = [(a, 2 * a, m[N.index(2 * a)] - m[N.index(a)]) for a in N if 2 * a in N]
    steady = next((a for a, _, _ in pairs if (lambda g: min(g) > 0 and max(g) / min(g) < SAME_GAIN)(
        [x for b, _, x in pairs if b >= a])), None)
    gains = (" Each doubling of $N$ adds " + ", ".join(f"{x:,.0f} from {a} to {b}" for a, b, x in pairs) + " samples: "
             + (f"about the same (median {np.median([x for a, _, x in pairs if a >= steady]):,.0f}) only from "
                f"$N = {steady}$ on." if steady is not None else
                f"not about the same (within a factor {SAME_GAIN}, and positive) from any $N$ on.")
             if pairs else " No two of its lengths are a doubling apart, so the gain per doubling is not read.")
    draws = {n: P["n_task_draws"] if n in P["N_a"] and "transformer" in P["task_draw_models"] else 1 for n in N}
    counts = {n: [overlapping_pairs(P, n, j) for j in range(draws[n])] for n in N}
    span = lambda c: f"{min(c)}" if min(c) == max(c) else f"{min(c)}–{max(c)}"
    return (f"What the log law leaves: its residual rms on the log scale is {rms['log']:.2f} (the power law's "
            f"{rms['power']:.2f}, the line's {rms['linear']:.2f}), and it {'over' if off > 0 else 'under'}-predicts "
            f"the mean at $N = {N[-1]}$ by {abs(off):.0%}." + gains + " The position "
            f"codes are random signs in $d_e = \\lfloor 5\\ln N\\rfloor$ dimensions, as in the authors' code, and "
            "Assumption 3 asks every pair to overlap by at most 1/2; pairs per task draw that overlap by more: "
            + ", ".join(f"{span(c)} of {n * (n - 1) // 2:,} at $N = {n}$" for n, c in counts.items())
            + ". This is the authors' protocol, kept so that the sweep continues their figure; from the lengths where "
            "tens of pairs break the assumption on, the sweep, like Figure 1, shows the trend on the authors' "
            "protocol, not on codes the theorem covers.")


def law_factors(table: dict, law: str) -> dict:
    """{N: factor} that moves the Transformer's mean at each N of the wide series (task test set) onto `law` fitted to
    those means (1-tr-logN's worlds). (Rescaling by the law over the log law instead would keep the curvature of the
    residuals about the log law, and with it much of the log law's lead.)"""
    w = series(table, {}, "task")
    means = w["runs"].mean(1)
    fit = fit_laws(w["N"], means, () if law == "power" else (law,))[law]["params"]
    return dict(zip(w["N"], law_curve(law, fit, w["N"]) / means))
