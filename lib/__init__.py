"""The companion book's library: data generators, models, the batched training engine, the results store,
claims, plotting and the chapter runner. Chapters import it; they never copy code from each other.

    >>> import lib; lib.core.params.chapters()
    ['ffn_span', 'head_lower_bound', ..., 'turing_simulation']
"""
from lib.core import params, store  # noqa: F401  (light modules; the torch-heavy ones are imported where used)

__version__ = "0.1.0"
