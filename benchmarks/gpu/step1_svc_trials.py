"""Step 1: sparse_variable_creation's planted AND at the paper's 50 trials, then its full grid a piece at a time.

--grid fifty (the default): the paper profile with and_trials = 50 (T = 100, 200, 400; m = 50 to 200 in steps of
25): three AND points of 350 trainings each, every other point (the constructions, the parity runs) taken from the
committed paper points. It decides A11a, A11b and A12 on the paper's trial count.

--grid full: the paper's grid, T = 100 to 800 in 11 lengths, m = 50 to 200 in steps of 10, 50 trials (800
trainings per T), this profile's model and validation otherwise (n_val 1000 every 20 iterations, no embedding
dropout): one AND point per T, whose store key does not depend on which other T are in the grid, so the grid is
computed a piece of T at a time (`--set and_T=[...]` in each call) and the pieces' points make up the whole: each
call's tarball holds every point of the tarball it resumed from, so the last one holds the whole grid. A piece
is --T, or else the shortest T not yet stored (in the resumed tarball) whose predicted times fit the deadline: the
prediction is seconds per (T x training samples), from this step's points in the resumed tarball, else from the
committed T = 400 point (84 trainings in 40 s on an H200). It decides whether A11c tells log T from sqrt T.

    python3 benchmarks/gpu/step1_svc_trials.py --commit 0123abcdef             # on the GPU: $OUT/step1_svc_trials.tar.gz
    python3 benchmarks/gpu/step1_svc_trials.py --grid full --commit 0123abcdef  # $OUT/step1_svc_full_grid.tar.gz
    .venv/bin/python benchmarks/gpu/step1_svc_trials.py --device cpu --tiny --out /tmp/o   # seconds, on a CPU
"""
from __future__ import annotations

import json
import sys
import tarfile

import common

STEP, STEP_FULL, CHAPTER = "step1_svc_trials", "step1_svc_full_grid", "sparse_variable_creation"
FULL_T = [100, 150, 200, 250, 300, 350, 400, 500, 600, 700, 800]
FULL_M = list(range(50, 201, 10))
TRIALS = 50
# seconds per (T x sample x trial) of the committed T = 400 point computed on an H200: 40.15 s for m = 50..200 by 25
# (875 samples a trial) and 12 trials
H200_RATE = 40.15 / (400 * 875 * 12)
START_S = 40.0          # Python's and torch's start, the seeding and the constructions' check, within the deadline
TINY = {"fifty": ["and_T=[4, 6]", "and_m=[4, 8]", "and_trials=2"],
        "full": ["and_T=[4, 5, 6]", "and_m=[4, 6, 8]", "and_trials=2"]}
TINY_MODEL = ["and_iters=10", "eval_every=5", "n_val=32"]


def predicted(T: int, ms: list[int], trials: int, rate: float) -> float:
    return rate * T * sum(ms) * trials


def piece(todo: list[int], ms: list[int], trials: int, rate: float, budget: float) -> list[int]:
    """The shortest T of `todo` (ascending) whose predicted seconds together fit `budget`; at least one.

    >>> piece([100, 150, 200, 250], list(range(50, 201, 10)), 50, H200_RATE, 480)
    [100, 150, 200]
    """
    out, total = [], 0.0
    for T in sorted(todo):
        t = predicted(T, ms, trials, rate)
        if out and total + t > budget:
            break
        out.append(T)
        total += t
    return out


def full_grid_piece(args, ms: list[int], grid: list[int]) -> tuple[list[int], dict]:
    """The T of this call (--T, else `piece` over the T the resumed tarball lacks) and what the choice read."""
    from lib.core import params
    from lib.core.store import key_of, spec_dict

    sets = [f"and_T={grid}", f"and_m={ms}", f"and_trials={TRIALS if not args.tiny else 2}", f"device={args.device}",
            *(TINY_MODEL if args.tiny else []), *args.extra]
    P = params.resolve(CHAPTER, "paper", params.parse_overrides(sets))
    from lib.chapters import points_of

    keys = {key_of(spec_dict(p.spec)): p.spec for p in points_of(CHAPTER, P) if p.label[0] == "and"}
    resume = common.resume_path(STEP_FULL, args.resume)
    done, rates = set(), []
    if resume is not None:
        with tarfile.open(resume) as tar:
            for m in tar.getmembers():
                key = m.name.rsplit("/", 1)[-1][:-len(".json")]
                if m.isfile() and f"/{common.PROFILE}/points/" in m.name and key in keys:
                    spec = keys[key]
                    done.add(spec.T)
                    rec = json.load(tar.extractfile(m))
                    if rec["device"] == args.device_name:
                        rates.append(rec["result"]["wall_s"] / (spec.T * sum(spec.ms) * spec.trials))
    rate = max(rates) if rates else H200_RATE
    todo = [T for T in grid if T not in done]
    if args.T:
        return sorted(args.T), {"rate_s": rate, "stored_before": sorted(done)}
    if not todo:
        return [], {"rate_s": rate, "stored_before": sorted(done)}
    budget = args.deadline - common.MARGIN_S - START_S
    chosen = piece(todo, ms, TRIALS, rate, budget) if not args.tiny else todo
    return chosen, {"rate_s": rate, "stored_before": sorted(done), "budget_s": budget,
                    "predicted_s": {T: round(predicted(T, ms, TRIALS, rate)) for T in todo}}


def main(argv=None) -> int:
    ap = common.parser(__doc__.split("\n\n")[0], jobs=1)
    ap.add_argument("--grid", choices=("fifty", "full"), default="fifty",
                    help="fifty: 50 trials at T = 100, 200, 400 (default); full: the paper's grid, a piece of T per call")
    ap.add_argument("--T", type=lambda s: [int(x) for x in s.split(",")], default=None,
                    help="--grid full: the T of this call, comma-separated (default: the shortest not yet stored that fit)")
    args = ap.parse_args(argv)
    args.device_name = _device_name(args.device)
    if args.grid == "fifty":
        sets = TINY["fifty"] + TINY_MODEL if args.tiny else [f"and_trials={TRIALS}"]
        return common.run(STEP, CHAPTER, args, sets)
    grid = [4, 5, 6] if args.tiny else FULL_T
    ms = [4, 6, 8] if args.tiny else FULL_M
    Ts, note = full_grid_piece(args, ms, grid)
    if not Ts:
        print(f"{STEP_FULL}: every T of the full grid is stored in the resumed tarball: nothing to compute")
        Ts = grid
    print(f"{STEP_FULL}: the full grid's piece T = {Ts} ({note})", flush=True)
    sets = [f"and_T={Ts}", f"and_m={ms}", f"and_trials={2 if args.tiny else TRIALS}", *(TINY_MODEL if args.tiny else [])]
    return common.run(STEP_FULL, CHAPTER, args, sets, note={"full_grid": {"piece": Ts, **note}})


def _device_name(device: str) -> str:
    from lib.core.store import device_name

    return device_name(device)


if __name__ == "__main__":
    sys.exit(main())
