"""Every op a scalar function may hold, at every element type the verifier accepts for it,
gives the reference result on PoCL at vector widths 1, 2, 4, 8 and 16, in a cc, a pw and
a ps computation.

The cases are generated from `mdh_ir.dialects.scalar_ops`, the table the verifier
checks scalar functions against: an op added there is lowered here, and
`test_every_op_is_generated` fails if one yields no case. Each case computes one output
from f32 or i32 inputs (converted to the op's types and back), so one computation holds
them all: its 4 x 16 space combines dimension 0 with cc, pw(add) or ps(add) and vectorizes
dimension 1. Inputs lie in every op's domain: `b` is positive and below 32 (divisors,
shift amounts, logarithms), `c` equals `a` at some points (the equality predicates).
"""

from __future__ import annotations

import itertools
import re
from functools import cache

import numpy as np
import pytest
from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import IntegerType, ModuleOp, f32, f64, i32, i64
from xdsl.ir import Attribute, Block, Operation
from xdsl.rewriter import Rewriter
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from mdh_ir import builder
from mdh_ir.builder import Input, Output, Scalar, cc, compute_module, ps, pw, select, trace_function
from mdh_ir.schedule.config import Config
from mdh_ir.dialects import scalar_ops
from mdh_ir.semantics.reference import find_compute
from mdh_ir.driver import compile_module
from mdh_ir.semantics.compare import compare
from tests.lowering_check import TEST_DEVICE

i1 = IntegerType(1)
index = builder.index
TYPES = (f32, f64, i32, i64, i1)
"""The types of the cases (index only in casts: the reference computes index values in
64 bits, OpenCL in 32, which differ where an unsigned op reads a negative index)."""
WIDTHS = (1, 2, 4, 8, 16)
ROWS, COLUMNS = 4, 16
ARITIES = (
    (scalar_ops.FLOAT_UNARY + scalar_ops.INT_UNARY, 1),
    (scalar_ops.FLOAT_BINARY + scalar_ops.INT_BINARY, 2),
    (scalar_ops.FLOAT_TERNARY, 3),
)
POSITIVE = {"math.log", "math.log2", "math.log10", "math.log1p", "math.sqrt", "math.rsqrt"}
"""Unary ops that read `b`, which is positive."""


def accepted(op: Operation) -> bool:
    """Whether xDSL and the scalar-function rules accept `op`."""
    try:
        op.verify()
    except VerifyException:
        return False
    return scalar_ops.op_problem(op) is None


def trial(make, types: tuple[Attribute, ...]) -> Operation:
    """`make` applied to placeholder values of `types`."""
    return make(*Block(arg_types=types).args)


def is_float(t: Attribute) -> bool:
    return t in (f32, f64)


def convert(x: Scalar, t: Attribute) -> Scalar:
    """`x` as type `t` (an i1 from a comparison with 0)."""
    if t == i1:
        return x > 0 if x.type != i1 else x
    return builder.cast(x, t)


class Case:
    """One output: an op of `make` applied to inputs converted to `types`."""

    def __init__(self, label: str, make, types: tuple[Attribute, ...], inputs: str = "abc"):
        self.label, self.make, self.types, self.inputs = label, make, types, inputs
        probe = trial(make, types)
        self.home = f32 if any(is_float(v.type) for v in (*probe.operands, *probe.results)) else i32

    def emit(self, values: dict[str, Scalar]) -> Scalar:
        args = [convert(values[k + str(self.home)], t) for k, t in zip(self.inputs, self.types)]
        x = args[0]
        op = self.make(*[a.value for a in args])
        return convert(x._emit(op), self.home)


def op_cases(kind: type[Operation], arity: int) -> list[Case]:
    cases = []
    for t in TYPES:
        if not accepted(trial(kind, (t,) * arity)):
            continue
        inputs = "b" if kind.name in POSITIVE else "ba" if kind is math.PowFOp else "abc"
        cases.append(Case(f"{kind.name} {t}", kind, (t,) * arity, inputs))
    return cases


def compare_cases(kind: type[arith.CmpfOp | arith.CmpiOp]) -> list[Case]:
    names = arith.CMPF_COMPARISON_OPERATIONS if kind is arith.CmpfOp else arith.CMPI_COMPARISON_OPERATIONS
    cases = []
    for t, name in itertools.product(TYPES, names):
        make = lambda a, b, name=name: kind(a, b, name)  # noqa: E731
        if accepted(trial(make, (t, t))):
            cases.append(Case(f"{kind.name} {name} {t}", make, (t, t), "ac"))
    return cases


def cast_cases(kind: type[Operation]) -> list[Case]:
    cases = []
    for source, target in itertools.product((*TYPES, index), repeat=2):
        make = lambda x, target=target: kind(x, target)  # noqa: E731
        if source != target and accepted(trial(make, (source,))):
            cases.append(Case(f"{kind.name} {source} to {target}", make, (source,), "a"))
    return cases


