"""sparse_variable_creation: unit tests of its constructions, generators, batched trainer and claims (the chapter's
end-to-end run is in test_book_e2e.py)."""
import math

import numpy as np
import pytest
import torch

from lib.chapters.sparse_variable_creation import compute, page
from lib.chapters.sparse_variable_creation import results as rs
from lib.chapters.sparse_variable_creation.claims import ROWS, power
from lib.core import params
from lib.core.claims import evaluate
from lib.core.store import key_of, spec_dict
from lib.science import batched_transformer as bt
from lib.science import sparse_boolean as sb


# ------------------------------------------------------------------------------------------- constructions (exact)
def test_softmax_bounds():
    r = sb.lipschitz_ratios(2000, 500, np.random.default_rng(0))
    assert r["max_ratio"] <= 2 and r["jacobian_max"] < 2
    assert r["jacobian_formula_err"] < 1e-12 and r["uniform_err"] < 1e-12
    assert sb.truncation_check(200, np.random.default_rng(1))["max_ratio_to_bound"] <= 1


def test_b2_worst_case_is_the_closed_form():
    # [CLS] a key with score 0: the worst case over b is (2T - 2s + 1) / (8Ts + T - s + 1) at e^R = 8T
    for T, s in ((20, 2), (50, 3)):
        assert sb.b2_error(T, s, math.log(8 * T)) == pytest.approx((2 * T - 2 * s + 1) / (8 * T * s + T - s + 1), abs=1e-12)


def test_count_patterns_cover_every_input():
    """The heads' outputs depend on the two counts only: exhaustive inputs give the same set of outputs."""
    T, planted = 10, [2, 5, 7]
    head = sb.head_b2(T, planted)
    every = np.unique(np.round(head.forward(sb.all_inputs(T))[:, 0], 12))
    counts = np.unique(np.round(head.forward(sb.count_patterns(T, planted))[:, 0], 12))
    assert np.array_equal(every, counts)


def test_heads_match_dense_matrices():
    """The structured X(b) M equals the explicit (T+1) x d input matrix times M."""
    T, planted = 9, [1, 4, 8]
    b = np.random.default_rng(0).integers(0, 2, (5, T))
    for head in (sb.head_b2(T, planted), sb.head_b3(T, planted), sb.head_b4(T, planted)):
        X = np.stack([np.vstack([head.cls, (head.P * bi[:, None]) if head.encoding == "bag" else head.E[bi] + head.P])
                      for bi in b])
        for M in (head.Wk[0], head.Wv[0]):
            assert np.allclose(head.encode(b, M), X @ M, atol=1e-14)


@pytest.mark.parametrize("name", sorted(sb.SYMMETRIC))
def test_symmetric_functions_are_exact(name):
    T = 10
    b = sb.all_inputs(T)
    for s in range(1, 7):
        planted = list(range(0, 2 * s, 2))[:s] if 2 * s <= T else list(range(s))
        f, _, net = sb.symmetric_network(T, planted, name)
        assert np.abs(f(b) - sb.SYMMETRIC[name](b[:, planted].sum(1), s)).max() < 1e-9
        assert net.widths == (4 * (s + 1), 2 * (s + 1))


def test_general_sparse_functions_are_exact():
    rng, T = np.random.default_rng(3), 9
    b = sb.all_inputs(T)
    for s in range(1, 5):
        planted = sorted(rng.choice(T, s, replace=False).tolist())
        table = rng.integers(0, 2, 2 ** s).astype(float)
        f, _, net = sb.general_network(T, planted, table)
        assert np.abs(f(b) - sb.truth_value(b, planted, table)).max() < 1e-9
        assert net.widths == (4 * s * 2 ** s, 2 ** (s + 1))


def test_lookup_is_robust_within_delta():
    centers = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, -1.0]])
    net = sb.lookup(centers, np.array([3.0, -2.0, 5.0]), 0.25)
    z = np.random.default_rng(0).uniform(-0.25, 0.25, (100, 3, 2))
    assert np.allclose(net((centers[None] + z).reshape(-1, 2)).reshape(100, 3), [3.0, -2.0, 5.0], atol=1e-12)


def test_minimal_R_below_the_lemma():
    assert sb.minimal_R(50, 3) <= math.log(8 * 50)
    assert sb.b2_error(50, 3, sb.minimal_R(50, 3)) <= 0.25 + 1e-9


# ------------------------------------------------------------------------------------------- generators
def test_planted_and_generator():
    gen = torch.Generator().manual_seed(0)
    planted, bits, y = compute.planted_and(gen, 4, 500, 12, None, "cpu")
    assert planted.shape == (4, 3) and all(len(set(p.tolist())) == 3 for p in planted)
    for r in range(4):
        assert torch.equal(y[r], bits[r][:, planted[r]].prod(1))
    assert abs(y.float().mean().item() - 1 / 8) < 0.05
    _, _, y2 = compute.planted_and(gen, 4, 100, 12, planted, "cpu")     # validation: same planted sets
    assert y2.shape == (4, 100)


