"""The book's figures as a reader needs them (issue 38): means over seeds drawn by seaborn with a bootstrap interval
that is the same at every build, and a figure of many panels that stays legible in the text column (at most two
panels to a row)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from lib.core import plotting  # noqa: E402


def _band(ax) -> np.ndarray:
    """The vertices of the one filled band on ax."""
    (band,) = [c for c in ax.collections if len(c.get_paths())]
    return np.concatenate([p.vertices for p in band.get_paths()])


def test_mean_ci_draws_the_mean_and_a_reproducible_bootstrap_band():
    rng = np.random.default_rng(3)
    x, values = [1, 2, 3], rng.normal([[1.0], [2.0], [4.0]], 0.5, size=(3, 8))
    bands = []
    for _ in range(2):
        fig, ax = plotting.figure()
        ax.set(xlabel="N", ylabel="loss")
        plotting.mean_ci(ax, x, values, color="k", label="mean")
        (line,) = ax.get_lines()
        assert np.allclose(line.get_ydata(), values.mean(1))       # the line is the mean over seeds
        bands.append(_band(ax))
        assert (ax.get_xlabel(), ax.get_ylabel()) == ("N", "loss")   # seaborn does not rename the axes
        assert ax.get_legend_handles_labels()[1] == ["mean"]
    assert np.array_equal(*bands)                                  # fixed seed: the same band at every build
    lo, hi = bands[0][:, 1].min(), bands[0][:, 1].max()
    assert values.min() <= lo < values.mean(1).min() and values.mean(1).max() < hi <= values.max()


def test_mean_ci_skips_missing_seeds_and_takes_an_estimator():
    fig, ax = plotting.figure()
    plotting.mean_ci(ax, [1, 2], [[1.0, 2.0, np.nan], [5.0, 7.0, 30.0]], color="k", estimator="median", bars=True)
    assert np.allclose(ax.get_lines()[0].get_ydata(), [1.5, 7.0])


def test_parity_panels_two_to_a_row():
    from lib.chapters.sparse_variable_creation.figures import plot_parity

    it = list(range(0, 100, 10))
    results = {"parity": {T: {"result": {"iters_logged": it, "loss": [[0.69] * 10, [0.1] * 10]}} for T in (10, 15, 20, 60)}}
    fig = plot_parity(results)
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert len(shown) == 4
    assert len({round(ax.get_position().x0, 3) for ax in shown}) == 2     # two columns, not four in a row
    assert fig.get_size_inches()[0] <= 8.0                                  # shown near its size in the column
