"""sparse_variable_creation: unit tests of its constructions, generators, batched trainer and claims (the chapter's
end-to-end run is in test_book_e2e.py)."""
import math

import numpy as np
import pytest
import torch

from lib.chapters.sparse_variable_creation import compute, page
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
    P = {"seed": 0, "lipschitz_pairs": 10, "lipschitz_T_max": 10, "truncation_instances": 1, "construction_T": [20],
         "construction_s": [2], "minimal_R_T": [20, 40], "exhaustive_T": 6, "random_T": 20, "random_inputs": 10,
         "symmetric_s_max": 2, "general_s_max": 2, "and_T": [6, 12], "and_m": [4, 8], "and_trials": 2, "and_iters": 10,
         "eval_every": 5, "n_val": 64, "d_model": 8, "heads": 2, "dropout": 0.1,
              "embd_dropout": True, "lr": 1e-3, "weight_decay": 1e-4,
         "max_elems": 10 ** 6, "parity": False, "parity_T": [10], "parity_trials": 1, "parity_iters": 1, "parity_batch": 8,
         "parity_log_every": 1}
    keys = [key_of(spec_dict(p.spec)) for p in compute.points(P)]
    assert len(set(keys)) == len(keys) == 3
    assert keys == [key_of(spec_dict(p.spec)) for p in compute.points({**P, "parity_T": [12]})]   # parity off
    assert compute.check_params(P) == [] and compute.check_params({**P, "heads": 3})


# ------------------------------------------------------------------------------------------- success statistic
def test_critical_sample_size_and_bootstrap():
    ms = np.array([10, 20, 30])
    success = np.array([[0, 0, 0, 1], [1, 1, 0, 0], [1, 1, 1, 0]], bool)   # fractions 0.25, 0.5, 0.75
    assert page.critical_m(ms, success) == 30                                # "exceeds 1/2": 0.5 is not enough
    assert np.isnan(page.critical_m(ms, np.zeros((3, 4), bool)))
    m, se = page.critical_with_se(ms, np.array([[0] * 10, [1] * 10, [1] * 10], bool))
    assert m == 20 and se == 0


def _fake_and(mstar: dict, trials=10, ms=tuple(range(10, 101, 10))):
    out = {}
    for T, ms_star in mstar.items():
        m = [v for v in ms for _ in range(trials)]
        s = [v >= ms_star for v in m]
        out[T] = {"result": {"m": m, "success": s, "final_train_acc": [1.0] * len(m), "min_train_loss": [1e-5] * len(m),
                             "planted_attention": [0.8 if x else 0.2 for x in s], "top3_is_planted": s}}
    return {"and": out}


def test_claims_can_fail():
    P = {"and_T": [100, 200, 800], "and_m": list(range(10, 101, 10)), "and_iters": 1000}
    some = [r for r in page.ROWS if r.id.startswith(("A9", "A10", "A11", "A13"))]
    rows = lambda res: {r["id"]: r for r in page.evaluate(some, P, res)}
    good = rows(_fake_and({100: 40, 200: 50, 800: 70}))          # m* = a + b ln T exactly
    assert all(r["passed"] for r in good.values())
    linear = rows(_fake_and({100: 30, 200: 40, 800: 100}))        # m* = 20 + T / 10
    assert not linear["A11b"]["passed"] and not linear["A11c"]["passed"]
    low = rows(_fake_and({100: 10, 200: 10, 800: 10}))
    assert not low["A9"]["passed"] and low["A9"]["kind"] == "check"   # m* = 10 is below log2 C(T, 3)
    flat = _fake_and({100: 40, 200: 50, 800: 70})
    flat["and"][100]["result"]["min_train_loss"] = [1.0] * 100
    assert not rows(flat)["A10"]["passed"]


