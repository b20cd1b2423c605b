"""Theorem 4.1 of Wei, Chen & Ma 2022 (statistically meaningful approximation of Turing machines by Transformers),
made computable: the explicit construction of lib.science.tm_transformer run against the interpreter of
lib.science.turing.

Points (see `points`), each a frozen spec of exactly the parameters it depends on:

- exact (one per catalogue machine and T; one per T for the random machines): the teacher-forced parallel check
  and, for T <= rollout_T_max, the real autoregressive rollout; decoded traces, bit-exactness, the lookup fields
  against the interpreter's last-write table, the attention score gap, theta_cls, busy-beaver counts.
- anatomy: one machine's stream layer by layer and its fetch attention (the figures).
- sizes: depth, width, parameter count and norms for T = 2^4 .. 2^20 (built, not run).
- robust (T, correction): the smallest perturbation that corrupts the trace, along the structured direction (the
  transition layer's output scaled by 1 - t) and random unit directions, found by batched grid refinement.
- softmax (T, correction): the smallest inverse temperature with an exact trace.
- precision: float16 / bfloat16 rollouts, and collisions of scalar position codes.
- toy: the all-layer margin of Claim 3.5's product network with and without rounding.

The chapter has two arms. This module holds the exact simulation (exact, anatomy, sizes, precision) and lists every
point; the margins (how far the construction is from failing: the robust, softmax and toy points) are defined and run
in experiments/margins.py. It is the computation only: what the page shows of the results (results.py, claims/,
figures.py, page.py) no computation imports, so editing it leaves the stored points current.

    >>> from lib.core import params; P = params.resolve("turing_simulation", "paper")
    >>> sorted({p.name.split()[0] for p in points(P)})    # lib.core.sweep.collect computes or loads them
    ['anatomy', 'exact', 'precision', 'random', 'robust', 'sizes', 'softmax', 'toy']
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from lib.chapters.turing_simulation.experiments.margins import (
    RobustPoint,
    SoftmaxPoint,
    ToyPoint,
    inputs,
    run_robust,
    run_softmax,
    run_toy,
)
from lib.core.sweep import Point
from lib.science import tm_run
from lib.science import tm_transformer as tt
from lib.science import turing as tu
from lib.science.seeds import seed_of

DTYPES = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def machine(name: str, k_max: int | None = None, sym_max: int | None = None) -> tu.TM:
    """A catalogue machine, or random<seed> with at most k_max working states and sym_max symbols."""
    if name.startswith("random"):
        return tu.random_tm(int(name[6:]), (2, k_max), (2, sym_max))
    return tu.catalogue()[name]


def random_names(P: dict) -> list[str]:
    return [f"random{seed_of(P['seed'], 'random-tm', j) % 10**9}" for j in range(P["n_random"])]


def _random_bounds(P: dict, names) -> dict:
    """The random-machine bounds, for a point that holds a random machine (None otherwise: not read)."""
    rand = any(n.startswith("random") for n in names)
    return {"k_max": P["random_k_max"] if rand else None, "sym_max": P["random_sym_max"] if rand else None}


def check_params(P: dict) -> list[tuple[str, str]]:
    bad = []
    names = set(tu.catalogue())
    for key in ("machines",):
        if any(m not in names for m in P[key]):
            bad.append((key, f"list of names from {', '.join(sorted(names))}"))
    for key in ("show_machine", "size_machine", "robust_machine", "softmax_machine"):
        if P[key] not in names:
            bad.append((key, f"one of {', '.join(sorted(names))}"))
    for key in ("T_list", "robust_T", "softmax_T", "precision_T"):
        vals = P[key] if isinstance(P[key], list) else [P[key]]
        if any(v < 4 for v in vals):
            bad.append((key, "horizons T >= 4"))
    if P["n_random"] < 1:   # the page's tables and claims summarise the random machines
        bad.append(("n_random", "at least 1 random machine"))
    return bad


# ------------------------------------------------------------------------------------------ exact simulation
@dataclass(frozen=True)
class ExactPoint:
    """The exact-simulation checks of some machines at one horizon."""
    machines: tuple[str, ...]  # catalogue names or random<seed>
    T: int                     # horizon
    n_inputs: int              # inputs per machine
    seed: int                  # seed of the inputs
    rollout: bool              # whether the real autoregressive rollout is checked too (T <= rollout_T_max)
    chunk: int                 # query chunk of the teacher-forced check
    k_max: int | None          # most working states of a random machine (None: no random machine here)
    sym_max: int | None        # largest alphabet of a random machine (None: no random machine here)


def exact_spec(P: dict, names: list[str], T: int) -> ExactPoint:
    return ExactPoint(machines=tuple(names), T=T, n_inputs=P["n_inputs"], seed=P["seed"], rollout=T <= P["rollout_T_max"],
                      chunk=P["tf_chunk"], **_random_bounds(P, names))


def check_machine(tm: tu.TM, T: int, xs, device, rollout: bool, chunk: int) -> dict:
    """Every exact-simulation measurement the claim rows 1-3 and 6 read (traces, lookups, bits, score gaps, theta_cls,
    busy beavers) for one machine, horizon and input set."""
    traces = [tu.run(tm, x, T) for x in xs]
    net = tt.build(tm, T, device=device)
    ref = tm_run.reference_outputs(net, traces)
    stats = {}
    tf = tm_run.teacher_forced(net, xs, ref, chunk=chunk, hidden=True, stats=stats)
    hid, out = tf["hidden"][:, 0], tf["out"]                      # (d+1, B, T+1, w)
    sl, Pb = net.lay.sl, net.P
    after = hid[3 + Pb].double().cpu().numpy()                   # after the last search layer
    last = np.stack([tr.last for tr in traces])
    lookup_bad = int((after[..., sl["scr3"]] != tt.bits(np.maximum(last, 0), Pb)).any(-1).sum()
                     + (after[..., sl["f1"].start] != (last >= 0)).sum()
                     + (after[..., sl["f2"].start] != np.stack([tr.in_input for tr in traces])).sum())
    h = hid.double()
    nonbinary = int(((h != 0) & (h != 1)).sum())
    # the tape, read back from the transformer: step i wrote sym2 at pos2 (layer 1 output)
    l1 = hid[1].double().cpu().numpy()
    dec = tm_run.decode(net, out)
    steps, ones, tape_ok = [], [], []
    for b, tr in enumerate(traces):
        tape = {tr.c0 + 1 + j: s for j, s in enumerate(xs[b])}
        for i in range(1, T + 1):
            tape[int(tt.unbits(l1[b, i, sl["pos2"]]))] = int(l1[b, i, sl["sym2"]].argmax())
        term = np.isin(dec["z"][0, b], tm.terminal)
        steps.append(int(term.argmax()) if term.any() else -1)
        ones.append(sum(1 for s in tape.values() if s))
        tape_ok.append({c: s for c, s in tape.items() if s} == {c: s for c, s in tr.tape.items() if s})
    cls = (out[0, :, -1].double() @ net.params["cls"][0].double()).cpu().numpy()
    halted = np.array([tr.halted for tr in traces])
    want = np.array([1.0 if tr.accepted else -1.0 for tr in traces])
    res = {"T": T, "P": Pb, "d": net.d, "w": net.w, "B": len(xs), "m": len(xs[0]),
           "tf_mismatch": int(tm_run.mismatches(net, out, traces).sum()), "tf_bit_exact": bool((out[0] == ref).all()),
           "nonbinary": nonbinary, "lookup_bad": lookup_bad, "gap": stats.get("gap", math.inf),
           "tie_spread": stats.get("tie_spread", 0.0),
           "max_overwrites": int(max(np.bincount(tr.wl[1:]).max() for tr in traces)),
           "halted": int(halted.sum()), "cls_bad": int((cls[halted] != want[halted]).sum()),
           "steps_interp": [tr.halt_step for tr in traces], "ones_interp": [tr.ones for tr in traces],
           "steps_tf": steps, "ones_tf": ones, "tape_bad": int(sum(not t for t in tape_ok)),
           "rollout": rollout, "ro_mismatch": 0, "ro_bit_exact": True}
    if rollout:
        ro = tm_run.rollout(net, xs)
        res["ro_mismatch"] = int(tm_run.mismatches(net, ro, traces).sum())
        res["ro_bit_exact"] = bool((ro[0] == ref).all())
    return res


def run_exact(spec: ExactPoint, device: str) -> dict:
    out = {}
    for name in spec.machines:
        tm = machine(name, spec.k_max, spec.sym_max)
        xs = inputs(tm, spec.T, spec.n_inputs, spec.seed)
        out[name] = check_machine(tm, spec.T, xs, device, spec.rollout, spec.chunk)
        if name.startswith("random"):
            out[name].update(k=tm.n_states - 2, n_sym=tm.n_sym)
    return {"machines": out}


# -------------------------------------------------------------------------------------------------- anatomy
@dataclass(frozen=True)
class AnatomyPoint:
    """One run of the shown machine, layer by layer."""
    machine: str               # catalogue name
    T: int                     # horizon
    seed: int                  # seed of the input


def run_anatomy(spec: AnatomyPoint, device: str) -> dict:
    """One run of the shown machine: every layer's stream at one step, the fetch attention, both space-time
    diagrams (the interpreter's tape and the tape read back from the transformer's writes)."""
    tm, T = tu.catalogue()[spec.machine], spec.T
    xs = inputs(tm, T, 1, spec.seed)
    tr = tu.run(tm, xs[0], T)
    net = tt.build(tm, T, device=device)
    tf = tm_run.teacher_forced(net, xs, tm_run.reference_outputs(net, [tr]), hidden=True, keep_attn_layer=net.d - 1)
    hid = tf["hidden"][:, 0, 0].double().cpu().numpy()           # (d+1, T+1, w)
    gap = np.arange(T + 1) - tr.last
    gap[tr.last < 0] = -1
    step = int(np.argmax(gap))                                   # the step whose last write lies furthest back
    dec = tm_run.decode(net, tf["out"])
    cells = sorted(set(tr.l.tolist()) | set(tr.wl.tolist()))
    lo, hi = min(cells), max(cells)

    def spacetime(writes_cell, writes_sym):
        tape = {tr.c0 + 1 + j: s for j, s in enumerate(xs[0])}
        rows = []
        for i in range(T + 1):
            if i >= 1:
                tape[int(writes_cell[i])] = int(writes_sym[i])
            rows.append([tape.get(c, 0) for c in range(lo, hi + 1)])
        return rows

    l1 = hid[1]
    sl = net.lay.sl
    return {"machine": tm.name, "T": T, "step": step, "last": tr.last, "layers": hid[:, step],
            "fields": {f: [s.start, s.stop] for f, s in sl.items()}, "P": net.P, "K": net.K, "A": net.A,
            "attn": tf["attn"][0, 0].double().cpu().numpy(), "lo": lo, "hi": hi,
            "head_interp": tr.l, "head_tf": dec["l"][0, 0], "state_interp": tr.z, "state_tf": dec["z"][0, 0],
            "tape_interp": spacetime(tr.wl, tr.u),
            "tape_tf": spacetime(tt.unbits(l1[:, sl["pos2"]]), l1[:, sl["sym2"]].argmax(-1))}


# ---------------------------------------------------------------------------------------------------- sizes
@dataclass(frozen=True)
class SizesPoint:
    """The construction's size for every T = 2^e (built, not run)."""
    machine: str               # catalogue name
    log2T: tuple[int, ...]     # exponents e


