"""The verification rules of `mdh.compute` (DESIGN.md section 2).

Every error names the op (`mdh.compute "name"`), the offending attribute and the reason.
A configuration is checked for its structure only (`mdh_config.config_entries`); the
rules it must satisfy on a device are the schedule model's (`mdh-check-config`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    Float32Type,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

from mdh_ir.affine import dim_of, linear_results
from mdh_ir.dialects.mdh_attrs import (
    BOUNDARY_MODES,
    INTEGER_ONLY_COMBINES,
    PRECISIONS,
    Combine,
    index_args_allowed,
    is_input_type,
    is_scalar_type,
    read_type,
    scalar_arguments,
)
from mdh_ir.dialects.mdh_config import config_entries
from mdh_ir.dialects.scalar_ops import function_problem
from mdh_ir.errors import ConfigError


def buffer_type_problem(mtype: MemRefType) -> str | None:
    """Why a buffer of type `mtype` cannot be passed to the runtime (a layout other
    than the default row-major one, or a memory space), or None."""
    if not isinstance(mtype.layout, NoneAttr):
        return "has a layout (only the default row-major one is supported)"
    if not isinstance(mtype.memory_space, NoneAttr):
        return "has a memory space (only the default global memory is supported)"
    return None


class _Checker:
    def __init__(self, op: Operation):
        self.op = op

    def fail(self, attr: str, reason: str) -> None:
        raise VerifyException(f'mdh.compute "{self.op.comp_name.data}": {attr}: {reason}')

    def run(self) -> None:
        op = self.op
        sizes = self.check_sizes()
        self.check_types("inp_types", op.inp_types, len(op.inputs), "input buffers")
        self.check_types("out_types", op.out_types, len(op.outputs), "results")
        self.check_precision()
        combines = self.check_combines(len(sizes))
        self.check_operand_types()
        self.check_host_signature()
        boundaries = self.check_boundary()
        self.check_input_views(sizes, boundaries)
        self.check_output_views(sizes, combines)
        self.check_prologue()
        self.check_stats(sizes)
        self.check_scalar_func()
        self.check_combine_funcs(combines)
        self.check_epilogue(sizes, combines)
        self.check_bodies(combines)
        if op.config is not None:
            try:
                config_entries(op.config, op)
            except ConfigError as e:
                self.fail("config", str(e))

    def check_sizes(self) -> list[int]:
        sizes = []
        for a in self.op.mda_size.data:
            if not isinstance(a, IntegerAttr) or a.value.data < 1:
                self.fail("mda_size", f"sizes must be positive integers, got {a}")
            sizes.append(a.value.data)  # type: ignore[union-attr]
        if not sizes:
            self.fail("mda_size", "at least one dimension is required")
        return sizes

    def check_types(self, attr: str, types: ArrayAttr, expected: int, what: str) -> None:
        if len(types.data) != expected:
            self.fail(attr, f"{len(types.data)} types for {expected} {what}")
        inputs = attr == "inp_types"
        for t in types.data:
            if inputs and not is_input_type(t):
                self.fail(attr, f"unsupported element type {t} (expected f32, f64, i32, i64, f16 or bf16)")
            if not inputs and not is_scalar_type(t):
                only = " (f16 and bf16 are input types: outputs are computed in f32)" if is_input_type(t) else ""
                self.fail(attr, f"unsupported element type {t} (expected f32, f64, i32 or i64){only}")

    def check_precision(self) -> None:
        """`precision` is one of `PRECISIONS`; "tf32" rounds f32 inputs, so every input
        is f32."""
        p = self.op.precision
        if p is None:
            return
        if p.data not in PRECISIONS:
            self.fail("precision", f'unknown precision "{p.data}" (expected one of {list(PRECISIONS)})')
        if p.data == "tf32":
            for b, t in enumerate(self.op.inp_types.data):
                if not isinstance(t, Float32Type):
                    self.fail("precision", f'"tf32" rounds f32 inputs, but input {b} has element type {t}')

    def check_operand_types(self) -> None:
        op = self.op
        pairs = [("inp_types", "input", v.type, t) for v, t in zip(op.inputs, op.inp_types.data)]
        pairs += [("out_types", "result", v.type, t) for v, t in zip(op.outputs, op.out_types.data)]
        for i, (attr, what, mtype, elem) in enumerate(pairs):
            assert isinstance(mtype, MemRefType)
            if mtype.element_type != elem:
                self.fail(attr, f"{what} type {mtype} does not have element type {elem}")
            if any(d < 0 for d in mtype.get_shape()):
                self.fail(attr, f"{what} type {mtype} must have a static shape")
            if (problem := buffer_type_problem(mtype)) is not None:
                self.fail(attr, f"{what} type {mtype} {problem}")

    def check_host_signature(self) -> None:
        """The buffers of the function holding the op (its host function) have the
        default layout and memory space too: the runtime passes them as plain arrays."""
        host = self.op.parent_op()
        if not isinstance(host, FuncOp):
            return
        ftype = host.function_type
        for what, types in (("argument", ftype.inputs.data), ("result", ftype.outputs.data)):
            for i, t in enumerate(types):
                if isinstance(t, MemRefType) and (problem := buffer_type_problem(t)) is not None:
                    self.fail("host function", f"@{host.sym_name.data} {what} {i} of type {t} {problem}")

    def check_combines(self, rank: int) -> list[Combine]:
        md_hom = self.op.md_hom.data
        if set(md_hom) != {"scalar_func", "combine_ops"}:
            self.fail("md_hom", "expected exactly the keys scalar_func and combine_ops")
        func = md_hom["scalar_func"]
        if not isinstance(func, SymbolRefAttr) or func.nested_references:
            self.fail("md_hom", f"scalar_func must be a function symbol, got {func}")
        ops = md_hom["combine_ops"]
        if not isinstance(ops, ArrayAttr):
            self.fail("md_hom", f"combine_ops must be a list, got {ops}")
        if (n := len(ops.data)) != rank:  # type: ignore[union-attr]
            self.fail("md_hom", f"{n} combine operators for {rank} dimensions")
        combines = []
        for a in ops.data:  # type: ignore[union-attr]
            try:
                combines.append(Combine.from_attr(a))
            except VerifyException as e:
                self.fail("md_hom", str(e))
        ints = all(isinstance(t, IntegerType) for t in self.op.out_types.data)
        for c in combines:
            if c.builtin and c.func in INTEGER_ONLY_COMBINES and not ints:
                self.fail("md_hom", f'builtin combine "{c.func}" needs integer outputs')
        return combines

    def check_boundary(self) -> list[str]:
        b = self.op.boundary
        if b is None:
            return ["none"] * len(self.op.inputs)
        if len(b.data) != len(self.op.inputs):
            self.fail("boundary", f"{len(b.data)} entries for {len(self.op.inputs)} input buffers")
        for a in b.data:
            if not isinstance(a, StringAttr) or a.data not in BOUNDARY_MODES:
                self.fail("boundary", f"unknown mode {a} (expected one of {list(BOUNDARY_MODES)})")
        return [a.data for a in b.data]  # type: ignore[attr-defined]

    def view_maps(self, attr: str, view: ArrayAttr, count: int, what: str, rank: int):
        if len(view.data) != count:
            self.fail(attr, f"{len(view.data)} entries for {count} {what}")
        result = []
        for b, accesses in enumerate(view.data):
            if not isinstance(accesses, ArrayAttr) or not accesses.data:
                self.fail(attr, f"entry {b} must be a non-empty list of affine maps")
            maps = []
            for m in accesses.data:  # type: ignore[union-attr]
                if not isinstance(m, AffineMapAttr):
                    self.fail(attr, f"entry {b}: expected an affine map, got {m}")
                amap = m.data  # type: ignore[union-attr]
                if amap.num_dims != rank or amap.num_symbols:
                    self.fail(
                        attr,
                        f"entry {b}: map {amap} has {amap.num_dims} dimensions and "
                        f"{amap.num_symbols} symbols; expected {rank} dimensions (mda_size)",
                    )
                maps.append(amap)
            result.append(maps)
        return result

    def check_input_views(self, sizes: list[int], boundaries: list[str]) -> None:
        op = self.op
        views = self.view_maps("inp_view", op.inp_view, len(op.inputs), "input buffers", len(sizes))
        for b, (maps, value) in enumerate(zip(views, op.inputs)):
            shape = value.type.get_shape()  # type: ignore[attr-defined]
            for amap in maps:
                if len(amap.results) != len(shape):
                    self.fail(
                        "inp_view",
                        f"buffer {b}: map {amap} has {len(amap.results)} results for a "
                        f"rank-{len(shape)} buffer",
                    )
                forms = linear_results(amap)
                if forms is None:
                    self.fail(
                        "inp_view",
                        f"buffer {b}: map {amap} is not linear (mod, floordiv and ceildiv "
                        "are not supported)",
                    )
                if boundaries[b] != "none":
                    continue
                for axis, (form, extent) in enumerate(zip(forms, shape)):  # type: ignore
                    lo, hi = form.range_over([0] * len(sizes), [n - 1 for n in sizes])
                    if lo < 0 or hi >= extent:
                        self.fail(
                            "inp_view",
                            f"buffer {b}: map {amap} reads index {lo if lo < 0 else hi} of "
                            f"axis {axis} (size {extent}); set a boundary mode to allow it",
                        )

    def check_output_views(self, sizes: list[int], combines: list[Combine]) -> None:
        op = self.op
        views = self.view_maps("out_view", op.out_view, len(op.outputs), "results", len(sizes))
        kept = sorted(d for d, c in enumerate(combines) if c.kind != "pw")
        for j, (maps, value) in enumerate(zip(views, op.outputs)):
            if len(maps) != 1:
                self.fail("out_view", f"result {j}: exactly one map per output buffer")
            amap = maps[0]
            dims = [dim_of(e) for e in amap.results]
            if None in dims:
                self.fail("out_view", f"result {j}: map {amap} results must be plain dimensions")
            for d in dims:
                if combines[d].kind == "pw":  # type: ignore[index]
                    self.fail(
                        "out_view",
                        f"result {j}: map {amap} keeps dimension d{d}, which is combined "
                        f"with {combines[d]}",  # type: ignore[index]
                    )
            if sorted(dims) != kept:  # type: ignore[type-var]
                lost = [f"d{d}" for d in kept if d not in dims]
                self.fail(
                    "out_view",
                    f"result {j}: map {amap} must keep every cc/ps dimension exactly once"
                    + (f" (drops {', '.join(lost)})" if lost else " (repeats one)"),
                )
            expected = [sizes[d] for d in dims]  # type: ignore[index]
            if list(value.type.get_shape()) != expected:  # type: ignore[attr-defined]
                self.fail(
                    "out_types",
                    f"result {j} has type {value.type}, but its view gives shape {expected}",
                )

    def check_scalar_func(self) -> None:
        op = self.op
        name = op.scalar_func
        if op.parent_op() is None:
            return
        func = op.lookup_func(name)
        if func is None:
            self.fail("md_hom", f"scalar_func @{name} is not a func.func in this module")
        results = {f: self.prologue_result(f) for f, _ in op.prologues}
        reads = [[read_type(t)] * len(maps) for t, maps in zip(op.inp_types.data, op.input_maps)]
        scalars: list[Attribute] = scalar_arguments(op.prologues, reads, lambda f, _: results[f])  # type: ignore[arg-type]
        stats = [t for s in op.row_stats for t in op.lookup_func(s.func).function_type.outputs.data]  # type: ignore[union-attr]
        scalars = stats + scalars
        ftype = func.function_type  # type: ignore[union-attr]
        inputs = list(ftype.inputs.data)
        grouped = ", a prologue's result per access of its inputs" if op.prologue is not None else ""
        grouped += " after the row statistics' values" if op.stats is not None else ""
        if inputs != scalars and not (
            inputs[: len(scalars)] == scalars
            and index_args_allowed(func, len(scalars), op.rank)  # type: ignore[arg-type]
        ):
            widened = op.input_read_types != list(op.inp_types.data)
            self.fail(
                "md_hom",
                f"scalar_func @{name} takes ({', '.join(map(str, inputs))}); expected one "
                f"argument per input access{grouped} ({', '.join(map(str, scalars))}"
                f"{'; f16 and bf16 inputs are read as f32' if widened else ''}), optionally "
                f"followed by {op.rank} index arguments",
            )
        if list(ftype.outputs.data) != list(op.out_types.data):
            self.fail(
                "md_hom",
                f"scalar_func @{name} returns ({', '.join(map(str, ftype.outputs.data))}); "
                f"expected out_types ({', '.join(map(str, op.out_types.data))})",
            )

    def check_prologue(self) -> None:
        """A prologue (`mdh.ComputeOp`'s docstring): entries `{func, inputs}`, groups of
        distinct md_hom inputs with as many accesses each, the function's type (one
        value per group input, in order) -> (one value)."""
        op = self.op
        if op.prologue is None:
            return
        seen: set[int] = set()
        for n, entry in enumerate(op.prologue.data):
            if not isinstance(entry, DictionaryAttr) or set(entry.data) != {"func", "inputs"}:
                self.fail("prologue", f"entry {n}: expected a dictionary with the keys func and inputs")
            ref, inputs = entry.data["func"], entry.data["inputs"]  # type: ignore[union-attr]
            if not isinstance(ref, SymbolRefAttr) or ref.nested_references:
                self.fail("prologue", f"entry {n}: func must be a function symbol, got {ref}")
            if not isinstance(inputs, ArrayAttr) or not inputs.data or not all(isinstance(i, IntegerAttr) for i in inputs.data):
                self.fail("prologue", f"entry {n}: inputs must be a non-empty list of input positions")
            group = [i.value.data for i in inputs.data]  # type: ignore[union-attr]
            for b in group:
                if not 0 <= b < len(op.inputs) or b in seen:
                    self.fail("prologue", f"entry {n}: input {b} is not an md_hom input, or is read by another prologue")
                seen.add(b)
            if len({len(op.input_maps[b]) for b in group}) != 1:
                self.fail("prologue", f"entry {n}: its inputs {group} have different numbers of accesses")
            if op.parent_op() is None:
                continue
            name = ref.root_reference.data  # type: ignore[union-attr]
            func = op.lookup_func(name)
            if func is None:
                self.fail("prologue", f"func @{name} is not a func.func in this module")
            ftype = func.function_type  # type: ignore[union-attr]
            types = [op.inp_types.data[b] for b in group]
            if list(ftype.inputs.data) != types or len(ftype.outputs.data) != 1 or not is_scalar_type(ftype.outputs.data[0]):
                self.fail(
                    "prologue",
                    f"func @{name} must have type ({', '.join(map(str, types))}) -> (one scalar): "
                    "one value per input of its group",
                )

    def check_stats(self, sizes: list[int]) -> None:
        """Row statistics (`mdh.ComputeOp`'s docstring): entries `{func, combine_ops,
        inp_view[, boundary]}`, reductions without `ps`, views as for inputs, functions
        of type (earlier entries' values..., one per access...) -> (values...) whose
        combine functions fit; no epilogue or prologue beside them."""
        op = self.op
        if op.stats is None:
            return
        if op.epilogue is not None or op.prologue is not None:
            self.fail("stats", "an op with row statistics has no epilogue or prologue")
        if any(c.kind == "ps" for c in op.combines):
            self.fail("stats", "an op with row statistics has no ps dimension")
        earlier: list[Attribute] = []
        for n, entry in enumerate(op.stats.data):
            if not isinstance(entry, DictionaryAttr) or not {"func", "combine_ops", "inp_view"} <= set(entry.data) <= {"func", "combine_ops", "inp_view", "boundary"}:
                self.fail("stats", f"entry {n}: expected a dictionary with the keys func, combine_ops and inp_view, optionally boundary")
            ref, ops = entry.data["func"], entry.data["combine_ops"]  # type: ignore[union-attr]
            if not isinstance(ref, SymbolRefAttr) or ref.nested_references:
                self.fail("stats", f"entry {n}: func must be a function symbol, got {ref}")
            if not isinstance(ops, ArrayAttr) or len(ops.data) != len(sizes):
                self.fail("stats", f"entry {n}: combine_ops must list one operator per dimension")
            try:
                combines = [Combine.from_attr(a) for a in ops.data]  # type: ignore[union-attr]
            except VerifyException as e:
                self.fail("stats", f"entry {n}: {e}")
            if any(c.kind == "ps" for c in combines) or all(c.kind == "cc" for c in combines):
                self.fail("stats", f"entry {n}: a row statistic reduces some dimension (pw) and scans none (ps)")
        for n, stat in enumerate(op.row_stats):
            for b, (maps, value, mode) in enumerate(zip(stat.maps, stat.buffers, stat.boundaries)):
                if mode not in BOUNDARY_MODES:
                    self.fail("stats", f"entry {n}: unknown boundary mode {mode}")
                shape = value.type.get_shape()  # type: ignore[attr-defined]
                for amap in maps:
                    forms = linear_results(amap)
                    if amap.num_dims != len(sizes) or len(amap.results) != len(shape) or forms is None:
                        self.fail("stats", f"entry {n}: input {b}: map {amap} is not a linear map of the op's dimensions onto the buffer's axes")
                    if mode == "none":
                        for axis, (form, extent) in enumerate(zip(forms, shape)):  # type: ignore
                            lo, hi = form.range_over([0] * len(sizes), [k - 1 for k in sizes])
                            if lo < 0 or hi >= extent:
                                self.fail("stats", f"entry {n}: input {b}: map {amap} reads index {lo if lo < 0 else hi} of axis {axis} (size {extent}); set a boundary mode to allow it")
            if op.parent_op() is None:
                continue
            func = op.lookup_func(stat.func)
            if func is None:
                self.fail("stats", f"func @{stat.func} is not a func.func in this module")
            reads = [v.type.element_type for maps, v in zip(stat.maps, stat.buffers) for _ in maps]  # type: ignore[attr-defined]
            ftype = func.function_type  # type: ignore[union-attr]
            outs = list(ftype.outputs.data)
            if list(ftype.inputs.data) != earlier + reads or not outs or not all(is_scalar_type(t) for t in outs):
                self.fail("stats", f"func @{stat.func} must have type ({', '.join(map(str, earlier + reads))}) -> (values): the earlier statistics' values, then one value per access")
            for c in stat.combines:
                if c.kind == "pw" and not c.builtin:
                    g = op.lookup_func(c.func)  # type: ignore[arg-type]
                    if g is None or list(g.function_type.inputs.data) != outs + outs or list(g.function_type.outputs.data) != outs:
                        self.fail("stats", f"entry {n}: combine function @{c.func} must have type ({', '.join(map(str, outs * 2))}) -> ({', '.join(map(str, outs))})")
            earlier += outs

    def prologue_result(self, name: str) -> Attribute:
        return self.op.lookup_func(name).function_type.outputs.data[0]  # type: ignore[union-attr]

    def check_combine_funcs(self, combines: list[Combine]) -> None:
        op = self.op
        if op.parent_op() is None:
            return
        outs = list(op.out_types.data)
        for c in combines:
            if c.kind == "cc" or c.builtin:
                continue
            func = op.lookup_func(c.func)  # type: ignore[arg-type]
            if func is None:
                self.fail("md_hom", f"combine function @{c.func} is not a func.func in this module")
            ftype = func.function_type  # type: ignore[union-attr]
            if list(ftype.inputs.data) != outs + outs or list(ftype.outputs.data) != outs:
                sig = ", ".join(map(str, outs))
                self.fail(
                    "md_hom",
                    f"combine function @{c.func} must have type ({sig}, {sig}) -> ({sig})",
                )

    def check_epilogue(self, sizes: list[int], combines: list[Combine]) -> None:
        """An epilogue (`mdh.ComputeOp`'s docstring): keys, views over the kept dimensions
        of the extra buffers, boundary modes, and the function's type."""
        op, epi = self.op, self.op.epilogue
        if epi is None:
            if op.epilogue_inputs:
                self.fail("epilogue", f"{len(op.epilogue_inputs)} epilogue operands without an epilogue")
            return
        keys = set(epi.data)
        if not {"func", "inp_view"} <= keys <= {"func", "inp_view", "boundary"}:
            self.fail("epilogue", "expected the keys func and inp_view, optionally boundary")
        ref = epi.data["func"]
        if not isinstance(ref, SymbolRefAttr) or ref.nested_references:
            self.fail("epilogue", f"func must be a function symbol, got {ref}")
        if any(c.kind == "ps" for c in combines):
            self.fail("epilogue", "an op with a ps dimension cannot have one (its scan kernels write the final values)")
        view = epi.data["inp_view"]
        if not isinstance(view, ArrayAttr):
            self.fail("epilogue", f"inp_view must be a list, got {view}")
        count = len(op.epilogue_inputs)
        bounds = epi.data.get("boundary")
        if bounds is not None and (
            not isinstance(bounds, ArrayAttr)
            or len(bounds.data) != count
            or any(not isinstance(a, StringAttr) or a.data not in BOUNDARY_MODES for a in bounds.data)
        ):
            self.fail("epilogue", f"boundary must list one mode of {list(BOUNDARY_MODES)} per epilogue input")
        maps = self.view_maps("epilogue", view, count, "epilogue inputs", len(sizes))  # type: ignore[arg-type]
        types = []
        for b, (accesses, value, mode) in enumerate(zip(maps, op.epilogue_inputs, op.epilogue_boundaries)):
            mtype = value.type
            assert isinstance(mtype, MemRefType)
            if not is_scalar_type(mtype.element_type):
                self.fail("epilogue", f"input {b}: unsupported element type {mtype.element_type}")
            if any(d < 0 for d in mtype.get_shape()) or buffer_type_problem(mtype) is not None:
                self.fail("epilogue", f"input {b}: type {mtype} must have a static shape and no layout or memory space")
            for amap in accesses:
                if len(amap.results) != mtype.get_num_dims():
                    self.fail("epilogue", f"input {b}: map {amap} has {len(amap.results)} results for a rank-{mtype.get_num_dims()} buffer")
                forms = linear_results(amap)
                if forms is None:
                    self.fail("epilogue", f"input {b}: map {amap} is not linear")
                if any(combines[d].kind == "pw" for d in amap.used_dims()):
                    self.fail("epilogue", f"input {b}: map {amap} uses a pw dimension, which has no value at an output point")
                if mode == "none":
                    for axis, (form, extent) in enumerate(zip(forms, mtype.get_shape())):  # type: ignore[arg-type]
                        lo, hi = form.range_over([0] * len(sizes), [n - 1 for n in sizes])
                        if lo < 0 or hi >= extent:
                            self.fail("epilogue", f"input {b}: map {amap} reads index {lo if lo < 0 else hi} of axis {axis} (size {extent}); set a boundary mode to allow it")
                types.append(mtype.element_type)
        if op.parent_op() is None:
            return
        name = op.epilogue_func
        func = op.lookup_func(name)  # type: ignore[arg-type]
        if func is None:
            self.fail("epilogue", f"func @{name} is not a func.func in this module")
        outs = list(op.out_types.data)
        ftype = func.function_type  # type: ignore[union-attr]
        if list(ftype.inputs.data) != outs + types or list(ftype.outputs.data) != outs:
            expected = ", ".join(map(str, outs + types))
            self.fail(
                "epilogue",
                f"func @{name} must have type ({expected}) -> ({', '.join(map(str, outs))}): the "
                "output values, then one value per epilogue input access",
            )

    def check_bodies(self, combines: list[Combine]) -> None:
        """The scalar and combine functions, and the functions they call, hold only
        scalar ops (`scalar_ops.SCALAR_OPS`) and call no function that calls them
        again (they are inlined)."""
        op = self.op
        if op.parent_op() is None:
            return
        roots = [op.scalar_func] + [c.func for c in combines if c.kind != "cc" and not c.builtin]
        roots += [op.epilogue_func] if op.epilogue is not None else []
        roots += [f for f, _ in op.prologues]
        roots += [s.func for s in op.row_stats] + [c.func for s in op.row_stats for c in s.combines if c.kind == "pw" and not c.builtin]
        done: set[str] = set()
        for root in roots:  # depth first, `path` the chain of calls to the function visited
            path, callees = [root], [iter(self.callees(root))]  # type: ignore[list-item]
            while callees:
                name = next(callees[-1], None)
                if name is None:
                    done.add(path.pop())
                    callees.pop()
                elif name in path:
                    cycle = " -> ".join(f"@{n}" for n in [*path[path.index(name) :], name])
                    self.fail("md_hom", f"@{name} is recursive ({cycle}); scalar functions are inlined, so they cannot recurse")
                elif name not in done:
                    path.append(name)
                    callees.append(iter(self.callees(name)))

    def callees(self, name: str) -> list[str]:
        """The functions that function `name` calls, once it is checked to be one whose
        body holds only scalar ops."""
        f = self.op.lookup_func(name)
        if f is None:
            self.fail("md_hom", f"@{name}, called by a scalar or combine function, is not a func.func")
        if (problem := function_problem(f)) is not None:  # type: ignore[arg-type]
            self.fail("md_hom", f"@{name}: {problem}")
        return [c.callee.root_reference.data for c in f.walk() if isinstance(c, CallOp)]  # type: ignore


def verify_compute(op: Operation) -> None:
    """Verify `op`, an `mdh.compute` (`mdh_ir.dialects.mdh.ComputeOp`, which calls this)."""
    _Checker(op).run()
