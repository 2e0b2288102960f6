"""A case's data, shared by every variant: its module, seeded inputs, float64 reference,
and the bytes and FLOPs the roofline compares against."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mdh_bench.cases import Case
from mdh_bench.entries import ENTRIES, REDUCED, REDUCTIONS
from mdh_ir.semantics.compare import Expected
from mdh_ir.semantics.host import host_function
from mdh_ir.semantics.scalar_eval import numpy_dtype

SEED = 0

FLOPS_PER_POINT = {
    "dot": 2, "matvec": 2, "matmul": 2, "matmul_t": 2, "bmatmul": 2, "tensor_contraction": 2,
    "mcc": 2, "mcc_capsule": 2, "gaussian": 2, "jacobi1d": 3, "jacobi3d": 6,
    **dict.fromkeys(REDUCTIONS, 1), "prefix_sum": 1, "bias_add": 1, "exp": 1,
    "mm_bias_relu": 2, "softmax": 7, "jacobi3d_twice": 12,
    **dict.fromkeys(REDUCED, 2),
}  # fmt: skip
"""Floating-point operations per point of the iteration space (an FMA counts 2; a
7-point sum 6 additions; an exp 1); computations without float arithmetic count none.
Chains count their ops' points at the chain's sizes (matmul + bias + ReLU: the
product's; softmax: max 1, exp-sum 3, divide 3; Jacobi3D twice: 2 × 6)."""


@dataclass
class CaseData:
    """Everything every variant of one case shares."""

    case: Case
    module: ModuleOp
    inputs: list[np.ndarray]
    reference: list[np.ndarray]
    """The catalog's numpy twin, in float64."""

    @property
    def nbytes(self) -> int:
        """Bytes moved once: every input read once, every output written once."""
        return self.input_bytes + self.output_bytes

    @property
    def input_bytes(self) -> int:
        return sum(x.nbytes for x in self.inputs)

    @property
    def output_bytes(self) -> int:
        types = host_function(self.module).function_type.outputs.data
        return sum(r.size * numpy_dtype(t.element_type).itemsize for r, t in zip(self.reference, types))  # type: ignore[attr-defined]

    @property
    def flops(self) -> int:
        return FLOPS_PER_POINT.get(self.case.entry, 0) * self.case.points

    def check(self, outputs: list[np.ndarray], rounding: float = 0.0) -> str | None:
        """None if `outputs` match the reference, else what is wrong; `rounding` is a
        relative error allowed on top (outputs a peer rounds to a 16-bit type)."""
        result = Expected(self.module, self.reference, rounding).compare(outputs)
        return None if result.ok else result.message


def case_data(case: Case) -> CaseData:
    """The module, seeded inputs and float64 reference of `case`."""
    entry = ENTRIES[case.entry]
    inputs = entry.inputs(np.random.default_rng(SEED), **case.sizes)
    reference = entry.expected(inputs, **case.sizes)
    return CaseData(case, entry.build(**case.sizes), inputs, reference)
