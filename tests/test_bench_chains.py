"""The benchmark chains (`mdh_bench.chains`): each entry's module, as written and after
`mdh-fuse`, gives its numpy twin's result, in the reference semantics and run on the
test device (fused and unfused, default configurations) at small and awkward sizes;
each chain's single op is the catalog op at its sizes (its tuned configuration fits)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from mdh_bench.chain_variants import defaults, fused
from mdh_bench.chains import CHAINS, SINGLE
from mdh_bench.entries import ENTRIES
from mdh_ir.driver import compile_module
from mdh_ir.driver.compiler import compute_ops
from mdh_ir.passes.fuse import FusionRemark
from mdh_ir.semantics.compare import compare
from mdh_ir.semantics.host import evaluate_host
from tests.lowering_check import TEST_DEVICE

SIZES = {
    "mm_bias_relu": [dict(i=10, j=20, k=16), dict(i=1, j=17, k=33), dict(i=13, j=1, k=2)],
    "softmax": [dict(i=7, j=33), dict(i=1, j=1), dict(i=17, j=128)],
    "jacobi3d_twice": [dict(i=6, j=5, k=4), dict(i=1, j=1, k=1), dict(i=9, j=2, k=17)],
}
CASES = [(name, sizes) for name, sizes_list in SIZES.items() for sizes in sizes_list]
FUSED_OPS = {"mm_bias_relu": 1, "softmax": 1}
"""Ops left after `mdh-fuse` where it fuses today (the others stay as written)."""


def test_every_chain_is_covered():
    assert set(SIZES) == set(CHAINS) and all(name in ENTRIES for name in CHAINS)


@pytest.mark.parametrize("name, sizes", CASES, ids=[f"{n}-{'x'.join(map(str, s.values()))}" for n, s in CASES])
def test_chain_matches_its_twin(name, sizes):
    entry = CHAINS[name]
    module = entry.build(**sizes)
    inputs = entry.inputs(np.random.default_rng(1), **sizes)
    want = entry.expected(inputs, **sizes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FusionRemark)
        one = fused(module)
    assert len(compute_ops(one)) == FUSED_OPS.get(name, len(compute_ops(module)))
    for variant in (module, one):
        result = compare(variant, inputs, evaluate_host(variant, inputs), want)
        assert result.ok, result.message
        program = compile_module(variant, TEST_DEVICE, defaults(variant, TEST_DEVICE))
        result = compare(variant, inputs, program(*inputs), want)
        assert result.ok, result.message


@pytest.mark.parametrize("name", sorted(SINGLE))
def test_single_op_is_the_chains_op(name):
    sizes = CHAINS[name].small
    single = SINGLE[name]
    chain_op = compute_ops(CHAINS[name].build(**sizes))[single.index]
    (alone,) = compute_ops(ENTRIES[single.entry].build(**single.sizes(sizes)))
    assert chain_op.properties == alone.properties and chain_op.attributes == alone.attributes
    assert [v.type for v in chain_op.operands] == [v.type for v in alone.operands]


def test_chains_sweep_runs_and_reports(tmp_path):
    """`--sweep cpu-chains` at the small sizes, mm_bias_relu tuned on two evaluations:
    every chain's variants are measured (the fused chain tuned where fusion leaves one
    op), and the chains section shows them."""
    from mdh_bench.__main__ import main
    from mdh_bench.report import _read_csv

    args = ["--device", "cpu", "--quick", "--out", str(tmp_path), "--peers", "numpy", "--repeats", "2"]
    assert main([*args, "--sweep", "cpu-chains", "--budget", "none"]) == 0
    assert main([*args, "--cases", "mm_bias_relu", "--budget", "2evals"]) == 0
    rows = {(r["case"], r["variant"]): r for r in _read_csv(tmp_path / "results_cpu.csv")}
    ok = {key for key, r in rows.items() if r["status"] == "ok"}
    for case in ("mm_bias_relu:small", "softmax:small", "jacobi3d_twice:small"):
        assert {(case, v) for v in ("ours default", "ours unfused", "numpy")} <= ok
    assert {("mm_bias_relu:small", v) for v in ("ours tuned", "single op tuned", "single op default")} <= ok
    assert ("jacobi3d_twice:small", "single op default") in ok
    assert rows[("softmax:small", "ours tuned")]["note"] == "not tuned"
    assert "fused: 2 evals" in rows[("mm_bias_relu:small", "ours tuned")]["tuning"]
    text = (tmp_path / "RESULTS.md").read_text()
    assert "## CPU chains: 3 cases" in text and "| fused / single op | unfused / fused | numpy / fused |" in text
