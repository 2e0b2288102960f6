"""Search techniques over the define-by-run space of `mdh_ir.tuning.space`.

A technique hands out trials (`ask`) and learns their kernel times (`tell`; None for a
failed or infeasible draw):

- `random`: independent uniform draws;
- `anneal`: simulated annealing, a local search: a trial is the current point with
  one or two parameters redrawn; a slower point is accepted with probability
  exp(-log(t_new / t_current) / T), T cooling geometrically; restarts from the best
  point when it stalls;
- `tpe`: optuna's Tree-structured Parzen Estimator (multivariate, model-based), drawing
  every name of the space in each trial (`space.space_names`; those the configuration
  leaves open are unused): optuna's multivariate TPE models only the names every trial
  drew and samples the others one by one, each over every trial (on the GPU preset,
  draws of MatMul 1000³ and a ResNet-50 3x3 conv took 40 and 61 ms at 300 trials, the
  whole space's 23 and 36 ms, and found as good or better configurations of synthetic
  times: `python -m mdh_bench.draws`, RESULTS.md); each trial's parameters converted
  for the model once (`tpe.CachedTPESampler`);
- `ga`: optuna's NSGA-II sampler used as a genetic algorithm on one objective.

All are seeded. `tpe` and `ga` keep their trials in an in-memory optuna study (`tpe`
at most twice `HISTORY`, then a study of its best and latest trials). Failed
and infeasible draws are reported to the model-based techniques as a penalty (ten times
the slowest time seen), so they learn to avoid them.

`start_from` gives a technique a known point (the tuner passes the default
configuration's draws and time): annealing starts its walk there; `tpe` and `ga` learn
it and make their first `NEIGHBOURS` trials its neighbours (one or two draws redrawn)
instead of uniform draws, which in a large space are mostly 10-1000x slower than a
good default and cost most of a short budget. `learn` tells a technique a result it
did not draw (another worker's, `mdh_ir.tuning.distributed`): `tpe` and `ga` add it
to their study as a completed trial.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mdh_ir.tuning.distributed import Sharing
from mdh_ir.tuning.space import RandomTrial

TECHNIQUES = ("tpe", "anneal", "random", "ga")
NEIGHBOURS = 10
"""Trials of `tpe` and `ga` drawn around the starting point."""


class Technique:
    name = ""

    def ask(self) -> Any:
        raise NotImplementedError

    def tell(self, trial: Any, seconds: float | None) -> None:
        raise NotImplementedError

    def start_from(self, params: dict[str, float], seconds: float) -> None:
        """A known point: its draws and its time."""

    def learn(self, params: dict[str, float], seconds: float | None) -> None:
        """A result this technique did not draw: its draws and its time (None: failed)."""


def moved_names(rng: np.random.Generator, names: list[str]) -> set[str]:
    """One or two of `names`, to redraw around a point."""
    return set(rng.choice(sorted(names), size=min(len(names), int(rng.integers(1, 3))), replace=False))


class RandomSearch(Technique):
    name = "random"

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def ask(self) -> RandomTrial:
        return RandomTrial(self.rng)

    def tell(self, trial: RandomTrial, seconds: float | None) -> None:
        pass


class NeighborTrial(RandomTrial):
    """`base`'s draws, except for the `moved` names (and names `base` lacks)."""

    def __init__(self, rng: np.random.Generator, base: dict[str, float], moved: set[str]):
        super().__init__(rng)
        self.base, self.moved = base, moved

    def suggest_float(self, name: str, low: float, high: float) -> float:
        if name in self.base and name not in self.moved:
            self.params[name] = self.base[name]
            return self.base[name]
        return super().suggest_float(name, low, high)


class Annealing(Technique):
    name = "anneal"

    def __init__(self, seed: int, temperature: float = 0.5, cooling: float = 0.97):
        self.rng = np.random.default_rng(seed)
        self.temperature, self.cooling = temperature, cooling
        self.current: tuple[dict[str, float], float] | None = None
        self.best: tuple[dict[str, float], float] | None = None
        self.stall = 0

    def ask(self) -> RandomTrial:
        if self.current is None:
            return RandomTrial(self.rng)
        base = self.current[0]
        return NeighborTrial(self.rng, base, moved_names(self.rng, list(base)))

    def tell(self, trial: RandomTrial, seconds: float | None) -> None:
        self.temperature *= self.cooling
        if seconds is None:
            return
        point = (dict(trial.params), seconds)
        if self.best is None or seconds < self.best[1]:
            self.best, self.stall = point, 0
        else:
            self.stall += 1
        if self.current is None:
            self.current = point
            return
        worse = math.log(seconds / self.current[1])
        if worse <= 0 or self.rng.random() < math.exp(-worse / max(self.temperature, 1e-9)):
            self.current = point
        if self.stall >= 20:
            self.current, self.stall = self.best, 0

    def start_from(self, params: dict[str, float], seconds: float) -> None:
        self.current = self.best = (dict(params), seconds)


