"""The `model` technique: a cost model ranks sampled candidates; only the top ones are
built and timed (as Ansor and MetaSchedule do).

The model is a small gradient-boosted regressor (LightGBM) from a configuration's
features (`features`) to its kernel time, trained on every evaluation the tuning
database holds (every computation, every device: a row of another device is marked so,
`same_device`) and on this tuning's results as they come in. Times are compared within
one computation on one device only: each group's log times are taken relative to the
group's median, and a failed candidate counts as e times slower than the group's
slowest. Each batch samples `CANDIDATES` legal configurations from the space, half
uniformly and half around the fastest ones found so far (one or two draws redrawn),
predicts them and hands out the `BATCH` best predicted not yet asked, `EXPLORE` of them
picked at random among the rest instead (so the model also learns where it is
unsure); the model is trained again before each batch. Without enough rows to train
on, the ranking is random.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mdh_ir.database.store import Database, parse_computation, parse_config
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.schedule.default_config import default_config
from mdh_ir.tuning.features import features
from mdh_ir.tuning.search import NeighborTrial, Technique, moved_names
from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config

CANDIDATES = 256
"""Configurations sampled and ranked per batch."""
BATCH = 8
"""Candidates handed out per batch (the model is trained again between batches)."""
EXPLORE = 2
"""Of each batch, the candidates picked at random among the ranked, not the best."""
MIN_ROWS = 16
"""Rows needed before the model is trained (else the ranking is random)."""
OWN_WEIGHT = 4.0
"""Weight of this tuning's own results against the database's other rows."""


def is_gpu(device_key: str) -> bool:
    """Whether a stored device key (`DeviceInfo.key`) names a GPU (not PoCL's CPU)."""
    return not any(word in device_key for word in ("Portable Computing Language", "pthread", "CPU"))


def relative(times: list[float | None]) -> np.ndarray:
    """Log times relative to the group's median; a failure (None) e times the slowest."""
    logs = [math.log(t) for t in times if t]
    if not logs:
        return np.zeros(len(times))
    median, worst = float(np.median(logs)), max(logs) + 1.0
    return np.array([(math.log(t) if t else worst) - median for t in times])


def database_rows(db: Database, info: DeviceInfo) -> tuple[list[np.ndarray], list[float], list[float]]:
    """Features, relative log times and weights of every evaluation in `db` (failures
    by the configuration included; a stored computation or configuration that does not
    parse is skipped)."""
    rows, targets, weights = [], [], []
    for computation, device in db.tuned():
        try:
            op = parse_computation(db.ir(computation) or "")
        except Exception:  # noqa: BLE001 - a damaged row teaches nothing
            continue
        group, times = [], []
        for e in db.evaluations(computation, device):
            if not (e.ok or e.lasting or e.status in ("slow", "timeout")):
                continue
            try:
                cfg = parse_config(e.config, op)
            except Exception:  # noqa: BLE001
                continue
            same = device == info.key
            group.append(features(op, cfg, info.kind == "gpu" if same else is_gpu(device), same))
            times.append(e.seconds if e.ok else None)
        if len(group) >= 2:
            rows += group
            targets += list(relative(times))
            weights += [1.0 if device == info.key else 0.5] * len(group)
    return rows, targets, weights


class FixedDraws(RandomTrial):
    """Replays recorded draws (`params`); a name it lacks is drawn at random. `features`:
    those of the configuration the draws give, if ranked."""

    def __init__(self, rng: np.random.Generator, params: dict[str, float], features: np.ndarray | None = None):
        super().__init__(rng)
        self.draws = dict(params)
        self.features = features

    def suggest_float(self, name: str, low: float, high: float) -> float:
        if name in self.draws:
            self.params[name] = self.draws[name]
            return self.draws[name]
        return super().suggest_float(name, low, high)


class ModelSearch(Technique):
    name = "model"

    def __init__(self, seed: int, op: ComputeOp, info: DeviceInfo, db: Database | None):
        self.rng = np.random.default_rng(seed)
        self.seed, self.op, self.info = seed, op, info
        self.default = default_config(op, info)
        self.base = database_rows(db, info) if db is not None else ([], [], [])
        self.own: list[tuple[np.ndarray, float | None, dict[str, float]]] = []
        """This tuning's results: features, time (None: failed), draws."""
        self.asked: set[str] = set()
        self.queue: list[FixedDraws] = []
        self.model: Any = None

    def start_from(self, params: dict[str, float], seconds: float) -> None:
        trial = FixedDraws(self.rng, params)
        try:
            cfg = sample_config(self.op, self.info, trial, self.default)
        except (Infeasible, ValueError):
            return
        self.asked.add(str(cfg.to_attr()))
        self.own.append((features(self.op, cfg, self.info.kind == "gpu"), seconds, dict(params)))

    def ask(self) -> FixedDraws:
        if not self.queue:
            self.fit()
            self.queue = self.batch()
        if not self.queue:
            return FixedDraws(self.rng, {})
        return self.queue.pop(0)

    def tell(self, trial: FixedDraws, seconds: float | None) -> None:
        if trial.features is not None:
            self.own.append((trial.features, seconds, dict(trial.params)))

    def fit(self) -> None:
        """Train the model on the database's rows and this tuning's results."""
        rows, targets, weights = (list(x) for x in self.base)
        if self.own:
            rows += [f for f, _, _ in self.own]
            targets += list(relative([t for _, t, _ in self.own]))
            weights += [OWN_WEIGHT] * len(self.own)
        if len(rows) < MIN_ROWS:
            return
        import lightgbm

        params = dict(
            objective="regression", learning_rate=0.1, num_leaves=15, min_data_in_leaf=3,
            seed=self.seed, num_threads=1, verbose=-1,
        )  # fmt: skip
        data = lightgbm.Dataset(np.array(rows), np.array(targets), weight=np.array(weights))
        self.model = lightgbm.train(params, data, num_boost_round=100)

    def batch(self) -> list[FixedDraws]:
        """The next candidates: sampled, ranked by the model, the best first."""
        fastest = sorted((t, i) for i, (_, t, _) in enumerate(self.own) if t)[:4]
        sampled: dict[str, FixedDraws] = {}
        for k in range(CANDIDATES):
            if fastest and k % 2:
                base = self.own[fastest[int(self.rng.integers(len(fastest)))][1]][2]
                trial: RandomTrial = NeighborTrial(self.rng, base, moved_names(self.rng, list(base)))
            else:
                trial = RandomTrial(self.rng)
            try:
                cfg = sample_config(self.op, self.info, trial, self.default)
            except Infeasible:
                continue
            text = str(cfg.to_attr())
            if text not in self.asked and text not in sampled:
                sampled[text] = FixedDraws(self.rng, trial.params, features(self.op, cfg, self.info.kind == "gpu"))
        if not sampled:
            return []
        texts = list(sampled)
        if self.model is not None:
            scores = self.model.predict(np.array([sampled[t].features for t in texts]))
            texts = [texts[i] for i in np.argsort(scores, kind="stable")]
        else:
            texts = [texts[i] for i in self.rng.permutation(len(texts))]
        best, rest = texts[: BATCH - EXPLORE], texts[BATCH - EXPLORE :]
        explored = [rest[i] for i in self.rng.choice(len(rest), size=min(EXPLORE, len(rest)), replace=False)]
        chosen = best + explored
        self.asked.update(chosen)
        return [sampled[text] for text in chosen]
