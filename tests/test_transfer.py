"""Tuning a new size from what is known of others: keys, adaptation, seeds, the tuner."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mdh_ir.catalog import CATALOG
from mdh_ir.database import shipped
from mdh_ir.database.store import (
    OK,
    Database,
    Evaluation,
    computation_key,
    describe,
    family_key,
    parse_config,
)
from mdh_ir.device import PRESETS
from mdh_ir.schedule.constraints import violations
from mdh_ir.schedule.default_config import default_config
from mdh_ir.semantics.reference import find_compute
from mdh_ir.tools.mdh_tune import summary
from mdh_ir.tuning.space import config_params
from mdh_ir.tuning.transfer import adapt, seeds
from mdh_ir.tuning.tuner import Budget, Tuner


def matmul(i: int, j: int, k: int):
    return find_compute(CATALOG["matmul"].build(i=i, j=j, k=k))


def test_family_key_ignores_sizes_and_nothing_else() -> None:
    a, b = matmul(4, 5, 6), matmul(7, 5, 9)
    other = find_compute(CATALOG["matmul_t"].build(i=4, j=5, k=6))
    assert computation_key(a) != computation_key(b) and family_key(a) == family_key(b)
    assert family_key(other) != family_key(a)
    assert describe(other)["shape"] == describe(a)["shape"] == "cc.cc.pw/2.2/1"


def _shipped_matmuls() -> list[dict]:
    return [e for e in shipped.load() if e["shape"] == "cc.cc.pw/2.2/1"]


@pytest.mark.parametrize(
    "sizes", [(1, 1, 1), (7, 13, 3), (127, 257, 131), (2, 4096, 4096), (3000, 3000, 3000)]
)
def test_adapted_configurations_are_legal_and_keep_what_fits(sizes) -> None:
    """Shipped matmul configurations (tiles up to 128, up to 2048 work-groups) and the
    default of a large one, carried to primes, ones and sizes smaller than their tiles:
    every one is legal, and a dimension at least as large as its tile keeps the tile
    (or half of it, a kept dimension's tile of 128 or more where the work-groups would
    leave compute units idle) and the private tile."""
    op, device = matmul(*sizes), PRESETS["gpu"]
    source = matmul(1024, 1024, 1024)
    known = [(e["config"], e["sizes"]) for e in _shipped_matmuls()]
    known.append((str(default_config(source, device).to_attr()), source.sizes))
    assert len(known) >= 4
    for text, source_sizes in known:
        cfg = parse_config(text, op)
        moved = adapt(cfg, source_sizes, op, device)
        assert moved is not None, text
        assert violations(op, moved, device) == [], text
        for d, n in enumerate(op.sizes):
            assert moved.lt_size[d] <= n
            if n >= cfg.lt_size[d] and moved.inp_mem == cfg.inp_mem:
                halved = op.combines[d].kind == "cc" and cfg.lt_size[d] >= 128
                assert moved.lt_size[d] in ((cfg.lt_size[d], cfg.lt_size[d] // 2) if halved else (cfg.lt_size[d],))
                assert moved.pt_size[d] == cfg.pt_size[d]


def test_a_configuration_that_leaves_compute_units_idle_splits_its_reduction() -> None:
    """A large matmul's configuration (128 x 128 tiles, k in one work-group) carried to
    128 x 4096 x 4096 keeps 32 work-groups: on a GPU of 132 compute units k is split in
    8 (as the default splits it), on a CPU not; carried to 3000³ (576 work-groups) it
    is not split either."""
    source = matmul(4096, 4096, 4096)
    gpu, cpu = PRESETS["gpu"], PRESETS["cpu"]
    cfg = default_config(source, gpu).with_(
        num_wg=(32, 32, 1), lt_size=(128, 128, 8), num_wi=(16, 16, 1), pt_size=(2, 2, 1)
    )
    assert violations(source, cfg, gpu) == []
    skinny = matmul(128, 4096, 4096)
    assert adapt(cfg, source.sizes, skinny, gpu).num_wg == (1, 32, 8)
    assert adapt(cfg, source.sizes, skinny, cpu).num_wg[2] == 1
    assert adapt(cfg, source.sizes, matmul(3000, 3000, 3000), gpu).num_wg == (24, 24, 1)


def test_a_configuration_that_leaves_compute_units_idle_takes_the_defaults_smaller_side() -> None:
    """Carried to 1000³, a large matmul's 128 x 128 tiles give 64 work-groups for 132
    compute units: as the default takes 64 x 64 tiles there (256 work-groups, the
    reduction of 1000 too short to split), the tiles are halved; at 500³ the halved
    tiles still leave half the device idle and k is split in 4, the default's pick."""
    source, gpu = matmul(4096, 4096, 4096), PRESETS["gpu"]
    cfg = default_config(source, gpu).with_(
        num_wg=(32, 32, 1), lt_size=(128, 128, 8), num_wi=(16, 8, 1), pt_size=(2, 4, 1)
    )
    assert violations(source, cfg, gpu) == []
    moved = adapt(cfg, source.sizes, matmul(1000, 1000, 1000), gpu)
    assert (moved.lt_size, moved.num_wg, moved.num_wi, moved.pt_size) == ((64, 64, 8), (16, 16, 1), (16, 8, 1), (2, 4, 1))
    small = matmul(500, 500, 500)
    assert adapt(cfg, source.sizes, small, gpu).num_wg == (8, 8, 4)
    assert default_config(small, gpu).num_wg == (8, 8, 4)


