"""The cost model's technique (`mdh_ir.tuning.model`): trained on a database, it ranks
sampled candidates; a tuning with it stores its evaluations within its budget."""

from __future__ import annotations

import numpy as np

from mdh_ir.catalog import CATALOG
from mdh_ir.database.store import OK, Database, Evaluation
from mdh_ir.runtime import device_info
from mdh_ir.semantics.reference import find_compute
from mdh_ir.tuning.features import NAMES, features
from mdh_ir.tuning.model import BATCH, EXPLORE, FixedDraws, ModelSearch
from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config
from mdh_ir.tuning.tuner import Budget, Tuner


def synthetic_database(info) -> Database:
    """Random configurations of matmul 128x96x80, timed by a rule: unrolling by 8 makes
    a candidate ten times faster, whatever else it chose."""
    db = Database(":memory:")
    op = find_compute(CATALOG["matmul"].build(i=128, j=96, k=80))
    key = db.add_computation(op)
    rng = np.random.default_rng(0)
    stored = 0
    while stored < 120:
        try:
            cfg = sample_config(op, info, RandomTrial(rng))
        except Infeasible:
            continue
        seconds = (1e-4 if cfg.unroll == 8 else 1e-3) * float(rng.uniform(1, 1.5))
        db.record(key, info.key, Evaluation(str(cfg.to_attr()), OK, seconds, [seconds], "", 0.1, "random"))
        stored += 1
    return db


def test_a_model_trained_on_other_sizes_ranks_the_clearly_better_first() -> None:
    info = device_info("cpu")
    op = find_compute(CATALOG["matmul"].build(i=255, j=64, k=40))
    search = ModelSearch(0, op, info, synthetic_database(info))
    assert len(search.base[0]) == 120 and len(search.base[0][0]) == len(NAMES)
    search.fit()
    assert search.model is not None
    ranked = search.batch()
    assert len(ranked) == BATCH
    chosen = [sample_config(op, info, FixedDraws(np.random.default_rng(1), t.draws), search.default) for t in ranked]
    assert all(cfg.unroll == 8 for cfg in chosen[: BATCH - EXPLORE]), [c.unroll for c in chosen]
    fast, slow = (search.default.with_(unroll=u) for u in (8, 1))
    scores = search.model.predict(np.array([features(op, fast, False), features(op, slow, False)]))
    assert scores[0] < scores[1] - 1.0


def test_tuning_with_the_model_stores_its_evaluations_within_budget(tmp_path) -> None:
    module = CATALOG["matvec"].build(i=24, k=16)
    db = Database(tmp_path / "t.sqlite")
    tuner = Tuner(module, db, "cpu", "model", seed=0, repeats=1)
    progress = tuner.run(Budget.parse("10evals"))
    stored = db.evaluations(tuner.key, tuner.info.key)
    assert progress.evaluations == len(stored) == 10
    assert sum(e.technique == "model" for e in stored) >= 8
    assert progress.best is not None and progress.best.ok