def test_a_T_without_critical_m_is_censored_not_dropped():
    """The old fits dropped T = 800 (no m* up to m = 100) and passed A11b/A11c/A13b on the two T left; now the censored
    T enters as a bound: rows it cannot decide read "censored", rows it decides are decided."""
    P = {"and_T": [100, 200, 800], "and_m": list(range(10, 101, 10)), "and_iters": 1000}
    some = [r for r in page.ROWS if r.id.startswith(("A9", "A11", "A13"))]
    rows = lambda res: {r["id"]: r for r in page.evaluate(some, P, res)}
    cen = rows(_fake_and({100: 40, 200: 50, 800: 1000}))             # m*(800) > 100: censored
    assert page.bounds(_fake_and({800: 1000}))[800] == (100.0, math.inf)
    for i in ("A11b", "A11c"):
        assert cen[i]["censored"] and not cen[i]["passed"] and "T = [800]" in cen[i]["censored"]
    assert cen["A13b"]["passed"] and "censored" not in cen["A13b"]    # m* rises whatever m*(800) > 100 is
    assert cen["A9"]["kind"] == "check" and cen["A9"]["passed"]
    down = rows(_fake_and({100: 1000, 200: 50, 800: 40}))            # censored at the smallest T: falls whatever it is
    assert not down["A13b"]["passed"] and "censored" not in down["A13b"]
    steep = rows(_fake_and({100: 10, 200: 30, 800: 1000}))          # exponent >= 0.5 for every m*(800) > 100
    assert not steep["A11b"]["passed"] and "censored" not in steep["A11b"]
    lo, hi = page.slope_range([0.0, 1.0], [1.0, 2.0], [1.0, math.inf])
    assert lo == 1.0 and hi == math.inf


def test_parity_median_counts_seeds_that_never_learn():
    """A seed that never reaches 0.99 is later than the run: 2 of 3 such seeds at T = 20 put its median beyond the
    run (the old median over the one learnt seed said 100, before T = 10's 200, and failed the row)."""
    learnt = lambda it: {"iters_logged": [0, 100, 200], "acc": [[0.5, 1.0 if it == 100 else 0.5, 1.0]], "test_acc": [1.0]}
    never = {"iters_logged": [0, 100, 200], "acc": [[0.5, 0.5, 0.5]], "test_acc": [0.5]}
    res = {10: {"result": {**learnt(200), "acc": learnt(200)["acc"] * 3}},
           20: {"result": {**never, "acc": learnt(100)["acc"] + never["acc"] * 2}}}
    row = page.evaluate([r for r in page.ROWS if r.id == "A14b"], {"parity_iters": 200}, {"parity": res})[0]
    assert row["passed"] and "T=20: > 200" in row["measured"]
    res[10]["result"]["acc"] = never["acc"] * 3                         # both medians beyond the run: undecided
    row = page.evaluate([r for r in page.ROWS if r.id == "A14b"], {"parity_iters": 200}, {"parity": res})[0]
    assert row["censored"] and not row["passed"]


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
    rows = lambda res: {r["id"]: r for r in page.evaluate([r for r in page.ROWS if r.id.startswith(("A14", "A15"))], P, res)}
    ok = rows({"parity": {10: {"result": learnt}, 60: {"result": stuck}}})
    assert ok["A14a"]["passed"] and ok["A15"]["passed"] and "A14b" not in ok     # one T <= 50: no ordering to check
    bad = rows({"parity": {10: {"result": stuck}, 60: {"result": learnt}}})
    assert not bad["A14a"]["passed"] and not bad["A15"]["passed"]
    assert page.transition(learnt) == [100.0, 100.0]


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
    """The page's findings list: nothing when the claims pass; for a censored largest T the success counts and their
    binomial interval, the exponent's lower bound, and the attention shares, each computed from the points."""
    P = {"and_T": [100, 200, 400], "and_m": list(range(10, 101, 10)), "and_iters": 1000, "and_trials": 4, "heads": 16}
    claims = lambda res: page.evaluate([r for r in page.ROWS if r.id.startswith(("A10", "A11", "A12", "A13", "A16"))],
                                       P, res)
    good = _fake_and({100: 40, 200: 50, 400: 60}, trials=4)
    assert page.findings_markdown(P, good, claims(good)) == ""
    bad = _fake_and({100: 30, 200: 40, 400: 1000}, trials=4)          # no m* at T = 400 up to m = 100
    for r in bad["and"].values():
        r["result"]["planted_attention"] = [0.3 if s else 0.1 for s in r["result"]["success"]]
    text = page.findings_markdown(P, bad, claims(bad))
    assert "at $T$ = 400 no $m$ of the grid" in text and "0/4 at m = 100" in text and "[0.00, 0.60]" in text
    assert "power-law exponent of at least" in text and "`A16`" in text and "0.30, 0.30" in text
    assert "`A14a`" not in text                                          # no parity points: nothing said of them