def _tuned(db: Database, op, device: str, cfg, seconds: float) -> None:
    key = db.add_computation(op)
    db.record(key, device, Evaluation(str(cfg.to_attr()), OK, seconds))


def test_seeds_same_computation_nearest_first_then_similar(tmp_path, monkeypatch) -> None:
    device = PRESETS["cpu"]
    db = Database()
    far, near = matmul(512, 512, 512), matmul(64, 64, 64)
    similar = find_compute(CATALOG["matmul_t"].build(i=60, j=60, k=60))
    for op, seconds in ((far, 1e-3), (near, 2e-4), (similar, 1e-4)):
        _tuned(db, op, device.key, default_config(op, device).with_(unroll=2), seconds)
    config = str(default_config(far, device).with_(unroll=4).to_attr())
    entry = dict(device=device.key, config=config, seconds=1.0)
    (tmp_path / "shipped.json").write_text(json.dumps([entry | describe(matmul(40, 40, 40))]))
    monkeypatch.setattr(shipped, "SHIPPED", tmp_path / "shipped.json")
    op = matmul(50, 50, 50)
    found = seeds(op, device, db, limit=4)
    assert [(s.origin, s.kin, s.sizes) for s in found] == [
        ("shipped", "same", (40, 40, 40)),
        ("database", "same", (64, 64, 64)),
        ("database", "same", (512, 512, 512)),
        ("database", "similar", (60, 60, 60)),
    ]
    assert all(violations(op, s.config, device) == [] for s in found)
    assert seeds(near, device, db, limit=1)[0].sizes == (40, 40, 40)  # never its own size


def test_tuner_evaluates_a_transferred_seed_first_and_starts_from_it(tmp_path) -> None:
    """After tuning matvec at one size, tuning it at another evaluates the default, then
    the first tuning's pick adapted to the new size (the worker's timer makes every
    configuration but the default faster), and its search starts there."""
    db = Database(tmp_path / "t.sqlite")
    timed = dict(repeats=3, worker="tests.timed_worker")
    first = Tuner(CATALOG["matvec"].build(i=32, k=8), db, "cpu", "random", seed=3, **timed)
    tuned = first.run(Budget.parse("4evals"))
    assert tuned.best.config != tuned.default.config
    tuner = Tuner(CATALOG["matvec"].build(i=24, k=16), db, "cpu", "random", seed=4, **timed)
    starts = []
    tuner.technique.start_from = lambda params, seconds: starts.append(params)  # type: ignore[method-assign]
    progress = tuner.run(Budget.parse("2evals"))
    assert len(progress.seeds) == 1
    seed, result = progress.seeds[0]
    assert (seed.origin, seed.kin, seed.sizes) == ("database", "same", (32, 8))
    stored = db.evaluations(tuner.key, tuner.info.key)
    assert [e.technique for e in stored] == ["random", "transfer"]
    assert stored[1].config == str(seed.config.to_attr()) == result.config
    assert result.seconds < progress.default.seconds
    assert starts == [config_params(tuner.op, tuner.info, seed.config)]
    assert "from database: same computation at 32x8" in summary(progress)


