"""One style for every figure of the book: colours per architecture (the authors'), sizes, labels.

    >>> fig, ax = figure(); ax.plot([1, 2], [3, 4], color=COLORS["ffn"])
    [<matplotlib.lines.Line2D object at ...>]
"""
from __future__ import annotations

import matplotlib.pyplot as plt  # headless machines get Agg by default, notebooks the inline backend

# architectures as in the plots.ipynb of Mousavi-Hosseini et al. 2025; optimizers (gd, adamw) for the chapters that compare them
COLORS = {"ffn": "#8da0cb", "rnn": "#fc8d62", "transformer": "#66c2a5", "gd": "#8da0cb", "adamw": "#e78ac3"}
MARKERS = {"ffn": "s", "rnn": "o", "transformer": "^"}

STYLE = {
    "figure.dpi": 110, "savefig.dpi": 110, "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10,
    "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3,
    "legend.frameon": False, "figure.constrained_layout.use": True,
}


def use_style() -> None:
    plt.rcParams.update(STYLE)


def figure(ncols: int = 1, nrows: int = 1, width: float = 4.6, height: float = 3.6, squeeze: bool | None = None, **kw):
    """A styled figure; one Axes when there is one panel, else an array (squeeze=False: always (nrows, ncols))."""
    use_style()
    squeeze = nrows * ncols == 1 if squeeze is None else squeeze
    return plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=squeeze, **kw)
