"""Theorem 4.1 of Wei, Chen, Ma (statistically meaningful approximation of Turing machines by Transformers), made
computable: the explicit construction of lib.science.tm_transformer run against the interpreter of lib.science.turing.

Stored points (see `compute`), each holding exactly the parameters it depends on:

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

This module is the computation only: what the page shows of the results (tables, claims, figures) is
lib.chapters.turing_simulation.page, which no computation imports, so editing it leaves the stored points current.

    >>> results = compute(P, Store("turing_simulation", "quick"), device="cpu")
"""
from __future__ import annotations

import math
import time

import numpy as np
import torch

from lib.science import engine
from lib.science import tm_transformer as tt
from lib.science import turing as tu
from lib.science.stats import seed_of
from lib.core.store import Store, environment

DTYPES = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def machine(name: str, P: dict) -> tu.TM:
    if name.startswith("random"):
        return tu.random_tm(int(name[6:]), (2, P["random_k_max"]), (2, P["random_sym_max"]))
    return tu.catalogue()[name]


def random_names(P: dict) -> list[str]:
    return [f"random{seed_of(P['seed'], 'random-tm', j) % 10**9}" for j in range(P["n_random"])]


def _inputs(tm, T, n, seed):
    return tu.inputs(tm, T, n, np.random.default_rng(seed_of(seed, "inputs", tm.name, T)))


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
    return bad


# ------------------------------------------------------------------------------------------ exact simulation
def check_machine(tm: tu.TM, T: int, xs, device, rollout_T_max: int, chunk: int) -> dict:
    """Every check of the guide's section 5 (items 1-3, 6) for one machine, horizon and input set."""
    traces = [tu.run(tm, x, T) for x in xs]
    net = tt.build(tm, T, device=device)
    ref = tt.reference_outputs(net, traces)
    stats = {}
    tf = tt.teacher_forced(net, xs, ref, chunk=chunk, hidden=True, stats=stats)
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
    dec = tt.decode(net, out)
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
           "tf_mismatch": int(tt.mismatches(net, out, traces).sum()), "tf_bit_exact": bool((out[0] == ref).all()),
           "nonbinary": nonbinary, "lookup_bad": lookup_bad, "gap": stats.get("gap", math.inf),
           "tie_spread": stats.get("tie_spread", 0.0),
           "max_overwrites": int(max(np.bincount(tr.wl[1:]).max() for tr in traces)),
           "halted": int(halted.sum()), "cls_bad": int((cls[halted] != want[halted]).sum()),
           "steps_interp": [tr.halt_step for tr in traces], "ones_interp": [tr.ones for tr in traces],
           "steps_tf": steps, "ones_tf": ones, "tape_bad": int(sum(not t for t in tape_ok)),
           "rollout": T <= rollout_T_max, "ro_mismatch": 0, "ro_bit_exact": True}
    if T <= rollout_T_max:
        ro = tt.rollout(net, xs)
        res["ro_mismatch"] = int(tt.mismatches(net, ro, traces).sum())
        res["ro_bit_exact"] = bool((ro[0] == ref).all())
    return res


def run_exact(spec: dict, device: str) -> dict:
    t0 = time.perf_counter()
    P = spec["P"]
    out = {}
    for name in spec["machines"]:
        tm = machine(name, P)
        xs = _inputs(tm, spec["T"], spec["n_inputs"], spec["seed"])
        out[name] = check_machine(tm, spec["T"], xs, device, spec["rollout_T_max"], spec["chunk"])
        if name.startswith("random"):
            out[name].update(k=tm.n_states - 2, n_sym=tm.n_sym)
    return {"machines": out, "wall_s": time.perf_counter() - t0}


def _exact_P(P):
    return {k: P[k] for k in ("random_k_max", "random_sym_max")}


def exact_spec(P, names, T, kind):
    return {"kind": kind, "machines": names, "T": T, "n_inputs": P["n_inputs"], "seed": P["seed"],
            "rollout_T_max": P["rollout_T_max"], "chunk": P["tf_chunk"], "P": _exact_P(P)}


# -------------------------------------------------------------------------------------------------- anatomy
def run_anatomy(spec: dict, device: str) -> dict:
    """One run of the shown machine: every layer's stream at one step, the fetch attention, both space-time
    diagrams (the interpreter's tape and the tape read back from the transformer's writes)."""
    t0 = time.perf_counter()
    tm, T = tu.catalogue()[spec["machine"]], spec["T"]
    xs = _inputs(tm, T, 1, spec["seed"])
    tr = tu.run(tm, xs[0], T)
    net = tt.build(tm, T, device=device)
    tf = tt.teacher_forced(net, xs, tt.reference_outputs(net, [tr]), hidden=True, keep_attn_layer=net.d - 1)
    hid = tf["hidden"][:, 0, 0].double().cpu().numpy()           # (d+1, T+1, w)
    gap = np.arange(T + 1) - tr.last
    gap[tr.last < 0] = -1
    step = int(np.argmax(gap))                                   # the step whose last write lies furthest back
    dec = tt.decode(net, tf["out"])
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
            "tape_tf": spacetime(tt.unbits(l1[:, sl["pos2"]]), l1[:, sl["sym2"]].argmax(-1)),
            "wall_s": time.perf_counter() - t0}


