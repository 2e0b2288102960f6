"""`mdh-fuse`: fuse chained ops: epilogues, prologues and row statistics.

A producer `mdh.compute` whose single result is read by one consumer `mdh.compute`
only, where the consumer is point-wise in it, becomes one op: the producer's
computation with an `epilogue` (`mdh.ComputeOp`'s docstring) that applies the consumer's
scalar function to each final output value, after every combine:

    %C = mdh.compute "mm" {... combine_ops = ["cc", "cc", ["pw", @add]] ...} (%A, %B)
    %R = mdh.compute "bias_relu" {inp_view = [[(i,j) -> (i,j)], [(i,j) -> (j)]], ...} (%C, %b)
  ->
    %R = mdh.compute "mm_bias_relu" {... epilogue = {func = @bias_relu_f_epilogue,
           inp_view = [[(i,j,k) -> (j)]]} ...} (%A, %B, %b)

The consumer is point-wise when all its dimensions are `cc`, it reads the producer's
result with one access whose map is a permutation of its dimensions over the result's
whole shape (consumer dimension c is then the producer's kept dimension that the
result's axis keeps), it has one result of the producer's element type, and its
scalar function takes no index arguments. Its other inputs become the epilogue's, their
views re-expressed over the producer's dimensions; its output view becomes the fused
op's. The epilogue function takes the output value first, then the other inputs'
accesses: where the consumer's function takes them in another order, or the producer
has an epilogue already (the two are composed), a function calling them
(`<f>_epilogue`) is added to the module. The fused op stands where the consumer stood,
named `<producer>_<consumer>`, with the producer's configuration, if any.

Where the consumer cannot take the producer as an epilogue (it reduces, or reads the
result with several accesses or in part), a point-wise producer (all dimensions `cc`,
each input read with one access, no epilogue or prologue of its own, no index
arguments) becomes the consumer's `prologue` (`mdh.ComputeOp`'s docstring):

    %As = mdh.compute "rowscale" {inp_view = [[(i,k) -> (i,k)], [(i,k) -> (i)]], ...} (%A, %s)
    %C = mdh.compute "mm" {inp_view = [[(i,j,k) -> (i,k)], [(i,j,k) -> (k,j)]], ...} (%As, %B)
  ->
    %C = mdh.compute "rowscale_mm" {inp_view = [[(i,j,k) -> (i,k)], [(i,j,k) -> (i)],
           [(i,j,k) -> (k,j)]], ..., prologue = [{func = @mul, inputs = [0, 1]}]} (%A, %s, %B)

The result's input is replaced, in place, by the producer's inputs, each read through
the producer's view composed with each of the consumer's accesses to the result, and
grouped under the producer's scalar function. The consumer must read the result
without a boundary mode (the producer's function of a `zero` read outside is not
zero). The fused op drops the consumer's configuration (its per-input entries no
longer fit) and gets one as any op.

The prologue runs where the scalar function reads its inputs, after promotion: local
and private copies hold the raw inputs (`mdh-tile` places the call). Cost: applying it
in the cooperative copy into local memory would evaluate it once per element per
work-group, at the read it runs once per use; but its arguments do not move along the
dimensions their views ignore, so the OpenCL compiler hoists it out of the element
loops over them (a matmul's scaled A: once per element of A per work-item, i.e. the
copy's cost times the work-items along j, a few per element against the k FMAs
of the element's uses). At the read it also applies to inputs read from global memory
or private copies, any number of inputs per group (A and s above: a copy moves one
buffer), and leaves the copies (vector lanes, prefetch stages, boundary fills)
unchanged. A function expensive enough for the difference to matter is future work.

When neither applies, reductions whose results an op reads along their rows (one
access, the projection onto the reduction's kept dimensions, the same sizes), directly
or through each other, and used nowhere else, become that op's row statistics
(`stats`, `mdh.ComputeOp`'s docstring): a row softmax written as max, sum of exp(x -
max), quotient becomes one op (`row_group`, `fuse_rows`; functions that take the
statistics elsewhere than first get a `<f>_rows` wrapper). Chosen over an online
softmax (one pw combine over the pair (max, rescaled sum)): that one is a combine a
user may write as a two-result reduction, and then fuses the same way (two phases);
but as the fusion of the chain it would change the user's computation (exp of
differences rescaled, 2 exps per element in the combine) and its rounding. The
phases run in one kernel whose work-groups hold whole rows (`mdh-split-stats`,
`lowlevel-merge-kernels`, rule `rows`): correct at every size (a row of any length is
looped over by its work-group), the statistics pass between phases through a buffer
of one value per row written and read by the same work-group (4096 rows: 16 KiB, in
cache), x is read once per phase (from DRAM once, then from cache while the
work-group's rows fit it) and y written once; nothing of the row's size goes
through global memory in between.

Fusions are tried until none applies, so a chain of point-wise consumers (bias, then
ReLU) folds into one op. A producer that cannot be fused with the op reading its result
stays as it is, and a `FusionRemark` warning gives the reasons (a result used twice or
returned, a consumer that is not point-wise, shapes that differ, a consumer reading
f16/bf16 inputs or `precision = "tf32"`: an epilogue reads its inputs as they are, ...;
then why not as a prologue: an op with `precision = "tf32"` rounds what it reads, which
a prologue would move to the producer's inputs). The fused op keeps the producer's
`precision`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from mdh_ir.affine import dim_of
from mdh_ir.dialects.mdh import ComputeOp, make_view
from mdh_ir.passes.split_stats import projection


class FusionRemark(UserWarning):
    """A producer and consumer that `mdh-fuse` leaves unfused, and why."""


def consumer_of(producer: ComputeOp) -> ComputeOp | str | None:
    """The op that reads `producer`'s result, or why it cannot be fused with the ops
    that read its results; None where no `mdh.compute` reads them."""
    users = [u.operation for r in producer.outputs for u in r.uses]
    if not any(isinstance(u, ComputeOp) for u in users):
        return None
    if len(producer.outputs) != 1:
        return f"it has {len(producer.outputs)} results"
    if len(users) != 1:
        return f"its result is used {len(users)} times ({', '.join(u.name for u in users)})"
    return users[0]  # type: ignore[return-value]


def fusion_problem(producer: ComputeOp, consumer: ComputeOp) -> str | None:
    """Why `consumer` cannot be fused into `producer` as its epilogue, or None."""
    result = producer.outputs[0]
    if any(c.kind == "ps" for c in producer.combines):
        return "the producer has a ps dimension (its scan kernels write the final values)"
    if result not in consumer.inputs:
        return "the consumer reads the result in its epilogue"
    if consumer.epilogue is not None:
        return "the consumer has an epilogue"
    if any(c.kind != "cc" for c in consumer.combines):
        return "the consumer is not point-wise (it has a pw or ps dimension)"
    maps = consumer.input_maps[list(consumer.inputs).index(result)]
    if len(maps) != 1:
        return f"the consumer reads the result with {len(maps)} accesses, not point-wise"
    dims = [dim_of(e) for e in maps[0].results]
    if sorted(d for d in dims if d is not None) != list(range(consumer.rank)) or None in dims:
        return f"the consumer reads the result through {maps[0]}, not a permutation of its dimensions"
    shape = result.type.get_shape()  # type: ignore[attr-defined]
    if [consumer.sizes[d] for d in dims] != list(shape):  # type: ignore[index]
        return f"shapes differ: the consumer reads {[consumer.sizes[d] for d in dims]} of the result of shape {list(shape)}"  # type: ignore[index]
    if len(consumer.outputs) != 1:
        return f"the consumer has {len(consumer.outputs)} results"
    if consumer.output_element_types != producer.output_element_types:
        return "the consumer's result has another element type than the producer's"
    if consumer.input_precision != "ieee":
        return f'the consumer reads its inputs as {consumer.input_precision} (precision = "{consumer.input_precision}"), an epilogue reads them as they are'
    if consumer.input_read_types != list(consumer.inp_types.data):
        return "the consumer reads f16 or bf16 inputs, which an epilogue does not"
    scalar = consumer.lookup_func(consumer.scalar_func)
    if scalar is None or len(scalar.function_type.inputs) != sum(map(len, consumer.input_maps)):
        return "the consumer's scalar function takes the point's indices"
    return None


def producer_dims(producer: ComputeOp, consumer: ComputeOp) -> list[int]:
    """Per consumer dimension, the producer dimension it is (`fusion_problem` passed)."""
    read = consumer.input_maps[list(consumer.inputs).index(producer.outputs[0])][0]
    kept = [dim_of(e) for e in producer.output_maps[0].results]
    sigma = [0] * consumer.rank
    for axis, e in enumerate(read.results):
        sigma[dim_of(e)] = kept[axis]  # type: ignore[index]
    return sigma  # type: ignore[return-value]


def over(amap: AffineMap, sigma: list[int], rank: int) -> AffineMap:
    """`amap` over the consumer's dimensions re-expressed over the producer's `rank`."""
    dims = [AffineExpr.dimension(p) for p in sigma]
    return amap.replace_dims_and_symbols(dims, [], rank, 0)


def epilogue_function(module: ModuleOp, producer: ComputeOp, consumer: ComputeOp) -> str:
    """The fused op's epilogue function (module docstring): the consumer's scalar
    function where it takes the output value first and the producer has no epilogue,
    else a new one calling them."""
    position = list(consumer.inputs).index(producer.outputs[0])
    accesses = [len(maps) for maps in consumer.input_maps]
    first = sum(accesses[:position])
    if first == 0 and producer.epilogue is None:
        return consumer.scalar_func
    scalar = consumer.lookup_func(consumer.scalar_func)
    assert scalar is not None
    arg_types = list(scalar.function_type.inputs.data)
    value_type = arg_types[first]
    old = [t for maps, v in zip(producer.epilogue_maps, producer.epilogue_inputs) for t in [v.type.element_type] * len(maps)]  # type: ignore[attr-defined]
    new = arg_types[:first] + arg_types[first + 1 :]
    block = Block(arg_types=[value_type, *old, *new])
    value, old_args, new_args = block.args[0], block.args[1 : 1 + len(old)], block.args[1 + len(old) :]
    if producer.epilogue is not None:
        call = func.CallOp(producer.epilogue_func, [value, *old_args], [value_type])  # type: ignore[arg-type]
        block.add_op(call)
        value = call.results[0]
    args = [*new_args[:first], value, *new_args[first:]]
    call = func.CallOp(consumer.scalar_func, args, list(scalar.function_type.outputs.data))
    block.add_ops([call, func.ReturnOp(*call.results)])
    name, n = f"{consumer.scalar_func}_epilogue", 0
    while SymbolTable.lookup_symbol(module, name) is not None:
        n += 1
        name = f"{consumer.scalar_func}_epilogue{n}"
    wrapper = func.FuncOp(name, (block.arg_types, scalar.function_type.outputs.data), Region(block))
    callees = [scalar] + ([producer.lookup_func(producer.epilogue_func)] if producer.epilogue else [])  # type: ignore[arg-type]
    block_ops = list(scalar.parent_block().ops)  # type: ignore[union-attr]
    Rewriter.insert_op(wrapper, InsertPoint.after(max(callees, key=block_ops.index)))  # after its callees, as C needs
    return name


def fuse(module: ModuleOp, producer: ComputeOp, consumer: ComputeOp) -> ComputeOp:
    """The fused op, in place of `consumer` (`fusion_problem` passed)."""
    sigma, rank = producer_dims(producer, consumer), producer.rank
    result = producer.outputs[0]
    others = [
        (v, maps, mode)
        for v, maps, mode in zip(consumer.inputs, consumer.input_maps, consumer.boundaries)
        if v is not result
    ]
    views = producer.epilogue_maps + [[over(m, sigma, rank) for m in maps] for _, maps, _ in others]
    bounds = producer.epilogue_boundaries + [mode for _, _, mode in others]
    epilogue = {
        "func": SymbolRefAttr(epilogue_function(module, producer, consumer)),
        "inp_view": make_view(views),
    }
    if any(b != "none" for b in bounds):
        epilogue["boundary"] = ArrayAttr([StringAttr(b) for b in bounds])
    props = {k: v for k, v in producer.properties.items() if k != "comp_name"}
    props["epilogue"] = DictionaryAttr(epilogue)
    props["out_view"] = make_view([[over(consumer.output_maps[0], sigma, rank)]])
    name = f"{producer.comp_name.data}_{consumer.comp_name.data}"
    extra = [*producer.epilogue_inputs, *(v for v, _, _ in others)]
    fused = ComputeOp(name, list(producer.inputs), props, consumer.outputs.types, extra)
    fused.location = consumer.location
    Rewriter.replace_op(consumer, fused)
    Rewriter.erase_op(producer)
    return fused


def prologue_problem(producer: ComputeOp, consumer: ComputeOp) -> str | None:
    """Why `producer` cannot be fused into `consumer`'s reads as a prologue, or None."""
    result = producer.outputs[0]
    if any(c.kind != "cc" for c in producer.combines):
        return "the producer is not point-wise (it has a pw or ps dimension)"
    if producer.epilogue is not None or producer.prologue is not None:
        return "the producer has an epilogue or a prologue"
    if "tf32" in (producer.input_precision, consumer.input_precision):
        return "an op has precision \"tf32\" (a prologue would round the producer's inputs instead of its result)"
    if any(len(maps) != 1 for maps in producer.input_maps):
        return "the producer reads an input with several accesses"
    if producer.scalar_arity != len(producer.lookup_func(producer.scalar_func).function_type.inputs):  # type: ignore[union-attr]
        return "the producer's scalar function takes the point's indices"
    if result not in consumer.inputs:
        return "the consumer reads the result in its epilogue"
    position = list(consumer.inputs).index(result)
    if any(position in group for _, group in consumer.prologues):
        return "the consumer reads the result through a prologue"
    if (mode := consumer.boundaries[position]) != "none":
        return f"the consumer reads the result with boundary mode '{mode}' (the producer's function of a read outside differs)"
    return None