def select_cases() -> list[Case]:
    cases = []
    for t in TYPES:
        make = lambda c, x, y: arith.SelectOp(c, x, y)  # noqa: E731
        if accepted(trial(make, (i1, t, t))):
            cases.append(Case(f"arith.select {t}", make, (i1, t, t), "cab"))
    return cases


def call_cases() -> list[Case]:
    return [
        Case(f"func.call {t}", lambda x, y, t=t: func.CallOp(helper_name(t), [x, y], [t]), (t, t), "ab")
        for t in (f32, i32)
    ]


def helper_name(t: Attribute) -> str:
    return f"helper_{t}"


def helper(t: Attribute) -> func.FuncOp:
    return trace_function(helper_name(t), [t, t], lambda x, y: x * y - x, [t])


def all_cases() -> list[Case]:
    cases = [c for kinds, arity in ARITIES for kind in kinds for c in op_cases(kind, arity)]
    cases += [c for kind in scalar_ops.COMPARES for c in compare_cases(kind)]  # type: ignore[arg-type]
    cases += [c for kind in scalar_ops.CASTS for c in cast_cases(kind)]
    return cases + select_cases() + call_cases()


CASES = all_cases()
CHUNKS = 2
"""Computations the cases are spread over (a kernel takes at most 128 buffers on PoCL)."""
COMBINES = {"cc": cc, "pw": pw("add"), "ps": ps("add")}


def scalar_function(name: str, cases: list[Case]) -> func.FuncOp:
    def body(*args: Scalar) -> list[Scalar]:
        values = dict(zip([k + str(t) for t in (f32, i32) for k in "abc"], args))
        return [c.emit(values) for c in cases]

    return trace_function(name, [f32] * 3 + [i32] * 3, body, [c.home for c in cases])


@cache
def ops_module(combine: str, chunk: int) -> ModuleOp:
    """A share of the cases in one computation over i (combined by `combine`) and j
    (cc)."""
    cases = CASES[chunk::CHUNKS]
    spec = COMBINES[combine]
    view = "i, j" if spec.kind != "pw" else "j"
    module = compute_module(
        "ops",
        sizes={"i": ROWS, "j": COLUMNS},
        inputs=[Input(k + str(t), t, "i, j") for t in (f32, i32) for k in "abc"],
        outputs=[Output(f"r{n}", c.home, view) for n, c in enumerate(cases)],
        scalar=lambda *args: [args[0] if c.home == f32 else args[3] for c in cases],
        combine=[spec, cc],
    )
    placeholder = SymbolTable.lookup_symbol(module, "ops_f")
    assert isinstance(placeholder, func.FuncOp)
    # The callees first: the printer defines C functions in module order.
    Rewriter.replace_op(placeholder, [helper(f32), helper(i32), scalar_function("ops_f", cases)], [])
    module.verify()
    return module


def inputs(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    shape = (ROWS, COLUMNS)
    a = rng.uniform(-4, 4, shape).round(2).astype(np.float32)
    b = rng.uniform(0.5, 3, shape).astype(np.float32)
    c = np.where(rng.random(shape) < 0.3, a, rng.uniform(-4, 4, shape)).astype(np.float32)
    ai = rng.integers(-1000, 1000, shape, dtype=np.int32)
    bi = rng.integers(1, 32, shape, dtype=np.int32)
    ci = np.where(rng.random(shape) < 0.3, ai, rng.integers(-1000, 1000, shape)).astype(np.int32)
    return [a, b, c, ai, bi, ci]


def config(module: ModuleOp, lanes: int) -> Config:
    """One work-group; each work-item takes `lanes` columns, j innermost (few
    iterations a work-item keep PoCL's builds short)."""
    op = find_compute(module)
    n = len(op.inputs)
    return Config(
        num_wg=(1, 1), num_wi=(1, COLUMNS // lanes), lt_size=(ROWS, COLUMNS), pt_size=(ROWS, lanes),
        inp_mem=(("glb",) * n, ("glb",) * n), res_mem=("prv",) * len(op.outputs),
        ocl_dim=((0, 1), (0, 1)), buf_layout=(((0, 1),) * n, ((0, 1),) * n),
        loop_order=((0, 1), (0, 1)), vector_width=lanes,
    )  # fmt: skip


def test_every_op_is_generated() -> None:
    held = {type(op) for chunk in range(CHUNKS) for op in ops_module("cc", chunk).walk()}
    missing = sorted(k.name for k in scalar_ops.SCALAR_OPS - held)
    assert not missing, f"no generated case holds {missing}"


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("lanes", WIDTHS)
@pytest.mark.parametrize("combine", COMBINES)
def test_scalar_ops(combine: str, lanes: int, chunk: int) -> None:
    module = ops_module(combine, chunk)
    data = inputs()
    result = compare(module, data, compile_module(module, TEST_DEVICE, config(module, lanes))(*data))
    cases = CASES[chunk::CHUNKS]
    wrong = [cases[int(j)].label for j in re.findall(r"output (\d+):", result.message)]
    assert result.ok, f"{result.message} ({', '.join(wrong)})"
