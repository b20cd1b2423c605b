"""The learned mechanism, beyond Figure 1: where a trained Transformer of panel (a) looks. compute.run_attention trains
Figure 1's Transformer at attention_N to the panel's threshold and summarises its attention on fresh 1STR prompts
(compute.attention_stats); this module is what the page shows of it: the claim row `5-attn-reads-t` (a hypothesis of
this book, with its power on simulated attention), the numbers the prose quotes and two figures. Page-side: no
computation imports it.

The theory's construction (Theorem 4, Eq. A.2) retrieves t_i by attention alone: the score of key j at query i is
alpha <w_{t_i}, w_j>, the query's code of t_i against the key's own code, so the attention peaks at j = t_i and, on
the other keys, grows with the overlap of the two codes. A network that ignores the codes (attention by content, or
spread evenly) peaks at t_i at 1/N of the positions.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> [row["id"] for row in claims(P, records)]
    ['5-attn-reads-t']
"""
from __future__ import annotations

import numpy as np
import torch

from lib.chapters.sample_complexity.compute import attention_stats
from lib.core.claims import Row, Verdict, evaluate
from lib.core.rules import Share
from lib.science.qstr import embed_dim_rule, rademacher_codes

# A majority of positions, whatever N: attention blind to the codes peaks at t_i at 1/N of them (1/12 at N = 12).
RULE_PEAK = Share("positions whose attention peaks at $t_i$", at_least=0.5, binomial=True,
                  why="a majority; attention blind to the position codes peaks there at $1/N$ of the positions",
                  where="in every run")


def result(P: dict, records: dict) -> dict | None:
    """The attention point's stored result, or None where this run has none (attention_N 0, or absent)."""
    rec = records.get(("attention", "transformer", P.get("attention_N", 0)))
    return None if rec is None else rec["result"]


def numbers(P: dict, records: dict) -> dict | None:
    """What the prose and the row quote, from the stored point: N, runs, prompts, the mass on t_i and the share of
    positions peaking there (each run's, lowest and highest), the uniform 1/N, and W_Q^T W_K's share in the A.2 block."""
    res = result(P, records)
    if res is None:
        return None
    share, peak = np.array(res["share"]), np.array(res["peak_k"]) / res["peak_n"]
    block = np.array(res["qk_block_share"])
    samples = np.array(res["samples"], float)
    return {"N": P["attention_N"], "runs": len(share), "prompts": len(res["share_per_prompt"][0]),
            "share_lo": share.min(), "share_hi": share.max(), "uniform": 1 / P["attention_N"],
            "peak_lo": peak.min(), "peak_hi": peak.max(), "block_lo": block.min(), "block_hi": block.max(),
            "samples": float(samples.mean()) if np.isfinite(samples).all() else float("nan"), "d_e": res["d_e"]}


def glue_values(P: dict, records: dict, n_sim: int = 200) -> dict:
    """The page's numbers about the attention point, as text ("—" where this run has none), and the row's power:
    its pass rate in each simulated world (`peak_rates`, n_sim points each)."""
    x = numbers(P, records)
    rates = peak_rates(x["N"], n_sim, x["runs"]) if x else {}
    text = {"attn_N": "{N}", "attn_runs": "{runs}", "attn_prompts": "{prompts:,}", "attn_uniform": "{uniform:.3f}",
            "attn_share": "{share_lo:.2f} to {share_hi:.2f}", "attn_peak": "{peak_lo:.0%} to {peak_hi:.0%}",
            "attn_block": "{block_lo:.0%} to {block_hi:.0%}", "attn_d_e": "{d_e}",
            "attn_overlap": "{overlap:.2f}", "attn_samples": "{samples:,.0f}"}
    out = {k: f.format(**x, overlap=x["d_e"] ** -0.5) if x else "—" for k, f in text.items()}
    out["attn_share"] = _one_if_equal(out["attn_share"])     # the prose reads "... is 0.19 to 0.21" or "... is 0.22 in every run"
    return out | {"attn_power": "; ".join(f"{name}: {rate:.0%}" for name, rate in rates.items()) or "—",
                  "attn_n_sim": str(n_sim)}


def _one_if_equal(text: str) -> str:
    """A range over the runs whose ends print alike ("0.22 to 0.22") as its one value, said to hold in every run.

        >>> _one_if_equal("0.22 to 0.22"), _one_if_equal("0.19 to 0.21")
        ('0.22 in every run', '0.19 to 0.21')
    """
    lo, sep, hi = text.partition(" to ")
    return f"{lo} in every run" if sep and lo == hi else text


