"""The default configuration is legal for every verified op: `default_config` checked
against the rules (`violations`) and the op's verifier over random ops with scans and
awkward sizes (1, primes, one more than a tile), and over the catalog's computations at
drawn sizes, for the device classes' models and smaller ones. Nothing is lowered or
run, so thousands of ops take a few seconds."""

from __future__ import annotations

import inspect
import time
from collections import Counter

import numpy as np
import pytest

from mdh_ir.builder import Input, Output, bf16, cc, compute_module, f16, f32, ps
from mdh_ir.catalog import CATALOG
from mdh_ir.device import PRESETS
from mdh_ir.errors import ConfigError
from mdh_ir.schedule.config import Config
from mdh_ir.schedule.constraints import input_violations, violations
from mdh_ir.schedule.default_config import default_config
from mdh_ir.semantics.reference import find_compute
from tests.random_ops import describe, random_module

OPS = 2000
SMALLER = "local_mem=16384,max_wg_size=256"
MODELS = {
    "cpu": PRESETS["cpu"],
    "gpu": PRESETS["gpu"],
    "cpu, smaller": PRESETS["cpu"].limited(SMALLER),
    "gpu, smaller": PRESETS["gpu"].limited(SMALLER),
    "cpu, smaller private memory": PRESETS["cpu"].limited("private_elems=256"),
}
SMALLER_EVERY = 4
"""The smaller models check every fourth op (the test's time goes to the defaults). With
a private budget of 256 elements the CPU default once broke rule private-memory on 12
of 1,500 ops (a register tile of 33 x 5 for two outputs, where a tile along another
dimension fits)."""


def test_the_default_of_a_transposed_scan_with_sizes_not_dividing_its_tiles() -> None:
    """Sizes 23 x 7 x 13 x 4, cc ps ps cc, the output transposed, a second input read
    along d1 only: the CPU default grew dimension 2's tiles of 4 to 16 > 13."""
    module = compute_module(
        "k", dict(i=23, j=7, k=13, l=4),
        [Input("A", f32, "i, j, k, l"), Input("v", f32, "j", shape=[8])],
        [Output("w", f32, "l, k, j, i")],
        lambda a, v: a * v, [cc, ps("add"), ps("add"), cc],
    )  # fmt: skip
    op = find_compute(module)
    for name, device in MODELS.items():
        cfg = default_config(op, device)
        assert violations(op, cfg, device) == [], name
        assert all(pt <= lt <= n for pt, lt, n in zip(cfg.pt_size, cfg.lt_size, op.sizes))


def cpu_matmul_tile(i: int, j: int, k: int) -> tuple[int, int, int]:
    """Rows, columns and vector width of the CPU default's register tile of matmul."""
    cfg = default_config(find_compute(CATALOG["matmul"].build(i=i, j=j, k=k)), PRESETS["cpu"])
    return cfg.pt_size[0], cfg.pt_size[1], cfg.vector_width


def test_cpu_register_tiles_keep_enough_rows_and_whole_vectors() -> None:
    """At 300 drawn sizes, the CPU default's register tile of matmul has 3 to 11 rows
    (fewer leave the FMAs' latency exposed, more spill the accumulators) and columns
    that whole vectors cover; the divisors it once preferred gave 2 rows and float4
    columns of 4 (PoCL, 530x172x3824: 24.9 ms; 5 x 16 in float16, the last tile
    partial, 4.0 ms). More than 4 rows only where they divide the rows (1023: 11 of 16
    columns; 127, prime, keeps 4: 6 with a partial last tile were slower)."""
    rng = np.random.default_rng(3)
    for i, j in rng.integers(4, 5000, size=(300, 2)):
        rows, cols, width = cpu_matmul_tile(int(i), int(j), 64)
        assert 3 <= rows <= 11 and cols % width == 0 and width > 1, (i, j, rows, cols, width)
        assert rows <= 7 or i % rows == 0, (i, j, rows)
    assert cpu_matmul_tile(530, 172, 3824) == (5, 16, 16)
    assert cpu_matmul_tile(602, 398, 230)[0] == 7
    assert cpu_matmul_tile(1023, 1023, 1023) == (11, 16, 16)
    assert cpu_matmul_tile(127, 127, 127)[0] == 4
    assert cpu_matmul_tile(600, 512, 64)[:2] == (6, 16)


