"""The evaluation worker uploads a tuning's inputs once and runs every candidate on
them; no candidate's writes reach another's inputs (`tests.spoiling_worker` logs the
uploads and spoils a candidate's outputs)."""

from __future__ import annotations

import numpy as np
import pytest

from mdh_ir.catalog import CATALOG
from mdh_ir.database.store import OK, Database
from mdh_ir.passes.convert_linalg_to_mdh import ConvertLinalgToMDH
from mdh_ir.runtime import device_info
from mdh_ir.schedule.default_config import default_config
from mdh_ir.semantics.host import evaluate_host, host_function, random_arguments
from mdh_ir.semantics.reference import find_compute
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import load_module
from mdh_ir.tuning.evaluate import Evaluator
from mdh_ir.tuning.tuner import Budget, Tuner

WORKER = "tests.spoiling_worker"

ACCUMULATE = """
func.func @acc(%b: memref<64x32xf32>, %c: memref<64x32xf32>) {
  linalg.add ins(%c, %b : memref<64x32xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
  func.return
}
"""


def test_a_tuning_uploads_its_inputs_once(tmp_path, monkeypatch) -> None:
    """Five candidates and the final check, timed in turns, run on one upload of each of
    matvec's two inputs."""
    log = tmp_path / "uploads"
    monkeypatch.setenv("MDH_TEST_UPLOADS", str(log))
    module = CATALOG["matvec"].build(i=24, k=16)
    tuner = Tuner(module, Database(tmp_path / "t.sqlite"), "cpu", "random", seed=5, repeats=2, worker=WORKER)
    progress = tuner.run(Budget.parse("5evals"))
    assert progress.evaluations == 5 and progress.failures == 0
    assert log.read_text().splitlines() == ["(24, 16)", "(16,)"]


def test_a_candidate_writing_its_outputs_leaves_the_next_ones_inputs(tmp_path, monkeypatch) -> None:
    """A function that writes its result into its argument %c: each candidate writes a
    copy of %c, never the uploaded input. The first candidate fills its output (that
    copy) with NaN and is wrong; the same configuration evaluated next, and another,
    read the input %c and are right; so do the runs timed in turns (the tuner's final
    check). The inputs are uploaded once."""
    log = tmp_path / "uploads"
    monkeypatch.setenv("MDH_TEST_UPLOADS", str(log))
    monkeypatch.setenv("MDH_TEST_SPOIL", "1")
    ctx = make_context()
    module = load_module(ctx, ACCUMULATE, "acc.mlir")
    ConvertLinalgToMDH().apply(ctx, module)
    inputs = random_arguments(host_function(module), np.random.default_rng(0))
    reference = evaluate_host(module, inputs, promote=False)
    np.testing.assert_array_equal(reference[0], inputs[1] + inputs[0])
    with Evaluator(module, inputs, reference, "cpu", repeats=3, worker=WORKER) as ev:
        base = default_config(find_compute(module), device_info("cpu"))
        other = base.with_(vector_width=4)
        found = [ev.evaluate(cfg) for cfg in (base, base, other)]
        medians = ev.interleave([base, other], 2)
    assert [e.status for e in found] == ["wrong", OK, OK], [e.message for e in found]
    assert medians is not None and all(m > 0 for m in medians)
    assert "NaN" in found[0].message or "nan" in found[0].message.lower()
    assert log.read_text().splitlines() == ["(64, 32)", "(64, 32)"]


def test_prepared_programs_are_timed_without_compiling_them_again(monkeypatch) -> None:
    """The final check's evaluator compiles the default while a shared tuning's workers
    tune (`Evaluator.prepare`): timing it in turns then compiles nothing; a configuration
    that breaks a rule is not kept, and fails where it is timed."""
    import mdh_ir.driver
    from mdh_ir.tuning.evaluate import KeptInputs, _interleaved, _prepare

    module = CATALOG["matvec"].build(i=24, k=16)
    inputs = random_arguments(host_function(module), np.random.default_rng(0))
    base = default_config(find_compute(module), device_info("cpu"))
    broken = base.with_(num_wi=[4096, 1])
    prepared: dict = {}
    _prepare(module, "cpu", [dict(base.__dict__), dict(broken.__dict__)], prepared)
    assert list(prepared) == [str(base.to_attr())]

    def refuse(*_, **__):
        raise AssertionError("compiled again")

    monkeypatch.setattr(mdh_ir.driver, "compile_module", refuse)
    (median,) = _interleaved(module, "cpu", KeptInputs(inputs), 2, prepared, [dict(base.__dict__)], 2)
    assert median > 0
    with pytest.raises(AssertionError, match="compiled again"):
        _interleaved(module, "cpu", KeptInputs(inputs), 2, prepared, [dict(broken.__dict__)], 1)