def _reads_code(records: dict, P: dict) -> Verdict | None:
    res = result(P, records)
    if res is None:
        return None
    x = numbers(P, records)
    k = np.array(res["peak_k"])
    text = (f"peak at $t_i$ at {x['peak_lo']:.1%}–{x['peak_hi']:.1%} of the {res['peak_n']:,} positions of each run "
            f"(blind to the codes: {x['uniform']:.1%}); attention mass on $t_i$ {x['share_lo']:.3f}–{x['share_hi']:.3f} "
            f"(uniform {x['uniform']:.3f}); $W_Q^\\top W_K$: {x['block_lo']:.0%}–{x['block_hi']:.0%} of its squared "
            "norm in the block of Eq. (A.2)")
    return RULE_PEAK.decide(k, np.full_like(k, res["peak_n"]), text,
                            paper="Figure 2: the trained $W_Q^\\top W_K$ has the diagonal block of Eq. (A.2) (at $N = 100$,"
                                  " on simple-1STR); the paper shows no attention weights",
                            where=f"$N = {x['N']}$, {x['runs']} runs at the threshold")


ROW = Row("5-attn-reads-t", "claim", "hypothesis (this book), from Theorem 4's construction (Eq. A.2)",
          "1STR, Figure 1's Transformer at the largest $N$ of panel (a), trained to the threshold: its attention from "
          "position $i$ peaks at $t_i$, the key whose own code $\\omega_j$ is the query's $\\omega_{t_i}$ (it reads the "
          "position code)", RULE_PEAK, _reads_code)


def claims(P: dict, records: dict) -> list[dict]:
    """The attention row, evaluated on the stored attention point; [] where this run has none."""
    return evaluate([ROW], records, P)


# ------------------------------------------------------------------------------------------------------ power
def simulated(N: int, strength: float, noise: float, runs: int = 5, prompts: int = 40, seed: int = 0) -> dict:
    """An attention point's result from simulated attention: scores strength <w_{t_i}, w_j> + noise (N(0, noise^2)
    per query and key) on fresh codes and prompts, softmax over the keys; strength 0 is attention blind to the codes."""
    gen = torch.Generator().manual_seed(seed)
    E = rademacher_codes(N, embed_dim_rule(N, "floor"), gen)
    t = torch.randint(0, N, (prompts, N), generator=gen)
    scores = strength * (E[t] @ E.T) + noise * torch.randn(runs, prompts, N, N, generator=gen)
    return {**attention_stats(torch.softmax(scores, -1), t, E), "qk_block_share": [float("nan")] * runs,
            "samples": [[float("nan")] * 2] * runs, "d_e": E.shape[1]}


# Worlds at N = 12, (strength, noise): one that reads the code about as the paper run does (mass on t_i about 0.23,
# a peak there at about 3/4 of the positions), a weak reader whose attention leans to t_i's code but peaks there at
# about a third of the positions, and attention blind to the codes.
WORLDS = {"reads the code": (1.3, 0.4), "reads it weakly": (0.5, 0.4), "blind to the codes": (0.0, 0.4)}


def peak_rates(N: int = 12, n_sim: int = 200, runs: int = 5, prompts: int = 40) -> dict:
    """Pass rates of the row's own function over n_sim simulated attention points per world (WORLDS), each of `runs`
    runs on `prompts` prompts (the paper run reads 1,000: fewer prompts only widen the simulated spread).

        >>> peak_rates(n_sim=20)
        {'reads the code': 1.0, 'reads it weakly': 0.0, 'blind to the codes': 0.0}
    """
    P = {"attention_N": N}
    rates = {}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)    # tensors of a few thousand numbers: on a busy 2-core CPU two threads ran 30x slower
    try:
        for name, (strength, noise) in WORLDS.items():
            passed = [_reads_code({("attention", "transformer", N): {"result": simulated(N, strength, noise, runs,
                                                                                         prompts, s)}}, P).passed
                      for s in range(n_sim)]
            rates[name] = float(np.mean(passed))
    finally:
        torch.set_num_threads(threads)
    return rates


# ---------------------------------------------------------------------------------------------------- figures
def _none(text: str):
    from lib.core.plotting import figure

    fig, ax = figure(1, 1, width=6.0, height=1.2)
    ax.text(0.5, 0.5, text, ha="center", va="center")
    ax.set_axis_off()
    return fig