def test_cpu_rows_that_share_no_input_keep_the_default_rows() -> None:
    """A sum over the outer dimension of 1024 x 1024 x 16 reads its own row of the input
    for each of its register tile's rows: the accumulator rows (8 of 16 lanes: 1.52x
    the time on PoCL) do not apply, 4 rows as before."""
    module = CATALOG["reduce_sum"].build(**CATALOG["reduce_sum"].params(i=1024, j=1024, k=16))
    cfg = default_config(find_compute(module), PRESETS["cpu"])
    assert cfg.pt_size == (1024, 4, 16), cfg


def malformed(op, cfg: Config) -> list[str]:
    """What the op's verifier refuses in `cfg` (a loop order that is no permutation of
    the op's dimensions, ...), which no rule of `violations` checks."""
    try:
        Config.from_attr(cfg.to_attr(), op)
    except ConfigError as e:
        return [str(e)]
    return []


def test_the_default_is_legal_for_random_ops() -> None:
    start = time.perf_counter()
    illegal: list[str] = []
    refused, kinds, sizes = 0, Counter(), Counter()
    for seed in range(OPS):
        module, _ = random_module(np.random.default_rng(seed), awkward=True)
        op = find_compute(module)
        facts = describe(module)
        kinds.update(facts["kinds"])
        sizes.update(facts["sizes"])
        if input_violations(op):  # no configuration can satisfy it: refused up front
            refused += 1
            continue
        for name, device in MODELS.items():
            if "smaller" in name and seed % SMALLER_EVERY:
                continue
            cfg = default_config(op, device)
            found = violations(op, cfg, device) or malformed(op, cfg)
            if found:
                illegal.append(f"seed {seed}, {name}, sizes {op.sizes} {facts['kinds']}: {found[0]}")
    assert not illegal, f"{len(illegal)} illegal defaults, e.g.\n" + "\n".join(illegal[:10])
    assert refused < OPS // 100
    assert kinds["ps"] > OPS // 2 and kinds["pw"] > OPS // 2
    assert {1, 17, 129, 257} <= set(sizes)
    assert time.perf_counter() - start < 60


DRAWN = (1, 2, 7, 16, 17, 20, 31, 64, 129, 500, 1000, 2048)
"""The sizes `test_the_default_is_legal_for_the_catalog_at_drawn_sizes` draws: 1, primes,
few rows (16, 20: fragments' and the skinny shapes' bounds), one more than a tile, DL
sizes; an op of more than 4 dimensions draws from the first 9."""
CATALOG_DRAWS = 40


def test_the_default_is_legal_for_the_catalog_at_drawn_sizes() -> None:
    """Every catalog computation (a sum of products also in f16, bf16 and TF32) at drawn
    sizes, for the device classes' models: the random ops above never drew a batched
    product of 16 rows, whose GPU default once left the batch out of its loop order."""
    rng = np.random.default_rng(0)
    illegal: list[str] = []
    checked = 0
    for name, entry in CATALOG.items():
        kinds: list[dict] = [{}]
        if "t" in inspect.signature(entry.builder).parameters:
            kinds += [dict(t=f16), dict(t=bf16), dict(precision="tf32")]
        dims = [k for k, v in entry.small.items() if isinstance(v, int) and k != "stride"]
        pool = DRAWN if len(dims) <= 4 else DRAWN[:9]
        for _ in range(CATALOG_DRAWS):
            sizes = {d: int(rng.choice(pool)) for d in dims}
            for kind in kinds:
                op = find_compute(entry.builder(**{**entry.small, **sizes, **kind}))
                if input_violations(op):
                    continue
                checked += 1
                for device in (PRESETS["cpu"], PRESETS["gpu"]):
                    cfg = default_config(op, device)
                    found = violations(op, cfg, device) or malformed(op, cfg)
                    if found:
                        illegal.append(f"{name} {sizes} {kind}, {device.kind}: {found[0]}")
    assert not illegal, f"{len(illegal)} illegal defaults, e.g.\n" + "\n".join(illegal[:10])
    assert checked > len(CATALOG) * CATALOG_DRAWS


@pytest.mark.parametrize("seed", range(3))
def test_awkward_draws_are_verified_ops_without_inputs(seed: int) -> None:
    module, inputs = random_module(np.random.default_rng(seed), awkward=True)
    module.verify()
    assert inputs == [] and find_compute(module).sizes
