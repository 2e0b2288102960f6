"""`convert-linalg-to-mdh`: rewrite `linalg.generic` and named linalg ops into `mdh.compute`.

`linalg.reduce` and `linalg.broadcast` convert as the generics they stand for.

    linalg.generic {indexing_maps = [(i, k) -> (i, k), (i, k) -> (k), (i, k) -> (i)],
                    iterator_types = ["parallel", "reduction"]} ins(%M, %v) outs(%w) {
    ^bb0(%m: f32, %x: f32, %acc: f32):
      %p = arith.mulf %m, %x : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }

becomes `mdh.compute` with the input maps as `inp_view`, the output maps as `out_view`,
`combine_ops = ["cc", ["pw", "add"]]` and a new scalar function computing `%p`:

- `linalg.reduce` is a generic whose input map is the identity and whose output map
  drops its `dimensions` (reductions); `linalg.broadcast` one whose input map drops its
  `dimensions` and whose body yields the input;
- `parallel` dimensions are `cc`; `reduction` ones are `pw(g)`, `g` being the one
  associative operation (add, mul, max, min, and, or, xor) each yielded value applies to
  its output's previous value and a value computed from the inputs alone; the scalar
  function computes those values (`linalg.index` becomes its index arguments);
- a reduction's output that starts at `g`'s identity (filled with it by `linalg.fill`,
  or the generic `linalg-generalize-named-ops` makes of it) drops the fill; one that
  starts elsewhere accumulates, `out = start g reduce(...)`: the scalar function
  combines `start` into its value at the first point of the reduction dimensions,
  `g(value, all reduction indices 0 ? start : identity)`, start being the constant of the
  fill (dropped) or else the output's old contents (one more input, with the output's
  view) — one pass, no kernel of its own;
- an op without reductions may read its outputs, which then become inputs;
- scalar operands are constants, inlined into the scalar function; a 0-d op runs on one
  dimension of size 1;
- a fill of a memref that no op dropped (one of an argument, one whose buffer an
  elementwise op reads) is a computation of its own, after the others converted;
- operands are memrefs (identity layout) or tensors, of static shapes and element types
  f32, f64, i32 or i64, inputs also f16 or bf16: `mdh.compute` reads those as f32, so
  the body's `arith.extf` of such an element to f32 becomes the scalar function's f32
  argument, and a body computing on the 16-bit values themselves is refused. A memref output allocated by `memref.alloc` and only used after
  the op is replaced by the result (functions then return it: the host shape that
  `mdh_ir.runtime` and the `opencl` target run); other memref outputs receive it by
  `memref.copy`; tensors pass through `bufferization.to_buffer` and `to_tensor`.

Anything else is refused with one line naming the op and the reason (`MDHError`), also a
linalg op the pass has no rule for: none is left behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, bufferization, func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    ShapedType,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import BroadcastOp, FillOp, GenericOp, IndexOp, ReduceOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from mdh_ir.schedule.combine import RECOGNIZED as COMBINE_OPS
from mdh_ir.schedule.combine import identity
from mdh_ir.dialects.mdh import Combine, ComputeOp, make_view
from mdh_ir.dialects.mdh_attrs import STORAGE_TYPES, is_input_type, read_type
from mdh_ir.errors import MDHError

ASSOCIATIVE = "a single associative combine (add, mul, max, min, and, or, xor)"

SCALAR_DIALECTS = ("arith.", "math.")
"""The ops a scalar function may hold (besides `linalg.index`, which becomes arguments)."""


def _refuse(op: Operation, reason: str) -> MDHError:
    return MDHError(f"{op.name}: cannot convert to mdh.compute: {reason}", op)


@dataclass
class _Loops:
    """A linalg op as a loop nest: its operands, indexing maps (inputs', then outputs'),
    iterator types, static loop ranges and body (the inputs' and outputs' elements as
    arguments, yielding the outputs' new values). A 0-d op runs on one dimension of size 1
    of kind "unit", a `pw(mul)` of its one value (mdh.compute has at least one dimension,
    and its outputs' views keep every cc dimension)."""

    op: Operation
    inputs: list[SSAValue]
    outputs: list[SSAValue]
    maps: list[AffineMap]
    kinds: list[str]
    sizes: list[int]
    body: Block


def _dims(rank: int, dims: Sequence[int]) -> AffineMap:
    return AffineMap(rank, 0, tuple(AffineExpr.dimension(d) for d in dims))


def _loops(op: Operation) -> _Loops | None:
    """`op` as a loop nest, if it is a linalg op with one (None for other ops); its
    operands are checked first."""
    if not isinstance(op, LinalgStructuredOperation | ReduceOp | BroadcastOp):
        return None
    _check_operands(op)
    if isinstance(op, LinalgStructuredOperation):
        kinds = [t.data.value for t in op.get_iterator_types()]
        maps = [m.data for m in op.get_indexing_maps()]
        sizes = list(op.get_static_loop_ranges())
        if not kinds:  # 0-d: one point, on a dimension of size 1
            maps, kinds, sizes = [AffineMap(1, 0, m.results) for m in maps], ["unit"], [1]
        return _Loops(op, list(op.inputs), list(op.outputs), maps, kinds, sizes, op.body.block)
    # linalg.reduce: reduces its input's `dimensions`; linalg.broadcast: adds its
    # output's `dimensions` to the input
    full = op.input if isinstance(op, ReduceOp) else op.init
    rank, listed = len(_shaped(full).get_shape()), op.dimensions.get_values()
    other = _dims(rank, [d for d in range(rank) if d not in listed])
    if isinstance(op, ReduceOp):
        maps, body = [AffineMap.identity(rank), other], op.region.block
        kinds = ["reduction" if d in listed else "parallel" for d in range(rank)]
    else:
        maps, body = [other, AffineMap.identity(rank)], op.hidden_region.block
        kinds = ["parallel"] * rank
    sizes = list(_shaped(full).get_shape())
    return _Loops(op, [op.input], [op.init], maps, kinds, sizes, body)


def _check_operands(op: Operation) -> None:
    for i, v in enumerate(op.operands):
        t = v.type
        if not isinstance(t, MemRefType | TensorType):
            if not isinstance(v.owner, arith.ConstantOp):
                raise _refuse(op, f"operand #{i} is a scalar ({t}) that is not a constant")
            continue
        if not t.has_static_shape():
            raise _refuse(op, f"operand #{i} has a dynamic shape ({t})")
        if isinstance(t, MemRefType) and not isinstance(t.layout, NoneAttr):
            raise _refuse(op, f"operand #{i} has a non-identity layout ({t})")
        if not is_input_type(t.element_type):
            raise _refuse(op, f"operand #{i} holds {t.element_type}, not f32, f64, i32, i64, f16 or bf16")


def _shaped(v: SSAValue) -> ShapedType:
    """The type of an operand `_check_operands` accepted."""
    return cast(ShapedType, v.type)


def _depends_on(value: SSAValue, targets: Sequence[SSAValue], block: Block) -> bool:
    """Whether `value`, computed in `block`, is computed from one of `targets`."""
    if value in targets:
        return True
    owner = value.owner
    return isinstance(owner, Operation) and owner.parent_block() is block and any(
        _depends_on(v, targets, block) for v in owner.operands
    )


def _reduction(
    loops: _Loops, accs: Sequence[SSAValue]
) -> tuple[list[SSAValue], str, list[type[Operation]]]:
    """Per output the value combined into it, the combine `g` of `yield g(out, value)`,
    and per output the arith op computing `g`."""
    op, block = loops.op, loops.body
    values, names, updates = [], set(), []
    for i, (acc, y) in enumerate(zip(accs, block.last_op.operands)):  # type: ignore[union-attr]
        g = y.owner
        if type(g) not in COMBINE_OPS:
            what = g.name if isinstance(g, Operation) else "no operation"
            raise _refuse(op, f"output #{i} is reduced by {what}, not by {ASSOCIATIVE}")
        others = [v for v in g.operands if v is not acc]
        if len(others) != 1 or _depends_on(others[0], accs, block):
            raise _refuse(
                op, f"output #{i} is not updated as {g.name}(out, f(inputs)): not {ASSOCIATIVE}"
            )
        values.append(others[0])
        names.add(COMBINE_OPS[type(g)])
        updates.append(type(g))
    if len(names) > 1:
        raise _refuse(op, f"its outputs are reduced by different combines: {sorted(names)}")
    return values, names.pop(), updates


def _is_identity(value: SSAValue, g: str) -> bool:
    const = value.owner
    if not isinstance(const, arith.ConstantOp):
        return False
    attr, t = const.value, value.type
    if isinstance(attr, FloatAttr):
        return attr.value.data == identity(g, t)
    assert isinstance(attr, IntegerAttr)
    width = t.width.data  # type: ignore[attr-defined]
    return (attr.value.data - identity(g, t)) % (1 << width) == 0


def _filled(op: Operation | None) -> SSAValue | None:
    """The scalar a fill writes: `linalg.fill`, or a generic just yielding a scalar input
    (what `linalg-generalize-named-ops` makes of a fill)."""
    if isinstance(op, FillOp):
        return op.inputs[0]
    if isinstance(op, GenericOp) and len(op.inputs) == len(op.outputs) == 1:
        block = op.body.block
        scalar = not isinstance(op.inputs[0].type, ShapedType)
        if scalar and list(block.last_op.operands) == [block.args[0]]:  # type: ignore[union-attr]
            return op.inputs[0]
    return None


def _initial_fill(op: Operation, out: SSAValue) -> Operation | None:
    """The fill that last wrote output `out` before `op`."""
    if isinstance(out.type, TensorType):
        return out.owner if _filled(out.owner) else None  # type: ignore[arg-type]
    block = op.parent_block()
    assert block is not None
    users = {block.find_ancestor_op_in_block(u.operation) for u in out.uses}
    prev = op.prev_op
    while prev is not None and prev not in users:
        prev = prev.prev_op
    return prev if _filled(prev) and list(prev.outputs) == [out] else None  # type: ignore


def _fresh_symbol(module: Operation, base: str) -> str:
    name, k = base, 0
    while SymbolTable.lookup_symbol(module, name) is not None:
        k += 1
        name = f"{base}_{k}"
    return name


def _scalar_function(loops: _Loops, name: str, parts: _Parts) -> func.FuncOp:
    """`func.func @name` computing the parts' values of the body from its arguments, each
    combined with its output's start at the first point of the reduction dimensions."""
    op, body, rank, args = loops.op, loops.body, len(loops.kinds), parts.args
    indexed = any(isinstance(o, IndexOp) for o in body.ops) or any(parts.starts)
    types = [read_type(a.type) for a in args] + [IndexType()] * (rank if indexed else 0)
    block = Block(arg_types=types)
    mapping: dict[SSAValue, SSAValue] = dict(zip(args, block.args))
    stored = {a for a in args if isinstance(a.type, STORAGE_TYPES)}

    def value(v: SSAValue) -> SSAValue:
        if v in stored:
            raise _refuse(op, f"its body computes on {v.type} values; f16 and bf16 inputs convert only as read as f32 (arith.extf to f32)")
        if v not in mapping:
            if not isinstance(v.owner, arith.ConstantOp):
                raise _refuse(op, "its body uses a value defined outside it that is not a constant")
            block.add_op(v.owner.clone(mapping))
        return mapping[v]

    for arg, const in parts.constants.items():
        mapping[arg] = value(const)
    needed = {o for v in parts.values for o in _slice(v, body)}
    for o in body.ops:
        if o not in needed:
            continue
        if isinstance(o, IndexOp):
            mapping[o.result] = block.args[len(args) + o.dim.value.data]
        elif isinstance(o, arith.ExtFOp) and o.input in stored and o.result.type == read_type(o.input.type):
            mapping[o.result] = mapping[o.input]  # the f32 the element is read as
        elif o.regions or not o.name.startswith(SCALAR_DIALECTS):
            raise _refuse(op, f"its body holds {o.name}; scalar functions hold arith and math ops")
        else:
            for v in o.operands:
                value(v)
            block.add_op(o.clone(mapping))
    results = [value(v) for v in parts.values]
    if any(parts.starts):
        first = _first_point(block, block.args[len(args):], loops.kinds)
        for i, start in enumerate(parts.starts):
            if start is not None:
                results[i] = _started(block, results[i], value(start.value), first, start.update)
    block.add_op(func.ReturnOp(*results))
    return func.FuncOp(name, (types, [v.type for v in results]), Region(block))


def _first_point(block: Block, indices: Sequence[SSAValue], kinds: Sequence[str]) -> SSAValue:
    """Adds to `block` the i1 whether `indices` are 0 along every reduction dimension."""
    zero = arith.ConstantOp.from_int_and_width(0, IndexType())
    block.add_op(zero)
    first: SSAValue | None = None
    for index, kind in zip(indices, kinds):
        if kind == "reduction":
            at_zero = arith.CmpiOp(index, zero, "eq")
            both = [at_zero] if first is None else [at_zero, arith.AndIOp(first, at_zero)]
            block.add_ops(both)
            first = both[-1].results[0]
    assert first is not None, "a start belongs to a reduced output"
    return first


def _started(
    block: Block, value: SSAValue, start: SSAValue, first: SSAValue, update: type[Operation]
) -> SSAValue:
    """Adds to `block` `update(value, first ? start : identity)`: the point's value, with the
    output's start folded into the first point of the reduction."""
    t, g = value.type, COMBINE_OPS[update]
    neutral = identity(g, t)
    if isinstance(neutral, float):
        const = arith.ConstantOp(FloatAttr(neutral, t))  # type: ignore[arg-type]
    else:
        const = arith.ConstantOp.from_int_and_width(neutral, t)  # type: ignore[arg-type]
    chosen = arith.SelectOp(first, start, const)
    combined = update(value, chosen)  # type: ignore[call-arg]
    block.add_ops([const, chosen, combined])
    return combined.results[0]


def _slice(v: SSAValue, body: Block) -> set[Operation]:
    """The ops of `body` that `v` is computed by."""
    owner = v.owner
    if not isinstance(owner, Operation) or owner.parent_block() is not body:
        return set()
    return {owner}.union(*(_slice(o, body) for o in owner.operands))


def _host(op: Operation) -> tuple[str, Operation]:
    """A computation name for `op` — its function's name, then `_1`, `_2`, ... for the
    function's further computations — and `op`'s ancestor at module level."""
    name, top = "linalg", op
    while not isinstance(parent := top.parent_op(), ModuleOp):
        assert parent is not None, "linalg ops convert inside a module"
        top = parent
        if isinstance(top, func.FuncOp) and name == "linalg":
            name = top.sym_name.data
    taken = {o.comp_name.data for o in top.walk() if isinstance(o, ComputeOp)}
    unique, k = name, 0
    while unique in taken:
        k += 1
        unique = f"{name}_{k}"
    return unique, top


def _as_buffer(v: SSAValue) -> tuple[Operation | None, SSAValue]:
    """A memref holding `v`, and the op making it from a tensor (None for a memref)."""
    t = v.type
    if isinstance(t, MemRefType):
        return None, v
    assert isinstance(t, TensorType)
    to_buffer = bufferization.ToBufferOp.build(
        operands=[v],
        result_types=[MemRefType(t.element_type, t.get_shape())],
        properties={"read_only": UnitAttr()},
    )
    return to_buffer, to_buffer.results[0]


def _forwardable(
    op: Operation, out: SSAValue, inputs: Sequence[SSAValue], drop: Sequence[Operation]
) -> bool:
    """Whether memref `out` is allocated right here, so that the result can replace it
    (`drop`: the ops erased with `op`)."""
    alloc, block = out.owner, op.parent_block()
    if not isinstance(alloc, memref.AllocOp) or alloc.parent_block() is not block or out in inputs:
        return False
    assert block is not None
    position = block.get_operation_index(op)
    later = [block.find_ancestor_op_in_block(u.operation) for u in out.uses]
    return all(
        u is op or u in drop or (u is not None and block.get_operation_index(u) > position)
        for u in later
    )


@dataclass
class _Parts:
    """What the `mdh.compute` of a linalg op is made of."""

    inputs: list[SSAValue]
    in_maps: list[AffineMap]
    args: list[SSAValue]
    """The body's arguments that the scalar function takes, one per input."""
    values: list[SSAValue]
    """The body's values that the scalar function returns, one per output."""
    reduction: str | None
    fills: list[Operation]
    """The fills of the outputs that the op's result replaces (dropped)."""
    starts: list[_Start | None]
    """Per reduced output where it starts, None at the reduction's identity."""
    constants: dict[SSAValue, SSAValue]
    """The body's arguments of scalar inputs, and the constants they are (inlined)."""


@dataclass
class _Start:
    """A reduced output's value before the op: a constant it was filled with, or (the
    body's argument of) its old contents, then an input; `update` combines it in
    (`out = start ⊕ reduce(...)`)."""

    value: SSAValue
    update: type[Operation]


def _starts(loops: _Loops, parts: _Parts, updates: Sequence[type[Operation]]) -> None:
    """Where each reduced output starts: at the identity or another constant it is filled
    with (the fill is dropped), or at its old contents (an input read by the scalar
    function at the first point of the reduction)."""
    n_in = len(loops.inputs)
    for i, (out, update) in enumerate(zip(loops.outputs, updates)):
        fill = _initial_fill(loops.op, out)
        value = _filled(fill) if fill is not None else None
        if value is not None and isinstance(value.owner, arith.ConstantOp):
            parts.fills.append(fill)  # type: ignore[arg-type]
            at_identity = _is_identity(value, parts.reduction)  # type: ignore[arg-type]
            parts.starts.append(None if at_identity else _Start(value, update))
        else:
            acc = loops.body.args[n_in + i]
            parts.inputs.append(out)
            parts.in_maps.append(loops.maps[n_in + i])
            parts.args.append(acc)
            parts.starts.append(_Start(acc, update))


def _parts(loops: _Loops) -> _Parts:
    body, maps, n_in = loops.body, loops.maps, len(loops.inputs)
    parts = _Parts([], [], [], [], None, [], [], {})
    for v, m, arg in zip(loops.inputs, maps, body.args):
        if isinstance(v.type, ShapedType):
            parts.inputs.append(v)
            parts.in_maps.append(m)
            parts.args.append(arg)
        else:  # a constant scalar, inlined
            parts.constants[arg] = v
    accs = body.args[n_in:]
    if "reduction" in loops.kinds:
        parts.values, parts.reduction, updates = _reduction(loops, accs)
        _starts(loops, parts, updates)
        return parts
    parts.values = list(body.last_op.operands)  # type: ignore[union-attr]
    for i, acc in enumerate(accs):
        if acc.uses:  # the output's old value is read: an input
            parts.inputs.append(loops.outputs[i])
            parts.in_maps.append(maps[n_in + i])
            parts.args.append(acc)
    return parts


@dataclass
class LinalgToMDH(RewritePattern):
    """One linalg op into `mdh.compute` (see the module docstring); with `fills`, only the
    fills of memrefs (those left after the other ops took theirs)."""

    fills: bool = False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        filled = _filled(op) is not None
        if self.fills and not (filled and isinstance(op.operands[-1].type, MemRefType)):
            return
        if (filled and not self.fills) or (loops := _loops(op)) is None:
            return
        kinds = loops.kinds
        if set(kinds) - {"parallel", "reduction", "unit"}:
            raise _refuse(op, f"iterator types {kinds}: only parallel and reduction convert")
        parts = _parts(loops)
        name, top = _host(op)
        module = top.parent_op()
        assert module is not None
        scalar = _scalar_function(loops, _fresh_symbol(module, f"{name}_f"), parts)
        rewriter.insert(scalar, InsertPoint.before(top))
        conversions = [_as_buffer(v) for v in parts.inputs]
        rewriter.insert([c for c, _ in conversions if c is not None])
        combines = {
            "parallel": Combine("cc"),
            "reduction": Combine("pw", parts.reduction, True),
            "unit": Combine("pw", "mul", True),  # 1 * v: the one value, as it is
        }
        out_types = [_shaped(v).get_element_type() for v in loops.outputs]
        properties: dict[str, Attribute] = {
            "inp_view": make_view([[m] for m in parts.in_maps]),
            "md_hom": DictionaryAttr({
                "scalar_func": SymbolRefAttr(scalar.sym_name.data),
                "combine_ops": ArrayAttr([combines[k].to_attr() for k in kinds]),
            }),
            "out_view": make_view([[m] for m in loops.maps[len(loops.inputs):]]),
            "inp_types": ArrayAttr([_shaped(v).get_element_type() for v in parts.inputs]),
            "mda_size": ArrayAttr([IntegerAttr(n, 64) for n in loops.sizes]),
            "out_types": ArrayAttr(out_types),
        }  # fmt: skip
        compute = ComputeOp(
            name,
            [b for _, b in conversions],
            properties,
            [MemRefType(t, _shaped(v).get_shape()) for t, v in zip(out_types, loops.outputs)],
        )
        rewriter.insert(compute)
        try:
            compute.verify()
        except VerifyException as e:
            raise _refuse(op, str(e)) from None
        _deliver(loops, compute, parts.fills, rewriter)


def _deliver(
    loops: _Loops, compute: ComputeOp, fills: list[Operation], rewriter: PatternRewriter
) -> None:
    """Hand each result to the op's users, then erase the op and what it made dead."""
    op, dead = loops.op, list(fills)
    tensors = []
    for out, result in zip(loops.outputs, compute.results):
        if isinstance(out.type, TensorType):
            to_tensor = bufferization.ToTensorOp(result, restrict=True)
            rewriter.insert(to_tensor)
            tensors.append(to_tensor.tensor)
        elif _forwardable(op, out, compute.inputs, fills):
            keep = (op, *fills)
            rewriter.replace_uses_with_if(out, result, lambda u: u.operation not in keep)
            dead.append(out.owner)  # type: ignore[arg-type]
        else:
            rewriter.insert(memref.CopyOp(result, out))
    rewriter.replace(op, [], tensors)
    for o in dead:
        if not any(r.uses for r in o.results):
            rewriter.erase(o)


@dataclass(frozen=True)
class ConvertLinalgToMDH(ModulePass):
    name = "convert-linalg-to-mdh"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fills in (False, True):
            walker = PatternRewriteWalker(LinalgToMDH(fills), apply_recursively=False)
            walker.rewrite_module(op)
        for o in op.walk():
            inside = o.parent_op()
            nested = inside is not None and inside.name.startswith("linalg.")  # a fill's yield
            if o.name.startswith("linalg.") and not nested and _filled(o) is None:
                raise _refuse(o, "the pass has no rule for it")