def fuse_prologue(producer: ComputeOp, consumer: ComputeOp) -> ComputeOp:
    """The fused op, in place of `consumer` (`prologue_problem` passed): the result's
    input replaced by the producer's inputs, read through the producer's views composed
    with the consumer's accesses, grouped under a prologue calling the producer's
    scalar function."""
    result = producer.outputs[0]
    position = list(consumer.inputs).index(result)
    extra = len(producer.inputs) - 1
    inverse = {dim_of(e): axis for axis, e in enumerate(producer.output_maps[0].results)}
    composed = []
    for amap in producer.input_maps:
        per_access = []
        for access in consumer.input_maps[position]:
            point = [access.results[inverse[p]] for p in range(producer.rank)]
            per_access.append(amap[0].replace_dims_and_symbols(point, [], consumer.rank, 0))
        composed.append(per_access)
    def spliced(items: list, new: list) -> list:
        return items[:position] + new + items[position + 1 :]
    groups = [(f, [b + extra if b > position else b for b in g]) for f, g in consumer.prologues]
    groups.append((producer.scalar_func, list(range(position, position + len(producer.inputs)))))
    props = {k: v for k, v in consumer.properties.items() if k not in ("comp_name", "config")}
    props["inp_view"] = make_view(spliced(consumer.input_maps, composed))
    props["inp_types"] = ArrayAttr(spliced(consumer.input_element_types, producer.input_element_types))
    bounds = spliced(consumer.boundaries, producer.boundaries)
    if any(b != "none" for b in bounds):
        props["boundary"] = ArrayAttr([StringAttr(b) for b in bounds])
    props["prologue"] = ArrayAttr(
        [DictionaryAttr({"func": SymbolRefAttr(f), "inputs": ArrayAttr([IntegerAttr(b, 64) for b in g])}) for f, g in groups]
    )
    name = f"{producer.comp_name.data}_{consumer.comp_name.data}"
    inputs = spliced(list(consumer.inputs), list(producer.inputs))
    fused = ComputeOp(name, inputs, props, consumer.outputs.types, list(consumer.epilogue_inputs))
    fused.location = consumer.location
    Rewriter.replace_op(consumer, fused)
    Rewriter.erase_op(producer)
    return fused