# ---------------------------------------------------------------------------------------------------- sizes
def run_sizes(spec: dict, device: str) -> dict:
    t0 = time.perf_counter()
    tm = tu.catalogue()[spec["machine"]]
    rows = [dict(T=2 ** e, **tt.size(tt.build(tm, 2 ** e, correction=corr))) | {"correction": corr}
            for e in spec["log2T"] for corr in (True, False)]
    return {"rows": rows, "k": tm.n_states, "A": tm.n_sym, "wall_s": time.perf_counter() - t0}


# ----------------------------------------------------------------------------------------------- robustness
def _unit_direction(net: tt.Net, gen: torch.Generator) -> dict:
    d = {k: torch.randn(v.shape, generator=gen, dtype=torch.float64).to(v) for k, v in net.params.items()}
    norm = math.sqrt(sum(float(v.double().pow(2).sum()) for v in d.values()))
    return {k: v / norm for k, v in d.items()}


def _structured_direction(net: tt.Net) -> dict:
    """W2 of the transition layer scaled by (1 - t): the direction -W2^(1) (its t is reported, not its norm)."""
    d = {k: torch.zeros_like(v) for k, v in net.params.items()}
    d["W2"][:, 0] = -net.params["W2"][:, 0]
    return d


def _fail_scales(net, dirs, scales, xs, traces, beta=None):
    """Run len(dirs) * len(scales) perturbed copies at once; (len(dirs), len(scales)) True where the trace fails."""
    D, G = len(dirs), scales.shape[1]
    rep = net.replicate(D * G)
    s = torch.as_tensor(scales.reshape(-1), dtype=torch.float64)
    params = {}
    for k, v in rep.params.items():
        delta = torch.stack([dirs[i][k][0] for i in range(D) for _ in range(G)])
        params[k] = v + s.view(-1, *([1] * (v.dim() - 1))).to(v) * delta
    out = tt.rollout(rep.with_params(params), xs, beta=beta)
    return (tt.first_mismatch(net, out, traces) <= net.T).reshape(D, G)


def smallest_failing(fail, lo, hi, G, rounds, D):
    """Per direction, the smallest scale in [lo, hi] whose perturbation fails: a log grid over [lo, hi], then
    `rounds - 1` log grids between the last passing and the first failing point. fail(scales (D, G)) -> bool (D, G).
    Returns (D,): the first failing scale found, inf where nothing up to hi fails, lo where lo already fails."""
    res = np.full(D, math.inf)
    a, b = np.full(D, float(lo)), np.full(D, float(hi))
    active = np.ones(D, bool)
    for r in range(rounds):
        if not active.any():
            break
        grid = np.exp(np.linspace(np.log(a), np.log(b), G).T)
        f = fail(grid)
        for i in np.flatnonzero(active):
            if not f[i].any():                 # r == 0: nothing fails (res stays inf); later: b failed before (kept)
                active[i] = False
                continue
            k = int(f[i].argmax())
            res[i] = grid[i, k]
            if k == 0:
                active[i] = False
            else:
                a[i], b[i] = grid[i, k - 1], grid[i, k]
        a, b = np.where(active, a, lo), np.where(active, b, hi)
    return res


def run_robust(spec: dict, device: str) -> dict:
    t0 = time.perf_counter()
    tm, T = tu.catalogue()[spec["machine"]], spec["T"]
    xs = _inputs(tm, T, 1, spec["seed"])
    traces = [tu.run(tm, x, T) for x in xs]
    net = tt.build(tm, T, correction=spec["correction"], device=device)
    gen = torch.Generator().manual_seed(seed_of(spec["seed"], "directions", T, spec["correction"]))
    dirs = [_structured_direction(net)] + [_unit_direction(net, gen) for _ in range(spec["n_directions"])]
    radius = smallest_failing(lambda g: _fail_scales(net, dirs, g, xs, traces), 1e-17, 10.0, spec["grid"], 3, len(dirs))
    struct_norm = math.sqrt(float(net.params["W2"][0, 0].double().pow(2).sum()))
    size = tt.size(net)
    return {"T": T, "t_struct": radius[0], "struct_l2": radius[0] * struct_norm, "r_random": radius[1:],
            "alpha": size["l1"], "p": size["p"], "w": size["w"], "d": size["d"], "wall_s": time.perf_counter() - t0}


