"""The parallel scan of a `ps` dimension, as `mdh-place-combine` builds it.

The outputs hold each point's value; the scan along dimension d combines them in place,
line by line (a line: the points that differ only in d), by reduce-then-scan over chunks
of each line. Where nothing but this scan combines the points (one `ps` dimension, no
`pw` one), 1. and 3. compute the points' values from the inputs instead (`point_values`,
the views and the scalar function `mdh-tile` applies), and the computation's own kernel,
which would only store them, is removed (`mdh-place-combine`):

1. `<name>_scan<d>_reduce`: per chunk, its total, into a temporary [line, chunk];
2. `<name>_scan<d>_carries`: per line, the inclusive scan of those totals, in place (the
   same scan as 3., over one chunk of the temporary's line);
3. `<name>_scan<d>`: per chunk, its inclusive scan, each element combined with the carry
   of the chunks before it (the scanned total of the previous chunk) and stored.

Only 3. is built when a line is one chunk. A work-group takes one chunk of `rows` lines
(`ScanShape`): along each line `items` work-items, each with `per_item` consecutive
elements. Where several work-items share a line contiguous in memory, 1. and 3. stage
the chunk in local memory (`ScanShape.staged`): consecutive work-items copy consecutive
elements in and, in 3., the scanned chunk back out, so global memory is accessed as a
copy is, whatever `per_item` (H100, prefix_sum 2^24, 256 work-items of 4 elements a
chunk: 0.182 -> 0.169 ms; 512 of 8, 0.263 -> 0.140). A work-item reduces its elements
privately; with several work-items a line, their totals meet in local memory in an
inclusive (Hillis-Steele) scan of log2(items) levels, each level read, barrier, write,
barrier; work-item w's prefix is then the scan's entry w - 1. Every combine takes
existing values in order (earlier elements on the left), so a function without identity,
commutativity or inverse scans exactly; work-items past the line's end compute on
defined (clamped) values that nothing uses. The shape comes from the configuration of d:
a chunk is its local tile (`lt_size`), shared by the local tile's work-items (`num_wi`);
lines take the work-items of the other kept dimensions (so the tuner's search over those
parameters also shapes the scan). Traffic for a line of N elements in K chunks: 1. reads
N, 2. reads and writes K, 3. reads and writes N (with the values computed first, another
read and write of N before them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, memref
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from mdh_ir.dialects.lowlevel import (
    LCL,
    LOCAL_SIZE_ATTR,
    PRV,
    BarrierOp,
    GroupIdOp,
    KernelOp,
    LaunchOp,
    LocalIdOp,
    i64_array,
)
from mdh_ir.passes.carried import COMPUTE_ATTR
from mdh_ir.passes.emit import Emitter, i1
from mdh_ir.passes.tile import point_values
from mdh_ir.schedule.tiling import ScanShape, TilePlan

SUBCHAINS = 8
"""Pieces of a work-item's elements reduced side by side, where it has at least
SUBCHAINS^2 (PoCL on 2 cores, prefix_sum 2^24 in 128 chunks of one work-item, in turns,
median of 9: 19.6 ms with one dependency chain, 17.3 ms with 8)."""

Combine = Callable[[Emitter, Sequence[SSAValue], Sequence[SSAValue]], list[SSAValue]]
"""g(lhs, rhs), element-wise over the buffers scanned together."""

Access = Callable[[Emitter, SSAValue, SSAValue], list[tuple[SSAValue, list[SSAValue]]]]
"""(line, position along it) -> per buffer, the memref and the indices of that element."""

Read = Callable[[Emitter, SSAValue, SSAValue], list[SSAValue]]
"""(line, position along it) -> the values to scan there, one per buffer."""


class ChunkScan:
    """The code of one work-item of a scan kernel over `access`'s lines of `shape`."""

    def __init__(
        self,
        kernel: KernelOp,
        shape: ScanShape,
        access: Access,
        combine: Combine,
        types,
        stage: bool = False,
        read: Read | None = None,
    ):
        self.shape, self.access, self.combine, self.types = shape, access, combine, types
        self.read = read or (lambda e, line, pos: [e.load(m, idx) for m, idx in access(e, line, pos)])
        e, s = Emitter.at_end(kernel.body.block), shape
        group = e.emit(GroupIdOp(0))
        self.top = Emitter.before(group.owner)  # type: ignore[arg-type]
        lid = e.emit(LocalIdOp(0)) if s.group_size > 1 else e.const(0)
        if s.items_fastest:
            self.row, self.item = e.div(lid, s.items), e.rem(lid, s.items)
        else:
            self.row, self.item = e.rem(lid, s.rows), e.div(lid, s.rows)
        self.chunk = e.rem(group, s.chunks)
        self.line = e.add(e.mul(e.div(group, s.chunks), s.rows), self.row)
        self.live = e.cmp("slt", self.line, s.lines) if s.lines % s.rows else e.const(1, i1)
        self.safe_line = e.min(self.line, s.lines - 1) if s.lines % s.rows else self.line
        self.start = e.linear([(s.chunk, self.chunk), (s.per_item, self.item)])
        self.first = e.min(self.start, s.length - 1)
        self.base = e.mul(self.chunk, s.chunk)
        self.body = e
        self.staged: list[SSAValue] | None = None
        if stage and s.staged:
            self.stage_in()

    def private(self) -> list[SSAValue]:
        return [self.top.emit(memref.AllocaOp.get(t, shape=[1], memory_space=PRV)) for t in self.types]

    def load(self, e: Emitter, pos: SSAValue) -> list[SSAValue]:
        if self.staged is not None:
            at = self.staged_at(e, e.sub(pos, self.base))
            return [e.load(m, [self.row, at]) for m in self.staged]
        return self.read(e, self.safe_line, pos)

    def store(self, e: Emitter, values: list[SSAValue], pos: SSAValue) -> None:
        """Store the scanned `values` of position `pos` (of this work-item's line)."""
        if self.staged is not None:
            at = self.staged_at(e, e.sub(pos, self.base))
            for v, m in zip(values, self.staged):
                e.store(v, m, [self.row, at])
            return
        for v, (m, idx) in zip(values, self.access(e, self.line, pos)):
            e.store(v, m, idx)

    def staged_at(self, e: Emitter, offset: SSAValue) -> SSAValue:
        """Where the chunk's element `offset` lies in the staged copy: one element of
        padding after every 32, so that work-items reading their consecutive elements
        at once hit different banks (none in a chunk of at most 32)."""
        return e.add(offset, e.div(offset, 32)) if self.shape.chunk > 32 else offset

    def striped(self, e: Emitter) -> list[tuple[SSAValue, SSAValue]]:
        """Per step of the cooperative copy, (offset in the chunk, position on the
        line) of this work-item's element: consecutive work-items, consecutive
        elements."""
        s = self.shape
        return [(off, e.add(self.base, off)) for off in (e.add(self.item, k * s.items) for k in range(s.per_item))]

    def stage_in(self) -> None:
        """Copy the chunk of each line into local memory with consecutive work-items
        reading consecutive elements (coalesced; the work-items' own elements are
        consecutive, `per_item` apart across work-items), clamped to the line's end."""
        e, s = self.body, self.shape
        self.staged = [
            self.top.emit(memref.AllocaOp.get(t, shape=[s.rows, s.staged_length], memory_space=LCL))
            for t in self.types
        ]
        for off, pos in self.striped(e):
            at = self.staged_at(e, off)
            values = self.read(e, self.safe_line, e.min(pos, s.length - 1) if s.length % s.chunk else pos)
            for v, local in zip(values, self.staged):
                e.store(v, local, [self.row, at])
        e.op(BarrierOp())

    def stage_out(self) -> None:
        """Store the staged chunk's scanned elements, consecutive work-items storing
        consecutive elements, those past the line's end and of lines past the last
        excepted. The barrier before also fences global memory: a work-item may have read
        (clamped to the line's end, or of the last line for a row past it) an element
        another one stores here."""
        e, s = self.body, self.shape
        e.op(BarrierOp(global_memory=True))
        for off, pos in self.striped(e):
            inside = e.and_(self.live, e.cmp("slt", pos, s.length)) if s.length % s.chunk else self.live
            store = e.if_(inside)
            if store is None:
                continue
            at = self.staged_at(store, off)
            for m, (g, idx) in zip(self.staged, self.access(store, self.line, pos)):  # type: ignore[arg-type]
                store.store(store.load(m, [self.row, at]), g, idx)

    def total(self, e: Emitter) -> list[SSAValue]:
        """This work-item's elements combined in order (its first element, clamped, where
        it has none)."""
        acc = self.private()
        for v, a in zip(self.load(e, self.first), acc):
            e.store(v, a, [0])
        own = e.if_(e.cmp("slt", self.start, self.shape.length)) if self.shape.length % self.shape.chunk else e
        if self.shape.length % self.shape.per_item == 0 and self.shape.per_item >= SUBCHAINS * SUBCHAINS:
            for v, a in zip(self.total_of_subchains(own), acc):  # type: ignore[arg-type]
                own.store(v, a, [0])  # type: ignore[union-attr]
            return [e.load(a, [0]) for a in acc]
        rest = self.rest(own)  # type: ignore[arg-type]
        if rest is not None:
            j, body = rest
            olds = [body.load(a, [0]) for a in acc]
            for v, a in zip(self.combine(body, olds, self.load(body, j)), acc):
                body.store(v, a, [0])
        return [e.load(a, [0]) for a in acc]

    def total_of_subchains(self, e: Emitter) -> list[SSAValue]:
        """This work-item's elements combined in order as `SUBCHAINS` consecutive
        pieces, one private accumulator each, advanced together (independent
        dependency chains), then combined in order (for a work-item of `per_item`
        elements)."""
        piece = self.shape.per_item // SUBCHAINS
        accs = [self.top.emit(memref.AllocaOp.get(t, shape=[SUBCHAINS], memory_space=PRV)) for t in self.types]
        for k in range(SUBCHAINS):
            for v, a in zip(self.load(e, e.add(self.start, k * piece)), accs):
                e.store(v, a, [k])
        j, body = e.for_(1, piece)
        for k in range(SUBCHAINS):
            olds = [body.load(a, [k]) for a in accs]
            new = self.combine(body, olds, self.load(body, body.linear([(1, self.start), (1, j)], k * piece)))
            for v, a in zip(new, accs):
                body.store(v, a, [k])
        total = [e.load(a, [0]) for a in accs]
        for k in range(1, SUBCHAINS):
            total = self.combine(e, total, [e.load(a, [k]) for a in accs])
        return total

    def rest(self, e: Emitter) -> tuple[SSAValue, Emitter] | None:
        """A loop over the positions of this work-item's elements after its first (for a
        work-item with elements): `per_item` - 1 of them where every such work-item has
        that many (a loop of known trip count; none for one element), else up to the
        line's end."""
        s = self.shape
        if s.length % s.per_item:
            return e.for_(e.add(self.start, 1), e.min(e.add(self.start, s.per_item), s.length))
        if s.per_item == 1:
            return None
        j, body = e.for_(1, s.per_item)
        return body.add(self.start, j), body

    def group_scan(self, e: Emitter, values: list[SSAValue]) -> tuple[list[SSAValue], list[SSAValue]]:
        """The inclusive scan of the work-items' `values` along each line of the
        work-group: this work-item's entry and its predecessor's (its own for the first)."""
        s, row, item = self.shape, self.row, self.item
        scratch = [self.top.emit(memref.AllocaOp.get(t, shape=[s.rows, s.items], memory_space=LCL)) for t in self.types]
        for v, m in zip(values, scratch):
            e.store(v, m, [row, item])
        e.op(BarrierOp())
        mine, step = values, 1
        while step < s.items:
            theirs = [e.load(m, [row, e.max(e.sub(item, step), 0)]) for m in scratch]
            later = e.cmp("sge", item, step)
            mine = [e.select(later, c, v) for c, v in zip(self.combine(e, theirs, mine), mine)]
            e.op(BarrierOp())
            for v, m in zip(mine, scratch):
                e.store(v, m, [row, item])
            e.op(BarrierOp())
            step *= 2
        return mine, [e.load(m, [row, e.max(e.sub(item, 1), 0)]) for m in scratch]

    def chunk_total(self, totals: Access) -> None:
        """Store the chunk's total: the last work-item with elements stores its
        inclusive entry."""
        e, s = self.body, self.shape
        mine = self.total(e)
        if s.items > 1:
            mine, _ = self.group_scan(e, mine)
        last = e.const(0)
        if s.items > 1:
            last = e.min(e.div(e.sub(s.length - 1, e.mul(self.chunk, s.chunk)), s.per_item), s.items - 1)
        store = e.if_(e.and_(self.live, e.cmp("eq", self.item, last)))
        if store is not None:
            for v, (m, idx) in zip(mine, totals(store, self.line, self.chunk)):
                store.store(v, m, idx)

    def scan(self, carries: Access | None) -> None:
        """Store the inclusive scan of this work-item's elements, after the prefix of the
        work-items and chunks before it."""
        e, s = self.body, self.shape
        prefix, has = None, None
        if s.items > 1:
            _, prefix = self.group_scan(e, self.total(e))
            has = e.cmp("sgt", self.item, 0)
        if carries is not None:
            previous = e.max(e.sub(self.chunk, 1), 0)
            carry = [e.load(m, idx) for m, idx in carries(e, self.safe_line, previous)]
            after = e.cmp("sgt", self.chunk, 0)
            if prefix is None:
                prefix, has = carry, after
            else:
                both = self.combine(e, carry, prefix)
                prefix = [e.select(after, b, p) for b, p in zip(both, prefix)]
                prefix = [e.select(has, p, c) for p, c in zip(prefix, carry)]  # type: ignore[arg-type]
                has = e.emit(arith.OrIOp(has, after))  # type: ignore[arg-type]
        own = e.if_(e.and_(self.live, e.cmp("slt", self.start, s.length)))
        if own is not None:
            self.scan_own(own, prefix, has)
        if self.staged is not None:
            self.stage_out()

    def scan_own(self, own: Emitter, prefix: list[SSAValue] | None, has: SSAValue | None) -> None:
        """Scan this work-item's elements in order, after `prefix` where `has`."""
        run = self.private()
        first = self.load(own, self.start)
        if prefix is not None:
            joined = self.combine(own, prefix, first)
            first = [own.select(has, j, f) for j, f in zip(joined, first)]  # type: ignore[arg-type]
        for v, a in zip(first, run):
            own.store(v, a, [0])
        self.store(own, first, self.start)
        rest = self.rest(own)
        if rest is None:
            return
        j, body = rest
        olds = [body.load(a, [0]) for a in run]
        new = self.combine(body, olds, self.load(body, j))
        for v, a in zip(new, run):
            body.store(v, a, [0])
        self.store(body, new, j)