def row_reads(op: ComputeOp) -> dict[int, ComputeOp]:
    """Per input of `op` that a row reduction produces and `op` reads along its rows (one
    access, no boundary mode, the projection onto the reduction's kept dimensions, over
    the same sizes), that reduction."""
    found = {}
    for b, (value, maps, mode) in enumerate(zip(op.inputs, op.input_maps, op.boundaries)):
        r = value.owner
        if not isinstance(r, ComputeOp) or r.parent_block() is not op.parent_block() or r.sizes != op.sizes:
            continue
        if r.epilogue is not None or r.prologue is not None or r.stats is not None:
            continue
        kept = [d for d, c in enumerate(r.combines) if c.kind == "cc"]
        if len(kept) == r.rank or any(c.kind == "ps" for c in r.combines):
            continue
        rows = projection(r.rank, kept)
        if len(maps) == 1 and mode == "none" and maps[0] == rows and all(m == rows for m in r.output_maps):
            found[b] = r
    return found


def row_group(main: ComputeOp) -> list[ComputeOp]:
    """The row reductions whose results `main` reads along their rows, directly or
    through each other, in program order, where every use of their results lies in
    the group; empty where there is none or some result is used outside it."""
    group: list[ComputeOp] = []
    todo = [main]
    while todo:
        for r in row_reads(todo.pop()).values():
            if r not in group:
                group.append(r)
                todo.append(r)
    members = {main, *group}
    if any(u.operation not in members for r in group for v in r.outputs for u in v.uses):
        return []
    block = main.parent_block()
    order = list(block.ops)  # type: ignore[union-attr]
    return sorted(group, key=order.index)