# ------------------------------------------------------------------------------------------- batched trainer
def _setup(R=3, T=10, m=24, dropout=0.0):
    cfg = bt.ModelConfig(d=16, heads=4, dropout=dropout)
    gen = torch.Generator().manual_seed(0)
    params = bt.init(R, T, cfg, gen)
    _, bits, y = compute.planted_and(gen, R, m, T, None, "cpu")
    return cfg, gen, params, bits, y


def test_batched_forward_matches_reference_and_the_eval_shortcut():
    cfg, gen, p, bits, y = _setup()
    logits, att = bt.forward(p, bt.tokens_of(bits), cfg)
    for r in range(bits.shape[0]):
        ref = bt.Reference.from_stacked(p, r, bits.shape[2], cfg).eval()
        assert torch.allclose(ref(bt.tokens_of(bits[r])), logits[r], atol=1e-5)
    fast, att_fast = bt.eval_logits(p, bits, cfg)
    assert torch.allclose(fast, logits, atol=1e-5) and torch.allclose(att_fast, att, atol=1e-6)


def test_shared_token_training_path_is_forward_without_embedding_dropout():
    """With embd_dropout False, training's cheap path draws the same attention and residual dropout masks as forward
    and gives the same logits and gradients; with embedding dropout it refuses (it cannot apply it)."""
    cfg, _, p, bits, y = _setup(dropout=0.1)
    cfg = bt.ModelConfig(d=cfg.d, heads=cfg.heads, dropout=0.1, embd_dropout=False)
    a, _ = bt.forward(p, bt.tokens_of(bits), cfg, torch.Generator().manual_seed(5))
    ga = torch.autograd.grad(bt.per_trial_ce(a, y).sum(), [p["k_w"], p["wpe"]])
    b, _ = bt.train_logits(p, bits, cfg, torch.Generator().manual_seed(5))
    gb = torch.autograd.grad(bt.per_trial_ce(b, y).sum(), [p["k_w"], p["wpe"]])
    assert torch.allclose(a, b, atol=1e-5) and all(torch.allclose(u, v, atol=1e-5) for u, v in zip(ga, gb))
    assert not torch.allclose(a, bt.forward(p, bt.tokens_of(bits), cfg)[0], atol=1e-3)     # dropout did act
    with pytest.raises(ValueError, match="embedding dropout"):
        bt.forward_shared(p, bits, bt.ModelConfig(d=cfg.d, heads=cfg.heads, dropout=0.1), torch.Generator())


def test_batched_training_matches_one_model_at_a_time():
    """Same seeds, same numbers: the batched AdamW (per-trial clipping, decay on Linear weights) against
    torch.optim.AdamW on one minGPT-style module per trial."""
    cfg, gen, p, bits, y = _setup()
    R, m, T = bits.shape
    refs = [bt.Reference.from_stacked(p, r, T, cfg) for r in range(R)]
    out = bt.train_full_batch(p, bits, y, torch.ones(R, m), bits, y, cfg, bt.OptConfig(), 25, 5, gen)
    for r in range(R):
        losses = bt.train_reference(refs[r], bits[r], y[r], bt.OptConfig(), 25)
        assert np.allclose(out["train_loss"][r].numpy(), losses, atol=1e-5)
        assert torch.allclose(refs[r].k.weight.T, p["k_w"][r].detach(), atol=1e-5)


def test_padding_does_not_change_a_trial():
    """A trial trained beside a longer one (padded, masked samples) follows its unpadded run."""
    cfg, gen, p, bits, y = _setup(R=2, m=20)
    solo = {k: v.detach()[:1].clone().requires_grad_() for k, v in p.items()}
    weight = torch.ones(2, 20)
    weight[0, 12:] = 0
    a = bt.train_full_batch(p, bits, y, weight, bits, y, cfg, bt.OptConfig(), 10, 5, gen)
    b = bt.train_full_batch(solo, bits[:1, :12], y[:1, :12], torch.ones(1, 12), bits[:1], y[:1], cfg, bt.OptConfig(), 10, 5, gen)
    assert torch.allclose(a["train_loss"][0], b["train_loss"][0], atol=1e-5)


def test_run_and_is_reproducible_and_the_spec_is_the_key():
    spec = compute.AndPoint(T=6, ms=(4, 8), trials=2, d=8, heads=2, dropout=0.1,
                            embd_dropout=True, lr=1e-3, weight_decay=1e-4, iters=10,
                            eval_every=5, n_val=64, max_elems=10 ** 6, seed=0)
    a, b = compute.run_and(spec, "cpu"), compute.run_and(spec, "cpu")
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b and len(a["success"]) == 4 and sorted(a["m"]) == [4, 4, 8, 8]
    P = {**params.resolve("sparse_variable_creation", "smoke"), "parity": False}
    keys = [key_of(spec_dict(p.spec)) for p in compute.points(P)]
    assert len(set(keys)) == len(keys) == 1 + len(P["and_T"])                 # the constructions, one point per T
    assert keys == [key_of(spec_dict(p.spec)) for p in compute.points({**P, "parity_T": [12]})]   # parity off
    assert compute.check_params(P) == [] and compute.check_params({**P, "heads": 3})


