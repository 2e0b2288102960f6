"""optuna's TPE sampler, each finished trial's parameters converted once.

At every draw optuna's `TPESampler` converts the parameters of every trial of its study
to their internal representation, one value at a time in Python: at 800 trials of 81
names (ResNet-50's conv4 3x3 s2 on the GPU preset) 42% of a draw's 154 ms. A finished
trial's parameters never change, so `CachedTPESampler` converts each finished trial once
(for the names of the search space at hand) and builds the columns from those rows. It
draws exactly what `TPESampler` draws from the same log of the normal CDF.

That log is the other cost of a draw: optuna's truncated normal computes it one element
at a time in Python (`_truncnorm._log_ndtr`, 549k calls in 50 draws of conv4 at 800
trials). `CachedTPESampler` draws with scipy's vectorized `log_ndtr` in its place (the
same function, within 6e-8 relative of optuna's, which approximates it; scipy is a
dependency): per draw, at 800 trials, conv4 60.2 / 76.0 -> 49.1 / 53.6 ms and matmul
1000³ 38.2 / 40.2 -> 28.9 / 33.3 ms (two rounds), the same 850 configurations drawn
(mdh_bench/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.samplers import TPESampler
from optuna.study import Study
from optuna.trial import FrozenTrial

try:
    from optuna.samplers._tpe import _truncnorm
    from scipy.special import log_ndtr
except ImportError:  # scipy is a dependency; without it (or another optuna) optuna's own
    _truncnorm = log_ndtr = None


@contextmanager
def vectorized_log_ndtr() -> Iterator[None]:
    """optuna's truncated normal with scipy's `log_ndtr` (module docstring); as it is
    without scipy, or where optuna no longer has the function."""
    if log_ndtr is None or not hasattr(_truncnorm, "_log_ndtr"):
        yield
        return
    saved, _truncnorm._log_ndtr = _truncnorm._log_ndtr, log_ndtr
    try:
        yield
    finally:
        _truncnorm._log_ndtr = saved


class CachedTPESampler(TPESampler):
    """`TPESampler`, converting each finished trial's parameters once, with a vectorized
    log of the normal CDF (`vectorized_log_ndtr`)."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self._rows: dict[int, tuple[tuple[str, ...], np.ndarray | None]] = {}
        """A finished trial's number -> the names it was converted for, and its values
        in their order (None where it lacks one of them)."""

    def sample_relative(self, study: Study, trial: FrozenTrial, search_space: dict) -> dict[str, Any]:
        with vectorized_log_ndtr():
            return super().sample_relative(study, trial, search_space)

    def sample_independent(
        self, study: Study, trial: FrozenTrial, param_name: str, param_distribution: BaseDistribution
    ) -> Any:
        with vectorized_log_ndtr():
            return super().sample_independent(study, trial, param_name, param_distribution)

    def _get_internal_repr(
        self, trials: list[FrozenTrial], search_space: dict[str, BaseDistribution], study: Study
    ) -> dict[str, np.ndarray]:
        names = tuple(search_space)
        rows = []
        for trial in trials:
            known = self._rows.get(trial.number)
            if known is None or known[0] != names:
                params = self._get_params(trial, study)
                values = None
                if search_space.keys() <= params.keys():
                    values = np.array([d.to_internal_repr(params[n]) for n, d in search_space.items()])
                known = (names, values)
                if trial.state.is_finished():
                    self._rows[trial.number] = known
            if known[1] is not None:
                rows.append(known[1])
        table = np.array(rows).reshape(len(rows), len(names))
        return {name: table[:, i] for i, name in enumerate(names)}