def run_sizes(spec: SizesPoint, device: str) -> dict:
    tm = tu.catalogue()[spec.machine]
    rows = [dict(T=2 ** e, **tt.size(tt.build(tm, 2 ** e, correction=corr))) | {"correction": corr}
            for e in spec.log2T for corr in (True, False)]
    return {"rows": rows, "k": tm.n_states, "A": tm.n_sym}


# ------------------------------------------------------------------------------------------------ precision
@dataclass(frozen=True)
class PrecisionPoint:
    """Low-precision rollouts of some machines, and collisions of scalar position codes."""
    machines: tuple[str, ...]          # catalogue names or random<seed>
    T: int                             # horizon of the rollouts
    dtypes: tuple[str, ...]            # low-precision dtypes
    seed: int                          # seed of the inputs
    collision_log2T: tuple[int, ...]   # log2 T of the scalar-code collision count
    k_max: int | None                  # most working states of a random machine (None: no random machine here)
    sym_max: int | None                # largest alphabet of a random machine (None: no random machine here)


def precision_spec(P: dict) -> PrecisionPoint:
    names = [P["robust_machine"]] + random_names(P)[:P["n_precision_random"]]
    return PrecisionPoint(machines=tuple(names), T=P["precision_T"], dtypes=("float16", "bfloat16"), seed=P["seed"],
                          collision_log2T=tuple(P["collision_log2T"]), **_random_bounds(P, names))


