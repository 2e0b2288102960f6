"""`mdh-place-combine`: spell out the re-composition (DESIGN.md section 5.5).

Replaces each `lowlevel.accumulate` with explicit code, following `mdh_ir.schedule.tiling`:

- a point of the padding of a padded private-tile loop (`mdh_ir.schedule.tiling`) is discarded:
  its results are not stored, and not combined into an accumulator (a select keeps the
  old value);
- without `pw` dimensions, each point's results are stored to the outputs;
- a point's results are combined with the combine function; a float multiply (scalar
  function) accumulated by addition becomes one fused multiply-add (`math.fma`);
- with `pw` dimensions and `res_mem` "prv", each work-item accumulates into a private
  buffer (one axis per kept-dimension loop of the scope). It starts at the combine
  function's identity (`lowlevel.fill`) when the function is a known builtin, and
  otherwise takes the first value as is. After each run of the scope the accumulator is
  flushed: if a pw dimension has several work-items, their partial results meet in local
  memory and are combined in a tree (with barriers; work-items without a value are
  skipped); then the result goes to the output, or, if pw dimensions are split across
  work-groups, to a temporary buffer with one slice per work-group. A flush is combined
  with earlier flushes when pw loops lie outside the scope.
- with `res_mem` "glb", every value is combined directly into its destination.

An epilogue (`mdh.ComputeOp`'s docstring) is applied where an output's final value is
written, and only there: to each point's results without `pw` dimensions; to a flush
that writes the output when no pw loop lies outside the scope, else to the flush in
the last step of every such loop (earlier flushes store the partial result, which the
next combines); and, where pw dimensions are split across work-groups, in the combine
of the work-groups' partial results (never to the partials). Its inputs are read from
global memory at the output point (`lowlevel.view_load` through their views).
`res_mem` "glb" combines into the output until the last point, so an op with an
epilogue and pw dimensions needs "prv" (rule `epilogue`).

Work-group partial results are combined (`wg_combine`) by a second kernel
(`<name>_combine`, one work-item per output element), or, with "last", at the end of the
kernel by the last work-group to finish among those that share output elements (the
same ids along the kept dimensions: a kept work-group): a counter per kept work-group
counts them with `atomic_inc` between fences, after a barrier on global memory; the one
that counts last sets the counter back to zero and combines the output elements of its
kept work-group's local tiles, its work-items taking them in turn, each reading the
partial results of up to `LAST_COMBINE_POINTS` of its elements before it stores the
first. The counters are a zero-initialized `memref.global`
(`<name>_counters`), which a program creates once and keeps. Where the work-group has
at least twice as many work-items as those elements, `TilePlan.combine_lanes` of them
share each element: each combines every lanes-th partial result, and the lanes meet in
a tree in local memory (dot: 1024 work-items over 4096 partial results, instead of one
work-item over all). Each `ps` dimension is scanned afterwards, in parallel, by the
kernels of `mdh_ir.passes.scan` (`<name>_scan<d>_reduce`, `_carries`, `<name>_scan<d>`).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import arith, func, math, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from mdh_ir.schedule.combine import builtin_meaning, identity, meaning
from mdh_ir.dialects.lowlevel import (
    LCL,
    LOCAL_SIZE_ATTR,
    PRV,
    UNROLL_ATTR,
    AccumulateOp,
    AtomicIncOp,
    ViewLoadOp,
    BarrierOp,
    FenceOp,
    FillOp,
    GroupIdOp,
    KernelOp,
    LaunchOp,
    LocalIdOp,
    TileForOp,
    i64_array,
)
from mdh_ir.dialects.mdh import Combine
from mdh_ir.passes.assign_asm import tile_chain
from mdh_ir.passes.carried import COMPUTE_ATTR, carried
from mdh_ir.passes.emit import Emitter, Value, constant_value, i1
from mdh_ir.passes.kernel_stage import rewritten_by
from mdh_ir.passes.scan import ScanKernels
from mdh_ir.passes.tile import takes_point
from mdh_ir.schedule.tiling import Loop, TilePlan

_FLOAT_OPS = {"add": arith.AddfOp, "mul": arith.MulfOp, "max": arith.MaxnumfOp, "min": arith.MinnumfOp}
_INT_OPS = {
    "add": arith.AddiOp, "mul": arith.MuliOp, "max": arith.MaxSIOp, "min": arith.MinSIOp,
    "and": arith.AndIOp, "or": arith.OrIOp, "xor": arith.XOrIOp,
}  # fmt: skip
SIDE = 64
"""Work-group size of the combine kernel."""
UNROLLED_PARTIALS = 256
PARTIALS_UNROLL = 16
"""Work-group partial results of an output combined by straight-line code, and the
unrolling of the loop over more (dot over 32768 work-groups: one straight-line combine
of 32768 loads did not build within the tuner's 60 s)."""
LAST_COMBINE_POINTS = 32
LAST_COMBINE_LOADS = 256
"""The last work-group's combine (`wg_combine` "last") reads the partial results of up
to this many points a work-item, and at most this many loads, before it stores the first
(NVIDIA's compiler keeps global loads behind earlier global stores, so a point at a time
waits for each point's loads: H100, f16 128 x 4096 x 4096 split 4 ways, 128 points a
work-item, a point at a time 0.0569 ms, 8 0.0383, 32 0.0372; the kernel without its
combine 0.0324)."""


def combine_values(
    e: Emitter, c: Combine, lhs: Sequence[SSAValue], rhs: Sequence[SSAValue]
) -> list[SSAValue]:
    """g(lhs, rhs) for combine operator c, element-wise over the outputs."""
    if c.builtin:
        ops = [
            (_FLOAT_OPS if isinstance(a.type, Float32Type | Float64Type) else _INT_OPS)[c.func]  # type: ignore
            for a in lhs
        ]
        return [e.emit(op(a, b)) for op, a, b in zip(ops, lhs, rhs)]
    call = e.op(func.CallOp(c.func, [*lhs, *rhs], [a.type for a in lhs]))  # type: ignore[arg-type]
    return list(call.results)


def out_index(amap, point: Sequence[SSAValue]) -> list[SSAValue]:
    return [point[r.position] for r in amap.results]


def halving_tree(e: Emitter, n: int, me: SSAValue, step: Callable[[Emitter, SSAValue], None]) -> None:
    """Combine `n` values held by work-items 0..n-1 in a tree: at each level, with the
    stride halving from the power of two below `n`, `step(body, partner)` runs for
    me < stride where partner = me + stride < n; a barrier follows each level."""
    stride = 1
    while stride < n:
        stride *= 2
    while stride > 1:
        stride //= 2
        partner = e.add(me, stride)
        body = e.if_(e.and_(e.cmp("slt", me, stride), e.cmp("slt", partner, n)))
        assert body is not None
        step(body, partner)
        e.op(BarrierOp())


def linear_id(e: Emitter, ids: Sequence[SSAValue], counts: Sequence[int]) -> SSAValue:
    """Row-major linear id of part ids `ids` among `counts` parts."""
    terms, stride = [], 1
    for i, n in reversed(list(zip(ids, counts))):
        terms.append((stride, i))
        stride *= n
    return e.linear(terms)


class Placement:
    """The re-composition of one kernel."""

    def __init__(self, kernel: KernelOp, module: ModuleOp):
        self.kernel = kernel
        self.plan: TilePlan = carried(kernel, kernel.function_type.inputs.data)
        self.op = self.plan.op
        (self.acc,) = [a for a in kernel.walk() if isinstance(a, AccumulateOp)]
        self.loops: dict[Loop, TileForOp] = {
            (lp.layer.data, lp.dim.value.data): lp
            for layer in ("lt", "pt", "el")
            for lp in tile_chain(kernel, layer)
        }
        self.point = list(self.acc.point)
        self.outputs = list(self.acc.outputs)
        first_extra = len(self.op.inputs) + len(self.outputs)
        self.epilogue_inputs = list(kernel.body.block.args[first_extra : first_extra + len(self.op.epilogue_inputs)])
        self.types = [v.type for v in self.acc.values]
        pw = [c for c in self.op.combines if c.kind == "pw"]
        self.pw = pw[0] if pw else None
        name = meaning(module, self.pw) if self.pw else None
        self.identity = [identity(name, t) for t in self.types] if name else None
        self.multiply_accumulate = name == "add" and self.scalar_multiplies(module)

    def scalar_multiplies(self, module: ModuleOp) -> bool:
        """Whether the scalar function is one float multiplication of its two arguments."""
        callee = SymbolTable.lookup_symbol(module, self.op.scalar_func)
        return (
            isinstance(callee, func.FuncOp)
            and builtin_meaning(callee) == "mul"
            and all(isinstance(t, Float32Type | Float64Type) for t in self.types)
        )

    def combine(self, e: Emitter, acc: Sequence[SSAValue], values: Sequence[SSAValue]) -> list[SSAValue]:
        """g(acc, values); a multiply-accumulate becomes one fused multiply-add."""
        call = values[0].owner
        if self.multiply_accumulate and isinstance(call, func.CallOp) and len(acc) == 1:
            return [e.emit(math.FmaOp(call.arguments[0], call.arguments[1], acc[0]))]
        return combine_values(e, self.pw, acc, values)  # type: ignore[arg-type]

    def finish(
        self, e: Emitter, values: Sequence[SSAValue], point: Sequence[SSAValue], buffers: Sequence[SSAValue],
        last: SSAValue | None = None,
    ) -> list[SSAValue]:  # fmt: skip
        """The final output values from `values` at `point`: the epilogue applied, its
        inputs read from `buffers` (where `last` is given, only where it holds)."""
        op = self.op
        if op.epilogue is None:
            return list(values)
        kept = set(self.plan.kept_dims)
        at = [p if d in kept else e.const(0) for d, p in enumerate(point)]
        reads = [
            e.emit(ViewLoadOp(buf, at, [], AffineMapAttr(m), mode))
            for buf, maps, mode in zip(buffers, op.epilogue_maps, op.epilogue_boundaries)
            for m in maps
        ]
        call = e.op(func.CallOp(op.epilogue_func, [*values, *reads], [v.type for v in values]))  # type: ignore[arg-type]
        if last is None:
            return list(call.results)
        return [e.select(last, r, v) for r, v in zip(call.results, values)]

    def last_step(self, e: Emitter, lp: Loop) -> SSAValue:
        """Whether loop `lp` is in its last step (of this part)."""
        loop = self.loop(lp)
        if loop.padded is not None:
            return e.cmp("eq", loop.step, loop.max_trips.value.data - 1)
        following = e.add(loop.tile_start, loop.tile.value.data * loop.parts.value.data)
        return e.cmp("sge", following, e.add(loop.start, loop.size))

    # --- helpers ------------------------------------------------------------------

    def loop(self, lp: Loop) -> TileForOp:
        return self.loops[lp]

    def wi_ids(self, dims: Sequence[int]) -> list[SSAValue]:
        return [self.loop(("pt", d)).part for d in dims]

    def group_ids(self, dims: Sequence[int]) -> list[SSAValue]:
        return [self.loop(("lt", d)).part for d in dims]

    def valid(self, e: Emitter, point: Sequence[SSAValue], dims: Sequence[int]) -> SSAValue | None:
        """Whether `point` lies inside its local tiles along `dims`: false only for a
        point of the padding of a padded private-tile loop (`mdh_ir.schedule.tiling`); None
        where no loop of `dims` is padded."""
        conds = []
        for d in dims:
            if self.plan.padded(d):
                lt = self.loop(("lt", d))
                conds.append(e.cmp("slt", point[d], e.add(lt.tile_start, lt.tile_size)))
        return e.all_of(conds) if conds else None

    def inside(self, e: Emitter, point: Sequence[SSAValue], dims: Sequence[int]) -> Emitter:
        """An emitter for code that runs only where `point` is valid along `dims`."""
        cond = self.valid(e, point, dims)
        return e if cond is None else e.if_(cond)  # type: ignore[return-value]

    def all_first(self, e: Emitter, loops: Sequence[Loop]) -> SSAValue:
        """Whether every pw loop among `loops` is in its first step."""
        pw = [lp for lp in loops if self.plan.kind(lp[1]) == "pw" and self.plan.max_trips(*lp) > 1]
        return e.all_of([e.cmp("eq", self.loop(lp).step, 0) for lp in pw])

    def store_combined(
        self, e: Emitter, values: Sequence[SSAValue], dests: Sequence[tuple[SSAValue, list]],
        first: SSAValue | int, final: Callable[[Emitter, list[SSAValue]], list[SSAValue]] | None = None,
    ) -> None:  # fmt: skip
        """dest = value if `first`, else g(dest, value); `final` maps what is stored.

        Straight-line code (a select, no branch): PoCL 3.1 cannot compile if/else
        nested in loops that hold barriers. The destination must hold a defined value.
        """
        known = constant_value(first)
        stored = list(values)
        if known != 1:
            old = [e.load(mem, idx) for mem, idx in dests]
            combined = self.combine(e, old, values)
            stored = [c if known == 0 else e.select(first, v, c) for v, c in zip(values, combined)]  # type: ignore[arg-type]
        if final is not None:
            stored = final(e, stored)
        for v, (mem, idx) in zip(stored, dests):
            e.store(v, mem, idx)

    def for_kept_loops(
        self, e: Emitter, body: Callable[[Emitter, list[SSAValue], list[SSAValue]], None]
    ) -> None:
        """Re-run the kept-dimension loops of the scope; `body(e, acc_index, point)`."""
        mapping: dict[SSAValue, SSAValue] = {}
        steps, point = [], list(self.point)
        for lp in self.plan.acc_loops:
            old = self.loop(lp)
            new = TileForOp(
                old.layer.data, lp[1], mapping.get(old.start, old.start),
                mapping.get(old.size, old.size), old.tile.value.data, old.parts.value.data,
                old.part, old.max_trips.value.data, padded=old.padded is not None,
            )  # fmt: skip
            e.op(new)
            for a, b in zip(old.body.block.args, new.body.block.args):
                mapping[a] = b
            steps.append(new.step)
            if lp[0] == "el":
                point[lp[1]] = new.tile_start
            e = Emitter.at_end(new.body.block)
        body(e, steps, point)

    # --- the three cases -------------------------------------------------------------

    def destinations(self, e: Emitter, point: list[SSAValue], temps) -> list[tuple[SSAValue, list]]:
        if temps is None:
            return [
                (out, out_index(m, point)) for out, m in zip(self.acc.outputs, self.op.output_maps)
            ]
        group = linear_id(e, self.group_ids(self.plan.pw_dims), [self.plan.cfg.num_wg[d] for d in self.plan.pw_dims])
        flat = self.flat_out_index(e, point)
        return [(t, [group, flat]) for t in temps]

    def flat_out_index(self, e: Emitter, point: list[SSAValue]) -> SSAValue:
        """Row-major position of `point` among the kept dimensions (first output order)."""
        amap = self.op.output_maps[0]
        idx = out_index(amap, point)
        shape = [self.plan.sizes[r.position] for r in amap.results]
        return linear_id(e, idx, shape)

    def store_points(self) -> None:
        e = Emitter.before(self.acc)
        e = self.inside(e, self.point, self.plan.kept_dims)
        values = self.finish(e, list(self.acc.values), self.point, self.epilogue_inputs)
        for v, out, m in zip(values, self.acc.outputs, self.op.output_maps):
            e.store(v, out, out_index(m, self.point))

    def combine_in_place(self, temps) -> None:
        assert self.op.epilogue is None, "rule epilogue: res_mem prv"
        e = Emitter.before(self.acc)
        e = self.inside(e, self.point, range(self.plan.rank))
        first = self.all_first(e, self.plan.nest)
        self.store_combined(e, list(self.acc.values), self.destinations(e, self.point, temps), first)

    def accumulate_private(self, temps) -> None:
        plan, kernel = self.plan, self.kernel
        start = self.loop(plan.nest[plan.scope_start])
        top = Emitter.at_start(kernel.body.block)
        shape = plan.acc_extents or [1]
        accs = [top.emit(memref.AllocaOp.get(t, shape=shape, memory_space=PRV)) for t in self.types]
        has = None
        if self.identity is None and plan.cross_wi:
            has = top.emit(memref.AllocaOp.get(i1, shape=[1], memory_space=PRV))

        before = Emitter.before(start)
        initial = self.identity or [0] * len(self.types)
        for acc, value, t in zip(accs, initial, self.types):
            before.op(FillOp(acc, before.scalar(value, t)))
        if has is not None:
            before.store(before.const(0, i1), has, [0])

        e = Emitter.before(self.acc)
        index = [self.loop(lp).step for lp in plan.acc_loops] or [e.const(0)]
        dests = [(acc, index) for acc in accs]
        if self.identity is not None:
            olds = [e.load(acc, index) for acc in accs]
            inside = self.valid(e, self.point, plan.pw_dims)
            for v, old, acc in zip(self.combine(e, olds, list(self.acc.values)), olds, accs):
                e.store(v if inside is None else e.select(inside, v, old), acc, index)
        else:
            self.store_combined(e, list(self.acc.values), dests, self.all_first(e, plan.scope))
        if has is not None:
            e.store(e.const(1, i1), has, [0])

        flush = Emitter(InsertPoint.after(start))
        source, writer, kept_lin = accs, None, None
        if plan.cross_wi:
            source, writer, kept_lin = self.combine_work_items(flush, accs, has)
        first = self.all_first(flush, plan.outer_pw_loops)
        epilogue = temps is None and self.op.epilogue is not None
        outer = plan.outer_pw_loops
        last = flush.all_of([self.last_step(flush, lp) for lp in outer]) if epilogue and outer else None

        def write(e: Emitter, steps: list[SSAValue], point: list[SSAValue]) -> None:
            e = self.inside(e, point, plan.kept_dims)
            index = steps or [e.const(0)]
            if kept_lin is not None:
                index = [e.const(0), kept_lin, *index]
            values = [e.load(src, index) for src in source]

            def final(b: Emitter, stored: list[SSAValue]) -> list[SSAValue]:
                return self.finish(b, stored, point, self.epilogue_inputs, last)

            self.store_combined(e, values, self.destinations(e, point, temps), first, final if epilogue else None)

        self.for_kept_loops(flush.if_(writer) if writer is not None else flush, write)  # type: ignore

    def combine_work_items(self, e: Emitter, accs, has):
        """Tree-combine the partial results of work-items that differ in pw ids."""
        plan = self.plan
        pw_counts = [plan.cfg.num_wi[d] for d in plan.pw_dims]
        kept_counts = [plan.cfg.num_wi[d] for d in plan.kept_dims]
        n_pw, n_kept = prod(pw_counts), prod(kept_counts)
        top = Emitter.at_start(self.kernel.body.block)
        shape = [n_pw, n_kept, *(plan.acc_extents or [1])]
        scratch = [top.emit(memref.AllocaOp.get(t, shape=shape, memory_space=LCL)) for t in self.types]
        valid = None
        if has is not None:
            valid = top.emit(memref.AllocaOp.get(i1, shape=[n_pw, n_kept], memory_space=LCL))
        pw_lin = linear_id(e, self.wi_ids(plan.pw_dims), pw_counts)
        kept_lin = linear_id(e, self.wi_ids(plan.kept_dims), kept_counts)

        def publish(b: Emitter, steps, _point) -> None:
            index = steps or [b.const(0)]
            for acc, s in zip(accs, scratch):
                b.store(b.load(acc, index), s, [pw_lin, kept_lin, *index])

        self.for_kept_loops(e, publish)
        if valid is not None:
            e.store(e.load(has, [0]), valid, [pw_lin, kept_lin])
        e.op(BarrierOp())
        halving_tree(
            e, n_pw, pw_lin, lambda b, partner: self.tree_step(b, scratch, valid, pw_lin, partner, kept_lin)
        )
        return scratch, e.cmp("eq", pw_lin, 0), kept_lin

    def tree_step(self, e: Emitter, scratch, valid, me, partner, kept) -> None:
        """scratch[me] = g(scratch[me], scratch[partner]), skipping partials without value."""

        def combine(b: Emitter, steps, _point) -> None:
            index = steps or [b.const(0)]
            dests = [(s, [me, kept, *index]) for s in scratch]
            if valid is None:
                self.store_combined(b, [b.load(s, [partner, kept, *index]) for s in scratch], dests, 0)
                return
            take = b.if_(b.load(valid, [partner, kept]))
            theirs = [take.load(s, [partner, kept, *index]) for s in scratch]  # type: ignore
            mine_missing = take.emit(arith.XOrIOp(take.load(valid, [me, kept]), take.const(1, i1)))  # type: ignore
            self.store_combined(take, theirs, dests, mine_missing)  # type: ignore[arg-type]

        self.for_kept_loops(e, combine)
        if valid is not None:
            mine = e.load(valid, [me, kept])
            e.store(e.emit(arith.OrIOp(mine, e.load(valid, [partner, kept]))), valid, [me, kept])

    def run(self, module: ModuleOp) -> None:
        plan = self.plan
        temps = None
        if plan.accumulates and plan.pw_groups > 1:
            temps = self.add_temps(module)
        if not plan.accumulates:
            self.store_points()
        elif plan.cfg.res_mem[0] == "glb":
            self.combine_in_place(temps)
        else:
            self.accumulate_private(temps)
        calls = {v.owner for v in self.acc.values if isinstance(v.owner, func.CallOp)}
        self.acc.detach()
        self.acc.erase()
        for call in calls:
            if not any(r.uses for r in call.results):
                call.detach()
                call.erase()
        if temps is not None and plan.cfg.wg_combine == "last":
            self.add_last_group_combine(module, temps)
        elif temps is not None:
            self.add_combine_kernel(module)
        self.add_scans(module)

    # --- extra buffers and kernels ------------------------------------------------------

    def launch(self, module: ModuleOp) -> LaunchOp:
        name = self.kernel.sym_name.data
        return next(
            op for op in module.walk() if isinstance(op, LaunchOp) and op.kernel.string_value() == name
        )

    def pass_buffers(self, module: ModuleOp, buffers: list[SSAValue]) -> list[SSAValue]:
        """Host `buffers` added to the kernel's launch; returns the new kernel arguments."""
        launch = self.launch(module)
        launch.operands = [*launch.args, *buffers]
        block = self.kernel.body.block
        args = [block.insert_arg(b.type, len(block.args)) for b in buffers]
        self.kernel.function_type = type(self.kernel.function_type).from_lists(
            [a.type for a in block.args], []
        )
        return args

    def add_temps(self, module: ModuleOp) -> list[SSAValue]:
        """Temporary buffers [work-group, output element] as new kernel arguments."""
        host = Emitter.before(self.launch(module))
        shape = [self.plan.pw_groups, self.plan.kept_points]
        self.temps_host = [host.emit(memref.AllocOp.get(t, shape=shape)) for t in self.types]
        return self.pass_buffers(module, self.temps_host)

    def side_kernel(self, module: ModuleOp, name: str, buffers, items: int, body) -> None:
        """A kernel with one work-item per item (1-D NDRange), launched after the others."""
        kernel = KernelOp(name, [b.type for b in buffers])
        kernel.attributes[COMPUTE_ATTR] = self.kernel.attributes[COMPUTE_ATTR]
        kernel.attributes[LOCAL_SIZE_ATTR] = i64_array([SIDE, 1, 1])
        e = Emitter.at_end(kernel.body.block)
        item = e.add(e.mul(e.emit(GroupIdOp(0)), SIDE), e.emit(LocalIdOp(0)))
        body(e.if_(e.cmp("slt", item, items)), item, kernel.body.block.args)
        Rewriter.insert_op(kernel, InsertPoint.after(self.kernel))
        last = self.launch(module)
        while isinstance(last.next_op, LaunchOp):
            last = last.next_op
        groups = -(-items // SIDE)
        launch = LaunchOp(name, buffers, [groups * SIDE, 1, 1], [SIDE, 1, 1])
        Rewriter.insert_op(launch, InsertPoint.after(last))

    def combine_partials(self, e: Emitter, item: SSAValue, temps, outputs, epilogue_inputs) -> None:
        """The outputs at `item` (row-major position among the kept dimensions) from the
        work-groups' partial results there."""
        self.store_outputs(e, item, self.reduce_partials(e, item, temps), outputs, epilogue_inputs)

    def reduce_partials(self, e: Emitter, item: SSAValue, temps, first: Value = 0, step: int = 1):
        """g over the partial results at `item` of work-groups first, first + step, ...:
        straight-line code for up to `UNROLLED_PARTIALS` of them, else a loop unrolled
        `PARTIALS_UNROLL` times accumulating in private memory."""
        groups = self.plan.pw_groups
        values = [e.load(t, [first, item]) for t in temps]
        if groups % step == 0 and groups // step <= UNROLLED_PARTIALS:
            for k in range(1, groups // step):
                more = [e.load(t, [e.add(first, k * step), item]) for t in temps]
                values = combine_values(e, self.pw, values, more)  # type: ignore[arg-type]
            return values
        accs = [e.emit(memref.AllocaOp.get(v.type, shape=[1], memory_space=PRV)) for v in values]
        for v, acc in zip(values, accs):
            e.store(v, acc, [0])
        p, body = e.for_(e.add(first, step), groups, step)
        p.owner.parent_op().attributes[UNROLL_ATTR] = IntegerAttr(PARTIALS_UNROLL, 64)  # type: ignore
        olds = [body.load(acc, [0]) for acc in accs]
        more = [body.load(t, [p, item]) for t in temps]
        for v, acc in zip(combine_values(body, self.pw, olds, more), accs):  # type: ignore[arg-type]
            body.store(v, acc, [0])
        return [e.load(acc, [0]) for acc in accs]

    def store_outputs(self, e: Emitter, item: SSAValue, values, outputs, epilogue_inputs) -> None:
        """The final `values` of output element `item`, the epilogue applied."""
        plan, amap = self.plan, self.op.output_maps[0]
        coords = e.delinearize(item, [plan.sizes[r.position] for r in amap.results])
        point: list[SSAValue] = [e.const(0)] * plan.rank
        for r, c in zip(amap.results, coords):
            point[r.position] = c
        values = self.finish(e, values, point, epilogue_inputs)
        for v, out, m in zip(values, outputs, self.op.output_maps):
            e.store(v, out, out_index(m, point))

    def add_combine_kernel(self, module: ModuleOp) -> None:
        """`wg_combine = "kernel"`: a second kernel, one work-item per output element."""
        args, first = self.launch(module).args, len(self.op.inputs)
        outputs = list(args[first : first + len(self.types)])
        extra = list(args[first + len(self.types) : first + len(self.types) + len(self.epilogue_inputs)])
        temps = self.temps_host

        def body(e: Emitter, item: SSAValue, args) -> None:
            n, k = len(temps), len(temps) + len(outputs)
            self.combine_partials(e, item, args[:n], args[n:k], args[k:])

        name = f"{self.kernel.sym_name.data}_combine"
        self.side_kernel(module, name, [*temps, *outputs, *extra], self.plan.kept_points, body)

    def add_last_group_combine(self, module: ModuleOp, temps: list[SSAValue]) -> None:
        """`wg_combine = "last"`: at the kernel's end, each work-group counts itself done
        in the counter of its kept work-group; the one that counts last among the
        work-groups sharing those output elements zeroes the counter again for the next
        launch and combines their partial results, its work-items taking the elements in
        turn.
        Ordering: every work-item's partial results precede the barrier on global
        memory; work-item 0 then fences, increments, fences; the last group's loads
        follow its barrier (a work-group of one work-item needs none). Across work-groups
        this relies on the fence being device-wide (`DeviceInfo.fences_across_groups`):
        OpenCL 1.2 itself orders memory only within a work-group."""
        plan, block = self.plan, self.kernel.body.block
        kept = plan.kept_dims
        counters = self.zeroed_global(module, f"{self.kernel.sym_name.data}_counters", plan.kept_groups)
        (count,) = self.pass_buffers(module, [counters])
        size = plan.wg_size
        e = Emitter.at_end(block)
        if size > 1:
            e.op(BarrierOp(global_memory=True))
            me = linear_id(e, self.wi_ids(range(plan.rank)), plan.cfg.num_wi)
            counting = e.if_(e.cmp("eq", me, 0))
            assert counting is not None
        else:
            me, counting = e.const(0), e
        group = linear_id(counting, self.group_ids(kept), [plan.cfg.num_wg[d] for d in kept])
        counting.op(FenceOp())
        before = counting.emit(AtomicIncOp(count, [group]))
        counting.op(FenceOp())
        last = counting.cmp("eq", before, counting.const(plan.pw_groups - 1, i32))
        reset = counting.if_(last)
        assert reset is not None
        reset.store(reset.const(0, i32), count, [group])
        if size > 1:
            flag = Emitter.at_start(block).emit(memref.AllocaOp.get(i1, shape=[1], memory_space=LCL))
            counting.store(last, flag, [0])
            e.op(BarrierOp())
            last = e.load(flag, [0])
        combine = e.if_(last)
        assert combine is not None
        if plan.combine_lanes > 1:
            self.combine_in_lanes(combine, me, temps)
            return
        batch = max(1, min(LAST_COMBINE_POINTS, LAST_COMBINE_LOADS // plan.pw_groups, plan.group_points // size))
        step = size * batch
        if step >= plan.group_points:  # one step: no loop
            start, body = me, combine
        else:
            start, body = combine.for_(me, plan.group_points, step)
        rest = plan.group_points % step  # points of the last step
        points = []
        for u in range(batch):
            position = body.add(start, u * size)
            item, inside = self.group_item(body, position)
            if rest and (u + 1) * size > rest:  # past the group's points in the last step
                inside = [body.cmp("slt", position, plan.group_points), *inside]
            valid = body.all_of(inside) if inside else None
            if valid is not None and constant_value(valid) == 0:  # a point no work-item has
                continue
            read = item if valid is None else body.select(valid, item, body.const(0))
            points.append((item, valid, self.reduce_partials(body, read, temps)))
        for item, valid, values in points:
            store = body if valid is None else body.if_(valid)
            assert store is not None
            self.store_outputs(store, item, values, self.outputs, self.epilogue_inputs)

    def zeroed_global(self, module: ModuleOp, name: str, size: int) -> SSAValue:
        """A `memref.global` of `size` i32 zeros, read by the host function before the
        launch: a buffer the program keeps across runs, each kernel leaving it as zeroed
        as it found it (filling it before every launch took 3.3 us by its event on the
        H100, and about 1 us more before the kernel started)."""
        memref_type = MemRefType(i32, [size])
        zeros = DenseIntOrFPElementsAttr.from_list(TensorType(i32, [size]), [0] * size)
        glob = memref.GlobalOp.get(StringAttr(name), memref_type, zeros)
        Rewriter.insert_op(glob, InsertPoint.before(self.kernel))
        return Emitter.before(self.launch(module)).emit(memref.GetGlobalOp(name, memref_type))

    def group_item(self, e: Emitter, position: SSAValue) -> tuple[SSAValue, list[SSAValue]]:
        """The output element (row-major among the kept dimensions) at `position` among
        the `TilePlan.group_points` of this work-group's kept local tiles, and the
        conditions under which it exists (none: always; the excess of a partial tile
        does not): along kept dimension d, local tile t of the work-group with id g
        starts at (t * num_wg + g) * lt_size."""
        plan, cfg = self.plan, self.plan.cfg
        kept, extents = plan.kept_dims, plan.group_extents
        point: list = [None] * plan.rank
        inside = []
        for d, extent, x, g in zip(kept, extents, e.delinearize(position, extents), self.group_ids(kept)):
            lt, groups = cfg.lt_size[d], cfg.num_wg[d]
            if extent == lt:
                point[d] = e.linear([(lt, g), (1, x)])
            else:
                point[d] = e.linear([(groups * lt, e.div(x, lt)), (lt, g), (1, e.rem(x, lt))])
            if extent * groups != plan.sizes[d]:
                inside.append(e.cmp("slt", point[d], plan.sizes[d]))
        return self.flat_out_index(e, point), inside

    def combine_in_lanes(self, e: Emitter, me: SSAValue, temps) -> None:
        """The last work-group's combine with `combine_lanes` work-items per output
        element: lane l combines partial results l, l + lanes, ... into local memory,
        then the lanes meet in a tree and lane 0 stores the element."""
        lanes, points = self.plan.combine_lanes, self.plan.group_points
        top = Emitter.at_start(self.kernel.body.block)
        scratch = [
            top.emit(memref.AllocaOp.get(t, shape=[lanes, points], memory_space=LCL)) for t in self.types
        ]
        lane, position = e.div(me, points), e.rem(me, points)
        item, inside = self.group_item(e, position)
        conds = inside if lanes * points == self.plan.wg_size else [e.cmp("slt", lane, lanes), *inside]
        own = e.if_(e.all_of(conds)) if conds else e
        assert own is not None
        for v, s in zip(self.reduce_partials(own, item, temps, lane, lanes), scratch):
            own.store(v, s, [lane, position])
        e.op(BarrierOp())

        def step(b: Emitter, partner: SSAValue) -> None:
            mine = [b.load(s, [lane, position]) for s in scratch]
            theirs = [b.load(s, [partner, position]) for s in scratch]
            for v, s in zip(combine_values(b, self.pw, mine, theirs), scratch):  # type: ignore[arg-type]
                b.store(v, s, [lane, position])

        halving_tree(e, lanes, lane, step)
        first = e.if_(e.all_of([e.cmp("eq", lane, 0), *inside]))
        assert first is not None
        values = [first.load(s, [0, position]) for s in scratch]
        self.store_outputs(first, item, values, self.outputs, self.epilogue_inputs)

    def add_scans(self, module: ModuleOp) -> None:
        """Scan each `ps` dimension of the outputs in turn (`mdh_ir.passes.scan`). Where
        one `ps` dimension and no `pw` one combine the points, the scan's kernels
        compute the points' values from the inputs, and this kernel, which would only
        store them, is removed (a scan of N elements then reads them twice and writes
        them once, not three and two times)."""
        launch = self.launch(module)
        inputs = list(launch.args[: len(self.op.inputs)])
        outputs = list(launch.args[len(self.op.inputs) : len(self.op.inputs) + len(self.types)])
        scans = ScanKernels(self.kernel, launch, self.plan)
        kinds = [c.kind for c in self.plan.combines]
        fold = kinds.count("ps") == 1 and "pw" not in kinds
        scalar = SymbolTable.lookup_symbol(module, self.op.scalar_func)
        assert isinstance(scalar, func.FuncOp)
        for d, c in enumerate(self.plan.combines):
            if c.kind == "ps":
                combine = lambda e, a, b, c=c: combine_values(e, c, a, b)  # noqa: E731
                scans.scan(d, outputs, combine, inputs if fold else (), takes_point(self.op, scalar))
        if fold:
            for op in (launch, self.kernel):
                op.detach()
                op.erase()


@dataclass(frozen=True)
class MDHPlaceCombine(ModulePass):
    name = "mdh-place-combine"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in rewritten_by(self.name, op):
            if any(isinstance(a, AccumulateOp) for a in kernel.walk()):
                Placement(kernel, op).run(op)
