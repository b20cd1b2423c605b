"""The ffn_span chapter's claim check: the rule of each row (lib.core.rules), the measures that find from the
collected points what each row is held to (a Measured, which the row's rule decides), the rows (`ROWS`, `claims`)
and the paper's headline claims they test (`HEADLINES`). The worlds of the power table are in claims/power.py.
No computation imports this package, so editing it leaves the stored points current.

    >>> from lib.chapters import stored; P, results = stored("ffn_span")   # the committed paper results
    >>> [(row["id"], row["passed"]) for row in claims(P, results)][:3]
    [('8a-decay-law', True), ('8a-span', True), ('8a-adamw', True)]
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.ffn_span.experiments.ffn import LAW_FLOOR
from lib.chapters.ffn_span.results import ffn_table, readout_table
from lib.core.claims import Headline, Measured, Row, evaluate
from lib.core.rules import All, AtLeast, AtMost, Needs, number
from lib.core.store import result_array
from lib.core.tables import named_grid
from lib.science.stats import standard_error, zscore

VANISHED = 1e-6       # ||W_T||^2 / ||W_0||^2 at or below this: the first layer has decayed to 0 (W = 0 is in the span)

# The rules, one object per row (lib.core.rules): each decides its row and writes the rule's text, so a threshold is
# typed once, with whose it is. A z-score rule's margin is its distance from the bar in SE (the z is in SE already).
MC = "Monte-Carlo error"
LINE = r"$(\text{mean} - (1-n/(Nd)))/\mathrm{SE}$"
RULE_DECAY_LAW = AtMost(r"max relative deviation from $(1-\eta\lambda)^{2t}$", 0.01, why="float rounding")
RULE_SPAN = AtMost(r"max $\rho$ over the runs with $\mathbf W \ne 0$", 1e-6, why="float rounding")
RULE_ADAMW_KEEPS = AtLeast(r"AdamW $\rho_T/\rho_0$", 0.1, where="in every run", spread="sd over {n} runs",
                           why="it stays near where it started")
RULE_ADAMW = All((RULE_ADAMW_KEEPS, AtMost(r"GD $\rho_T$", RULE_SPAN.bound, where="in every run")))
RULE_VISIBLE = AtMost(r"max $\lvert z\rvert$ of $\nu$ against $n/(Nd)$", 4, spread="SE", why=MC)
RULE_ORACLE = AtMost(r"max $\lvert z\rvert$ of the oracle's risk against $1-n/(Nd)$", 4, spread="SE", why=MC)
RULE_READOUT = All((AtMost(r"$\lvert z\rvert$ against the line for $n \ge d$", 4, spread="SE (n ≥ d)"),
                    AtLeast("$z$ everywhere", -4, spread="SE (everywhere)", why=MC)))
RULE_ABOVE_LINE = AtLeast(LINE, -3, where="at every $n < Nd$", spread="SE", why="the test set's noise")
RULE_FLOOR = AtLeast(r"$(\text{mean} - \varepsilon)/\mathrm{SE}$", -4, spread="SE", why=MC,
                     where=r"at every grid $n < (1-\varepsilon)Nd$, for both learners")
FITS = AtLeast(r"SE of AdamW's mean test MSE below 1 (predicting zero)", 3,
               why="the row asks what a learner that fits does")
RULE_ADAMW_LINE = Needs(FITS, AtLeast(LINE, -3, spread="SE", why="the test set's noise"))
RULE_ROTATION_TR = AtLeast("TR rotated − TR plain (test MSE at the largest $n$)", 0.5, spread="SE over {n} pairs")
RULE_ROTATION_FFN = AtMost(r"$\lvert$mean paired difference$\rvert$ pooled over $n$", RULE_ROTATION_TR.bound / 10,
                           spread="SE", why="a tenth of what the rotation must cost the Transformer")


def _runs(results: dict, field: str, plain_only: bool = False) -> np.ndarray:
    """`field` of every GD-trained FFN run (every n and run of every point, or of the plain points), flattened."""
    return np.concatenate([result_array(r, field).ravel() for (N, rot), r in results["ffn"].items()
                           if not (plain_only and rot)])


def in_span(rec: dict) -> np.ndarray:
    """Per (n, run) of one GD point: whether the run ended in the span of its inputs (rho <= RULE_SPAN's bound) or
    with a vanished first layer (||W_T||^2 <= VANISHED ||W_0||^2)."""
    return (result_array(rec, "rho") <= RULE_SPAN.bound) | (result_array(rec, "w_ratio") <= VANISHED)


line = lambda n, Nd: 1 - n / Nd      # Theorem 6's line, the risk of a learner that sees only its span


def _zs(table: dict, target, keep=lambda n, e: True) -> list[tuple]:
    """(z, N, n): each mean of a {N: {"n", "Nd", "mean", "se"}} table against target(n, Nd), in SE, where keep(n, e)."""
    return [(float(zscore(e["mean"][i] - target(n, e["Nd"]), e["se"][i])), N, n)
            for N, e in table.items() for i, n in enumerate(e["n"]) if keep(n, e)]


# ------------------------------------------------------------------------------------------------- measures
# The steps of Theorem 6's proof (App. B): (a) the span property under GD and not under AdamW, the visible
# fraction and the oracle at 1 - n/(Nd), (b) learners of the class on or above that line and the floor it puts
# on the samples to a threshold, AdamW (outside the class) at one n, and the rotation test. Rows about n < Nd are
# left out (None) when the grid has no such n: only those runs store rho and the decay law.
def _decay_law(P: dict, results: dict) -> Measured | None:
    dev = _runs(results, "law_dev")
    dev = dev[np.isfinite(dev)]
    if not len(dev):
        return None
    return Measured(dev.max(), f"max deviation {dev.max():.1e}",
                    paper=r"App. B: every gradient lies in $\operatorname{span}\{\mathbf x^{(i)}\}$",
                    where=f"{len(dev)} runs")


def _span(P: dict, results: dict) -> Measured | None:
    # rho is a ratio: where the whole first layer has decayed to zero (dead ReLUs: no gradient, only the penalty)
    # it stays at its initial value while both of its terms vanish. W = 0 lies in the span, so such a run counts
    # as in the span; the row says how many there were.
    rho, ratio = _runs(results, "rho"), _runs(results, "w_ratio")
    keep = np.isfinite(rho)
    if not keep.any():
        return None
    dead = ratio[keep] <= VANISHED
    live, T = rho[keep][~dead], P["gd_steps"]
    res = _runs(results, "residual", plain_only=True)
    residual = r"$\lVert\nabla_{\mathbf W}\hat{\mathcal L}+\lambda\mathbf W\rVert_F/\lVert\lambda\mathbf W\rVert_F$"
    none = r"no run with a nonzero $\mathbf W$"
    return Measured(live.max() if len(live) else math.nan,     # no live run: NaN, which never passes
                    (rf"max $\rho$ = {live.max():.1e} over {len(live)} runs" if len(live) else none)
                    + (rf", and {dead.sum()} runs whose first layer decayed to 0 ($\mathbf W = 0$ is in the span)"
                       if dead.any() else "")
                    + f"; stationarity residual {residual}: median {np.median(res):.2f}",
                    paper=r"App. B: rows of $\mathbf W$ in $\operatorname{span}\{\mathbf x^{(i)}\}$ at a "
                          "stationary point",
                    where=rf"after {T} GD steps, $(1-\eta\lambda)^{{2T}}$ = "
                          f"{(1 - P['gd_lr'] * P['gd_l2']) ** (2 * T):.1e}")


def off_span(sp: dict, opt: str) -> np.ndarray:
    """rho along training, (recorded steps, runs), of one optimiser of the span point."""
    return np.array(sp[opt]["off"], float) / np.array(sp[opt]["total"], float)


def _adamw(P: dict, results: dict) -> Measured:
    sp = results["span"]["result"]
    gd_rho, ad_rho = off_span(sp, "gd"), off_span(sp, "adamw")
    keep = ad_rho[-1] / ad_rho[0]
    sd = float(keep.std(ddof=1)) if len(keep) > 1 else float("nan")
    return Measured((Measured(keep, spread=sd, n=len(keep)), Measured(gd_rho[-1])),
                    f"AdamW $\\rho_T/\\rho_0$ min {keep.min():.2f}; GD $\\rho_T$ max {gd_rho[-1].max():.1e}",
                    paper="derived (this book): Adam is not rotation-equivariant", where=f"$N={sp['N']}$, $n={sp['n']}$")


def _monte_carlo(which: str, target, paper: str):
    """A Monte-Carlo field of the visibility points (nu, the oracle's risk) against target(n, Nd): the largest |z|
    over the N of the grid and n < Nd."""
    def measure(P: dict, results: dict) -> Measured | None:
        table = {}
        for N, rec in results["visibility"].items():
            v = result_array(rec, which)
            table[N] = {"n": rec["result"]["n"], "Nd": N * P["d"], "mean": v.mean(1), "se": standard_error(v, 1)}
        zs = _zs(table, target)
        if not zs:
            return None
        z, N, n = max(zs, key=lambda r: abs(r[0]))
        return Measured(abs(z), rf"max $\lvert z\rvert$ = {abs(z):.1f} ($N={N}$, $n={n}$)", spread=1.0, paper=paper,
                        where=f"{named_grid('N', sorted(P['N_grid']))}; {len(zs)} points, {P['n_draws']} draws each")
    return measure


def _above_line(P: dict, results: dict) -> Measured | None:
    """The trained FFN on or above the line, n < Nd, averaged over runs (each its own u)."""
    table = ffn_table(P, results)
    zs = _zs(table, line, lambda n, e: n < e["Nd"])
    if not zs:
        return None
    z, N, n = min(zs)
    margin = table[N]["mean"][table[N]["n"].index(n)] - line(n, table[N]["Nd"])
    below = lambda r: np.array(r["result"]["n"]) < r["result"]["Nd"]
    gap = np.concatenate([(result_array(r, "test_mse") - result_array(r, "oracle_mse"))[below(r)].ravel()
                          for (N, rot), r in results["ffn"].items() if not rot])
    return Measured(z, f"nearest the line {margin:+.3f} ({z:+.1f} SE) at N={N}, n={n}; FFN - oracle on the same test "
                    f"prompts, per run: min {gap.min():+.3f}",
                    spread=1.0, paper=r"Thm 6: $\inf_A \sup_{\mathbf u} R \ge 1-n/(Nd)$",
                    where=f"{P['n_seeds']} random $\\mathbf u$, {len(zs)} points")


def _floor(P: dict, results: dict) -> Measured | None:
    """Theorem 6's floor n* >= (1 - eps) N d at the grid's resolution: the lowest z of the read-out's and the GD
    FFN's mean test MSE against eps at the grid's n below the floor (no crossing is interpolated)."""
    eps, readout = P["threshold"], readout_table(P, results)
    zs = [(z, name, N, n) for name, table in (("read-out", readout), ("GD FFN", ffn_table(P, results)))
          for z, N, n in _zs(table, lambda n, Nd: eps, lambda n, e: n < (1 - eps) * e["Nd"])]
    first = []
    for e in readout.values():
        reach = [n for i, n in enumerate(e["n"]) if e["mean"][i] < eps]
        first.append(f"{reach[0] if reach else '> ' + str(e['n'][-1])} (floor {(1 - eps) * e['Nd']:.0f})")
    if not zs:
        return None
    z, name, N, n = min(zs)
    return Measured(z, f"lowest $z$ {z:+.1f} ({name}, $N={N}$, $n={n}$); the read-out first below $\\varepsilon$ "
                    f"at $n$ = {', '.join(first)}", spread=1.0,
                    paper=f"Thm 6: $n^* \\ge (1-\\varepsilon)\\,Nd$ with $\\varepsilon = {eps}$",
                    where=f"{named_grid('N', sorted(P['N_grid']))}; {len(zs)} points")


def _readout(P: dict, results: dict) -> Measured | None:
    """The span-restricted least-squares learner on the line where beta = u (n >= d), not below it anywhere."""
    z_all = _zs(readout_table(P, results), line)
    if not z_all:
        return None
    z_on = [z for z in z_all if z[2] >= P["d"]]
    on = max(z_on, key=lambda r: abs(r[0])) if z_on else None
    low = min(z_all)
    return Measured((Measured(np.array([abs(on[0])] if on else []), spread=1.0 if on else None),  # no n >= d: nothing to hold
                     Measured(low[0], spread=1.0)),
                    (f"n ≥ d: max |z| = {abs(on[0]):.1f} (N={on[1]}, n={on[2]}); " if on else "no n ≥ d; ")
                    + f"lowest z anywhere {low[0]:+.1f} (N={low[1]}, n={low[2]})",
                    paper="Thm 6: $1-n/(Nd)$, reached by the oracle's learner",
                    where=f"{P['n_draws']} draws of (training set, $\\mathbf u$), {len(z_all)} points")


def _adamw_line(P: dict, results: dict) -> Measured:
    """The authors' FFN and optimiser on a fixed n < Nd against the line; its gate, how far below predicting zero
    (test MSE 1) it ends: a learner that does not fit cannot tell whether AdamW beats the line."""
    sp = results["span"]["result"]
    at = line(sp["n"], sp["Nd"])
    am, gm = (np.array(sp[opt]["test_mse"], float) for opt in ("adamw", "gd"))
    mean, se = am.mean(), standard_error(am)
    z, fit = float(zscore(mean - at, se)), float(zscore(1 - mean, se))
    return Measured(z, f"AdamW {mean:.3f} ± {se:.3f} ({z:+.1f} SE from the line {at:.3f}; "
                    f"{fit:+.1f} SE below predicting zero); GD on the same prompts "
                    f"{gm.mean():.3f} ± {standard_error(gm):.3f}", spread=1.0, gate=fit,
                    paper="Thm 6's line; AdamW is outside its class",
                    where=f"$N={sp['N']}$, $n={sp['n']}$, {len(am)} runs (random $\\mathbf u$)")


def _rotation_pairs(P: dict, results: dict):
    """Test MSE (len(n), runs) of the plain and the rotated FFN point at N_rotation."""
    N = P["N_rotation"]
    return result_array(results["ffn"][(N, False)], "test_mse"), result_array(results["ffn"][(N, True)], "test_mse")


def _rotation_ffn(P: dict, results: dict) -> Measured:
    """The paired differences (run r of the rotated point is run r of the plain one, its tokens rotated) measure the
    rotation alone: their mean over every n and run, with its SE from the per-n SEs."""
    N = P["N_rotation"]
    a, b = _rotation_pairs(P, results)
    diff = b - a
    se = standard_error(diff, 1)
    pooled_se = math.sqrt((se ** 2).sum()) / len(se)
    z_pool = float(zscore(diff.mean(1).mean(), pooled_se))
    z_n = zscore(diff.mean(1), se)
    k = int(np.argmax(np.abs(z_n)))
    return Measured(abs(diff.mean()), f"mean difference {diff.mean():+.3f} ± {pooled_se:.3f} (z = {z_pool:+.1f}); "
                    f"largest per n: {z_n[k]:+.1f} SE at n={results['ffn'][(N, False)]['result']['n'][k]} "
                    f"({a.mean(1)[k]:.3f} vs {b.mean(1)[k]:.3f})", spread=pooled_se,
                    paper="derived (App. B): GD is rotation-equivariant",
                    where=f"$N$ = {N}, {len(se)} values of $n$, {a.shape[1]} paired runs each")


def _rotation_transformer(P: dict, results: dict) -> Measured:
    a, b = _rotation_pairs(P, results)
    tr = results["transformer"]["result"]
    ta, tb = np.array(tr["test_mse"], float), np.array(tr["test_mse_rotated"], float)
    gap = tb[-1] - ta[-1]                                  # paired: twin r differs from run r only by the rotation
    se = standard_error(gap) if len(gap) > 1 else float("nan")
    return Measured(gap.mean(), f"TR {ta[-1].mean():.3f} plain, {tb[-1].mean():.3f} rotated (gap "
                    f"{gap.mean():.3f} ± {se:.3f}; the GD-trained FFN: {a.mean(1)[-1]:.3f} plain, "
                    f"{b.mean(1)[-1]:.3f} rotated)", spread=se, n=len(gap),
                    paper="derived (this book): the Transformer collapses",
                    where=f"$N$ = {P['N_rotation']}, $n$ = {tr['n'][-1]}")


# ------------------------------------------------------------------------------------- findings (claims only)
def _explain_adamw(P: dict, results: dict, row: dict) -> str:
    return (f"AdamW's off-span fraction ended at {_adamw(P, results).value[0].value.min():.2g} of its start in its "
            "lowest run: on these data AdamW kept the first layer (nearly) in the span, as GD does.")


def _explain_adamw_line(P: dict, results: dict, row: dict) -> str:
    if row.get("censored"):
        return ("the authors' FFN trained with AdamW on this fixed set of prompts ends worse than predicting zero, so "
                "it learns nothing this row could compare with the line: whether a learner outside the class that "
                "fits beats the line is not decided here (the span-restricted read-out shows the line is reached).")
    return "AdamW's FFN went below the line: a learner outside Theorem 6's class beat the bound at this $n$."


def _explain_rotation_tr(P: dict, results: dict, row: dict) -> str:
    return ("the rotation did not cost the Transformer what the rule asks at the largest $n$: either it did not "
            "learn to read the target token there, or it learned the rotated task as well.")


APP_B = "Appendix B (proof of Theorem 6)"
# The span mechanism, the Monte-Carlo identities of the proof, the bound itself for a learner of the theorem's class
# and GD's rotation equivariance are checks: only a bug (or a 4-sigma draw) fails them. What a run could refute is a
# claim: AdamW leaving the span, AdamW against the line, and the Transformer's collapse under rotation.
ROWS = [
    Row("8a-decay-law", "check", APP_B, "Full-batch GD + L2: the first layer's off-span energy "
        r"$\lVert\mathbf W(\mathbf I-\mathbf V^\top\mathbf V)\rVert_F^2$ follows $(1-\eta\lambda)^{2t}$ at every recorded step "
        f"down to {LAW_FLOOR:g} of its start, in every run with $n < Nd$", RULE_DECAY_LAW, _decay_law),
    Row("8a-span", "check", APP_B, r"The off-span fraction $\rho$ of the first layer is at most "
        f"{number(RULE_SPAN.bound)} in every run with $n < Nd$", RULE_SPAN, _span),
    Row("8a-adamw", "claim", "hypothesis (this book), from App. B",
        r"AdamW on the same data does not keep $\mathbf W$ in the span: its off-span fraction stays within a factor "
        f"{1 / RULE_ADAMW_KEEPS.bound:g} of where it started, while GD's falls to at most {number(RULE_SPAN.bound)}",
        RULE_ADAMW, _adamw, explain=_explain_adamw),
    Row("8-visible", "check", APP_B, r"the visible fraction $\nu(n)=\mathbb E\lVert\mathbf V\mathbf P_t\mathbf u\rVert^2$ "
        "equals $n/(Nd)$ within Monte-Carlo error, at every $N$ and $n < Nd$", RULE_VISIBLE,
        _monte_carlo("nu", lambda n, Nd: n / Nd, r"App. B: $\mathbb E_{\mathbf u,t}\,\nu = n/(Nd)$")),
    Row("8-oracle", "check", "Theorem 6 (App. B)", r"the risk of the oracle $\mathbb E[y \mid \mathbf V\mathbf x, t, \mathbf u]$ "
        "equals $1-n/(Nd)$ within Monte-Carlo error, at every $N$ and $n < Nd$", RULE_ORACLE,
        _monte_carlo("oracle_mse", line, "Thm 6: $1-n/(Nd)$")),
    Row("8b-readout-on-line", "check", "Theorem 6 (App. B)", "A learner of the theorem's class reaches the line: the "
        r"span-restricted least-squares read-out (first layer the projector onto the span, read-out $\langle\beta,"
        r"(\mathbf W\mathbf x)_t\rangle$ fitted with minimum norm) has test MSE $1-n/(Nd)$ where $n\ge d$, and is not "
        "below it anywhere", RULE_READOUT, _readout),
    Row("8b-ffn-above-line", "check", "Theorem 6", r"GD-trained FFN, averaged over random $\mathbf u$: test MSE ≥ $1-n/(Nd)$ "
        "for every $n < Nd$ (its first layer stays in the span, though the runs are not stationary points; at this "
        "scale they end far above the line)", RULE_ABOVE_LINE, _above_line),
    Row("8c-floor", "check", "Theorem 6", r"No learner of the class reaches the test-MSE threshold $\varepsilon$ with "
        r"fewer than $(1-\varepsilon)Nd$ samples: at every grid $n$ below that floor, the span-restricted read-out "
        r"(which sits on the line, so reaches $\varepsilon$ just past the floor) and the GD-trained FFN (which never "
        r"reaches it on this grid) score a mean test MSE of at least $\varepsilon$ within Monte-Carlo error",
        RULE_FLOOR, _floor),
    Row("8b-adamw-line", "claim", "hypothesis (this book), from Theorem 6", "The authors' FFN and optimiser (AdamW, "
        "outside the theorem's class) trained on a fixed $n < Nd$ prompts does not beat the line $1-n/(Nd)$ either; "
        "decided only where it learns (ends below predicting zero)", RULE_ADAMW_LINE, _adamw_line,
        explain=_explain_adamw_line),
    Row("rotation-ffn", "check", APP_B, r"Rotating the tokens by a random $\mathbf Q\in O(Nd)$ leaves the GD-trained FFN's "
        "learning curve unchanged: its test MSE, paired run by run and pooled over $n$, moves by at most "
        f"{number(RULE_ROTATION_FFN.bound)}", RULE_ROTATION_FFN, _rotation_ffn),
    Row("rotation-transformer", "claim", "hypothesis (this book), from App. B", "The same rotation breaks the "
        "Transformer: at the largest $n$ its test MSE on rotated prompts is at least "
        f"{number(RULE_ROTATION_TR.bound)} above its test MSE on plain ones", RULE_ROTATION_TR, _rotation_transformer,
        explain=_explain_rotation_tr),
]

# The paper's headline claims this chapter tests, each with the rows that bear on it (the verdict sentence's phrases).
HEADLINES = (
    Headline("a feedforward network trained by gradient descent stays above the error floor its samples leave it "
             "(Thm 6)", ("8a-decay-law", "8a-span", "8-visible", "8-oracle", "8b-readout-on-line",
                                              "8b-ffn-above-line", "8c-floor")),
    Headline("AdamW, outside the class Theorem 6 covers, learns off that floor", ("8a-adamw", "8b-adamw-line")),
    Headline("rotating the inputs leaves the feedforward network unchanged but breaks the Transformer (App. B)",
             ("rotation-ffn", "rotation-transformer")),
)


def claims(P: dict, results: dict) -> list[dict]:
    """The rows of ROWS this run can measure, evaluated on its points."""
    return evaluate(ROWS, P, results)
