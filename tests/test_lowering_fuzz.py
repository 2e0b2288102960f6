"""Random MDH computations (tests/random_ops.py), each under one random legal
configuration from the tuning space, give the reference result on the CPU device (PoCL).

`MDH_FUZZ_CASES` sets how many cases run (default 150, split into `CHUNKS` test items so
that `pytest -n 2` spreads them); `MDH_FUZZ_SEED` moves the whole range of seeds; a
failing case prints its seed, and `MDH_FUZZ_REPLAY=<seed> pytest tests/test_lowering_fuzz.py`
replays it alone. `MDH_TEST_DEVICE` runs the cases on another device (e.g. "Oclgrind").
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest

from mdh_ir.device import DeviceInfo
from mdh_ir.driver import compile_module
from mdh_ir.runtime import select_device
from mdh_ir.semantics.reference import evaluate, find_compute
from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config
from tests.lowering_check import TEST_DEVICE, check_outputs
from tests.random_ops import describe, random_module

CASES = int(os.environ.get("MDH_FUZZ_CASES", "150"))
BASE_SEED = int(os.environ.get("MDH_FUZZ_SEED", "7000000"))

CHUNKS = 10


def draw(seed: int):
    """The module, inputs and configuration of case `seed`."""
    rng = np.random.default_rng(seed)
    module, inputs = random_module(rng)
    op = find_compute(module)
    info = DeviceInfo.from_cl(select_device(TEST_DEVICE))
    for _ in range(200):
        try:
            return module, inputs, sample_config(op, info, RandomTrial(rng))
        except Infeasible:
            continue
    raise AssertionError(f"MDH_FUZZ_REPLAY={seed}: no feasible configuration found\n{module}")


def check_case(seed: int) -> None:
    module, inputs, config = draw(seed)
    outputs = None
    try:
        outputs = compile_module(module, TEST_DEVICE, config)(*inputs)
        check_outputs(module, inputs, outputs)
    except Exception as e:
        detail = ""
        if outputs is not None:
            reduces = any(c.kind != "cc" for c in find_compute(module).combines)
            expected = evaluate(module, inputs, promote=reduces)
            with np.printoptions(threshold=200, precision=6):
                for j, (got, want) in enumerate(zip(outputs, expected)):
                    detail += f"\noutput {j} got:\n{got}\noutput {j} expected:\n{want}"
        raise AssertionError(
            f"MDH_FUZZ_REPLAY={seed} ({describe(module)['label']})\n{module}\n"
            f"config={config.to_attr()}\n{type(e).__name__}: {e}{detail}"
        ) from e


def seeds(chunk: int) -> list[int]:
    replay = os.environ.get("MDH_FUZZ_REPLAY")
    if replay:
        return [int(s) for s in replay.split(",")] if chunk == 0 else []
    return [BASE_SEED + i for i in range(chunk, CASES, CHUNKS)]


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_ops_random_configurations(chunk: int) -> None:
    failures = []
    for seed in seeds(chunk):
        try:
            check_case(seed)
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, f"{len(failures)} failing case(s):\n\n" + "\n\n".join(failures)


def test_generator_coverage() -> None:
    """The generator keeps producing every feature the fuzz relies on."""
    seen: Counter = Counter()
    for seed in range(200):
        module, inputs = random_module(np.random.default_rng(seed))
        d = describe(module)
        op = find_compute(module)
        assert [tuple(x.shape) for x in inputs] == [
            tuple(v.type.get_shape()) for v in op.inputs  # type: ignore[attr-defined]
        ]
        seen.update(f"kind:{k}" for k in set(d["kinds"]))
        seen[f"outputs:{d['outputs']}"] += 1
        seen.update(f"boundary:{b}" for b in set(d["boundaries"]))
        seen.update(f"type:{t}" for t in set(d["in_types"] + d["out_types"]))
        seen[f"label:{d['label'].split(':')[0]}"] += 1
        if d["rank"] > 3:
            seen["rank>3"] += 1
        if d["kinds"].count("pw") >= 2:
            seen["several pw"] += 1
        if d["kinds"].count("pw") >= 2 and d["user_funcs"]:
            seen["several pw, user function"] += 1
        if "ps" in d["kinds"] and "cc" in d["kinds"]:
            seen["ps next to cc"] += 1
        if d["kinds"] == ["pw"] * d["rank"]:
            seen["full reduction"] += 1
        if d["first_value"]:
            seen["first value"] += 1
        if d["accesses"] > d["inputs"]:
            seen["several accesses"] += 1
        if 1 in d["sizes"]:
            seen["size 1"] += 1
    wanted = [
        "kind:cc", "kind:pw", "kind:ps", "outputs:1", "outputs:2", "boundary:clamp",
        "boundary:zero", "boundary:wrap", "boundary:mirror", "type:f32", "type:f64", "type:i32",
        "label:builtin", "label:user1", "label:first", "label:pair", "label:argmax", "label:argmin",
        "rank>3", "several pw", "several pw, user function", "ps next to cc", "full reduction",
        "first value", "several accesses", "size 1",
    ]  # fmt: skip
    missing = [w for w in wanted if seen[w] < 3]
    assert not missing, f"the generator no longer produces {missing} (counts: {dict(seen)})"
