"""The power of rpe_decay's rules (lib.core.power): the worlds each row is run in, as data. Every world is made from
the stored points. The faithful one resamples what a point holds per seed: Part C's and Appendix H's training points
have their seeds drawn with replacement, one draw per point, and a drawn seed brings all its runs (every family, H
and kernel of that point: `resample_runs`; the core's `resample_cells` draws each cell's runs apart, which would
unpair a seed's lin and log runs, the pair row 14a compares). A fit is stored once per seed of the fitter (each
converged in its starts), so a fit row's faithful world draws each fit's fitter seeds with replacement from the
stored ones (`reseeded`, through the core's `resample_cells`, one cell per fit: the seeds are exchangeable). The
worlds without a row's mechanism relabel those runs (the other RPE's runs or fits in place of this one's, the
families swapped at random seed by seed, the log heads collapsed to one). Every row that can FAIL has one more world,
with the mechanism, which moves the stored runs or fits to an effect of a stated size, so that a FAIL can stand (the
gate needs a world with the mechanism that passes): 14a, the matched RPE a decade lower; 14b, twice what the heads can
reach; H4a-lin and H4b-log, the paper's number; H4a-log and H4b-lin, the largest seed at a tenth of the paper's
bound; rows 7a-12b, the
fits of the family the row favours a decade lower (`lower`: log on the power law, lin on the exponential, the bumps
and the delta at T = 8, both at T = 2), and rows 9a, 10a and 10b Thm 6.1's rate on top of the stored fits (`rate`:
n = 1 at beta = 3, n = 9 at tau = 10). Row 8b has none: the lin error's growth with the window has no size a theorem
or the paper states, so a FAIL there stays undecided.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> from lib.chapters.rpe_decay.claims import ROWS
    >>> from lib.core.power import power_table
    >>> [(t["world"][:30], t["pass"]) for t in power_table(ROWS, {"H4b-lin": WORLDS["H4b-lin"]}, P, results, 20)]
    [('faithful: the stored runs, eac', 1.0), ('the stored lin runs with the f', 1.0), ("the other RPE's runs in place ", 0.0)]
"""
from __future__ import annotations

import numpy as np

from lib.chapters.rpe_decay.claims.apph import ARM, NUMBERS, PAPER, num
from lib.chapters.rpe_decay.claims.train import matched
from lib.chapters.rpe_decay.experiments.fit import Kernel
from lib.chapters.rpe_decay.results.train import floor_groups
from lib.core.power import World, resample_cells

FIELDS = {"train": ("family", "H", "seed"), "apph": ("seed", "kernel", "family", "H")}   # a stored run's labels
PER_RUN = ("mse_exact", "test_mse", "l1", "p", "k0")     # a result's numbers, one per run; "curves": (checks, runs)
OTHER = {"lin": "log", "log": "lin"}
def remap(results: dict, part: str, per_point) -> dict:
    """`results` with the runs of each point of `part` ("train", "apph") re-indexed: per_point(key, spec) gives a
    function of a run's labels (a dict) returning the labels it changes; the run takes that stored run's numbers."""
    out = {**results, part: {}}
    for key, rec in results.get(part, {}).items():
        names, r = FIELDS[part], rec["result"]
        runs = [dict(zip(names, run)) for run in r["runs"]]
        where = {tuple(run[n] for n in names): i for i, run in enumerate(runs)}
        take = per_point(key, rec["spec"])
        order = [where[tuple({**run, **take(run)}[n] for n in names)] for run in runs]
        new = {**r, **{f: [r[f][j] for j in order] for f in PER_RUN if f in r}}
        if "curves" in r:
            new["curves"] = [[c[j] for j in order] for c in r["curves"]]
        out[part][key] = {**rec, "result": new}
    return out


