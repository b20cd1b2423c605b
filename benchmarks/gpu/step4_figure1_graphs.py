"""Step 4: Figure 1 at the machine's limit: the engine's CUDA graphs against the stored float32 points, then the
whole figure from nothing in one call.

--part subset (the default): sample_complexity's Figure 1 points on every N of panel (a) and on panel (b)'s first and
last N (25 and 33), on the first task draw (every model; the GRU one point per run), recomputed with the engine's
switches `pad` and `compile="reduce-overhead"` (CUDA graphs: measured 2.64x on the panel (b) GRU) into a scratch copy
of the committed paper points. `python -m lib diff sample_complexity paper <the folder>` then says whether a verdict
moved and whether every number stayed within its seeds' spread: the switches are adopted only where none moved.

--part whole: all of Figure 1 (both panels, every N, the first task draw) recomputed from nothing in one call, with
the switches (or --switches off: the engine's default), timed: the goal is 60 s.

No chapter parameter sets a switch (a switch becomes one once it is shown to move nothing), so this step does not go
through `python -m lib compute`: it collects the same points through lib.core.sweep.collect with a run function
that builds the engine's TrainConfig with the switches on. Their store keys are the default path's, so every point
it computes records `[switches: ...]` after its device name: evidence for the diff, never points to commit. On a CPU
compile is off unless --compile names a mode (torch.compile's CPU compilation takes minutes); pad is on.

    python3 benchmarks/gpu/step4_figure1_graphs.py --commit 0123abcdef                 # $OUT/step4_figure1_graphs.tar.gz
    python3 benchmarks/gpu/step4_figure1_graphs.py --part whole --commit 0123abcdef    # $OUT/step4_figure1_whole.tar.gz
    .venv/bin/python benchmarks/gpu/step4_figure1_graphs.py --device cpu --tiny --out /tmp/o   # seconds, on a CPU
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys

import common

CHAPTER = "sample_complexity"
STEPS = {"subset": "step4_figure1_graphs", "whole": "step4_figure1_whole"}
ENV = "GPU_STEP_SWITCHES"     # the switches, as JSON, for run_switched in this process and in spawned workers
# Tiny: Figure 1 at N = 2, 3 (a) and 4, 5, 6 (b), 2 seeds, tiny models, 64 test prompts, 50 steps at most; no further
# task draws, wide sweep or attention point (every key is new, so nothing is seeded).
TINY = ["N_a=[2, 3]", "N_b=[4, 5, 6]", "n_seeds=2", "n_test=64", "max_samples=3200", "ffn_width=16", "mlp_width=8",
        "rnn_hidden=8", "n_task_draws=1", "N_wide=[2]", "attention_N=0", "check_every_b=10"]


def run_switched(spec, device: str) -> dict:
    """sample_complexity's run_point with the engine's TrainConfig built with the switches of $GPU_STEP_SWITCHES."""
    from lib.chapters.sample_complexity import compute as sc
    from lib.science import engine

    switches = json.loads(os.environ.get(ENV) or "{}")
    plain = engine.TrainConfig
    engine.TrainConfig = functools.partial(plain, **switches)
    try:
        return sc.run_point(spec, device)
    finally:
        engine.TrainConfig = plain


def figure1(point, N_b: list[int], part: str) -> bool:
    """Whether a point is one of Figure 1's on the first task draw: every N of panel (a), and with part 'subset' panel
    (b)'s first and last N only."""
    label = point.label[0]
    if label[0] not in ("a", "b") or (len(label) > 3 and label[3] != 0):
        return False
    return part == "whole" or label[0] == "a" or label[2] in (min(N_b), max(N_b))


def main(argv=None) -> int:
    ap = common.parser(__doc__.split("\n\n")[0], jobs=16)
    ap.add_argument("--part", choices=tuple(STEPS), default="subset",
                    help="subset: panel (a) and panel (b)'s first and last N against the stored points (default); "
                         "whole: all of Figure 1 from nothing, timed")
    ap.add_argument("--switches", choices=("on", "off"), default="on", help="the engine's pad and compile (default on)")
    ap.add_argument("--compile", default=None,
                    help="torch.compile mode with the switches (default reduce-overhead on cuda, none on cpu; 'none': off)")
    args = ap.parse_args(argv)
    mode = args.compile or ("reduce-overhead" if args.device == "cuda" else "none")
    switches = {} if args.switches == "off" else {"pad": True, **({"compile": mode} if mode != "none" else {})}
    os.environ[ENV] = json.dumps(switches)
    sets = list(TINY) if args.tiny else []
    from lib.core import params

    N_b = params.resolve(CHAPTER, common.PROFILE, params.parse_overrides(sets + args.extra))["N_b"]
    pick = functools.partial(figure1, N_b=N_b, part=args.part)

    def swap(points: list) -> list:
        return [dataclasses.replace(p, run=run_switched) if switches and pick(p) else p for p in points]

    shown = ", ".join(f"{k}={v}" for k, v in switches.items()) or "none (the default path)"
    note = f" [switches: {shown}]" if switches else ""
    return common.run(STEPS[args.part], CHAPTER, args, sets, recompute=pick, swap=swap, env_note=note,
                      note={"switches": switches, "part": args.part})


if __name__ == "__main__":
    sys.exit(main())