# ------------------------------------------------------------------------------------------- success statistic
def test_critical_sample_size_and_bootstrap():
    ms = np.array([10, 20, 30])
    success = np.array([[0, 0, 0, 1], [1, 1, 0, 0], [1, 1, 1, 0]], bool)   # fractions 0.25, 0.5, 0.75
    assert rs.critical_m(ms, success) == 30                                # "exceeds 1/2": 0.5 is not enough
    assert np.isnan(rs.critical_m(ms, np.zeros((3, 4), bool)))
    m, se = rs.critical_with_se(ms, np.array([[0] * 10, [1] * 10, [1] * 10], bool))
    assert m == 20 and se == 0


def _fake_and(mstar: dict, trials=10, ms=tuple(range(10, 101, 10)), s=None):
    """Stored-like AND points: success iff m >= m*(T) (s None), or in round(trials sigmoid((m - m*) / s)) of the
    trials of each m (a smooth curve whose likelihoods the laws can compare)."""
    out = {}
    for T, ms_star in mstar.items():
        m = [v for v in ms for _ in range(trials)]
        if s is None:
            succ = [v >= ms_star for v in m]
        else:
            k = {v: round(trials / (1 + math.exp(-(v - ms_star) / s))) for v in ms}
            succ = [i % trials < k[v] for i, v in enumerate(m)]
        out[T] = {"result": {"m": m, "success": succ, "final_train_acc": [1.0] * len(m), "min_train_loss": [1e-5] * len(m),
                             "planted_attention": [0.8 if x else 0.2 for x in succ], "top3_is_planted": succ}}
    return {"and": out}


def test_intervals_decide_only_off_the_boundary():
    """2 of 4 (the T = 400 cells when the paper profile ran 4 trials) cannot decide; 2 of 12 and 10 of 12 can, 3 of
    12 and 9 of 12 cannot."""
    assert rs.side_of_half([2, 4, 0], [4, 4, 4]).tolist() == [0, 0, 0]
    assert rs.side_of_half([2, 3, 9, 10, 12], [12] * 5).tolist() == [-1, 0, 0, 1, 1]
    lo, hi = rs.interval(2, 4)
    assert abs(float(lo) - 0.0676) < 1e-3 and abs(float(hi) - 0.9324) < 1e-3


def test_claims_can_fail():
    P = {"and_T": [100, 200, 800], "and_m": list(range(10, 201, 10)), "and_iters": 1000, "and_trials": 50}
    some = [r for r in ROWS if r.id.startswith(("A9", "A10", "A11", "A13"))]
    rows = lambda res: {r["id"]: r for r in evaluate(some, P, res)}
    ms = tuple(range(10, 201, 10))
    good = rows(_fake_and({T: 40 + 20 * math.log(T / 100) / math.log(2) for T in (100, 200, 800)}, 50, ms, s=8))
    assert all(r["passed"] for r in good.values()), [i for i, r in good.items() if not r["passed"]]
    linear = rows(_fake_and({100: 15, 200: 35, 800: 155}, 50, ms, s=8))      # m* = T / 5 - 5: read as T / 5
    assert not linear["A11b"]["passed"] and not linear["A11c"]["passed"] and "censored" not in linear["A11c"]
    flat = rows(_fake_and({100: 60, 200: 60, 800: 60}, 50, ms, s=8))          # no shift with T
    assert not flat["A13b"]["passed"] and flat["A13b"]["censored"]
    low = rows(_fake_and({100: 10, 200: 10, 800: 10}))
    assert not low["A9"]["passed"] and low["A9"]["kind"] == "check"   # m* = 10 is below log2 C(T, 3)
    fit = _fake_and({100: 40, 200: 50, 800: 70})
    fit["and"][100]["result"]["min_train_loss"] = [1.0] * 100
    assert not rows(fit)["A10"]["passed"]


