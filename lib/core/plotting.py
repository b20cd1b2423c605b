"""One style for every figure of the book, set through seaborn's theme: colours per architecture (the authors'),
sizes, labels, and means over seeds with bootstrap intervals (`mean_ci`) instead of hand-rolled error bands.

    >>> fig, ax = figure(); ax.plot([1, 2], [3, 4], color=COLORS["ffn"])
    [<matplotlib.lines.Line2D object at ...>]
    >>> mean_ci(ax, [1, 2], [[3.0, 3.2, 2.9], [4.1, 3.8, 4.0]], color=COLORS["ffn"], label="FFN")
    <Axes: ...>
"""
from __future__ import annotations

import matplotlib.pyplot as plt  # headless machines get Agg by default, notebooks the inline backend
import numpy as np

# architectures as in the plots.ipynb of Mousavi-Hosseini et al. 2025; optimizers (gd, adamw) for the chapters that compare them
COLORS = {"ffn": "#8da0cb", "rnn": "#fc8d62", "transformer": "#66c2a5", "gd": "#8da0cb", "adamw": "#e78ac3"}
MARKERS = {"ffn": "s", "rnn": "o", "transformer": "^"}

# On top of seaborn's "ticks" theme and colour-blind palette: no top/right spines, a light grid, and type that stays
# readable where a page shows a figure at two thirds of its size (a 9.2-inch figure in the 676-px text column).
# Pixels at twice the 110 dpi the sizes were chosen for (DPI): a page scales every figure to its column, and a
# HiDPI screen shows that column with two device pixels per CSS pixel, so a figure drawn at 110 dpi (518 to 1,101
# px wide) was blurred there; the layout, set in inches and points, is the same at either.
DPI = 220
STYLE = {
    "figure.dpi": DPI, "savefig.dpi": DPI, "font.size": 10.5, "axes.titlesize": 11, "axes.labelsize": 10.5,
    "xtick.labelsize": 10, "ytick.labelsize": 10, "legend.fontsize": 9.5,
    "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3,
    "legend.frameon": False, "figure.constrained_layout.use": True,
    # matplotlib's tick and spine geometry rather than the "notebook" context's longer, heavier ticks: legends placed
    # below an axes at a fixed offset stay clear of its label
    "xtick.major.size": 3.5, "ytick.major.size": 3.5, "xtick.minor.size": 2, "ytick.minor.size": 2,
    "xtick.major.width": 0.8, "ytick.major.width": 0.8, "xtick.minor.width": 0.6, "ytick.minor.width": 0.6,
    "axes.linewidth": 0.8, "grid.linewidth": 0.8,
}
CI_LEVEL = 95          # % : the bootstrap interval of every mean over seeds the book draws
N_BOOT = 2000          # resamples of the seeds; with BOOT_SEED the bands are the same at every build
BOOT_SEED = 0


def use_style() -> None:
    import seaborn as sns

    sns.set_theme(context="notebook", style="ticks", palette="colorblind", rc=STYLE)


def figure(ncols: int = 1, nrows: int = 1, width: float = 4.6, height: float = 3.6, squeeze: bool | None = None, **kw):
    """A styled figure; one Axes when there is one panel, else an array (squeeze=False: always (nrows, ncols))."""
    use_style()
    squeeze = nrows * ncols == 1 if squeeze is None else squeeze
    return plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=squeeze, **kw)


def tidy(x, values, **columns):
    """A long DataFrame (one row per x and seed; NaN dropped) from values of shape (len(x), seeds), or a ragged list
    of per-x sequences; columns: constant columns to add (a hue, a style)."""
    import pandas as pd

    rows = [(xi, float(v)) for xi, vs in zip(x, values) for v in np.atleast_1d(np.asarray(vs, float)) if np.isfinite(v)]
    frame = pd.DataFrame(rows, columns=["x", "y"])
    for name, value in columns.items():
        frame[name] = value
    return frame


def mean_ci(ax, x, values, *, color, label=None, estimator="mean", bars: bool = False, **kw):
    """The mean (or estimator: "median", a callable) over seeds at each x, with its CI_LEVEL% bootstrap interval
    over the seeds (N_BOOT resamples, BOOT_SEED): a band, or error bars where bars (x a few separate settings).
    values as in tidy; kw go to the line (marker, ls, ms, lw, zorder)."""
    import seaborn as sns

    err = {"err_style": "bars", "err_kws": {"capsize": 2, "elinewidth": 1}} if bars else {"err_style": "band",
                                                                                          "err_kws": {"alpha": 0.2}}
    kw.setdefault("marker", "o")
    kw.setdefault("linestyle", kw.pop("ls", "-"))
    labels = ax.get_xlabel(), ax.get_ylabel()       # seaborn would name an unlabelled axis after the frame's columns
    sns.lineplot(data=tidy(x, values), x="x", y="y", estimator=estimator, errorbar=("ci", CI_LEVEL), n_boot=N_BOOT,
                 seed=BOOT_SEED, ax=ax, color=color, label=label, legend=False, **err, **kw)
    ax.set(xlabel=labels[0], ylabel=labels[1])
    return ax