HISTORY = 500
"""Trials a `tpe` study models at most: once it holds twice as many completed ones, it
is renewed with its best quarter and its latest (a draw goes over every trial: 38 ms at 600 trials of
MatMul 1000³'s space, 66 ms at 1200, and a 15-minute tuning on an H100 made 5000)."""


class OptunaTechnique(Technique):
    def __init__(self, name: str, seed: int, names: Sequence[str] = ()):
        """`names`: the space's (`space.space_names`); `tpe` draws every one of them in
        each trial."""
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.name, self.seed, self.renewals = name, seed, 0
        self.names = list(names) if name == "tpe" else []
        self.study = optuna.create_study(direction="minimize", sampler=self._sampler())
        self.rng = np.random.default_rng(seed)
        self.slowest = 0.0

    def _sampler(self) -> Any:
        import optuna

        seed = self.seed + 7919 * self.renewals
        if self.name == "tpe":
            from mdh_ir.tuning.tpe import CachedTPESampler

            return CachedTPESampler(seed=seed, multivariate=True, n_startup_trials=10)
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=16)

    def ask(self) -> Any:
        trial = self.study.ask()
        for name in self.names:
            trial.suggest_float(name, 0.0, 1.0)
        return trial

    def tell(self, trial: Any, seconds: float | None) -> None:
        import optuna

        value = self._value(seconds)
        if trial.study is self.study:
            self.study.tell(trial, value)
        else:  # drawn before the study was renewed
            self.study.add_trial(optuna.trial.create_trial(params=trial.params, distributions=trial.distributions, value=value))
        if self.name == "tpe":
            done = self.study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
            if len(done) >= 2 * HISTORY:
                self._renew(done)

    def _renew(self, done: list) -> None:
        """A study of `HISTORY` of the completed trials `done`: the best quarter and the
        latest (trials drawn but not told yet are added when told)."""
        import optuna

        best = sorted(done, key=lambda t: t.value)[: HISTORY // 4]
        kept = {t.number: t for t in [*best, *done[len(done) - (HISTORY - len(best)) :]]}
        self.renewals += 1
        self.study = optuna.create_study(direction="minimize", sampler=self._sampler())
        self.study.add_trials([kept[n] for n in sorted(kept)])

    def _value(self, seconds: float | None) -> float:
        """What the study learns of a result: its time, or the penalty of a failure."""
        if seconds is not None:
            self.slowest = max(self.slowest, seconds)
            return seconds
        return 10 * self.slowest if self.slowest else 1.0

    def learn(self, params: dict[str, float], seconds: float | None) -> None:
        import optuna

        unit = optuna.distributions.FloatDistribution(0.0, 1.0)
        value = self._value(seconds)
        params = {**dict.fromkeys(self.names, 0.5), **params}  # the names its draw left open: any value
        trial = optuna.trial.create_trial(params=params, distributions=dict.fromkeys(params, unit), value=value)
        self.study.add_trial(trial)

    def start_from(self, params: dict[str, float], seconds: float) -> None:
        self.learn(params, seconds)
        for _ in range(NEIGHBOURS):
            moved = moved_names(self.rng, list(params))
            self.study.enqueue_trial({k: v for k, v in params.items() if k not in moved})


def make_technique(name: str, seed: int, sharing: Sharing | None = None, names: Sequence[str] = ()) -> Technique:
    """The technique `name` over the space of `names` (`space.space_names`); with
    `sharing`, one worker's part of a shared tuning (it draws with the seed plus the
    worker's index)."""
    own = seed + sharing.index if sharing else seed
    if name == "random":
        return RandomSearch(own)
    if name == "anneal":
        return Annealing(own)
    if name in ("tpe", "ga"):
        return OptunaTechnique(name, own, names)
    raise ValueError(f"unknown technique '{name}' (known: {', '.join(TECHNIQUES)})")