def calling(module: ModuleOp, callee: str, arg_types: list, args: list[int], anchor: ComputeOp) -> str:
    """`callee` where `args` (per callee argument, the new function's argument giving
    it) is the identity, else a new function of `arg_types` calling it with `args`."""
    f = anchor.lookup_func(callee)
    assert f is not None
    if args == list(range(len(arg_types))) and list(f.function_type.inputs.data) == arg_types:
        return callee
    block = Block(arg_types=arg_types)
    call = func.CallOp(callee, [block.args[a] for a in args], list(f.function_type.outputs.data))
    block.add_ops([call, func.ReturnOp(*call.results)])
    name, n = f"{callee}_rows", 0
    while SymbolTable.lookup_symbol(module, name) is not None:
        n += 1
        name = f"{callee}_rows{n}"
    Rewriter.insert_op(func.FuncOp(name, (arg_types, f.function_type.outputs.data), Region(block)), InsertPoint.after(f))
    return name


def phase_function(module: ModuleOp, op: ComputeOp, earlier: list) -> tuple[str, list[int]]:
    """`op`'s function taking the values of `earlier` (SSA results of earlier phases)
    first, then the accesses of its other inputs, and those inputs."""
    stat_of = row_reads(op)
    own = [b for b in range(len(op.inputs)) if b not in stat_of]
    types = [v.type.element_type for v in earlier]  # type: ignore[attr-defined]
    types += [op.inputs[b].type.element_type for b in own for _ in op.input_maps[b]]  # type: ignore[attr-defined]
    args, position = [], len(earlier)
    slots = {b: [] for b in own}
    for b in own:
        slots[b] = list(range(position, position + len(op.input_maps[b])))
        position += len(op.input_maps[b])
    for b in range(len(op.inputs)):
        args += [earlier.index(op.inputs[b])] if b in stat_of else slots[b]
    return calling(module, op.scalar_func, types, args, op), own