def test_a_T_whose_m_star_lies_beyond_the_grid_counts():
    """A T whose m* the grid only bounds is never dropped: A9 and the figure read it as a bound, and A11b's fit over
    every (T, m) cell reads its counts, so m* in proportion to T FAILs A11b whether or not the largest T's m* lies in
    the grid; success that does not rise with m leaves A11b censored."""
    P = {"and_T": [100, 200, 800], "and_m": list(range(10, 101, 10)), "and_iters": 1000}
    some = [r for r in ROWS if r.id.startswith(("A9", "A11", "A13"))]
    rows = lambda P, res: {r["id"]: r for r in evaluate(some, P, res)}
    cen = rows(P, _fake_and({100: 40, 200: 50, 800: 1000}))           # m*(800) > 100
    assert rs.bounds(_fake_and({800: 1000}))[800] == (100.0, math.inf)
    assert not cen["A11a"]["passed"] and "censored" not in cen["A11a"]    # 0 of 10 at every m: decided below 1/2
    assert cen["A13b"]["passed"] and "censored" not in cen["A13b"]    # the curves move right
    assert cen["A9"]["kind"] == "check" and cen["A9"]["passed"]
    down = rows(P, _fake_and({100: 1000, 200: 50, 800: 40}))         # censored at the smallest T: falls whatever it is
    assert not down["A13b"]["passed"] and "censored" not in down["A13b"]
    low = _fake_and({100: 5, 200: 20, 800: 30})                      # below the grid at T = 100
    assert rs.bounds(low)[100] == (0.0, 10.0) and rs.mstar_text(rs.bounds(low)).startswith("≤ 10, 20")
    assert not rows(P, low)["A9"]["passed"]                          # m*(100) <= 10 < 17.3 bits
    ms = tuple(range(10, 201, 10))
    P = {"and_T": [100, 200, 800], "and_m": list(ms), "and_iters": 1000, "and_trials": 50}
    for mstar in ({100: 20, 200: 40, 800: 160}, {100: 20, 200: 40, 800: 1000}):     # in proportion to T
        a11b = rows(P, _fake_and(mstar, 50, ms, s=8))["A11b"]
        assert not a11b["passed"] and "censored" not in a11b, a11b["measured"]
    none = _fake_and({100: 20, 200: 40, 800: 160}, 50, ms, s=8)
    for rec in none["and"].values():
        rec["result"]["success"] = [False] * len(rec["result"]["m"])
    assert rows(P, none)["A11b"]["censored"]


def test_anchor_and_grid_read_censored_where_the_interval_holds_one_half():
    """A11a and A12 on the paper profile's counts at T = 400 when it ran 4 trials (1 of 4 at m = 100, 2 of 4 at m =
    150 to 200): censored, not FAIL; 12 trials with 1 and 11 successes decide them."""
    P = {"and_T": [100, 200, 400], "and_m": [50, 100, 150, 200], "and_iters": 1000}
    res = _fake_and({100: 50, 200: 100, 400: 1000}, trials=4, ms=(50, 100, 150, 200))
    r4 = res["and"][400]["result"]
    r4["success"] = [False] * 4 + [True] + [False] * 3 + [True, True, False, False] * 2
    rows = {r["id"]: r for r in evaluate([r for r in ROWS if r.id in ("A11a", "A12")], P, res)}
    assert rows["A12"]["censored"] and rows["A11a"]["censored"] and "2/4 at m = 200 [0.07, 0.93]" in rows["A11a"]["measured"]
    res12 = _fake_and({100: 50, 200: 100, 400: 150}, trials=12, ms=(50, 100, 150, 200))
    r12 = res12["and"][400]["result"]
    r12["success"] = [False] * 12 + [True] + [False] * 11 + [True] * 6 + [False] * 6 + [True] * 11 + [False]
    rows = {r["id"]: r for r in evaluate([r for r in ROWS if r.id in ("A11a", "A12")], P, res12)}
    assert rows["A12"]["passed"] and rows["A11a"]["passed"]
    r12["success"] = r12["success"][:36] + [True] * 4 + [False] * 8               # 4 of 12 at m = 200: decided
    rows = {r["id"]: r for r in evaluate([r for r in ROWS if r.id in ("A11a", "A12")], P, res12)}
    assert "censored" in rows["A12"] and not rows["A12"]["passed"]                 # (9 of 12 at 200 would be too)


def test_power_worlds_resample_within_cells_and_the_mechanism_raises_the_pass_rate():
    """The faithful world draws each (T, m) cell's trials from that cell alone (a cell where every trial succeeds stays
    so), every per-trial number following its trial; on a stored-like grid whose m* grows like log T, each row's own
    rule passes in its worlds with the mechanism more often than in the same trials relabelled without it."""
    ms = tuple(range(10, 201, 10))
    P = {"and_T": [100, 200, 800], "and_m": list(ms), "and_iters": 1000, "and_trials": 12, "heads": 16}
    res = _fake_and({T: 40 + 10 * math.log2(T / 100) for T in (100, 200, 800)}, 12, ms, s=8)   # m* = 40, 50, 70
    for rec in res["and"].values():
        r = rec["result"]
        r["planted_attention"] = [0.1 if x else 0.02 for x in r["success"]]
    sim = power.resample(P, res, np.random.default_rng(0))
    for T, rec in sim["and"].items():
        t, stored_t = rs.and_table(sim)[T], rs.and_table(res)[T]
        k, k0 = t["success"].sum(1), stored_t["success"].sum(1)
        assert ((k0 == 0) <= (k == 0)).all() and ((k0 == 12) <= (k == 12)).all()
        r = rec["result"]
        assert np.array_equal(np.asarray(r["planted_attention"]) == 0.1, np.asarray(r["success"], bool))
    linear = rs.and_table(power.LINEAR.draw(P, res, np.random.default_rng(0)))
    assert linear[800]["success"].sum(1)[-1] < 6                 # m* in proportion to T: beyond the grid at T = 800
    table = page.power(P, res, 20)
    assert not any(t["row"] == "A12" for t in table)              # not measured without T = 400: not in the table
    with_, without = ([t for t in table if t["mechanism"] == m and t["row"] != "A11c"] for m in (True, False))
    assert all(t["pass"] >= 0.8 for t in with_), [(t["row"], t["world"], t["pass"]) for t in with_]
    assert all(t["pass"] <= 0.2 for t in without), [(t["row"], t["world"], t["pass"]) for t in without]


