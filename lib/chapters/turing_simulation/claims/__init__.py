"""The turing_simulation claim check (`ROWS`; `HEADLINES`, which the verdict sentence reads out): what Theorem 4.1,
Theorem D.6 and Claim 3.5 of Wei, Chen, Ma imply for the explicit construction, from this run's points (results.py).

A `check` holds by construction (integer weights, bit activations, integer scores): only a bug breaks it (12-bound
too: a formula of the sizes and of the radius 7-polylog-random tests). A `claim` fails where its mechanism is absent
(claims/power.py declares those worlds). Each threshold is typed once, in its rule (RULE_*), with whose it is:
"paper", "book's calibration" (with its reason) or "exact"; rows that read the random directions (the robustness
points' seeds) give their margin in units of the spread over the directions.

    >>> from lib.chapters import stored; P, results = stored("turing_simulation")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]   # a dict per row
    (20, [('1-exact', True), ('2-lookup', True)])
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lib.chapters.turing_simulation.results import bound, exact_rows, robust_arrays, size_rows, softmax_arrays
from lib.core.claims import Headline, Measured, Row, Scope, evaluate
from lib.core.rules import BOOK, EXACT, PAPER, All, AtLeast, AtMost, Holds, Needs, Within, number
from lib.science import turing as tu
from lib.science.stats import loglog_slope

CAL = "this book's calibration run, not the paper's"   # an independent implementation made for this book
FLOOR = 1e-15         # book's: a relative perturbation below this leaves weights of size 1 to 3 unchanged in float64
                      # (eps = 2.2e-16), so a radius at or below it is censored (the unperturbed network already fails)
DIRECTIONS = "sd over {n} directions"   # the margin's unit where a row reads the random directions
TOY_SLOPE = Scope("d", lo=4)            # the depths over which the toy margin's log-log slope is fitted

# The rules, one object per row (lib.core.rules): each threshold typed once, its text generated from it.
RULE_EXACT = All((AtMost("teacher-forced and rollout mismatches", 0, by=EXACT),
                  Holds("outputs bit-equal to the invariant (C.2)", why="as the proof has it")))
RULE_LOOKUP = All((AtMost("lookup errors", 0, by=EXACT),
                   AtLeast("writes to the most overwritten cell", 10, why="deep histories")))
RULE_BINARY = AtMost("non-binary values", 0, by=EXACT)
RULE_GAP = All((AtLeast("min score gap", 1, by=PAPER, why="integer scores", tol=1e-9),
                AtMost("value spread over ties", 1e-9, strict=True, why="float64 rounding")))
RULE_CLS = All((AtMost("errors", 0, by=EXACT), AtLeast("runs that halt", 1, by=EXACT)))
RULE_BUSY_BEAVER = Holds("steps and ones equal the known values, both read-outs")
RULE_DEPTH_WIDTH = Holds(r"$d = P + 4$ and $w = K + 4\lvert A\rvert + 4P + 5$ ($P$ bits per position)")
RULE_PARAMS = AtMost(r"$p(T_{max})/p(T_{min})$", 100, strict=True,
                     why=r"polylogarithmic growth, far below $T_{max}/T_{min}$")
RULE_NORMS = All((AtLeast(r"quadratic fit's $R^2$", 0.99, strict=True),
                  AtLeast("its leading coefficient", 0.0, by=EXACT),
                  Holds(r"$\lVert\theta\rVert_\infty = 2P - 1$ at every $T$")))
RULE_FLAT_STRUCTURED = AtLeast("$t^*$", Fraction(1, 3), by=PAPER, where="at every $T$",
                               why="the round restores $1 - t$ to 1 while $t$ is at most 1/3")
RULE_POLYLOG = AtMost(r"$p$ of $r \propto (\ln T)^{-p}$", 3, spread=DIRECTIONS,
                      why=r"a low degree; $e^{-cT}$ with $c = 0.1$ over $T$ = 16 to 128 fits $p$ of about 20")
RULE_COLLAPSE = Needs(AtLeast("measured radii", 5, why="a line through 3 points reaches the $R^2$ bar in about one run "
                              "in five of radii with no trend in $T$"),
                      All((Holds("censored radii only at larger $T$ than every measured one", by=BOOK,
                                 why="a collapse reaches the floor last"),
                           AtMost(r"slope of $\ln t^*$ against $T$", 0.0, strict=True, why="the collapse in depth of "
                                  "Claim 3.5, unrolled over $T$ steps"),
                           AtLeast("its $R^2$", 0.9, strict=True, why="an exponential collapse, not just a fall"))))
RULE_RANDOM_NOCORR = AtMost("the smallest corrupting radius over the directions", 1e-4, strict=True, log=True,
                            where="at every $T$", spread=r"sd of $\log_{10} r$ over {n} directions",
                            why="the corrected radius is about 1 to 2; above the float64 floor")
RULE_BETA = All((AtLeast(r"$\ln(3(T+1)) - \beta^*$", 0.0, where="at every $T$",
                         why=r"$T+1$ competitors, each $e^{-\beta}$, below the round's 1/3"),
                 Within(r"slope of $\beta^*$ against $\ln T$", 0.5, 1.5)))
RULE_BETA_NOCORR = AtLeast(r"$\beta^*$(no correction) $-$ $\beta^*$(correction)", 0.0, strict=True,
                           where="at every $T$", why="no threshold: larger by any amount")
RULE_LOW_PRECISION = AtMost("runs not bit-exact", 0, by=EXACT, why="integer weights, bit activations")
RULE_SCALAR_CODES = AtMost(r"the first $T$ at which $i/T$ collides", 1024, why="bfloat16 has 8 significant bits")
RULE_TOY_PRODUCT = All((AtMost("max relative error to the formula", 0.01, strict=True),
                        Within("log-log slope", -0.6, -0.4, open=True, why="around the formula's -1/2")))
RULE_TOY_ROUNDED = All((AtLeast(r"$\rho$", Fraction(1, 3), by=PAPER, where="at every depth"),
                        AtLeast(r"$\rho(d_{max}) - \rho(1)$", -0.1, why="no decay")))
RULE_BOUND = AtMost(r"slope of $\log\hat n$ against $\log\log T$", 6, spread=DIRECTIONS,
                    why=r"$\alpha^2\log p$ alone gives about 3")


def _spread(per_seed) -> dict:
    """Sample sd of the finite per-direction values and their count, as Measured takes them; {} (no margin) if < 2."""
    v = np.asarray(per_seed, float)
    v = v[np.isfinite(v)]
    if len(v) < 2 or not np.std(v, ddof=1) > 0:
        return {}
    return {"spread": float(np.std(v, ddof=1)), "n": len(v)}


def _at_T(T, values, fmt: str = ".1e") -> str:
    """'$T$ = 16: 1.6e-04, ...', a value at or below FLOOR shown as the censored bound it is."""
    return ", ".join(f"$T$ = {t}: {v:{fmt}}" if v > FLOOR else f"$T$ = {t}: ≤ {FLOOR:.0e} (censored)"
                     for t, v in zip(T, values))


# ------------------------------------------------------------------------------------------- exact (checks)
def _over_runs(text: str, paper: str, *stats):
    """A measure of each (aggregate, key) pair in `stats`, e.g. (sum, "lookup_bad"), over every exact run."""
    def measure(P, results):
        rows = exact_rows(results)
        vals = [agg(r[key] for r in rows) for agg, key in stats]
        value = tuple(Measured(v) for v in vals) if len(vals) > 1 else vals[0]
        return Measured(value, text.format(*vals), paper=paper)
    return measure


def _exact(P, results):
    rows = exact_rows(results)
    tf, ro, steps, runs = (sum(r[k] for r in rows) for k in ("tf_mismatch", "ro_mismatch", "steps", "inputs"))
    n_rand = max((r["runs"] for r in rows if r["name"] == "random"), default=0)
    Ts = sorted({r["T"] for r in rows})
    bit = all(r["tf_bit_exact"] and r["ro_bit_exact"] for r in rows)
    return Measured((Measured(tf + ro), Measured(bit)), f"{tf} teacher-forced and {ro} rollout mismatches over "
                    f"{steps:,} steps of {runs} runs; bit-equal: {bit}", paper=f"0 ({CAL})",
                    where=f"{len(P['machines'])} catalogue machines and {n_rand} random machines, "
                          f"$T$ = {Ts[0]} to {Ts[-1]}")


_lookup = _over_runs("{0} errors; most overwritten cell: {1} writes", "exact (Claims C.4-C.5)",
                     (sum, "lookup_bad"), (max, "max_overwrites"))
_binary = _over_runs("{0} non-binary values", "all in {0, 1}", (sum, "nonbinary"))
_gap = _over_runs("min gap {0:.6g}, max spread {1:.1e}", "gap 1 (integer scores)", (min, "gap"), (max, "tie_spread"))
_cls = _over_runs("{0} errors over {1} halting runs", "±1 on accept/reject", (sum, "cls_bad"), (sum, "halted"))


def _busy_beaver(P, results):
    bb = {}
    for (name, T), rec in results["exact"].items():
        if name in tu.BB_KNOWN and T > tu.BB_KNOWN[name][0]:
            m = rec["result"]["machines"][name]
            bb[name] = (m["steps_interp"][0], m["ones_interp"][0], m["steps_tf"][0], m["ones_tf"][0])
    ok = bool(bb) and all(v[:2] == tu.BB_KNOWN[n] and v[2:] == tu.BB_KNOWN[n] for n, v in bb.items())
    return Measured(ok, "; ".join(f"{n}: {v[0]}/{v[1]} and {v[2]}/{v[3]}" for n, v in sorted(bb.items()))
                    or "no T above the halting step",
                    paper=", ".join(f"{n}: {s}/{o}" for n, (s, o) in tu.BB_KNOWN.items()))


# ------------------------------------------------------------------------------------- sizes (checks)
def _depth_width(P, results):
    sr = size_rows(results)
    k, A = results["sizes"]["result"]["k"], results["sizes"]["result"]["A"]
    ok = all(r["d"] == r["P"] + 4 and r["w"] == (k + 1) + 4 * A + 4 * r["P"] + 5 for r in sr)
    return Measured(ok, f"$d$ {sr[0]['d']} → {sr[-1]['d']}, $w$ {sr[0]['w']} → {sr[-1]['w']}; formulas "
                    f"hold: {ok}", paper=r"$d \sim \log T$, $w \gtrsim k\lvert A\rvert + \log T$",
                    where=f"{P['size_machine']}, $T = 2^{{{int(math.log2(sr[0]['T']))}}}$ to "
                          f"$2^{{{int(math.log2(sr[-1]['T']))}}}$")


def _params(P, results):
    sr = size_rows(results)
    ratio = sr[-1]["p"] / sr[0]["p"]
    return Measured(ratio, f"$p$ {sr[0]['p']:,} → {sr[-1]['p']:,} (×{ratio:.1f}; $T_{{max}}/T_{{min}}$ = "
                    f"{sr[-1]['T'] // sr[0]['T']:,})", paper="$p = O(dw^2)$")


def _norms(P, results):
    sr = size_rows(results)
    Pb, l1 = np.array([r["P"] for r in sr], float), np.array([r["l1"] for r in sr])
    c2 = np.polyfit(Pb, l1, 2)
    r2 = 1 - float(((l1 - np.polyval(c2, Pb)) ** 2).sum()) / float(((l1 - l1.mean()) ** 2).sum())
    linf_ok = all(r["linf"] == 2 * r["P"] - 1 for r in sr)
    return Measured((Measured(r2), Measured(c2[0]), Measured(linf_ok)),
                    f"$\\lVert\\theta\\rVert_1$ = {c2[0]:.1f} $P^2$ + {c2[1]:.0f} $P$ + "
                    f"{c2[2]:.0f} ($R^2$ = {r2:.4f}); $\\lVert\\theta\\rVert_\\infty = 2P - 1$: {linf_ok}",
                    paper=r"$\alpha = O(k\lvert A\rvert + \log T\,(k + \lvert A\rvert + \log T))$")


# ------------------------------------------------------------------------------------------- robustness
def _flat_structured(P, results):
    a = robust_arrays(results, True)
    return Measured(a["t"], _at_T(a["T"], a["t"], ".3f"), paper=f"about 0.37 ({CAL})")


def _polylog_random(P, results):
    """p of r = c (ln T)^-p (Theorem 4.1's margin) fitted to the median radii, and per direction for the spread; an
    uncorrupted direction (inf) enters the median as the largest value and leaves its per-direction fit."""
    a = robust_arrays(results, True)
    lnT, med = np.log(a["T"].astype(float)), np.median(a["r"], axis=1)
    fin = np.isfinite(med) & (med > 0)
    p = -loglog_slope(lnT, med)   # over the finite positive medians, as `fin` selects for the text
    per = [-loglog_slope(lnT, r) for r in a["r"].T if np.all(np.isfinite(r))]
    cens = int(np.isinf(a["r"]).sum())
    text = (f"{', '.join(f'{m:.3g}' for m in med)} (max/min {float(med[fin].max() / med[fin].min()):.2f}); "
            f"fitted $p$ = {p:.2f}" if fin.sum() >= 2 else "fewer than two horizons with a finite median radius")
    text += f"; {cens} radii censored above (nothing up to 10 corrupts)" if cens else ""
    return Measured(p, text, **_spread(per), where=f"{P['n_directions']} directions")


def _collapse(P, results):
    """ln t* against T without correction, fitted to the radii above FLOOR; a censored one (<= FLOOR) must lie at
    larger T than every measured one, and the gate is inf where it does not, so the order part fails regardless."""
    a = robust_arrays(results, False)
    ok = np.isfinite(a["t"]) & (a["t"] > FLOOR)
    slope = r2 = float("nan")
    if ok.sum() >= 2:
        x, y = a["T"][ok].astype(float), np.log(a["t"][ok])
        slope, r2 = float(np.polyfit(x, y, 1)[0]), float(np.corrcoef(x, y)[0, 1] ** 2)
    cens = a["T"][~ok & (a["t"] <= FLOOR)]
    after = bool(not len(cens) or (ok.any() and cens.min() > a["T"][ok].max()))
    text = _at_T(a["T"], a["t"]) + f"; slope {slope:.3f}, $R^2$ {r2:.3f} over {int(ok.sum())} measured radii"
    return Measured((Measured(after), Measured(slope), Measured(r2)), text,
                    gate=int(ok.sum()) if after else math.inf, paper=f"slope about -0.35 per step ({CAL})")


def _random_nocorr(P, results):
    """The smallest radius over the directions at each T bounds the uncorrected margin (more can only tighten it);
    the rule's margin is the worst T's, over the spread of log10 r across its directions."""
    a = robust_arrays(results, False)
    r0 = np.min(a["r"], axis=1)
    worst = int(np.argmax(r0))
    spread = _spread(np.log10(np.clip(a["r"][worst], FLOOR, None)))
    text = _at_T(a["T"], r0) + (f"; worst at $T$ = {a['T'][worst]}" if spread else "")
    return Measured(np.maximum(r0, FLOOR), text, **spread, paper=f"< {number(RULE_RANDOM_NOCORR.bound)} ({CAL})")


# ------------------------------------------------------------------------------------------------ softmax
def _beta(P, results):
    T, b = softmax_arrays(results, True)
    fin = np.isfinite(b)
    slope = np.polyfit(np.log(T[fin]), b[fin], 1)[0] if fin.sum() >= 2 else float("nan")
    room = np.log(3 * (T + 1)) - b
    return Measured((Measured(room), Measured(slope)), _at_T(T, b, ".2f") + f"; slope {slope:.2f}; smallest room "
                    f"below $\\ln(3(T+1))$: {float(room.min()):.2f}",
                    paper=r"$\beta^* \approx \ln T - 0.7$" + f" ({CAL})")


def _beta_nocorr(P, results):
    """beta* without correction against the corrected run's (the paper has no softmax experiment)."""
    (_, bc), (Tn, bn) = softmax_arrays(results, True), softmax_arrays(results, False)
    at = lambda b: [f"{v:.1f}" if np.isfinite(v) else "none" for v in b]
    top = max(rec["spec"]["beta_max"] for rec in results["softmax"].values())
    return Measured(bn - bc, ", ".join(f"$T$ = {T}: {b}" for T, b in zip(Tn, at(bn))),
                    paper=f"none from the paper (it has no softmax experiment); this run's $\\beta^*$ with correction: "
                          f"{', '.join(at(bc))}", where="" if np.isfinite(bn).all() else
                    f"none: no $\\beta$ up to {number(top)} gives an exact trace, a censored bound")


# -------------------------------------------------------------------------------------------- precision
def _low_precision(P, results):
    runs = results["precision"]["result"]["runs"]
    bad = [k for k, v in runs.items() if not (v["bit_exact"] and v["mismatch"] == 0)]
    return Measured(len(bad), f"{len(runs) - len(bad)} of {len(runs)} runs bit-exact",
                    paper=f"exact ({CAL}: float16 at $T$ = 512)", where=f"$T$ = {P['precision_T']}")


def _scalar_codes(P, results):
    bf = results["precision"]["result"]["collisions"]["bfloat16"]
    first = lambda key: next((r["T"] for r in bf if r[key] < r["T"]), None)
    t_iT, t_inv = first("i/T"), first("1/i")
    return Measured(math.inf if t_iT is None else t_iT,
                    f"$i/T$: first collision at $T$ = {t_iT}; $1/i$: at $T$ = {t_inv}",
                    paper=f"384 of 512 distinct at $T$ = 512 ({CAL})")


# -------------------------------------------------------------------------------------------------- toy
def _toy(results):
    return {k: np.array(results["toy"]["result"][k], float) for k in ("depths", "numeric", "formula", "rounded")}


def _toy_product(P, results):
    t = _toy(results)
    err = float(np.max(np.abs(t["numeric"] / t["formula"] - 1)))
    sel = np.isin(t["depths"], TOY_SLOPE(t["depths"]))
    slope = loglog_slope(t["depths"][sel], t["numeric"][sel])
    return Measured((Measured(err), Measured(slope)), f"max relative error {err:.1e}; slope {slope:.3f}",
                    paper=r"$\rho \le 3/\sqrt d$ (paper)")


def _toy_rounded(P, results):
    t = _toy(results)
    rnd = t["rounded"]
    return Measured((Measured(rnd), Measured(rnd[-1] - rnd[0])),
                    f"$\\rho(1)$ = {rnd[0]:.4f}, min over $d$ {rnd.min():.4f}, "
                    f"$\\rho({int(t['depths'][-1])})$ = {rnd[-1]:.4f}", paper=r"$\rho \ge 1/3$ (paper)")


# ------------------------------------------------------------------------------------------------ bound
def _bound(P, results):
    """The slope of log n_hat against log log T; its spread from n_hat per direction j (gamma_j = min(structured,
    r_j)). The VC proxy w T is shown, not tested: its growth follows from its formula."""
    b, a = bound(results), robust_arrays(results, True)
    slope = loglog_slope(np.log2(b["T"]), b["n_hat"])   # over the finite n_hat; NaN with fewer than two
    per = [loglog_slope(np.log2(a["T"]), a["alpha"] ** 2 * np.log(a["p"]) / np.fmin(a["l2"], r) ** 2) for r in a["r"].T]
    return Measured(slope, f"$\\hat n$ {b['n_hat'][0]:.2e} → {b['n_hat'][-1]:.2e}, slope {slope:.2f} in "
                    f"$\\log\\log T$ (VC proxy $wT$: slope {loglog_slope(b['T'], b['vc']):.2f} in $\\log T$, not "
                    "tested)", **_spread(per), paper=r"$\mathrm{poly}(k, \lvert A\rvert, \log T)$")


# ------------------------------------------------------------------------------------------------ rows
def _says(text: str):
    """An `explain` with one finding whatever the numbers (the row's text shows them)."""
    return lambda P, results, row: text


def _collapse_says(P, results, row) -> str:
    if row.get("censored"):
        return ("too few uncorrected radii lie above the float64 floor to fit a line: the profile needs more horizons "
                "between the doublings, before the radius reaches the floor")
    return "the uncorrected structured radius does not fall exponentially in $T$ on this run"


COLLAPSE_SOURCE = "hypothesis (this book), motivated by Claim 3.5 (the toy's margin in depth)"
ROWS = [
    Row("1-exact", "check", "Theorem 4.1", "decoded $(z, a, l)$ equals the interpreter's at every step", RULE_EXACT,
        _exact),
    Row("2-lookup", "check", "Claims C.4-C.5", r"after the search, `scr3` $= \mathrm{Bin}(i')$ (last write to the new "
        r"head cell), `f1` $= \mathbb 1(i' \text{ exists})$, `f2` $= \mathbb 1(\text{cell in the input})$, against the "
        "interpreter's last-write table", RULE_LOOKUP, _lookup),
    Row("3-binary", "check", "Theorem 4.1 (App. C)", "every activation of every layer at every step is exactly 0 or 1",
        RULE_BINARY, _binary),
    Row("3-gap", "check", "Claims C.4-C.6", "hard-max attention: max score minus the best non-tied score, over all "
        "attention calls; tied maximisers carry identical values", RULE_GAP, _gap),
    Row("1-cls", "check", "Theorem 4.1", r"$\theta_{cls} \cdot o_T = 2G(x) - 1$ on every run that halts within $T$",
        RULE_CLS, _cls),
    Row("6-busy-beaver", "check", "Theorem 4.1", "busy beavers: steps and ones from the interpreter and read back from "
        "the transformer (halting step of the decoded state; the tape rebuilt from its writes)", RULE_BUSY_BEAVER,
        _busy_beaver),
    Row("4-depth-width", "check", "Theorem 4.1", "depth and width of the construction", RULE_DEPTH_WIDTH, _depth_width),
    Row("4-params", "check", "Theorem 4.1", "dense parameter count $p$ grows polylogarithmically in $T$", RULE_PARAMS,
        _params),
    Row("5-norms", "check", "Theorem 4.1", r"$\lVert\theta\rVert_1$ is quadratic in $P = \log T$; "
        r"$\lVert\theta\rVert_\infty = 2P - 1$ (the fetch null key)", RULE_NORMS, _norms),
    Row("7-flat-structured", "check", "Theorem D.6, Proposition 3.4", "with correction: the smallest corrupting scale "
        "$t^*$ of the transition layer's output, at every $T$ (it follows from the round)", RULE_FLAT_STRUCTURED,
        _flat_structured),
    Row("7-polylog-random", "claim", "Theorem 4.1 (margin at least $1/\\mathrm{poly}(k, \\lvert A\\rvert, \\log T)$)",
        r"with correction: the smallest corrupting $\lVert\delta\rVert_2$ along random unit directions (median) "
        r"falls at most like a low power of $\log T$", RULE_POLYLOG, _polylog_random,
        explain=_says("the corrected radius falls faster than a low power of $\\log T$ over this run's $T$, which "
                      "Theorem 4.1's margin does not allow")),
    Row("7-collapse", "claim", COLLAPSE_SOURCE, r"without correction: $\ln t^*$ against $T$ (radii at or below the "
        f"float64 floor {number(FLOOR)} are censored bounds)", RULE_COLLAPSE, _collapse, explain=_collapse_says),
    Row("7-random-nocorr", "claim", COLLAPSE_SOURCE, r"without correction: the all-layer margin along random "
        r"directions, bounded by the smallest corrupting $\lVert\delta\rVert_2$ over the directions",
        RULE_RANDOM_NOCORR, _random_nocorr,
        explain=_says("at some $T$ no random direction corrupts the uncorrected network below the bound: it has not "
                      "collapsed there")),
    Row("8-beta", "claim", "hypothesis (this book)", r"softmax with correction: the smallest inverse temperature "
        r"$\beta^*$ with exact traces", RULE_BETA, _beta,
        explain=_says("$\\beta^*$ does not grow like $\\ln T$ below $\\ln(3(T+1))$ on this run")),
    Row("8-beta-nocorr", "claim", "hypothesis (this book)", r"softmax without correction: $\beta^*$ is larger at every "
        "$T$", RULE_BETA_NOCORR, _beta_nocorr,
        explain=_says("without correction some $T$ needs no larger $\\beta$ than with it")),
    Row("9-low-precision", "check", "Theorem 4.1 (precision)", "hard-max construction in float16 and bfloat16, real "
        "rollout", RULE_LOW_PRECISION, _low_precision),
    Row("9-scalar-codes", "check", "Theorem 4.1 (precision)", "scalar position codes $i/T$ and $1/i$ in bfloat16: the "
        r"first $T$ with two positions sharing a code ($\mathrm{Bin}(i)$ never collides)", RULE_SCALAR_CODES,
        _scalar_codes),
    Row("10-toy-product", "check", "Claim 3.5", r"Claim 3.5 without rounding: numerical $\rho$ of "
        r"$(\prod_i W_i)x - 1/2$ against $\sqrt d\,(1 - 2^{-1/d})$; its log-log slope over {scope}",
        RULE_TOY_PRODUCT, _toy_product, scope=TOY_SLOPE),
    Row("10-toy-rounded", "check", "Claim 3.5", "Claim 3.5 with rounding (exact dynamic programme over layers)",
        RULE_TOY_ROUNDED, _toy_rounded),
    Row("12-bound", "check", "Lemma 2.4", r"$\hat n = \alpha^2\log p/\hat\gamma^2$ against $\log T$ (a bound's "
        r"value, not a measured sample complexity; it follows from `5-norms`, `4-params` and `7-polylog-random`: "
        r"$\alpha$ and $p$ are construction sizes, $\hat\gamma$ is tested there)", RULE_BOUND, _bound),
]

HEADLINES = (Headline("with its rounding correction, the construction's margin shrinks at most polylogarithmically in "
                      "the run length (Thm 4.1)", ("7-flat-structured", "7-polylog-random")),
             Headline("without the correction, the margin collapses as the run gets longer",
                      ("7-collapse", "7-random-nocorr")),
             Headline("softmax attention needs a larger inverse temperature without the correction",
                      ("8-beta", "8-beta-nocorr")))


def claims(P: dict, results: dict) -> list[dict]:
    return evaluate(ROWS, P, results)