def seed_draws(counts: dict, rng: np.random.Generator) -> dict:
    """{key: the stored seed each drawn seed copies}: `counts[key]` seeds drawn with replacement for every key, by the
    core's resample_cells (one cell per key: its seeds are exchangeable), so k times as many within seeds_times(k)."""
    at = {key: {"spec": {}, "result": {"at": list(range(n))}} for key, n in counts.items()}
    drawn = resample_cells(at, rng, lambda r: [(r, key) for key in r], lambda res: [0] * len(res["at"]))
    return {key: [int(i) for i in drawn[key]["result"]["at"]] for key in counts}


def reseed(rec: dict, part: str, idx: list[int]) -> dict:
    """A training point whose seed s holds stored seed idx[s]'s runs (all of them: a seed's lin and log runs stay
    paired), as many seeds as idx."""
    r, s = rec["result"], FIELDS[part].index("seed")
    order = [(new, i) for new, old in enumerate(idx) for i, run in enumerate(r["runs"]) if run[s] == old]
    new = {f: [r[f][i] for _, i in order] for f in PER_RUN if f in r}
    new["runs"] = [[new_s if j == s else x for j, x in enumerate(r["runs"][i])] for new_s, i in order]
    if "curves" in r:
        new["curves"] = [[c[i] for _, i in order] for c in r["curves"]]
    return {**rec, "spec": {**rec["spec"], "seeds": len(idx)}, "result": {**r, **new}}