def plot_prompt(P: dict, records: dict):
    """Left: one run's attention on one 1STR prompt, query position i against key j, with t_i circled. Right: every
    run's mean attention on t_i and on the other keys by the overlap of the query's code of t_i with the key's own."""
    from lib.core.plotting import COLORS, figure

    res = result(P, records)
    if res is None:
        return _none("This run has no attention point (attention_N = 0).")
    N = P["attention_N"]
    fig, axes = figure(2, 1, width=4.2, height=3.8, squeeze=False)
    ax = axes[0, 0]
    A, t = np.array(res["example"][0]), res["example_t"]
    im = ax.imshow(A, cmap="viridis", vmin=0, vmax=A.max(), aspect="equal")
    ax.scatter(t, range(N), s=90, facecolors="none", edgecolors="red", linewidths=1.5, label="$t_i$")
    ax.set(xticks=range(0, N, 2 if N > 8 else 1), yticks=range(0, N, 2 if N > 8 else 1), xlabel="key position $j$",
           ylabel="query position $i$", title=f"run 1: attention on one prompt ($N={N}$)")
    ax.grid(False)
    fig.colorbar(im, ax=ax, shrink=0.8, label="attention weight")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=9)
    ax = axes[0, 1]
    levels = np.array(res["overlap_levels"])
    for r, (curve, share) in enumerate(zip(np.array(res["by_overlap"], float), res["share"])):
        seen = np.isfinite(curve) & (levels < 1)
        ax.plot(levels[seen], curve[seen], "o-", color=COLORS["transformer"], alpha=0.7, ms=4,
                label="other keys $j$, each run" if r == 0 else None)
        ax.plot([1.0], [share], "*", color="red", ms=11, alpha=0.8, label="the key $t_i$, each run" if r == 0 else None)
    ax.axhline(1 / N, color="0.3", ls="--", lw=1, label=f"uniform $1/N$ = {1 / N:.3f}")
    ax.set(xlabel=r"code overlap $\langle\omega_{t_i}, \omega_j\rangle$", ylabel="mean attention weight",
           title="attention by the overlap of the codes", ylim=(0, None))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=9)
    return fig


def plot_summary(P: dict, records: dict):
    """Left: each run's attention mass on t_i over the prompts (one value per prompt: the mean over its positions),
    against the uniform 1/N. Right: |W_Q^T W_K| of run 1 with the blocks of the encoding (the paper's Figure 2)."""
    import pandas as pd
    import seaborn as sns

    from lib.core.plotting import COLORS, figure

    res = result(P, records)
    if res is None:
        return _none("This run has no attention point (attention_N = 0).")
    N, d, d_e = P["attention_N"], P["d"], res["d_e"]
    fig, axes = figure(2, 1, width=4.2, height=3.6, squeeze=False)
    ax = axes[0, 0]
    peak = np.array(res["peak_k"]) / res["peak_n"]
    frame = pd.DataFrame([(f"{r + 1}\n{peak[r]:.0%}", v) for r, vs in enumerate(res["share_per_prompt"]) for v in vs],
                         columns=["run", "share"])
    sns.boxplot(data=frame, x="run", y="share", color=COLORS["transformer"], width=0.5, fliersize=2, ax=ax)
    ax.axhline(1 / N, color="0.3", ls="--", lw=1, label=f"uniform $1/N$ = {1 / N:.3f}")
    ax.set(xlabel="run (and its positions peaking at $t_i$)", ylabel="attention mass on $t_i$ per prompt",
           title=f"{len(res['share_per_prompt'][0]):,} prompts per run", ylim=(0, None))
    ax.legend(loc="lower right", fontsize=9)      # below the boxes: a reader of code-blind attention looks there
    ax = axes[0, 1]
    qk = np.abs(np.array(res["qk"]))
    im = ax.imshow(qk, cmap="viridis", aspect="equal")
    for x, style in ((d - 0.5, ":"), (d + d_e - 0.5, "--")):
        ax.axvline(x, color="w", ls=style, lw=1)
        ax.axhline(x, color="w", ls=style, lw=1)
    edges = [0, d, d + d_e, d + 2 * d_e]
    ax.set(xticks=[(a + b) / 2 - 0.5 for a, b in zip(edges, edges[1:])], xticklabels=[r"$x_j$", r"$\omega_j$",
           r"$\omega_{t_j}$"], yticks=[(a + b) / 2 - 0.5 for a, b in zip(edges, edges[1:])],
           yticklabels=[r"$x_i$", r"$\omega_i$", r"$\omega_{t_i}$"], xlabel="key features", ylabel="query features",
           title=r"run 1: $|W_Q^\top W_K|$")
    ax.grid(False)
    fig.colorbar(im, ax=ax, shrink=0.8)
    return fig