def test_attention_sums_over_heads():
    """A16 reads the heads' summed attention on I (the stored mean over heads times the head count): 16 heads with a
    mean of 0.1 pass (the old mean rule failed them); a mean of 0.02 (sum 0.32) fails; so does a sum at the uniform
    share 3H/(T+1) though above 0.5."""
    row = [r for r in ROWS if r.id == "A16"]
    res = _fake_and({100: 40, 400: 60})
    for rec in res["and"].values():
        rec["result"]["planted_attention"] = [0.1] * len(rec["result"]["m"])
    assert evaluate(row, {"heads": 16}, res)[0]["passed"]
    for rec in res["and"].values():
        rec["result"]["planted_attention"] = [0.02] * len(rec["result"]["m"])
    assert not evaluate(row, {"heads": 16}, res)[0]["passed"]
    uniform = _fake_and({100: 40})
    uniform["and"][100]["result"]["planted_attention"] = [0.028] * 100
    assert not evaluate(row, {"heads": 32}, uniform)[0]["passed"]   # sum 0.90 > 0.5, below the uniform 0.95


def test_parity_median_counts_seeds_that_never_learn():
    """A seed that never reaches 0.99 is later than the run: 2 of 3 such seeds at T = 20 put its median beyond the
    run (the old median over the one learnt seed said 100, before T = 10's 200, and failed the row)."""
    learnt = lambda it: {"iters_logged": [0, 100, 200], "acc": [[0.5, 1.0 if it == 100 else 0.5, 1.0]], "test_acc": [1.0]}
    never = {"iters_logged": [0, 100, 200], "acc": [[0.5, 0.5, 0.5]], "test_acc": [0.5]}
    res = {10: {"result": {**learnt(200), "acc": learnt(200)["acc"] * 3}},
           20: {"result": {**never, "acc": learnt(100)["acc"] + never["acc"] * 2}}}
    row = evaluate([r for r in ROWS if r.id == "A14b"], {"parity_iters": 200}, {"parity": res})[0]
    assert row["passed"] and "T=20: > 200" in row["measured"]
    res[10]["result"]["acc"] = never["acc"] * 3                         # both medians beyond the run: undecided
    row = evaluate([r for r in ROWS if r.id == "A14b"], {"parity_iters": 200}, {"parity": res})[0]
    assert row["censored"] and not row["passed"] and "two consecutive $T$" in row["censored"]
    res[30] = {"result": {**learnt(100), "acc": learnt(100)["acc"] * 3}}   # a finite median after them: earlier
    row = evaluate([r for r in ROWS if r.id == "A14b"], {"parity_iters": 200}, {"parity": res})[0]
    assert not row["passed"] and "censored" not in row
    same = {T: {"result": {**learnt(100), "acc": learnt(100)["acc"] * 3}} for T in (10, 20)}   # equal: not later
    assert not evaluate([r for r in ROWS if r.id == "A14b"], {"parity_iters": 200}, {"parity": same})[0]["passed"]


def test_the_parity_world_without_a_trend_deals_the_seeds_to_the_T_at_random():
    """SHUFFLED pools the resampled seeds of every T up to 50 and deals them back, each T keeping its seed count, every
    per-seed number following its seed; T = 60 is left as it is."""
    seed = lambda T, i: {"acc": [0.5, T + i], "loss": [0.7, -(T + i)], "test_acc": T + i}
    res = {"parity": {T: {"spec": {"seeds": 3}, "result": {"iters_logged": [0, 50], **{k: [seed(T, i)[k] for i in range(3)]
                                                                                         for k in ("acc", "loss", "test_acc")}}}
                      for T in (10, 20, 60)}}
    sim = power.shuffled_T({}, res, np.random.default_rng(1))["parity"]
    got = {T: sim[T]["result"]["test_acc"] for T in sim}
    assert all(len(v) == 3 for v in got.values()) and set(got[60]) <= {60, 61, 62}
    assert set(got[10] + got[20]) <= {10, 11, 12, 20, 21, 22} and set(got[10]) - {10, 11, 12}   # mixed across T
    for T in (10, 20):
        r = sim[T]["result"]
        assert [a[1] for a in r["acc"]] == r["test_acc"] == [-x[1] for x in r["loss"]]


