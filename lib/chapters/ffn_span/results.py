"""The ffn_span page's numbers, read from the chapter's collected points: the FFN's learning curve per N with its
samples to threshold (`ffn_table`), the span-restricted least-squares learner's (`readout_table`), and the FFN of
Figure 1(b), read from the sample_complexity chapter's stored points (`adamw_reference`). No computation imports
this module, so editing it leaves the stored points current.

    >>> from lib.chapters import stored; P, results = stored("ffn_span")   # the committed paper results
    >>> table = ffn_table(P, results); sorted(table), table[4]["n"][:3], table[4]["Nd"]
    ([4, 6, 8], [5, 10, 20], 40)
    >>> ref = adamw_reference("paper"); ref["N"], [f"{m:,.0f}" for m in ref["mean"]]   # panel (b)'s FFN, stored
    ([25, 27, 29, 31, 33], ['145,067', '269,653', '343,467', '465,493', '610,133'])
"""
from __future__ import annotations

from lib.chapters import points_of
from lib.core.store import MissingResult, Store, result_array
from lib.core.sweep import collect
from lib.science.sample_counts import summarize
from lib.science.stats import log_crossing, standard_error


def samples_to_threshold(n, mse, threshold: float) -> float:
    """The n at which the mean test-MSE curve first drops below `threshold` (interpolated in log n); NaN if never
    (above the grid: n* > its largest n), BELOW_GRID (-inf) if its smallest n is below already (n* <= n[0])."""
    return log_crossing(n, mse, threshold, strict=True)


def readout_table(P: dict, results: dict) -> dict:
    """{N: {"n", "Nd", "mean", "se"}}: the span-restricted least-squares learner's test MSE (experiments/readout.py), mean and
    standard error over its draws (each its own training set and u), per n < Nd."""
    out = {}
    for N in sorted(P["N_grid"]):
        rec = results["readout"][N]
        mse = result_array(rec, "readout_mse")
        out[N] = {"n": rec["result"]["n"], "Nd": N * P["d"], "mean": mse.mean(1), "se": standard_error(mse, 1)}
    return out


def ffn_table(P: dict, results: dict) -> dict:
    """{N: {"n", "Nd", "mean", "se", "oracle", "nstar"}} for the N of the grid (plain prompts): mean test MSE over
    runs (each its own u), its standard error, the oracle's mean on the same prompts, and samples to threshold."""
    out = {}
    for N in sorted(P["N_grid"]):
        rec = results["ffn"][(N, False)]
        mse = result_array(rec, "test_mse")
        mean = mse.mean(1)
        out[N] = {"n": rec["result"]["n"], "Nd": N * P["d"], "mean": mean, "se": standard_error(mse, 1),
                  "oracle": result_array(rec, "oracle_mse").mean(1),
                  "nstar": samples_to_threshold(rec["result"]["n"], mean, P["threshold"])}
    return out


# ------------------------------------------------------------------------------- the AdamW FFN of Figure 1
def adamw_reference(profile: str) -> dict:
    """The FFN's samples-to-threshold on simple-1STR from the sample_complexity chapter's stored points (panel b),
    for the parameters of its last run; never computed here. {"available": False, "why": ...} when absent."""
    store = Store("sample_complexity", profile, stored_only=True)
    prov = store.read("provenance.json") or store.read("compute.json")
    if not prov or "params" not in prov:
        return {"available": False, "why": f"the sample_complexity chapter has no stored `{profile}` run yet "
                "(run it first: `python -m lib run sample_complexity --profile " + profile + "`)"}
    sp = prov["params"]
    if "ffn" not in sp.get("models", []):
        return {"available": False, "why": "the stored sample_complexity run trained no FFN"}
    try:   # panel (b)'s FFN points only: the page needs no other
        recs = collect([p for p in points_of("sample_complexity", sp) if p.label[0][:2] == ("b", "ffn")], store, "cpu",
                       log=None)
    except MissingResult:
        recs = {}
    e = summarize(recs, float(sp["max_samples"])).get("b", {}).get("ffn", {}).get("task")
    if e is None or len(e["N"]) < 2:
        return {"available": False,
                "why": f"fewer than two stored FFN points of panel (b) in results/sample_complexity/{profile}/"}
    return {"available": True, "N": e["N"], "mean": e["mean"].tolist(), "censored": e["censored"].tolist(),
            "d": sp["d"], "threshold": sp["threshold_b"],
            "lr": sp["lr"], "batch_size": sp["batch_size"], "n_seeds": sp["n_seeds"], "ffn_width": sp["ffn_width"]}