def run_precision(spec: PrecisionPoint, device: str) -> dict:
    """Hard-max rollouts (and the teacher-forced check) in each low-precision dtype, compared bit for bit with the
    interpreter's encoded trace; and the distinct values of the scalar codes i/T and 1/i, i = 1..T."""
    T = spec.T
    runs = {}
    for name in spec.machines:
        tm = machine(name, spec.k_max, spec.sym_max)
        xs = inputs(tm, T, 1, spec.seed)
        traces = [tu.run(tm, x, T) for x in xs]
        for dt in spec.dtypes:
            net = tt.build(tm, T, device=device).to(dtype=DTYPES[dt])
            ref = tm_run.reference_outputs(net, traces)
            ro = tm_run.rollout(net, xs, tol=0.0)
            runs[f"{name}/{dt}"] = {"mismatch": int(tm_run.mismatches(net, ro, traces).sum()),
                                    "bit_exact": bool((ro[0] == ref).all())}
    coll = {}
    for dt in spec.dtypes:
        rows = []
        for e in spec.collision_log2T:
            n = 2 ** e
            i = torch.arange(1, n + 1, dtype=torch.float64)
            rows.append({"T": n, "i/T": int(torch.unique((i / n).to(DTYPES[dt])).numel()),
                         "1/i": int(torch.unique((1 / i).to(DTYPES[dt])).numel()),
                         "Bin": n})                              # Bin(i) is a bit vector: distinct by construction
        coll[dt] = rows
    return {"runs": runs, "collisions": coll}


