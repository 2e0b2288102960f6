"""The reference semantics of `mdh.compute`, evaluated with numpy.

For an op with sizes N_1..N_D, scalar function f and combine operators ⊛_1..⊛_D:

1. at every point x of the iteration space, read each input access (view map applied to
   x; outside the buffer, the buffer's boundary mode decides the value; an f16 or bf16
   element as its value, an f32 one rounded to TF32 where the op's `precision` is
   "tf32": `semantics.precision`), apply each prologue's function to its group's reads
   (`mdh_attrs.scalar_arguments`) and evaluate f(arguments..., [x]) to one value per
   output buffer (in float64 with `promote`); with row statistics, their values at x
   come first (each computed beforehand over the whole space as its own reduction,
   `row_stats`);
2. reduce every `pw(g)` dimension with g (g must be associative and commutative: any
   order and bracketing is allowed), then scan every `ps(g)` dimension in index order
   with g (inclusive prefix; g must be associative);
3. with an epilogue, apply its function at each point of the kept dimensions to the
   combined values and the epilogue inputs read there (through their views and
   boundary modes);
4. write the result of each point of the kept (`cc`/`ps`) dimensions to each output
   buffer at the position its output view gives.

The inputs are the op's operands: the md_hom's inputs, the row statistics', the epilogue's.

A builtin combine operator reduces (scans) an axis with numpy's own reduction
(accumulation) of its ufunc, in the values' type; a combine function, by pairwise
combination in index order.

Large spaces are evaluated in pieces using the homomorphism property itself: a piece
split along dimension d recombines by concatenation (cc), by g (pw) or by carrying the
last prefix into the second half (ps). A contraction (the float64 product of two
arguments summed over every pw dimension, nothing else at a point) evaluates each piece
with `np.einsum` over its reads instead of a value per point.

The builtin combine functions `max` and `min` ignore NaN on floats (IEEE maxNum/minNum,
OpenCL's fmax/fmin); a function written with `arith.maximumf` propagates it.

Boundary modes for a read at index j of an axis of size n: `clamp` reads min(max(j,0),n-1),
`zero` reads 0, `wrap` reads j mod n, `mirror` reflects without repeating the edge
(-1 -> 1, n -> n-2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp

from mdh_ir.affine import linear_results
from mdh_ir.dialects.mdh import Combine, ComputeOp
from mdh_ir.dialects.mdh_attrs import scalar_arguments
from mdh_ir.semantics.arrays import checked_arrays
from mdh_ir.semantics.precision import read_inputs
from mdh_ir.semantics.scalar_eval import FuncEvaluator, dtype_kind, numpy_dtype

Values = tuple[np.ndarray, ...]
Binary = Callable[[Values, Values], Values]

_BUILTINS: dict[str, Callable] = {
    "add": np.add,
    "mul": np.multiply,
    "max": np.fmax,
    "min": np.fmin,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}


def boundary_index(j: np.ndarray, n: int, mode: str) -> tuple[np.ndarray, np.ndarray | None]:
    """The index actually read for logical index `j`, and (for `zero`) the in-bounds mask."""
    if mode == "clamp":
        return np.clip(j, 0, n - 1), None
    if mode == "wrap":
        return np.mod(j, n), None
    if mode == "mirror":
        if n == 1:
            return np.zeros_like(j), None
        period = 2 * (n - 1)
        r = np.mod(j, period)
        return np.where(r < n, r, period - r), None
    if mode == "zero":
        inside = (j >= 0) & (j < n)
        return np.clip(j, 0, n - 1), inside
    return j, None


PIECE_ELEMENTS = 1 << 21
"""Points of a piece evaluated at once (a value per point)."""
CONTRACTION_PIECE_ELEMENTS = 1 << 25
"""Elements of a contraction's piece: its reads and its result, which is all it holds
(einsum keeps no value per point). Pieces of 2^26 points instead took matmul 4096³ in
1024 products of small matrices (the first of a tuning's 10.2 s on an H100's host)."""


class ReferenceEvaluator:
    """Evaluates one `mdh.compute` op on numpy arrays."""

    def __init__(self, op: ComputeOp, promote: bool = True, piece_elements: int | None = None):
        """`piece_elements`: the most `elements` of a piece (default `PIECE_ELEMENTS`,
        for a contraction `CONTRACTION_PIECE_ELEMENTS`)."""
        module = op.get_toplevel_object()
        assert isinstance(module, ModuleOp), "the op must be inside a module"
        self.op = op
        self.funcs = FuncEvaluator(module, promote)
        self.sizes = op.sizes
        self.combines = op.combines
        self.access_forms = [[linear_results(m) for m in maps] for maps in op.input_maps]
        self.out_types = [self.funcs.dtype(t) for t in op.output_element_types]
        self.with_indices = op.scalar_arity < len(self.funcs.funcs[op.scalar_func].function_type.inputs.data)
        self.contraction = self._is_contraction()
        self.piece_elements = piece_elements or (CONTRACTION_PIECE_ELEMENTS if self.contraction else PIECE_ELEMENTS)
        self.read_dims = [
            [d for d in range(len(self.sizes)) if any(f.coeffs[d] for f in forms)]
            for maps in self.access_forms
            for forms in maps
        ]
        """The dimensions each scalar argument's read varies along."""

    def _is_contraction(self) -> bool:
        """Whether the op sums the float64 product of its two scalar arguments over every
        pw dimension and does nothing else at a point (matrix products, convolutions,
        contractions, with `promote`): `direct` then hands each piece to `np.einsum`
        (BLAS) instead of multiplying at every point and reducing (matmul 2000³: 8.5 s)."""
        op, f = self.op, self.funcs.funcs[self.op.scalar_func]
        block = f.body.block
        ops = list(block.ops)
        return (
            self.funcs.promote
            and not op.prologues
            and not op.row_stats
            and not self.with_indices
            and len(block.args) == 2
            and len(op.output_maps) == 1
            and all(c.kind == "cc" or (c.kind == "pw" and c.builtin and c.func == "add") for c in op.combines)
            and len(ops) == 2
            and isinstance(ops[0], arith.MulfOp)
            and set(ops[0].operands) == set(block.args)
            and isinstance(ops[1], func.ReturnOp)
            and tuple(ops[1].arguments) == (ops[0].result,)
            and dtype_kind(self.out_types[0]) == "f"
        )

    def combine_fn(self, c: Combine) -> Binary:
        if c.builtin:
            f = _BUILTINS[c.func]  # type: ignore[index]
            return lambda x, y: tuple(f(a, b) for a, b in zip(x, y))
        name = c.func
        return lambda x, y: tuple(self.funcs.call(name, [*x, *y]))  # type: ignore[arg-type]

    def __call__(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        op = self.op
        arrays = checked_arrays(list(op.buffers), inputs, f'mdh.compute "{op.comp_name.data}"')
        self.inputs = read_inputs(op, arrays[: len(op.inputs)])
        self.stats = self.row_stats(arrays[len(op.inputs) : len(op.inputs) + len(op.stats_inputs)])
        ranges = [(0, n) for n in self.sizes]
        result = self.piece(ranges)
        outputs = []
        kept = [d for d, c in enumerate(self.combines) if c.kind != "pw"]
        pw_axes = tuple(d for d, c in enumerate(self.combines) if c.kind == "pw")
        result = tuple(np.squeeze(v, axis=pw_axes) if pw_axes else v for v in result)
        if op.epilogue is not None:
            result = self.epilogue(result, kept, arrays[len(op.buffers) - len(op.epilogue_inputs) :])
        for value, amap in zip(result, op.output_maps):
            dims = [e.position for e in amap.results]  # type: ignore[attr-defined]
            outputs.append(np.transpose(value, [kept.index(d) for d in dims]).copy())
        return outputs

    def epilogue(self, values: Values, kept: list[int], arrays: Sequence[np.ndarray]) -> Values:
        """The epilogue's function applied to `values` (axes: the kept dimensions in
        order) and the epilogue inputs read at each point."""
        op = self.op
        grids: list = [0] * len(self.sizes)
        for axis, d in enumerate(kept):
            grids[d] = np.arange(self.sizes[d]).reshape([-1 if a == axis else 1 for a in range(len(kept))])
        args = list(values)
        for buf, maps, mode in zip(arrays, op.epilogue_maps, op.epilogue_boundaries):
            args += [self.read(buf, linear_results(m), grids, mode) for m in maps]
        shape = values[0].shape
        results = self.funcs.call(op.epilogue_func, args)  # type: ignore[arg-type]
        return tuple(np.broadcast_to(np.asarray(v, dtype=t), shape) for v, t in zip(results, self.out_types))

    def row_stats(self, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The values of the op's row statistics, in order, over the whole space: each
        reduced to extent 1 along its pw dimensions (so that it broadcasts)."""
        grids = [np.arange(n).reshape([-1 if e == d else 1 for e in range(len(self.sizes))]) for d, n in enumerate(self.sizes)]
        values: list[np.ndarray] = []
        for stat in self.op.row_stats:
            mine, arrays = arrays[: len(stat.maps)], arrays[len(stat.maps) :]
            reads = [
                self.read(buf, linear_results(m), grids, mode)
                for buf, maps, mode in zip(mine, stat.maps, stat.boundaries)
                for m in maps
            ]
            types = [self.funcs.dtype(t) for t in self.funcs.funcs[stat.func].function_type.outputs.data]
            out = tuple(
                np.broadcast_to(np.asarray(v, dtype=t), self.sizes)
                for v, t in zip(self.funcs.call(stat.func, [*values, *reads]), types)
            )
            for d, c in enumerate(stat.combines):
                if c.kind == "pw":
                    out = reduce_axis(out, d, self.combine_fn(c))
            values += list(out)
        return values

    def piece(self, ranges: list[tuple[int, int]]) -> Values:
        """The result of the sub-space `ranges`, pw dims reduced to extent 1."""
        extents = [hi - lo for lo, hi in ranges]
        if max(extents, default=1) == 1 or self.elements(extents) <= self.piece_elements:
            return self.direct(ranges)
        d = int(np.argmax(extents))
        lo, hi = ranges[d]
        mid = (lo + hi) // 2
        a = self.piece(ranges[:d] + [(lo, mid)] + ranges[d + 1 :])
        b = self.piece(ranges[:d] + [(mid, hi)] + ranges[d + 1 :])
        c = self.combines[d]
        if c.kind == "cc":
            return tuple(np.concatenate([x, y], axis=d) for x, y in zip(a, b))
        g = self.combine_fn(c)
        if c.kind == "pw":
            return g(a, b)
        carry = tuple(np.take(x, [-1], axis=d) for x in a)
        return tuple(np.concatenate([x, y], axis=d) for x, y in zip(a, g(carry, b)))

    def elements(self, extents: list[int]) -> int:
        """What a piece of `extents` holds at once: a value per point; for a contraction
        its reads and its result."""
        if not self.contraction:
            return int(np.prod(extents))
        kept = int(np.prod([n for n, c in zip(extents, self.combines) if c.kind != "pw"]))
        return kept + sum(int(np.prod([extents[d] for d in dims])) for dims in self.read_dims)

    def direct(self, ranges: list[tuple[int, int]]) -> Values:
        rank = len(ranges)
        grids = [
            np.arange(lo, hi).reshape([-1 if e == d else 1 for e in range(rank)])
            for d, (lo, hi) in enumerate(ranges)
        ]
        reads = [
            [self.read(buf, form, grids, mode) for form in forms]
            for buf, forms, mode in zip(self.inputs, self.access_forms, self.op.boundaries)
        ]
        args = scalar_arguments(self.op.prologues, reads, lambda f, values: self.funcs.call(f, values)[0])
        window = tuple(slice(lo, hi) for lo, hi in ranges)
        args = [s[tuple(w if n > 1 else slice(None) for w, n in zip(window, s.shape))] for s in self.stats] + args
        if self.with_indices:
            args += grids
        shape = [hi - lo for lo, hi in ranges]
        if self.contraction:
            return (self.contract(args, shape),)
        values = self.funcs.call(self.op.scalar_func, args)
        values = tuple(
            np.broadcast_to(np.asarray(v, dtype=t), shape) for v, t in zip(values, self.out_types)
        )
        for d, c in enumerate(self.combines):
            if c.kind == "pw":
                if c.builtin:
                    f = _BUILTINS[c.func]  # type: ignore[index]
                    values = tuple(f.reduce(v, axis=d, keepdims=True, dtype=v.dtype) for v in values)
                else:
                    values = reduce_axis(values, d, self.combine_fn(c))
        for d, c in enumerate(self.combines):
            if c.kind == "ps":
                if c.builtin:
                    f = _BUILTINS[c.func]  # type: ignore[index]
                    values = tuple(f.accumulate(v, axis=d, dtype=v.dtype) for v in values)
                else:
                    values = scan_axis(values, d, self.combine_fn(c))
        return values

    def contract(self, args: list[np.ndarray], shape: list[int]) -> np.ndarray:
        """The sum over the pw dimensions of the product of `args` (broadcastable to
        `shape`), pw dimensions kept at extent 1: `np.einsum` over the dimensions each
        argument varies along, times the extent of each pw dimension neither does."""
        letters = [chr(ord("a") + d) for d in range(len(shape))]
        operands, subscripts, varying = [], [], set()
        for x in args:
            x = np.asarray(x, dtype=self.out_types[0]).reshape([1] * len(shape) if np.ndim(x) == 0 else np.shape(x))
            axes = [d for d, n in enumerate(x.shape) if n > 1]
            operands.append(x.reshape([x.shape[d] for d in axes]))
            subscripts.append("".join(letters[d] for d in axes))
            varying.update(axes)
        pw = {d for d, c in enumerate(self.combines) if c.kind == "pw"}
        kept = [d for d in range(len(shape)) if d in varying and d not in pw]
        out = np.einsum(f"{','.join(subscripts)}->{''.join(letters[d] for d in kept)}", *operands, optimize=True)
        scale = int(np.prod([shape[d] for d in pw if d not in varying]))
        out = out.reshape([shape[d] if d in kept else 1 for d in range(len(shape))]) * scale
        return np.broadcast_to(out, [1 if d in pw else n for d, n in enumerate(shape)])

    def read(self, buf: np.ndarray, forms, grids, mode: str) -> np.ndarray:
        index, mask = [], None
        for form, n in zip(forms, buf.shape):
            j = form.const + sum(c * g for c, g in zip(form.coeffs, grids) if c)
            j, inside = boundary_index(np.asarray(j), n, mode)
            index.append(j)
            if inside is not None:
                mask = inside if mask is None else mask & inside
        value = buf[tuple(index)] if index else buf[()]
        return value if mask is None else np.where(mask, value, 0)


def reduce_axis(values: Values, axis: int, g: Binary) -> Values:
    """Reduce `axis` to extent 1 with g by pairwise combination (order kept)."""
    while values[0].shape[axis] > 1:
        n = values[0].shape[axis]
        even = tuple(np.take(v, range(0, n - 1, 2), axis=axis) for v in values)
        odd = tuple(np.take(v, range(1, n, 2), axis=axis) for v in values)
        paired = g(even, odd)
        if n % 2:
            last = tuple(np.take(v, [n - 1], axis=axis) for v in values)
            paired = tuple(np.concatenate([p, x], axis=axis) for p, x in zip(paired, last))
        values = paired
    return values


def scan_axis(values: Values, axis: int, g: Binary) -> Values:
    """Inclusive prefix along `axis` with g (Hillis-Steele, order kept)."""
    n = values[0].shape[axis]
    step = 1
    while step < n:
        head = tuple(np.take(v, range(step), axis=axis) for v in values)
        left = tuple(np.take(v, range(0, n - step), axis=axis) for v in values)
        right = tuple(np.take(v, range(step, n), axis=axis) for v in values)
        values = tuple(np.concatenate([h, s], axis=axis) for h, s in zip(head, g(left, right)))
        step *= 2
    return values


def find_compute(module: ModuleOp) -> ComputeOp:
    ops = [op for op in module.walk() if isinstance(op, ComputeOp)]
    if len(ops) != 1:
        raise ValueError(f"expected one mdh.compute in the module, found {len(ops)}")
    return ops[0]


def evaluate(
    target: ModuleOp | ComputeOp, inputs: Sequence[np.ndarray], promote: bool = True
) -> list[np.ndarray]:
    """Outputs of the (single) `mdh.compute` of `target` on `inputs`.

    With `promote` (the default), f32 arithmetic runs in f64: the oracle for float32
    results. Integers keep their declared width.
    """
    op = find_compute(target) if isinstance(target, ModuleOp) else target
    return ReferenceEvaluator(op, promote)(inputs)


def random_inputs(op: ComputeOp, rng: np.random.Generator) -> list[np.ndarray]:
    """Random inputs for `op` (its md_hom's, then its epilogue's): floats in [-1, 1),
    integers in [-8, 8)."""
    arrays = []
    for v in op.buffers:
        dtype = numpy_dtype(v.type.element_type)  # type: ignore[attr-defined]
        shape = v.type.get_shape()  # type: ignore[attr-defined]
        if dtype_kind(dtype) == "f":
            arrays.append(rng.uniform(-1, 1, shape).astype(dtype))
        else:
            arrays.append(rng.integers(-8, 8, shape).astype(dtype))
    return arrays