def run_softmax(spec: dict, device: str) -> dict:
    """beta*: the smallest inverse temperature on a grid over [0.5, beta_max] from which every larger grid value
    gives an exact decoded trace, refined between the grid points either side."""
    t0 = time.perf_counter()
    tm, T = tu.catalogue()[spec["machine"]], spec["T"]
    xs = _inputs(tm, T, 1, spec["seed"])
    traces = [tu.run(tm, x, T) for x in xs]
    net = tt.build(tm, T, correction=spec["correction"], device=device)

    def ok(betas):
        rep = net.replicate(len(betas))
        out = tt.rollout(rep, xs, beta=torch.as_tensor(betas, dtype=torch.float64, device=device))
        return tt.first_mismatch(net, out, traces) > T

    grid = np.exp(np.linspace(np.log(0.5), np.log(spec["beta_max"]), spec["grid"]))
    good = ok(grid)
    tail = np.flip(np.logical_and.accumulate(np.flip(good)))     # good here and at every larger grid value
    if not tail.any():
        return {"T": T, "beta_star": math.inf, "wall_s": time.perf_counter() - t0}
    k = int(tail.argmax())
    if k == 0:
        return {"T": T, "beta_star": float(grid[0]), "wall_s": time.perf_counter() - t0}
    fine = np.linspace(grid[k - 1], grid[k], spec["grid"])
    g2 = ok(fine)
    tail2 = np.flip(np.logical_and.accumulate(np.flip(g2)))
    return {"T": T, "beta_star": float(fine[int(tail2.argmax())]), "wall_s": time.perf_counter() - t0}


# ------------------------------------------------------------------------------------------------ precision
def run_precision(spec: dict, device: str) -> dict:
    """Hard-max rollouts (and the teacher-forced check) in each low-precision dtype, compared bit for bit with the
    interpreter's encoded trace; and the distinct values of the scalar codes i/T and 1/i, i = 1..T."""
    t0 = time.perf_counter()
    P = spec["P"]
    T = spec["T"]
    runs = {}
    for name in spec["machines"]:
        tm = machine(name, P)
        xs = _inputs(tm, T, 1, spec["seed"])
        traces = [tu.run(tm, x, T) for x in xs]
        for dt in spec["dtypes"]:
            net = tt.build(tm, T, device=device).to(dtype=DTYPES[dt])
            ref = tt.reference_outputs(net, traces)
            ro = tt.rollout(net, xs, tol=0.0)
            runs[f"{name}/{dt}"] = {"mismatch": int(tt.mismatches(net, ro, traces).sum()),
                                    "bit_exact": bool((ro[0] == ref).all())}
    coll = {}
    for dt in spec["dtypes"]:
        rows = []
        for e in spec["collision_log2T"]:
            n = 2 ** e
            i = torch.arange(1, n + 1, dtype=torch.float64)
            rows.append({"T": n, "i/T": int(torch.unique((i / n).to(DTYPES[dt])).numel()),
                         "1/i": int(torch.unique((1 / i).to(DTYPES[dt])).numel()),
                         "Bin": n})                              # Bin(i) is a bit vector: distinct by construction
        coll[dt] = rows
    return {"runs": runs, "collisions": coll, "wall_s": time.perf_counter() - t0}


# ------------------------------------------------------------------------------------------------------ toy
def rho_product_formula(d):
    """rho of f = (prod W_i) x - 1/2 at W_i = 1, x = 1: the uniform perturbation with (1 - delta)^d = 1/2."""
    d = np.asarray(d, float)
    return np.sqrt(d) * (1 - 2 ** (-1 / d))