def test_weight_norms_are_the_corollary_norms():
    cfg = bt.ModelConfig(d=8, heads=2, dropout=0.0)
    p = bt.init(2, 6, cfg, torch.Generator().manual_seed(0))
    w = compute.weight_norms(p, cfg)
    q, k, v = (p[n][1].detach().double() for n in ("q_w", "k_w", "v_w"))
    heads = [slice(0, 4), slice(4, 8)]
    b_qk = [(q[:, h] @ k[:, h].T / 2).norm(dim=0).max() for h in heads]
    b_v = [torch.linalg.matrix_norm(v[:, h], 2) for h in heads]
    b_vinf = [v[:, h].norm(dim=1).max() for h in heads]
    cap = sum(a ** (2 / 3) + (2 * b * c) ** (2 / 3) for a, b, c in zip(b_vinf, b_qk, b_v)) ** 3
    assert math.isclose(w["qk_norm"][1], max(b_qk), rel_tol=1e-9) and math.isclose(w["capacity"][1], cap, rel_tol=1e-9)
    assert math.isclose(w["pos_norm"][1], float(p["wpe"][1].detach().double().norm(dim=1).max()), rel_tol=1e-9)


def test_run_and_records_the_iterations_it_validated_at():
    """iters not a multiple of eval_every: validation at 5, 10 and the last iteration 12 (the old code wrote
    [5, 10, 15] and cut the train-loss curve to two points)."""
    spec = compute.AndPoint(T=6, ms=(4,), trials=1, d=8, heads=2, dropout=0.1,
                            embd_dropout=True, lr=1e-3, weight_decay=1e-4, iters=12,
                            eval_every=5, n_val=32, max_elems=10 ** 6, seed=0)
    r = compute.run_and(spec, "cpu")
    assert r["checks"] == [5, 10, 12]
    assert len(r["curves"][4]["train_loss"]) == len(r["curves"][4]["val_acc"]) == 3


def test_run_parity_and_its_rows():
    spec = compute.ParityPoint(T=5, seeds=2, d=8, heads=2, dropout=0.1,
                            embd_dropout=True, lr=1e-3, weight_decay=1e-4, iters=4, batch=16,
                               log_every=2, seed=0)
    r = compute.run_parity(spec, "cpu")
    assert r["iters_logged"] == [0, 2, 3] and len(r["loss"]) == 2 and len(r["loss"][0]) == 3 and len(r["test_acc"]) == 2
    learnt = {"iters_logged": [0, 50, 100], "loss": [[0.69, 0.3, 0.0]] * 2, "acc": [[0.5, 0.9, 1.0]] * 2, "test_acc": [1.0, 1.0]}
    stuck = {"iters_logged": [0, 50, 100], "loss": [[0.69] * 3] * 2, "acc": [[0.5] * 3] * 2, "test_acc": [0.5, 0.5]}
    P = {}
    rows = lambda res: {r["id"]: r for r in evaluate([r for r in ROWS if r.id.startswith(("A14", "A15"))], P, res)}
    ok = rows({"parity": {10: {"result": learnt}, 60: {"result": stuck}}})
    assert ok["A14a"]["passed"] and ok["A15"]["passed"] and "A14b" not in ok     # one T <= 50: no ordering to check
    bad = rows({"parity": {10: {"result": stuck}, 60: {"result": learnt}}})
    assert not bad["A14a"]["passed"] and not bad["A15"]["passed"]
    assert rs.transition(learnt) == [100.0, 100.0]


def test_pack_bounds_padding_and_memory():
    spec = compute.AndPoint(T=800, ms=tuple(range(50, 201, 10)), trials=50, d=64, heads=16, dropout=0.1,
                            embd_dropout=True, lr=1e-3,
                            weight_decay=1e-4, iters=1, eval_every=1, n_val=1, max_elems=2 * 10 ** 8, seed=0)
    chunks = compute.pack(spec)
    assert sorted(j for c in chunks for j in c) == sorted((m, k) for m in spec.ms for k in range(50))
    for c in chunks:
        m_max = max(m for m, _ in c)
        assert len(c) * m_max <= compute.PAD * sum(m for m, _ in c) + 1e-9
        assert len(c) * m_max * 801 * 64 <= spec.max_elems


def test_findings_name_each_failed_claim_from_the_points():
    """The page's findings list, each unsettled row's own explanation: nothing when the claims pass; for undecided
    counts the deciding counts and their intervals, the likelihood ratio of the laws with the faithful world's rates
    where a power table is given, and the heads' summed attention, each computed from the points."""
    P = {"and_T": [100, 200, 400], "and_m": list(range(10, 101, 10)), "and_iters": 1000, "and_trials": 12, "heads": 16}
    claims = lambda res: evaluate([r for r in ROWS if r.id.startswith(("A10", "A11", "A12", "A13", "A16"))], P, res)
    good = _fake_and({100: 40, 200: 50, 400: 60}, trials=12)
    good_rows = claims(good)
    assert [r["id"] for r in good_rows if not r["passed"]] == ["A11c"]
    assert page.findings(P, good, [r for r in good_rows if r["id"] != "A11c"]) == ""
    bad = _fake_and({100: 30, 200: 40, 400: 1000}, trials=12)         # no m* at T = 400 up to m = 100
    bad["and"][400]["result"]["success"][-6:] = [True] * 6            # 6 of 12 at m = 100: undecided
    for r in bad["and"].values():
        r["result"]["planted_attention"] = [0.02 if s else 0.01 for s in r["result"]["success"]]
    rows = claims(bad)
    text, by_id = page.findings(P, bad, rows), {r["id"]: r for r in rows}
    assert "`A11a`" in text and "only at 2 or fewer, or at 10" in text and "`A11c`: 3 values of $T$" in text
    assert "T=400: undecided, 6/12 at m = 100 [0.21, 0.79]" in by_id["A11a"]["measured"]     # the counts: in the row
    assert "T=100: 0.32" in by_id["A16"]["measured"] and not by_id["A16"]["passed"]
    assert "`A11c`" in text and "resampled" not in text                                  # no power table given
    table = page.power(P, bad, 10)
    t = next(t for t in table if t["row"] == "A11c" and t["world"] == power.FAITHFUL.name)
    text = page.findings(P, bad, rows, table)
    assert f"(10 draws) the rule passes {page.share(t['pass'])}, FAILs {page.share(t['fail'])}" in text
    assert "A11c's rule favours log T on T = 100, 200, 400, 800 at m = 50 to 200" in text   # which grid decides
    assert "`A14a`" not in text                                          # no parity points: nothing said of them