def resample_runs(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """The faithful world: each training point's seeds drawn with replacement (`seed_draws`, `reseed`); the fits as
    they are."""
    out = dict(results)
    for part in ("train", "apph"):
        got = results.get(part, {})
        idx = seed_draws({key: rec["spec"]["seeds"] for key, rec in got.items()}, rng)
        out[part] = {key: reseed(rec, part, idx[key]) for key, rec in got.items()}
    return out


def swap_where(part: str, label: str, hit):
    """A world without the matched RPE: the seeds resampled, then on each point of `part` a run's lin and log runs
    swapped where hit(spec, rng)[the run's `label`] holds (the other RPE's runs, same seed, in this one's place)."""
    def draw(P: dict, results: dict, rng: np.random.Generator) -> dict:
        def per_point(key, spec):
            mask = hit(spec, rng)
            return lambda run: {"family": OTHER[run["family"]]} if mask[run[label]] else {}
        return remap(resample_runs(P, results, rng), part, per_point)
    return draw


def other_rpe(kind: str) -> World:
    """Appendix H without the RPE that matches the kernel `kind`: there each lin run takes its seed's log run, and back."""
    hit = lambda spec, rng: [k["kind"] == kind for k in spec["kernels"]]
    return World("the other RPE's runs in place of this one's (same seeds, resampled)", False,
                 swap_where("apph", "kernel", hit))


def collapsed(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """No heads beyond one in Part C's log runs (14b): the seeds resampled, each log run takes its seed's one-head run."""
    per_point = lambda key, spec: lambda run: {"H": min(spec["H"])} if run["family"] == "log" else {}
    return remap(resample_runs(P, results, rng), "train", per_point)


def on_fits(results: dict, change) -> dict:
    """`results` with each converged fit's result, seed by seed, replaced by change(key, seed, result)."""
    return {**results, "converged": {key: {i: {**rec, "result": change(key, i, rec["result"])} for i, rec in recs.items()}
                                     for key, recs in results.get("converged", {}).items()}}


def reseeded(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """A fit row's faithful world: each converged fit's stored fitter seeds drawn with replacement (as many as are
    stored, times `seeds_times`), numbered 0, 1, ... in the order drawn."""
    conv = results.get("converged", {})
    idx = seed_draws({key: len(recs) for key, recs in conv.items()}, rng)
    return {**results, "converged": {key: dict(enumerate(list(recs.values())[i] for i in idx[key]))
                                     for key, recs in conv.items()}}


def families_swapped(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """A fit row without its mechanism: the fitter seeds redrawn, then each lin fit read as the log fit of its
    kernel, window and H, and back."""
    return {**results, "converged": {(name, OTHER[f], S, Hs): recs for (name, f, S, Hs), recs
                                     in reseeded(P, results, rng).get("converged", {}).items()}}


def flat_in_H(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """A rate row without its mechanism: the fitter seeds redrawn, every H of a fit given the fit of its fewest heads."""
    fields = ("l1", "l1_half", "alpha", "p", "restarts", "converged")
    return on_fits(reseeded(P, results, rng), lambda key, i, r: {**r, **{f: [r[f][0]] * len(r["H"]) for f in fields}})


def farther(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """Row 12a without its mechanism (a memory near enough for the heads): the fitter seeds redrawn, the delta at
    T = 2's fits given the delta at T = 8's of the same family, H and seed (a grid without T = 8: as is)."""
    sim = reseeded(P, results, rng)
    far = {f: recs for (name, f, S, Hs), recs in sim.get("converged", {}).items() if name == "delta T=8"}

    def at(key, i, r):
        if key[0] != "delta T=2" or key[1] not in far:
            return r
        got = far[key[1]][i]["result"]
        j = [got["H"].index(H) for H in r["H"]]
        return {**r, **{k: [got[k][m] for m in j] for k in ("l1", "l1_half", "restarts", "converged")}}
    return on_fits(sim, at)


def moved(factors):
    """A world's draw: the seeds resampled, then each run's MSE multiplied by factors(stored)(part, key, run labels),
    computed once on the first stored results the draw sees, so every group keeps its spread over seeds."""
    memo = {}

    def draw(P: dict, results: dict, rng: np.random.Generator) -> dict:
        if id(results) not in memo:        # the results kept beside their factors, so the id stays their own
            memo[id(results)] = (results, factors(results))
        factor = memo[id(results)][1]
        out = resample_runs(P, results, rng)
        for part in ("train", "apph"):
            for key, rec in out.get(part, {}).items():
                r = rec["result"]
                f = [factor(part, key, dict(zip(FIELDS[part], run))) for run in r["runs"]]
                out[part][key] = {**rec, "result": {**r, **{m: [x * g for x, g in zip(r[m], f)]
                                                              for m in ("mse_exact", "test_mse") if m in r}}}
        return out
    return draw


def matched_lower(stored: dict):
    """14a with an effect: the matched RPE's runs (log on power laws, lin on exponentials) a decade lower."""
    good = {key: matched(Kernel(**rec["spec"]["kernel"])) for key, rec in stored["train"].items()}
    return lambda part, key, run: 0.1 if part == "train" and run["family"] == good[key] else 1.0


def at_reach(stored: dict, factor: float = 2.0):
    """14b with its mechanism: each Part C group (kernel, S, family, H) moved so that its median over seeds is
    `factor` times what its heads can reach, max(optimum, floor), both measured on the stored runs."""
    move = {g: factor / float(np.median(v)) for g, v in floor_groups(stored)[3].items()}   # 14b's own groups
    return lambda part, key, run: move[(*key, run["family"], run["H"])] if part == "train" else 1.0


def at_paper(rid: str) -> World:
    """Appendix H row rid with its mechanism: its runs (its arm, kernel and family at its fewest or most heads) moved so
    that their median over seeds is the paper's number, or, where the paper states a bound every seed is below (H4a-log,
    H4b-lin), so that their largest is a tenth of it."""
    arm, (kind, family, which, how), paper = ARM[rid], NUMBERS[rid], num(PAPER[rid])
    pick, (to, stat) = min if which == "min" else max, (PAPER[rid] / 10, np.max) if how == "below" else (PAPER[rid], np.median)

    def factors(stored):
        if arm not in stored.get("apph", {}):
            return lambda part, key, run: 1.0
        spec, r = stored["apph"][arm]["spec"], stored["apph"][arm]["result"]
        cell = lambda j, f, H: spec["kernels"][j]["kind"] == kind and f == family and H == pick(spec["H"])
        x = to / float(stat([m for (_, j, f, H), m in zip(r["runs"], r["mse_exact"]) if cell(j, f, H)]))
        return lambda part, key, run: x if part == "apph" and key == arm and cell(run["kernel"], run["family"],
                                                                                   run["H"]) else 1.0
    said = f"the paper's {paper} (median)" if how == "near" else f"a tenth of the paper's bound {paper} (largest)"
    return World(f"the stored {family} runs with the {'most' if which == 'max' else 'fewest'} heads moved to {said}, "
                 "their spread kept", True, moved(factors))


def fits_moved(name: str, change) -> World:
    """A fit row's world with its effect at a stated size: the fitter seeds redrawn, then each fit's errors l1
    replaced by change(key, l1, its H)."""
    on = lambda key, i, r: {**r, "l1": change(key, r["l1"], r["H"])}
    return World(name + " (fitter seeds resampled)", True, lambda P, results, rng: on_fits(reseeded(P, results, rng), on))


# the family a row favours a decade closer to its kernel; Thm 6.1's rate n on top of the stored fits
lower = lambda *fs: fits_moved(f"the {' and '.join(fs)} fits ten times lower",
                               lambda key, l1, Hs: [e / 10 if key[1] in fs else e for e in l1])
rate = lambda n: fits_moved(f"Thm 6.1's rate on top: every fit's error times (its fewest heads / H)^{n}",
                            lambda key, l1, Hs: [e * (Hs[0] / H) ** n for e, H in zip(l1, Hs)])


FAITHFUL = World("faithful: the stored runs, each point's seeds drawn with replacement (a seed's runs together)",
                 True, resample_runs)
OTHER_4A, OTHER_4B = other_rpe("spow"), other_rpe("sexp")
RESEEDED = World("faithful: each fit's stored fitter seeds drawn with replacement", True, reseeded)
SWAPPED = World("the lin and log fits swapped (fitter seeds resampled)", False, families_swapped)
FLAT = World("no rate: every H given the fit of the fewest heads (fitter seeds resampled)", False, flat_in_H)
FARTHER = World("a memory too far: the delta at T = 8's fits in place of T = 2's (fitter seeds resampled)", False,
                farther)
LOG_LOWER, LIN_LOWER = lower("log"), lower("lin")
# each fit row's world with its mechanism (8b's, the lin error's growth with the window, has no size the paper states)
FIT_ROWS = {"7a-heavy-tail-log": LOG_LOWER, "7b-heavy-tail-lin": LOG_LOWER, "8a-context-log": LOG_LOWER,
            "9b-exp-kernel-log": LIN_LOWER, "11-relative-bump": LIN_LOWER, "12b-sharp-memory-far": LIN_LOWER}
WORLDS = {
    **{rid: (RESEEDED, with_, SWAPPED) for rid, with_ in FIT_ROWS.items()}, "8b-context-lin": (RESEEDED, SWAPPED),
    **{rid: (RESEEDED, rate(n), FLAT) for rid, n in (("9a-exp-kernel-lin", 9), ("10a-slope-power", 1), ("10b-slope-exp", 9))},
    "12a-sharp-memory-near": (RESEEDED, lower("lin", "log"), FARTHER),
    "14a-train-order": (
        FAITHFUL,
        World("the stored runs with the matched RPE's runs ten times lower (seeds resampled)", True,
              moved(matched_lower)),
        World("no RPE effect: each seed's lin and log runs swapped at random (seeds resampled)", False,
              swap_where("train", "seed", lambda spec, rng: rng.random(spec["seeds"]) < 0.5))),
    "14b-train-floor": (
        FAITHFUL,
        World("the stored runs moved to twice what their heads can reach, their spread over seeds kept", True,
              moved(at_reach)),
        World("log heads collapsed: every log run replaced by its seed's one-head log run (seeds resampled)", False,
              collapsed)),
    "H4a-log": (FAITHFUL, at_paper("H4a-log"), OTHER_4A),
    "H4a-lin": (FAITHFUL, at_paper("H4a-lin"), OTHER_4A),
    "H4b-lin": (FAITHFUL, at_paper("H4b-lin"), OTHER_4B),
    "H4b-log": (FAITHFUL, at_paper("H4b-log"), OTHER_4B),
}