def fuse_rows(module: ModuleOp, group: list[ComputeOp], main: ComputeOp) -> ComputeOp:
    """The op computing `group`'s reductions as row statistics before `main`."""
    earlier: list = []
    entries, stats_inputs = [], []
    for r in group:
        f, own = phase_function(module, r, earlier)
        entry = {
            "func": SymbolRefAttr(f),
            "combine_ops": r.md_hom.data["combine_ops"],
            "inp_view": make_view([r.input_maps[b] for b in own]),
        }
        if any(r.boundaries[b] != "none" for b in own):
            entry["boundary"] = ArrayAttr([StringAttr(r.boundaries[b]) for b in own])
        entries.append(DictionaryAttr(entry))
        stats_inputs += [r.inputs[b] for b in own]
        earlier += list(r.outputs)
    f, own = phase_function(module, main, earlier)
    props = {k: v for k, v in main.properties.items() if k not in ("comp_name", "config")}
    props["md_hom"] = DictionaryAttr({**main.md_hom.data, "scalar_func": SymbolRefAttr(f)})
    props["inp_view"] = make_view([main.input_maps[b] for b in own])
    props["inp_types"] = ArrayAttr([main.input_element_types[b] for b in own])
    props.pop("boundary", None)
    if any(main.boundaries[b] != "none" for b in own):
        props["boundary"] = ArrayAttr([StringAttr(main.boundaries[b]) for b in own])
    props["stats"] = ArrayAttr(entries)
    name = "_".join(op.comp_name.data for op in [*group, main])
    fused = ComputeOp(name, [main.inputs[b] for b in own], props, main.outputs.types, list(main.epilogue_inputs), stats_inputs)
    fused.location = main.location
    Rewriter.replace_op(main, fused)
    for r in reversed(group):
        Rewriter.erase_op(r)
    return fused