# ---------------------------------------------------------------------------------------------------- points
def points(P: dict) -> list[Point]:
    """Every point: results["exact"][(name, T)], ["random"][T], ["anatomy"], ["sizes"], ["robust"][(T, correction)],
    ["softmax"][(T, correction)], ["precision"] and ["toy"]. Costs are rough machine-steps (rollouts cost more than
    teacher-forced checks). Every tensor here is small: one torch thread per point."""
    rand = random_names(P)
    exact = [(("exact", (name, T)), exact_spec(P, [name], T)) for T in P["T_list"] for name in P["machines"]]
    exact += [(("random", T), exact_spec(P, rand, T)) for T in P["T_list"]]
    out = [Point(label, spec, run_exact, cost=len(spec.machines) * spec.n_inputs * spec.T * (4 if spec.rollout else 1) / 100,
                 threads=1) for label, spec in exact]
    for corr in (True, False):
        out += [Point(("robust", (T, corr)), RobustPoint(machine=P["robust_machine"], T=T, correction=corr,
                                                         n_directions=P["n_directions"], grid=P["grid_points"],
                                                         seed=P["seed"]),
                      run_robust, cost=(P["n_directions"] + 1) * P["grid_points"] * T / 50, threads=1)
                for T in P["robust_T"]]
        out += [Point(("softmax", (T, corr)), SoftmaxPoint(machine=P["softmax_machine"], T=T, correction=corr,
                                                           beta_max=P["beta_max"], grid=P["grid_points"], seed=P["seed"]),
                      run_softmax, cost=2 * P["grid_points"] * T / 50, threads=1)
                for T in P["softmax_T"]]
    precision = precision_spec(P)
    return out + [
        Point(("anatomy",), AnatomyPoint(machine=P["show_machine"], T=P["show_T"], seed=P["seed"]), run_anatomy,
              cost=P["show_T"] / 10, threads=1),
        Point(("sizes",), SizesPoint(machine=P["size_machine"], log2T=tuple(P["size_log2T"])), run_sizes, threads=1),
        Point(("precision",), precision, run_precision,
              cost=len(precision.machines) * len(precision.dtypes) * precision.T / 10, threads=1),
        Point(("toy",), ToyPoint(depths=tuple(P["toy_depths"]), restarts=P["toy_restarts"], seed=P["seed"]), run_toy,
              threads=1)]


def footprint(P: dict) -> list[tuple[str, float, str]]:
    """The largest allocations of the biggest points in bytes (float64), each with the parameters that set it
    (lib.core.params refuses a profile whose point cannot fit the device): the teacher-forced check's attention
    scores and hidden states, the rollout's caches, and the batched perturbed copies of the robustness and softmax
    searches. The construction's width w = K + 4A + 4P + 5 and depth P + 4 grow with log T (tm_transformer.Layout)."""
    def width(T):
        bits = math.ceil(math.log2(2 * T + 2))
        return P["random_k_max"] + 3 + 4 * P["random_sym_max"] + 4 * bits + 5, bits + 4

    out = []
    T = max(P["T_list"])
    w, depth = width(T)
    scores = lambda T: 2 * min(P["tf_chunk"], T + 1) * (T + 2)                  # one query chunk's scores
    out.append(("T_list, n_inputs, tf_chunk", P["n_inputs"] * (scores(T) + 3 * (T + 1) * w * depth) * 8,
                "the teacher-forced check's scores and states"))
    Tr = min(T, P["rollout_T_max"])
    out.append(("rollout_T_max, n_inputs", P["n_inputs"] * 2 * depth * (Tr + 1) * (2 * w) * 8,
                "the rollout's key and value caches"))
    for key, runs in (("robust_T", P["grid_points"] * (P["n_directions"] + 1)), ("softmax_T", P["grid_points"])):
        T = max(P[key])
        w, depth = width(T)
        out.append((f"{key}, grid_points" + (", n_directions" if key == "robust_T" else ""),
                    runs * (scores(T) + 3 * (T + 1) * w * depth + 4 * w * w * depth) * 8,
                    f"the batched copies of the {key.split('_')[0]} search"))
    return out