def test_every_row_decides_and_words_its_rule_from_one_object(monkeypatch):
    """Each row holds a rule object (lib.core.rules) whose fields decide its verdict and write its rule text: raising
    A13a's bar fails the row and changes its words; A11b's text states its bound and its one-sided z."""
    import dataclasses

    from lib.chapters.sparse_variable_creation import claims as rows

    assert all(r.rule is not None and r.expected == r.rule.text for r in ROWS)
    P = {"and_T": [100, 200, 800], "and_m": list(range(10, 201, 10)), "and_iters": 1000, "and_trials": 50}
    res = _fake_and({T: 40 + 20 * math.log(T / 100) / math.log(2) for T in (100, 200, 800)}, 50, tuple(range(10, 201, 10)), s=8)
    assert rows.RULE_A13A.decide(rows._rises(P, res)).passed and "≥ 0.5 at every $T$" in rows.RULE_A13A.text
    monkeypatch.setattr(rows, "RULE_A13A", dataclasses.replace(rows.RULE_A13A, bound=1.01))
    assert not rows.RULE_A13A.decide(rows._rises(P, res)).passed and "≥ 1.01 at every $T$" in rows.RULE_A13A.text
    assert "($\\alpha$ + 1.64 SE) < 1" in rows.RULE_A11B.text


def test_the_page_numbers_of_the_scaling_rows_read_back_from_the_stored_results():
    """What the page states about A11b, A11c and A12 is computed from the stored paper results: the exponent, its SE
    and upper bound in A11b's row, the laws' likelihood ratio in A11c's, the two cells of A12's."""
    from lib.chapters import stored

    P, results = stored("sparse_variable_creation")
    rows = {r["id"]: r for r in page.claims(P, results)}
    f = rs.exponent_fit(rs.cells(rs.and_table(results)))
    up = f["alpha"] + rows_z() * f["se"]
    assert (f"exponent {f['alpha']:.3f}, SE {f['se']:.3f}: upper bound {up:.2f}"
            in rows["A11b"]["measured"]) and rows["A11b"]["passed"] == (up < 1)
    cmp = rs.compare_laws(rs.cells(rs.and_table(results)))
    assert f"likelihood ratio log / best other {cmp['ratio']:.2f}" in rows["A11c"]["measured"]
    t = rs.and_table(results)[400]
    k = dict(zip(t["m"], t["success"].sum(1)))
    assert rows["A12"]["measured"].startswith(f"{k[100]}/12 at m = 100") and f"{k[200]}/12 at m = 200" in rows["A12"]["measured"]
    text = page.findings(P, results, list(rows.values()))
    assert "`A11c`: 3 values of $T$ with 12 trials each cannot tell" in text
    says = page.grid_says(P, list(rows.values()))
    assert "T = 100, 200, 400, 12 trials" in says and "cannot tell log T from √T" in says and "$" not in says
    table = page.power(P, results, 10)
    rate = {(t["row"], t["world"]): t for t in table if t.get("seeds_times", 1) == 1}
    paper = "the paper's grid (11 T to 800, 16 m, 50 trials)"
    log, sqrt = (rate[("A11c", power.GRID_WORLDS[(paper, law)].name)] for law in ("log", "power"))
    says = page.grid_says(P, list(rows.values()), table)
    assert (f"on {paper}, in {page.share(log['pass'])} of 10 draws from the log law and {page.share(sqrt['pass'])} "
            "from the √T law" in says and "$" not in says)
    faithful = rate[("A11a", power.FAITHFUL.name)]
    assert f"the rule passes {faithful['pass']:.0%}, FAILs {faithful['fail']:.0%}" in page.findings(
        P, results, list(rows.values()), table)


def rows_z() -> float:
    from lib.chapters.sparse_variable_creation.claims import UPPER_Z
    return UPPER_Z