def line_point(plan: TilePlan, d: int, e: Emitter, line: SSAValue, pos: SSAValue) -> list[SSAValue]:
    """The point at `pos` along d of line `line`: the row-major position among the kept
    dimensions other than d."""
    others = [k for k in plan.kept_dims if k != d]
    point: list[SSAValue] = [pos] * plan.rank
    for k, x in zip(others, e.delinearize(line, [plan.sizes[k] for k in others])):
        point[k] = x
    return point


def output_access(plan: TilePlan, d: int, outputs: Sequence[SSAValue]) -> Access:
    """Elements of the outputs, each indexed through its view (`line_point`)."""

    def access(e: Emitter, line: SSAValue, pos: SSAValue) -> list[tuple[SSAValue, list[SSAValue]]]:
        point = line_point(plan, d, e, line, pos)
        return [
            (o, [point[r.position] for r in m.results])  # type: ignore[attr-defined]
            for o, m in zip(outputs, plan.op.output_maps)
        ]

    return access


def temp_access(temps: Sequence[SSAValue]) -> Access:
    """Elements of temporaries [line, chunk]."""
    return lambda e, line, pos: [(t, [line, pos]) for t in temps]


class ScanKernels:
    """Adds the kernels of the scans of one computation's kernel, each after the last
    kernel and launch so far."""

    def __init__(self, kernel: KernelOp, launch: LaunchOp, plan: TilePlan):
        self.kernel, self.plan = kernel, plan
        self.main_launch = launch
        self.last_kernel: Operation = kernel
        self.last_launch: Operation = launch
        while isinstance(self.last_launch.next_op, LaunchOp):
            self.last_launch = self.last_launch.next_op
        while isinstance(self.last_kernel.next_op, KernelOp):
            self.last_kernel = self.last_kernel.next_op

    def add(self, name: str, buffers: Sequence[SSAValue], shape: ScanShape) -> KernelOp:
        """An empty kernel on `buffers` launched with `shape`'s work-groups."""
        kernel = KernelOp(name, [b.type for b in buffers])
        kernel.attributes[COMPUTE_ATTR] = self.kernel.attributes[COMPUTE_ATTR]
        kernel.attributes[LOCAL_SIZE_ATTR] = i64_array([shape.group_size, 1, 1])
        Rewriter.insert_op(kernel, InsertPoint.after(self.last_kernel))
        launch = LaunchOp(name, buffers, [shape.groups * shape.group_size, 1, 1], [shape.group_size, 1, 1])
        Rewriter.insert_op(launch, InsertPoint.after(self.last_launch))
        self.last_kernel, self.last_launch = kernel, launch
        return kernel

    def scan(
        self, d: int, outputs: Sequence[SSAValue], combine: Combine, inputs: Sequence[SSAValue] = (), with_point=False
    ) -> None:
        """The scan of dimension d of `outputs` (host buffers), in place, with `combine`.
        With `inputs` (the computation's, where nothing but the scan combines its
        points), the chunk kernels compute the points' values themselves from them
        (`point_values`, the scalar function's indices appended `with_point`) instead
        of reading the outputs: no kernel needs to store the values first."""
        plan = self.plan
        shape = plan.scan_shape(d)
        types = [o.type.element_type for o in outputs]  # type: ignore[attr-defined]
        name, n, k = f"{self.kernel.sym_name.data}_scan{d}", len(inputs), len(outputs)

        def chunk_scan(kernel: KernelOp, outs: Sequence[SSAValue]) -> ChunkScan:
            args = kernel.body.block.args
            read = None
            if inputs:
                def read(e: Emitter, line: SSAValue, pos: SSAValue) -> list[SSAValue]:
                    return point_values(e, plan.op, args[:n], line_point(plan, d, e, line, pos), with_point)
            return ChunkScan(kernel, shape, output_access(plan, d, outs), combine, types, True, read)

        if shape.chunks == 1:
            kernel = self.add(name, [*inputs, *outputs], shape)
            chunk_scan(kernel, kernel.body.block.args[n:]).scan(None)
            return
        host = Emitter.before(self.main_launch)
        temps = [host.emit(memref.AllocOp.get(t, shape=[shape.lines, shape.chunks])) for t in types]
        read = [*inputs] if inputs else [*outputs]
        kernel = self.add(f"{name}_reduce", [*read, *temps], shape)
        args = kernel.body.block.args
        chunk_scan(kernel, [] if inputs else args[:k]).chunk_total(temp_access(args[len(read) :]))
        carries = ScanShape.of(shape.chunks, shape.lines, shape.chunks, shape.items, shape.rows, True)
        kernel = self.add(f"{name}_carries", temps, carries)
        ChunkScan(kernel, carries, temp_access(kernel.body.block.args), combine, types).scan(None)
        kernel = self.add(name, [*inputs, *outputs, *temps], shape)
        args = kernel.body.block.args
        chunk_scan(kernel, args[n : n + k]).scan(temp_access(args[n + k :]))