def remark(producer: ComputeOp, reason: str) -> None:
    warnings.warn(
        f'mdh-fuse: remark: mdh.compute "{producer.comp_name.data}" not fused: {reason}',
        FusionRemark,
        stacklevel=2,
    )


@dataclass(frozen=True)
class MDHFuse(ModulePass):
    name = "mdh-fuse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refused: dict[ComputeOp, str] = {}
        while True:
            for producer in [o for o in op.walk() if isinstance(o, ComputeOp)]:
                consumer = consumer_of(producer)
                if consumer is None:
                    continue
                if isinstance(consumer, str):
                    refused[producer] = consumer
                    continue
                reason = fusion_problem(producer, consumer)
                if reason is None:
                    fuse(op, producer, consumer)
                    break
                if (why := prologue_problem(producer, consumer)) is None:
                    fuse_prologue(producer, consumer)
                    break
                refused[producer] = f"{reason}; as a prologue: {why}"
            else:
                mains = [o for o in op.walk() if isinstance(o, ComputeOp) and o.stats is None]
                rows = [(m, g) for m in mains if m.epilogue is None and m.prologue is None and (g := row_group(m))]
                if not rows:
                    break
                fuse_rows(op, rows[0][1], rows[0][0])
        for producer, reason in refused.items():
            if producer.parent is not None:
                remark(producer, reason)