def test_a_row_its_power_leaves_undecided_is_explained_with_its_faithful_rates():
    """A row that passes while its faithful world passes under 80% (A14b on the stored parity seeds) is gated
    undecided (lib.core.gate) and gets a finding with its own explanation and those rates; a row whose power lets its
    pass stand gets none."""
    from lib.core.gate import gate

    P = {"parity_trials": 3, "parity_iters": 10000, "parity_batch": 2048}
    rows = [{"id": "A14b", "kind": "claim", "passed": True}, {"id": "A13a", "kind": "claim", "passed": True}]
    table = [{"row": "A14b", "world": power.PARITY.name, "role": "faithful", "mechanism": True, "draws": 200,
              "pass": 0.65, "fail": 0.35, "censored": 0.0},
             {"row": "A14b", "world": power.SHUFFLED.name, "role": "without", "mechanism": False, "draws": 200,
              "pass": 0.1, "fail": 0.9, "censored": 0.0},
             {"row": "A13a", "world": power.FAITHFUL.name, "role": "faithful", "mechanism": True, "draws": 200,
              "pass": 0.97, "fail": 0.03, "censored": 0.0},
             {"row": "A13a", "world": power.FLAT.name, "role": "without", "mechanism": False, "draws": 200,
              "pass": 0.0, "fail": 1.0, "censored": 0.0}]
    rows = gate(rows, table)
    assert rows[0]["undecided"].startswith("a faithful rerun passes 65%") and "undecided" not in rows[1]
    text = page.findings(P, {}, rows, table)
    assert "`A14b`: this run trains 3 seeds" in text and "(200 draws) the rule passes 65%" in text and "A13a" not in text


def test_the_committed_power_gives_every_claim_row_its_worlds_and_proportional_growth_fails_a11b():
    """On the committed paper results: every claim row has a faithful world and one without its mechanism; each
    world in which m* grows in proportion to T FAILs A11b's rule at least 80% of the time; an undecided row says
    what more seeds per cell would do (A14b: a multiple of the stored seeds; A11c: none, it needs a larger grid)."""
    from lib.core import gate
    from lib.core.store import ROOT, read_json

    d = ROOT / "results" / "sparse_variable_creation" / "paper"
    rows, table = {r["id"]: r for r in read_json(d / "claims.json")}, read_json(d / "power.json")
    for rid in (r for r, row in rows.items() if row["kind"] == "claim"):
        w = gate.worlds_of(table, rid)
        assert w["faithful"] and w["without"], rid
    proportional = gate.worlds_of(table, "A11b")["without"]          # each: m* in proportion to T
    assert len(proportional) == 3 and all(t["fail"] >= 0.8 for t in proportional), proportional
    assert "× the stored seeds per cell the rule's pass would stand" in rows["A14b"]["undecided"]
    assert "needs a larger grid" in rows["A11c"]["undecided"]



# ----------------------------------------------------------- small parameter sets the validator accepts: a page, no traceback
def _and_points(tmp_path, **over):
    from lib.core.store import Store
    from lib.core.sweep import collect

    P = params.resolve("sparse_variable_creation", "smoke", over)
    return P, collect([p for p in compute.points(P) if p.label[0] == "and"],
                      Store("sparse_variable_creation", "smoke", root=tmp_path), "cpu", log=None)


def test_a11b_power_where_success_does_not_rise_with_m(tmp_path):
    """The smoke profile with and_m [4, 8]: no trial learns the AND at these sizes, so the exponent fit finds no
    rise with m and has no critical size. A11b reads censored, and its worlds in which m* grows in proportion to T
    (`scaled`) move the fitted curve as it is (flat here) instead of asking the fit for an m* it does not have."""
    from lib.core.power import power_table

    P, res = _and_points(tmp_path, and_m=[4, 8])
    assert not rs.exponent_fit(rs.cells(rs.and_table(res)))["rise"] > 0
    assert evaluate([r for r in ROWS if r.id == "A11b"], P, res)[0]["censored"]
    table = power_table(ROWS, {"A11b": power.WORLDS["A11b"]}, P, res, draws=2)
    assert {t["world"] for t in table} >= {power.PROPORTIONAL.name, power.PROPORTIONAL_40.name}


def test_a11b_reads_a_fitted_m_star_beyond_float_range_as_inf(tmp_path):
    """The smoke profile with 10 iterations of training (and_iters 10, eval_every 10): success barely rises with m,
    and in some of A11b's power draws the fit puts c T^alpha beyond float range; the row's text reads it as inf."""
    from lib.core.power import power_table

    P, res = _and_points(tmp_path, and_iters=10, eval_every=10)
    assert power_table(ROWS, {"A11b": power.WORLDS["A11b"]}, P, res, draws=2)
    from lib.chapters.sparse_variable_creation.claims import _fitted_mstar
    assert _fitted_mstar({"ln_c": 800.0, "alpha": 2.0}, 10) == math.inf
    assert _fitted_mstar({"ln_c": 800.0, "alpha": -100.0}, 10) == pytest.approx(math.exp(800 - 100 * math.log(10)))