def rho_product_numeric(d: int, restarts: int, seed: int) -> float:
    """min ||delta||_2 s.t. prod(1 + delta_i) <= 1/2, by SLSQP from random starts (log form of the constraint)."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(seed_of(seed, "toy", d))
    best = math.inf
    for _ in range(restarts):
        x0 = -rng.uniform(0.0, 0.9, d) * (1 if d == 1 else rng.uniform(0.2, 1.0))
        r = minimize(lambda v: float(v @ v), x0, jac=lambda v: 2 * v, method="SLSQP",
                     bounds=[(-0.999, 1.0)] * d,
                     constraints=[{"type": "ineq", "fun": lambda v: -math.log(2) - np.log1p(v).sum(),
                                   "jac": lambda v: -1 / (1 + v)}], options={"maxiter": 500, "ftol": 1e-14})
        if r.success and np.prod(1 + r.x) <= 0.5 + 1e-9:
            best = min(best, math.sqrt(float(r.x @ r.x)))
    return best


def rho_rounded_dp(depths, grid: int = 2001) -> np.ndarray:
    """rho of round(W_d round(... round(W_1 x))) - 1/2 (round frozen), exactly up to a grid on [0, 1], by dynamic
    programming over layers: c_k(r) = the least squared perturbation of W_1..W_k that makes layer k's output
    <= r. Layer k outputs <= r iff W_k q <= s(r) = (r + 1)/3 for its input q, which costs max(0, 1 - s/q)^2
    (free when q <= s; round(z) <= r also holds for every z <= 1/3 when r >= 0). rho^2 = c_d(1/2)."""
    r = np.linspace(0.0, 1.0, grid)
    s = (r + 1) / 3
    q = r[None, :]
    step = np.maximum(0.0, 1 - s[:, None] / np.maximum(q, 1e-300)) ** 2          # (r, q)
    c = np.where(r >= 1, 0.0, np.inf)                                            # layer 0: x = 1 exactly
    half = int(np.argmin(np.abs(r - 0.5)))
    out, depths = {}, sorted(set(int(x) for x in depths))
    for k in range(1, max(depths) + 1):
        c_new = (step + c[None, :]).min(1)
        converged = np.array_equal(c_new, c)       # c_k stops changing: every deeper layer gives the same value
        c = c_new
        for dd in depths:
            if dd == k or (converged and dd > k):
                out[dd] = math.sqrt(c[half])
        if converged:
            break
    return np.array([out[k] for k in depths])


def run_toy(spec: dict, device: str) -> dict:
    t0 = time.perf_counter()
    ds = spec["depths"]
    return {"depths": ds, "formula": rho_product_formula(ds),
            "numeric": [rho_product_numeric(d, spec["restarts"], spec["seed"]) for d in ds],
            "rounded": rho_rounded_dp(ds), "wall_s": time.perf_counter() - t0}


# ---------------------------------------------------------------------------------------------------- compute
def compute(P: dict, store: Store, device: str, force: bool = False, log=print) -> dict:
    """Every point of the chapter, loaded from the store when present, else computed and stored at once."""
    env = environment(device, store.chapter)
    out = {"exact": {}, "random": {}, "robust": {}, "softmax": {}}

    def get(spec, fn, label):
        record, done = store.load_or_compute(spec, lambda: fn(spec, device), env, force)
        if record is not None:
            log(f"{label:<32} " + (f"computed in {record['result']['wall_s']:6.1f} s" if done else "loaded"))
        return record

    with engine.one_cpu_thread(device):  # every tensor here is small: one thread avoids waking others
        for T in P["T_list"]:
            for name in P["machines"]:
                out["exact"][(name, T)] = get(exact_spec(P, [name], T, "exact"), run_exact, f"exact {name} T={T}")
            out["random"][T] = get(exact_spec(P, random_names(P), T, "random"), run_exact,
                                   f"exact {P['n_random']} random T={T}")
        out["anatomy"] = get({"kind": "anatomy", "machine": P["show_machine"], "T": P["show_T"], "seed": P["seed"]},
                             run_anatomy, "anatomy")
        out["sizes"] = get({"kind": "sizes", "machine": P["size_machine"], "log2T": P["size_log2T"]}, run_sizes, "sizes")
        for corr in (True, False):
            for T in P["robust_T"]:
                out["robust"][(T, corr)] = get({"kind": "robust", "machine": P["robust_machine"], "T": T,
                                                "correction": corr, "n_directions": P["n_directions"],
                                                "grid": P["grid_points"], "seed": P["seed"]},
                                               run_robust, f"robust T={T} correction={corr}")
            for T in P["softmax_T"]:
                out["softmax"][(T, corr)] = get({"kind": "softmax", "machine": P["softmax_machine"], "T": T,
                                                 "correction": corr, "beta_max": P["beta_max"],
                                                 "grid": P["grid_points"], "seed": P["seed"]},
                                                run_softmax, f"softmax T={T} correction={corr}")
        out["precision"] = get({"kind": "precision", "machines": [P["robust_machine"]] + random_names(P)[:P["n_precision_random"]],
                                "T": P["precision_T"], "dtypes": ["float16", "bfloat16"], "seed": P["seed"],
                                "collision_log2T": P["collision_log2T"], "P": _exact_P(P)}, run_precision, "precision")
        out["toy"] = get({"kind": "toy", "depths": P["toy_depths"], "restarts": P["toy_restarts"], "seed": P["seed"]},
                         run_toy, "toy")
    return out
