"""The sample-complexity chapter's attention point (compute.run_attention, claims/attention.py) and Figure 1's bands."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from lib.chapters.sample_complexity import compute as sc
from lib.chapters.sample_complexity import figures, page
from lib.chapters.sample_complexity.claims import attention, power
from lib.chapters.sample_complexity.results.bootstrap import replicates
from lib.core import params
from lib.core.power import power_table
from lib.core.store import key_of, spec_dict
from lib.science.qstr import embed_dim_rule, rademacher_codes


def simulated(N: int, strength: float, noise: float = 0.4, runs: int = 5, prompts: int = 40, seed: int = 0) -> dict:
    """An attention point's result from simulated attention: scores strength <w_{t_i}, w_j> + noise (N(0, noise^2)
    per query and key) on fresh codes and prompts, softmax over the keys; strength 0 is attention blind to the codes
    (at N = 12, strength 1.3 reads the code about as the paper run does: a peak at t_i at about 3/4 of the positions)."""
    gen = torch.Generator().manual_seed(seed)
    E = rademacher_codes(N, embed_dim_rule(N, "floor"), gen)
    t = torch.randint(0, N, (prompts, N), generator=gen)
    scores = strength * (E[t] @ E.T) + noise * torch.randn(runs, prompts, N, N, generator=gen)
    return {**sc.attention_stats(torch.softmax(scores, -1), t, E), "qk_block_share": [float("nan")] * runs,
            "samples": [[float("nan")] * 2] * runs, "d_e": E.shape[1]}


def test_the_attention_point_is_figure_1s_transformer_read_after_the_same_training():
    """The attention point trains the runs its Figure 1 point trains (same tests, streams and stopping rule): the same
    sample counts; and it reads every run on the same prompts."""
    Q = {**params.resolve("sample_complexity", "quick"), "N_a": [4], "n_seeds": 2, "attention_N": 4,
         "attention_seeds": 2, "attention_prompts": 30, "n_test": 64, "max_samples": 6400}
    (point,) = sc.attention_points(Q)
    assert point.label == (("attention", "transformer", 4),) and point.spec.n_seeds == 2
    res = sc.run_attention(point.spec, "cpu")
    np.testing.assert_array_equal(res["samples"], sc.run_point(sc.point_spec(Q, "a", "transformer", 4), "cpu")["samples"])
    assert np.array(res["share_per_prompt"]).shape == (2, 30) and res["peak_n"] == 30 * 4
    assert np.array(res["example"]).shape == (2, 4, 4) and len(res["qk_block_share"]) == 2


def test_the_attention_point_adds_one_point_and_moves_no_other():
    P = params.resolve("sample_complexity", "paper")
    assert [p.label for p in sc.attention_points(P)] == [(("attention", "transformer", 12),)]
    assert sc.attention_points(P)[0].spec.n_seeds == P["attention_seeds"]
    before = {key_of(spec_dict(p.spec)) for p in sc.points({**P, "attention_N": 0})}
    older = {k: v for k, v in P.items() if not k.startswith("attention_")}          # parameters stored before it
    assert {key_of(spec_dict(p.spec)) for p in sc.points(older)} == before
    assert len(sc.points(P)) == len(before) + 1


def test_attention_stats_reads_where_the_attention_goes():
    """On t_i alone: mass 1 and a peak at every position; uniform: mass 1/N, a flat curve over the overlaps; a score
    rising with <w_{t_i}, w_j>: a curve rising with the overlap."""
    gen = torch.Generator().manual_seed(0)
    N, B = 6, 50
    E = sc.qstr.rademacher_codes(N, 8, gen)
    t = torch.randint(0, N, (B, N), generator=gen)
    onehot = torch.nn.functional.one_hot(t, N).float()[None]
    s = sc.attention_stats(onehot, t, E)
    assert s["share"] == [1.0] and s["peak_k"] == [B * N]
    u = sc.attention_stats(torch.full((1, B, N, N), 1 / N), t, E)
    assert u["share"][0] == pytest.approx(1 / N)
    curve = np.array(u["by_overlap"][0], float)
    np.testing.assert_allclose(curve[np.isfinite(curve)], 1 / N, rtol=1e-5)
    reads = sc.attention_stats(torch.softmax(3 * (E[t] @ E.T), -1)[None], t, E)
    c = np.array(reads["by_overlap"][0], float)
    levels = np.array(reads["overlap_levels"])
    seen = np.isfinite(c) & (levels < 1)
    assert np.all(np.diff(c[seen][::-1]) > 0)           # levels run from 1 down: the weight rises with the overlap


def test_the_attention_row_passes_its_resampled_runs_and_fails_runs_blind_to_the_codes():
    """The row's worlds (claims/power.py) on a simulated point of 5 runs that reads the code: its runs resampled by
    seed pass in every draw; the same runs with their peaks drawn as attention blind to the codes places them (at
    t_i with chance 1/N) pass in none; and a point whose attention ignores the codes fails its own faithful world."""
    key = ("attention", "transformer", 12)
    Q = {"attention_N": 12}
    rec = lambda strength: {key: {"spec": {"n_seeds": 5}, "result": simulated(12, strength)}}
    table = power_table([attention.ROW], {attention.ROW.id: power.WORLDS[attention.ROW.id]}, Q, rec(1.3), 20)
    assert [(t["mechanism"], t["pass"]) for t in table] == [(True, 1.0), (False, 0.0)]
    blind = power_table([attention.ROW], {attention.ROW.id: power.WORLDS[attention.ROW.id]}, Q, rec(0.0), 20)
    assert blind[0]["pass"] == 0.0
    drawn = power.blind(Q, rec(1.3), np.random.default_rng(0))[key]["result"]
    assert len(drawn["peak_k"]) == 5 and max(drawn["peak_k"]) / drawn["peak_n"] < 0.2     # about 1/12


def test_the_attention_row_comes_last_and_leaves_the_figure_1_rows_alone():
    from tests.test_sample_complexity import P, paper_like

    records = paper_like()
    rows = page.claims(P, records)
    assert "5-attn-reads-t" not in [r["id"] for r in rows]                       # no attention point: no row
    Q = {**P, "attention_N": 12}
    records[("attention", "transformer", 12)] = {"result": simulated(12, 1.3)}
    with_row = page.claims(Q, records)
    assert with_row[:-1] == rows and with_row[-1]["id"] == "5-attn-reads-t" and with_row[-1]["passed"]
    assert "hypothesis (this book)" in with_row[-1]["source"] and with_row[-1]["expected"] == attention.RULE_PEAK.text
    records[("attention", "transformer", 12)] = {"result": simulated(12, 0.0)}
    assert not page.claims(Q, records)[-1]["passed"]


def test_figure_1_bands_are_the_claims_bootstrap_over_draws_and_seeds():
    """Each band is the BAND interval of the replicates the claim rows test: it holds the mean, and a model whose task
    draws disagree gets a wider band than one whose draws agree with the same seeds."""
    from tests.test_sample_complexity import P

    rng = np.random.default_rng(0)
    seeds = rng.lognormal(0, 0.05, (1, 3, 5))
    agree = {"N": [4], "by_draw": 1000 * seeds}
    differ = {"N": [4], "by_draw": 1000 * seeds * np.array([0.7, 1.0, 1.4])[None, :, None]}
    lo, hi = figures.band(P, "a", "ffn", agree)
    mean = agree["by_draw"].mean()
    assert lo[0] < mean < hi[0]
    lo2, hi2 = figures.band(P, "a", "ffn", differ)
    assert np.log(hi2[0] / lo2[0]) > 5 * np.log(hi[0] / lo[0])
    reps = replicates(differ, (P["seed"], "a", "ffn"))
    assert (lo2[0], hi2[0]) == pytest.approx(tuple(np.quantile(reps[:, 0], [0.025, 0.975])))