def test_tuner_without_transfer_evaluates_no_seed(tmp_path) -> None:
    """`transfer=False` (`mdh-tune --no-seeds`): the same second tuning as above starts
    from the default alone, though the database knows the other size; its summary says
    the seeds were turned off."""
    db = Database(tmp_path / "t.sqlite")
    timed = dict(repeats=3, worker="tests.timed_worker")
    Tuner(CATALOG["matvec"].build(i=32, k=8), db, "cpu", "random", seed=3, **timed).run(Budget.parse("4evals"))
    tuner = Tuner(CATALOG["matvec"].build(i=24, k=16), db, "cpu", "random", seed=4, transfer=False, **timed)
    progress = tuner.run(Budget.parse("2evals"))
    assert progress.seeds == []
    assert "transfer" not in [e.technique for e in db.evaluations(tuner.key, tuner.info.key)]
    assert "seeds: 0 (--no-seeds)" in summary(progress, transfer=False)


def test_summary_says_when_the_budget_left_the_seeds_untried(tmp_path) -> None:
    """A tuning whose budget ends with the default (one evaluation) tries none of the
    seeds it found, and its summary says so instead of "nothing known"."""
    db = Database(tmp_path / "t.sqlite")
    timed = dict(repeats=3, worker="tests.timed_worker")
    Tuner(CATALOG["matvec"].build(i=32, k=8), db, "cpu", "random", seed=3, **timed).run(Budget.parse("4evals"))
    tuner = Tuner(CATALOG["matvec"].build(i=24, k=16), db, "cpu", "random", seed=4, **timed)
    progress = tuner.run(Budget.parse("1evals"))
    assert progress.seeds == [] and progress.seeds_found == 1
    assert "seeds: 0 (1 found; the budget ran out before them)" in summary(progress)


def test_seeds_read_the_shipped_file_given(tmp_path) -> None:
    """`seeds(shipped_path=...)` (the tuner's `shipped`) reads that file instead of the package's."""
    device = PRESETS["cpu"]
    config = str(default_config(matmul(40, 40, 40), device).with_(unroll=4).to_attr())
    path = tmp_path / "other.json"
    path.write_text(json.dumps([dict(device=device.key, config=config, seconds=1.0) | describe(matmul(40, 40, 40))]))
    found = seeds(matmul(50, 50, 50), device, None, shipped_path=path)
    assert [(s.origin, s.sizes) for s in found] == [("shipped", (40, 40, 40))]
    assert seeds(matmul(50, 50, 50), device, None, shipped_path=tmp_path / "missing.json") == []


def test_mdh_tune_no_seeds(tmp_path) -> None:
    """`mdh-tune --no-seeds` tunes a new size from the default alone, though the database
    knows another size; without it the same command evaluates that size's pick adapted."""
    source = tmp_path / "matvec.mlir"
    source.write_text(str(CATALOG["matvec"].build(i=24, k=16)))
    outputs = {}
    for flags in ([], ["--no-seeds"]):
        db = tmp_path / f"t{len(flags)}.sqlite"
        known = Tuner(CATALOG["matvec"].build(i=32, k=8), Database(db), "cpu", "random", seed=3, repeats=2)
        assert known.run(Budget.parse("3evals")).best is not None
        tune = [sys.executable, "-m", "mdh_ir.tools.mdh_tune", str(source), "--device", "cpu", "--budget", "3evals",
                "--db", str(db), "--repeats", "2", *flags]  # fmt: skip
        run = subprocess.run(tune, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        outputs[bool(flags)] = run.stdout
    assert "seeds: 1\n" in outputs[False] and "from database: same computation at 32x8" in outputs[False]
    assert "seeds: 0 (--no-seeds)" in outputs[True]
