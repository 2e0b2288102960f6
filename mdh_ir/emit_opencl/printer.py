"""The OpenCL C printer: a plain walk over expanded low-level IR.

It makes no decision: each op prints as one statement (SSA values become `const`
locals, constants are written as literals where they are used), `scf.for`/`scf.if` as C
loops and branches, memrefs as flat arrays indexed row-major (global: kernel pointer
arguments; "lcl": `__local` arrays; "prv": private arrays), scalar `func.func`s as
OpenCL functions (several results through pointers), `lowlevel.kernel`s as `__kernel`
functions, both named by `c_names` (a symbol that is no plain C identifier is spelled
out, the symbol kept in a comment). Index values are 32-bit `int` (the constraint check
keeps every index below 2^31). Host functions print as a comment block describing
buffers, fills and launches. A `lowlevel.fence` prints as `MDH_DEVICE_FENCE()`,
defined at the top (`DEVICE_FENCE`).

16-bit floats (f16, bf16) are stored as `ushort` in every memory (OpenCL C without
`cl_khr_fp16`, as NVIDIA's, declares no `half` variable or array), their constants as
their bits, so copies move the bits; `lowlevel.load_widened` reads an f16 element with
the core `vload_half` (`vload_halfN`) through a `half` pointer, a bf16 one as the upper
half of a float's bits (`as_float((uint)x << 16)`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import IO

import ml_dtypes
import numpy as np
from xdsl.dialects import arith, func, math as mmath, memref, scf, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from mdh_ir.dialects.lowlevel import (
    ALIGNMENT_ATTR,
    LOCAL_SIZE_ATTR,
    PTX_ATTR,
    SHARED_ATTR,
    AtomicIncOp,
    BarrierOp,
    LoadWidenedOp,
    MmaOp,
    LdMatrixOp,
    CpAsyncOp,
    AsyncCommitOp,
    AsyncWaitOp,
    RoundTF32Op,
    ConvertOp,
    FenceOp,
    GroupIdOp,
    KernelOp,
    LaunchOp,
    LocalIdOp,
    MaskCompareOp,
    MaskSelectOp,
    SlotOp,
    ViewOp,
    memory_space,
)
from mdh_ir.emit_opencl.c_names import comment_text, function_name, kernel_name


class PrintError(Exception):
    """The IR holds an op the printer has no rule for (run the whole pipeline first)."""


def c_type(t: Attribute) -> str:
    if isinstance(t, VectorType):
        if t.element_type == IntegerType(1):
            raise PrintError(f"no OpenCL type for {t} (mdh-vectorize makes i1 lanes masks)")
        return f"{c_type(t.element_type)}{t.get_shape()[0]}"
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float64Type):
        return "double"
    if isinstance(t, Float16Type | BFloat16Type):
        return "ushort"
    if isinstance(t, IndexType):
        return "int"
    if isinstance(t, IntegerType):
        return {1: "bool", 8: "char", 16: "short", 32: "int", 64: "long"}[t.width.data]
    raise PrintError(f"no OpenCL type for {t}")


def unsigned(t: Attribute) -> str:
    return "u" + c_type(t) if c_type(t) != "bool" else "bool"


def as_unsigned(t: Attribute, value: str) -> str:
    """`value` (of integer type `t`) read as unsigned: a reinterpretation, which unlike a C
    cast also applies to vectors."""
    return f"as_{unsigned(t)}({value})" if c_type(t) != "bool" else value


_INFIX = {
    arith.AddfOp: "+", arith.AddiOp: "+", arith.SubfOp: "-", arith.SubiOp: "-",
    arith.MulfOp: "*", arith.MuliOp: "*", arith.DivfOp: "/", arith.DivSIOp: "/",
    arith.RemSIOp: "%", arith.AndIOp: "&", arith.OrIOp: "|", arith.XOrIOp: "^",
    arith.ShRSIOp: ">>",
}  # fmt: skip
_UNSIGNED_INFIX = {arith.DivUIOp: "/", arith.RemUIOp: "%", arith.ShRUIOp: ">>", arith.ShLIOp: "<<"}
"""Infix operators on unsigned integers, the result reinterpreted as signed (`shli` too:
its bits shifted out or into the sign bit wrap, where C's signed `<<` is undefined)."""
_CALLS = {
    arith.MaxnumfOp: "fmax",
    arith.MinnumfOp: "fmin", arith.MaxSIOp: "max", arith.MinSIOp: "min",
    mmath.ExpOp: "exp", mmath.Exp2Op: "exp2", mmath.ExpM1Op: "expm1", mmath.LogOp: "log",
    mmath.Log2Op: "log2", mmath.Log10Op: "log10", mmath.Log1pOp: "log1p",
    mmath.SqrtOp: "sqrt", mmath.RsqrtOp: "rsqrt", mmath.AbsFOp: "fabs", mmath.CtPopOp: "popcount",
    mmath.SinOp: "sin", mmath.CosOp: "cos", mmath.TanOp: "tan", mmath.TanhOp: "tanh",
    mmath.AtanOp: "atan", mmath.FloorOp: "floor", mmath.CeilOp: "ceil",
    mmath.RoundOp: "round", mmath.TruncOp: "trunc", mmath.ErfOp: "erf",
    mmath.PowFOp: "pow", mmath.Atan2Op: "atan2", mmath.CopySignOp: "copysign",
    mmath.FmaOp: "fma",
}  # fmt: skip
_UNSIGNED_CALLS = {arith.MaxUIOp: "max", arith.MinUIOp: "min", mmath.AbsIOp: "abs"}
"""Calls on (or, abs, to) unsigned integers: the result is reinterpreted as signed."""
_CASTS = (
    arith.SIToFPOp, arith.UIToFPOp, arith.FPToSIOp, arith.ExtFOp, arith.TruncFOp,
    arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, arith.IndexCastOp,
)  # fmt: skip
_CMPF = {
    "false": "({a} != {a}) & ({a} == {a})", "oeq": "{a} == {b}", "ogt": "{a} > {b}",
    "oge": "{a} >= {b}", "olt": "{a} < {b}", "ole": "{a} <= {b}",
    "one": "islessgreater({a}, {b})", "ord": "isordered({a}, {b})",
    "ueq": "!islessgreater({a}, {b})", "ugt": "!({a} <= {b})", "uge": "!({a} < {b})",
    "ult": "!({a} >= {b})", "ule": "!({a} > {b})", "une": "{a} != {b}",
    "uno": "isunordered({a}, {b})", "true": "({a} == {a}) | ({a} != {a})",
}  # fmt: skip
"""Float predicates: C's comparisons are ordered (false on NaN) except `!=`; "false" and
"true" are written on the operand so that they have the mask type on vectors."""
_CMPI = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
         "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}  # fmt: skip


def qualifier(t: Attribute) -> str:
    """The OpenCL address space qualifier of a memref type, with its space."""
    return {"glb": "__global ", "lcl": "__local ", "prv": ""}[memory_space(t)]


def literal(attr: Attribute) -> str:
    if isinstance(attr, FloatAttr) and isinstance(attr.type, Float16Type | BFloat16Type):
        dtype = np.float16 if isinstance(attr.type, Float16Type) else ml_dtypes.bfloat16
        return f"0x{int(np.array(attr.value.data, dtype).view(np.uint16)):04x}"
    if isinstance(attr, FloatAttr):
        value = attr.value.data
        suffix = "f" if isinstance(attr.type, Float32Type) else ""
        if math.isinf(value):
            return "INFINITY" if value > 0 else "-INFINITY"
        if math.isnan(value):
            return "NAN"
        return f"{value!r}{suffix}"
    assert isinstance(attr, IntegerAttr)
    value = attr.value.data
    if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
        return "true" if value else "false"
    if isinstance(attr.type, IntegerType) and attr.type.width.data == 64:
        return f"{value}L"
    return str(value)


DEVICE_FENCE = (
    "#ifdef cl_nv_pragma_unroll",
    '#define MDH_DEVICE_FENCE() __asm__ volatile("membar.gl;" ::: "memory")',
    "#else",
    "#define MDH_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)",
    "#endif",
)
"""`lowlevel.fence`, a fence for every work-group: on NVIDIA's OpenCL (which defines the
macro of its `cl_nv_pragma_unroll` extension) PTX's `membar.gl`, as its
`mem_fence(CLK_GLOBAL_MEM_FENCE)` is only `membar.cta`; elsewhere (PoCL) `mem_fence`."""


MMA_INSTRUCTIONS = {
    "tf32": "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "f16": "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    "bf16": "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
}
"""The PTX instruction of each kind of `lowlevel.mma`, printed as inline assembly (NVIDIA's
OpenCL compiler takes it; A and B registers as their bits: TF32 floats, or two packed
16-bit elements)."""


class OpenCLPrinter:
    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.names: dict[SSAValue, str] = {}
        self.indent = 0

    def line(self, text: str) -> None:
        self.stream.write("  " * self.indent + text + "\n")

    def name(self, v: SSAValue) -> str:
        """A value's C name; constants print as their literal."""
        if isinstance(v.owner, arith.ConstantOp):
            text = literal(v.owner.value)
            return f"({text})" if text.startswith("-") else text
        if v not in self.names:
            self.names[v] = f"v{len(self.names)}"
        return self.names[v]

    def define(self, v: SSAValue, expr: str) -> None:
        self.line(f"const {c_type(v.type)} {self.name(v)} = {expr};")

    def c_symbol(self, symbol: str, c_name: Callable[[str], str]) -> str:
        """`c_name(symbol)`, after a comment holding `symbol` where it is spelled out."""
        name = c_name(symbol)
        if name not in (symbol, f"mdh_{symbol}"):
            self.line(f"// {comment_text(symbol)}")
        return name

    # --- module ------------------------------------------------------------------

    def print_module(self, module: ModuleOp) -> None:
        ops = list(module.ops)
        uses_double = any(
            isinstance(getattr(v, "type", None), Float64Type)
            or (isinstance(getattr(v, "type", None), MemRefType) and isinstance(v.type.element_type, Float64Type))  # type: ignore
            for op in module.walk() for v in [*op.results, *op.operands]
        )  # fmt: skip
        self.line("// OpenCL C generated by mdh_ir")
        if uses_double:
            self.line("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
        if any(isinstance(op, FenceOp) for op in module.walk()):
            for line in DEVICE_FENCE:
                self.line(line)
        for op in ops:
            if isinstance(op, func.FuncOp) and is_scalar_function(op):
                self.print_function(op)
        for op in ops:
            if isinstance(op, KernelOp):
                self.print_kernel(op)
        for op in ops:
            if isinstance(op, func.FuncOp) and not is_scalar_function(op):
                self.print_host(op)

    def print_function(self, f: func.FuncOp) -> None:
        block = f.body.block
        outputs = f.function_type.outputs.data
        params = [f"{c_type(a.type)} {self.name(a)}" for a in block.args]
        name = self.c_symbol(f.sym_name.data, function_name)
        if len(outputs) == 1:
            head = f"static {c_type(outputs[0])} {name}"
        else:
            head = f"static void {name}"
            params += [f"{c_type(t)}* r{i}" for i, t in enumerate(outputs)]
        self.line(f"{head}({', '.join(params)}) {{")
        self.body(block)
        self.line("}")
        self.line("")

    def print_kernel(self, kernel: KernelOp) -> None:
        block = kernel.body.block
        written = kernel.written()
        shared = kernel.attributes.get(SHARED_ATTR)
        shared = set(shared.get_values()) if isinstance(shared, DenseArrayBase) else set()
        params = []
        for n, a in enumerate(block.args):
            const = "" if a in written else "const "
            restrict = "" if n in shared else "restrict "
            params.append(f"__global {const}{c_type(a.type.element_type)}* {restrict}{self.name(a)}")  # type: ignore
        size = kernel.attributes.get(LOCAL_SIZE_ATTR)
        attribute = ""
        if isinstance(size, DenseArrayBase):
            attribute = f"__attribute__((reqd_work_group_size({', '.join(map(str, size.get_values()))}))) "
        name = self.c_symbol(kernel.sym_name.data, kernel_name)
        self.line(f"__kernel {attribute}void {name}({', '.join(params)}) {{")
        self.body(block)
        self.line("}")
        self.line("")

    def print_host(self, f: func.FuncOp) -> None:
        """The launch description, as comments."""
        block = f.body.block
        args = ", ".join(f"{self.name(a)}: {a.type}" for a in block.args)
        self.line(f"// host {comment_text(f.sym_name.data)}({args})")
        for op in block.ops:
            if isinstance(op, memref.AllocOp):
                self.line(f"//   {self.name(op.memref)} = buffer {op.memref.type}")
            elif isinstance(op, memref.GetGlobalOp):
                name = comment_text(op.name_.root_reference.data)
                self.line(f"//   {self.name(op.memref)} = global {name} {op.memref.type}, kept across runs")
            elif isinstance(op, arith.ConstantOp):
                continue
            elif isinstance(op, LaunchOp):
                names = ", ".join(self.name(a) for a in op.args)
                glb = list(op.global_size.get_values())
                lcl = list(op.local_size.get_values())
                kernel = kernel_name(op.kernel.string_value())
                self.line(f"//   launch {kernel}({names}) global {glb} local {lcl}")
            elif isinstance(op, memref.CopyOp):
                self.line(f"//   copy {self.name(op.source)} into {self.name(op.destination)}")
            elif isinstance(op, func.ReturnOp):
                self.line(f"//   return {', '.join(self.name(a) for a in op.arguments)}")
            else:
                raise PrintError(f"no OpenCL rule for {op.name} in a host function")

    # --- statements -------------------------------------------------------------------

    def body(self, block: Block) -> None:
        self.indent += 1
        for op in block.ops:
            self.print_op(op)
        self.indent -= 1

    def index(self, mem: SSAValue, indices) -> str:
        shape = mem.type.get_shape()  # type: ignore[attr-defined]
        terms, stride = [], 1
        for i, n in reversed(list(zip(indices, shape))):
            name = self.name(i)
            if name != "0":
                terms.append(name if stride == 1 else f"{name} * {stride}")
            stride *= n
        return " + ".join(reversed(terms)) or "0"

    def print_op(self, op: Operation) -> None:
        handler = self.HANDLERS.get(type(op))
        if handler is not None:
            handler(self, op)
            return
        kind = type(op)
        n = self.name
        if kind in _INFIX:
            self.define(op.results[0], f"{n(op.operands[0])} {_INFIX[kind]} {n(op.operands[1])}")
        elif kind in _UNSIGNED_INFIX:
            t = op.results[0].type
            a, b = (as_unsigned(t, n(v)) for v in op.operands)
            self.define(op.results[0], f"as_{c_type(t)}({a} {_UNSIGNED_INFIX[kind]} {b})")
        elif kind in _CALLS:
            self.define(op.results[0], f"{_CALLS[kind]}({', '.join(map(n, op.operands))})")
        elif kind in _UNSIGNED_CALLS:
            t = op.results[0].type
            args = ", ".join(n(v) if kind is mmath.AbsIOp else as_unsigned(t, n(v)) for v in op.operands)
            self.define(op.results[0], f"as_{c_type(t)}({_UNSIGNED_CALLS[kind]}({args}))")
        elif isinstance(op, _CASTS):
            self.print_cast(op)
        else:
            raise PrintError(f"no OpenCL rule for {op.name}")

    def print_cast(self, op: Operation) -> None:
        """C casts (scalars; `lowlevel.convert` is their vector form)."""
        source, result = op.operands[0], op.results[0]
        value = self.name(source)
        bit = IntegerType(1)
        if isinstance(op, arith.ExtUIOp | arith.UIToFPOp) and source.type != bit:
            value = as_unsigned(source.type, value)
        negate = source.type == bit and isinstance(op, arith.ExtSIOp | arith.SIToFPOp)
        cast = f"({c_type(result.type)}){value}"
        if result.type == bit:
            cast = f"(bool)({value} & 1)"
        self.define(result, f"-{cast}" if negate else cast)

    def print_bitcast(self, op: arith.BitcastOp) -> None:
        """A reinterpretation of the bits (of a 16-bit float element: its `ushort`)."""
        self.define(op.result, f"as_{c_type(op.result.type)}({self.name(op.input)})")

    def print_convert(self, op: ConvertOp) -> None:
        value = self.name(op.input)
        if op.unsigned is not None:
            value = as_unsigned(op.input.type, value)
        self.define(op.result, f"convert_{c_type(op.result.type)}({value})")

    def print_mask_compare(self, op: MaskCompareOp) -> None:
        self.define(op.result, self.comparison(op.predicate.data, op.lhs, op.rhs))

    def print_mask_select(self, op: MaskSelectOp) -> None:
        n = self.name
        self.define(op.result, f"select({n(op.false_value)}, {n(op.true_value)}, {n(op.mask)})")

    def print_negf(self, op: arith.NegfOp) -> None:
        self.define(op.result, f"-{self.name(op.operand)}")

    def comparison(self, pred: str, lhs: SSAValue, rhs: SSAValue) -> str:
        """`lhs pred rhs`, integers read as unsigned for the unsigned predicates."""
        t = lhs.type
        a, b = self.name(lhs), self.name(rhs)
        elem = t.element_type if isinstance(t, VectorType) else t
        if not isinstance(elem, IntegerType | IndexType):
            return _CMPF[pred].format(a=a, b=b)
        if pred.startswith("u"):
            a, b = as_unsigned(t, a), as_unsigned(t, b)
        return f"{a} {_CMPI[pred]} {b}"

    def print_compare(self, op: arith.CmpfOp | arith.CmpiOp) -> None:
        floats = isinstance(op, arith.CmpfOp)
        names = arith.CMPF_COMPARISON_OPERATIONS if floats else arith.CMPI_COMPARISON_OPERATIONS
        self.define(op.result, self.comparison(names[op.predicate.value.data], op.lhs, op.rhs))

    def print_maximumf(self, op: arith.MaximumfOp | arith.MinimumfOp) -> None:
        """NaN-propagating, unlike OpenCL's fmax/fmin."""
        a, b = self.name(op.lhs), self.name(op.rhs)
        f = "fmax" if isinstance(op, arith.MaximumfOp) else "fmin"
        self.define(op.result, f"isnan({a}) || isnan({b}) ? {a} + {b} : {f}({a}, {b})")

    def print_select(self, op: arith.SelectOp) -> None:
        n = self.name
        self.define(op.result, f"{n(op.cond)} ? {n(op.lhs)} : {n(op.rhs)}")

    def print_load(self, op: memref.LoadOp) -> None:
        self.define(op.res, f"{self.name(op.memref)}[{self.index(op.memref, op.indices)}]")

    def print_store(self, op: memref.StoreOp) -> None:
        target = f"{self.name(op.memref)}[{self.index(op.memref, op.indices)}]"
        self.line(f"{target} = {self.name(op.value)};")

    def address(self, op: vector.LoadOp | vector.StoreOp) -> str:
        return f"{self.name(op.base)} + {self.index(op.base, op.indices)}"

    def vector_pointer(self, op: vector.LoadOp | vector.StoreOp, vtype: Attribute) -> str:
        """The access through a `floatN` pointer (an op marked aligned by
        `lowlevel-align-vectors`)."""
        const = "const " if isinstance(op, vector.LoadOp) else ""
        return f"*({const}{qualifier(op.base.type)}{c_type(vtype)}*)({self.address(op)})"

    def print_vector_load(self, op: vector.LoadOp) -> None:
        if ALIGNMENT_ATTR in op.attributes:
            self.define(op.result, self.vector_pointer(op, op.result.type))
        else:
            lanes = op.result.type.get_shape()[0]
            self.define(op.result, f"vload{lanes}((size_t)0, {self.address(op)})")

    def print_vector_store(self, op: vector.StoreOp) -> None:
        value = self.name(op.vector)
        if ALIGNMENT_ATTR in op.attributes:
            self.line(f"{self.vector_pointer(op, op.vector.type)} = {value};")
        else:
            lanes = op.vector.type.get_shape()[0]  # type: ignore[attr-defined]
            self.line(f"vstore{lanes}({value}, (size_t)0, {self.address(op)});")

    def print_load_widened(self, op: LoadWidenedOp) -> None:
        t = op.result.type
        lanes = t.get_shape()[0] if isinstance(t, VectorType) else None
        n = "" if lanes is None else str(lanes)
        address = f"{self.name(op.memref)} + {self.index(op.memref, op.indices)}"
        if isinstance(op.memref.type.element_type, Float16Type):  # type: ignore[attr-defined]
            pointer = f"(const {qualifier(op.memref.type)}half*)({address})"
            self.define(op.result, f"vload_half{n}((size_t)0, {pointer})")
        elif lanes is None:
            self.define(op.result, f"as_float((uint)*({address}) << 16)")
        else:
            self.define(op.result, f"as_float{n}(convert_uint{n}(vload{n}((size_t)0, {address})) << 16)")

    def print_round_tf32(self, op: RoundTF32Op) -> None:
        """Round to nearest even at mantissa bit 13 (`RoundTF32Op`), NaN kept: one PTX
        `cvt.rn.tf32.f32` per element where marked (`PTX_ATTR`), else integer operations."""
        t, x = op.input.type, self.name(op.input)
        n = str(t.get_shape()[0]) if isinstance(t, VectorType) else ""
        if PTX_ATTR in op.attributes:
            lanes = [x] if not n else [f"{x}.s{i:x}" for i in range(int(n))]
            bits = [f"{self.name(op.result)}_{i}" for i in range(len(lanes))]
            self.line(f"uint {', '.join(bits)};")
            for b, lane in zip(bits, lanes):
                self.line(f'__asm__("cvt.rn.tf32.f32 %0, %1;" : "=r"({b}) : "f"({lane}));')
            packed = f"(uint{n})({', '.join(bits)})" if n else bits[0]
            self.define(op.result, f"as_float{n}({packed})")
            return
        bits = f"as_uint{n}({x})"
        rounded = f"as_float{n}(({bits} + 0xfffu + (({bits} >> 13) & 1u)) & 0xffffe000u)"
        if n:
            self.define(op.result, f"select({rounded}, {x}, isnan({x}))")
        else:
            self.define(op.result, f"isnan({x}) ? {x} : {rounded}")

    def print_mma(self, op: MmaOp) -> None:
        """`asm volatile` of the kind's `mma.sync` on the lane's registers."""
        d = [self.name(r) for r in op.d]
        self.line(f"float {', '.join(d)};")
        groups, at = [], 0
        for n in (len(op.d), len(op.a), len(op.b), len(op.c)):
            groups.append("{" + ",".join(f"%{i}" for i in range(at, at + n)) + "}")
            at += n
        outputs = ", ".join(f'"=f"({x})' for x in d)
        bits = ", ".join(f'"r"(as_uint({self.name(v)}))' for v in [*op.a, *op.b])
        accs = ", ".join(f'"f"({self.name(v)})' for v in op.c)
        text = f"{MMA_INSTRUCTIONS[op.kind.data]} {', '.join(groups)};"
        self.line(f'__asm__ volatile("{text}" : {outputs} : {bits}, {accs});')

    def print_ldmatrix(self, op: LdMatrixOp) -> None:
        """`asm volatile` of `ldmatrix` (b16: 16-byte rows, whatever the elements), the
        lane's row address as a local-memory (shared window) address."""
        bits = [f"{self.name(r)}_{q}" for q, r in enumerate(op.d)]
        self.line(f"uint {', '.join(bits)};")
        trans = ".trans" if op.trans is not None else ""
        regs = "{" + ",".join(f"%{q}" for q in range(len(bits))) + "}"
        text = f"ldmatrix.sync.aligned.m8n8.x{len(bits)}{trans}.shared.b16 {regs}, [%{len(bits)}];"
        outputs = ", ".join(f'"=r"({b})' for b in bits)
        address = f"(uint)(size_t)({self.name(op.source)} + {self.index(op.source, op.indices)})"
        self.line(f'__asm__ volatile("{text}" : {outputs} : "r"({address}));')
        for b, r in zip(bits, op.d):
            self.define(r, f"as_float({b})" if isinstance(r.type, Float32Type) else f"as_int({b})")

    def print_cp_async(self, op: CpAsyncOp) -> None:
        """`asm volatile` of `cp.async.ca` (of 4, 8 or 16 bytes), the destination as a
        local-memory (shared window) address."""
        size = op.bytes.value.data
        dest = f"(uint)(size_t)({self.name(op.dest)} + {self.index(op.dest, op.dest_indices)})"
        source = f"(ulong)({self.name(op.source)} + {self.index(op.source, op.source_indices)})"
        text = f"cp.async.ca.shared.global [%0], [%1], {size};"
        self.line(f'__asm__ volatile("{text}" :: "r"({dest}), "l"({source}) : "memory");')

    def print_async_commit(self, op: AsyncCommitOp) -> None:
        self.line('__asm__ volatile("cp.async.commit_group;" ::: "memory");')

    def print_async_wait(self, op: AsyncWaitOp) -> None:
        n = op.groups_pending
        text = f"cp.async.wait_group {n};" if n else "cp.async.wait_all;"
        self.line(f'__asm__ volatile("{text}" ::: "memory");')

    def print_broadcast(self, op: vector.BroadcastOp) -> None:
        self.define(op.vector, f"({c_type(op.vector.type)})({self.name(op.source)})")

    def print_extract(self, op: vector.ExtractOp) -> None:
        (lane,) = op.static_position.get_values()
        self.define(op.result, f"{self.name(op.vector)}.s{lane:x}")

    def pointer(self, v: SSAValue) -> str:
        """The C pointer type for memref value `v`."""
        return f"{qualifier(v.type)}{c_type(v.type.element_type)}*"  # type: ignore[attr-defined]

    def print_view(self, op: ViewOp) -> None:
        ptr = self.pointer(op.result)
        self.line(f"{ptr} {self.name(op.result)} = ({ptr}){self.name(op.source)};")

    def print_slot(self, op: SlotOp) -> None:
        size = math.prod(op.result.type.get_shape())  # type: ignore[attr-defined]
        source, index = self.name(op.source), self.name(op.index)
        self.line(f"{self.pointer(op.result)} {self.name(op.result)} = {source} + {index} * {size};")

    def print_alloca(self, op: memref.AllocaOp) -> None:
        t = op.memref.type
        size = math.prod(t.get_shape())  # type: ignore[attr-defined]
        space = qualifier(t)
        aligned = f" __attribute__((aligned({op.alignment.value.data})))" if op.alignment else ""
        self.line(f"{space}{c_type(t.element_type)} {self.name(op.memref)}[{size}]{aligned};")  # type: ignore

    def print_for(self, op: scf.ForOp) -> None:
        n = self.name
        iv = op.body.block.args[0]
        if (unroll := op.attributes.get("unroll")) is not None:
            factor = unroll.value.data  # type: ignore[attr-defined]
            self.line(f"#pragma unroll {factor}" if factor else "#pragma unroll")
        self.line(
            f"for (int {n(iv)} = {n(op.lb)}; {n(iv)} < {n(op.ub)}; {n(iv)} += {n(op.step)}) {{"
        )
        self.body(op.body.block)
        self.line("}")

    def print_if(self, op: scf.IfOp) -> None:
        self.line(f"if ({self.name(op.cond)}) {{")
        self.body(op.true_region.block)
        if op.false_region.blocks and len(op.false_region.block.ops) > 1:
            self.line("} else {")
            self.body(op.false_region.block)
        self.line("}")

    def print_yield(self, op: scf.YieldOp) -> None:
        if op.operands:
            raise PrintError("scf.yield with values has no OpenCL rule")

    def print_call(self, op: func.CallOp) -> None:
        callee = function_name(op.callee.root_reference.data)
        args = [self.name(a) for a in op.arguments]
        if len(op.results) == 1:
            self.define(op.results[0], f"{callee}({', '.join(args)})")
            return
        for r in op.results:
            self.line(f"{c_type(r.type)} {self.name(r)};")
        outs = [f"&{self.name(r)}" for r in op.results]
        self.line(f"{callee}({', '.join(args + outs)});")

    def print_return(self, op: func.ReturnOp) -> None:
        if len(op.arguments) == 1:
            self.line(f"return {self.name(op.arguments[0])};")
            return
        for i, a in enumerate(op.arguments):
            self.line(f"*r{i} = {self.name(a)};")

    def print_group_id(self, op: GroupIdOp) -> None:
        self.define(op.result, f"(int)get_group_id({op.dim.value.data})")

    def print_local_id(self, op: LocalIdOp) -> None:
        self.define(op.result, f"(int)get_local_id({op.dim.value.data})")

    def print_barrier(self, op: BarrierOp) -> None:
        fences = "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE" if op.global_memory else "CLK_LOCAL_MEM_FENCE"
        self.line(f"barrier({fences});")

    def print_fence(self, op: FenceOp) -> None:
        self.line("MDH_DEVICE_FENCE();")

    def print_atomic_inc(self, op: AtomicIncOp) -> None:
        self.define(op.result, f"atomic_inc({self.name(op.memref)} + {self.index(op.memref, op.indices)})")

    HANDLERS: dict[type[Operation], Callable[[OpenCLPrinter, Operation], None]] = {
        arith.ConstantOp: lambda self, op: None,
        arith.NegfOp: print_negf,
        arith.CmpfOp: print_compare,
        arith.CmpiOp: print_compare,
        arith.SelectOp: print_select,
        arith.BitcastOp: print_bitcast,
        arith.MaximumfOp: print_maximumf,
        arith.MinimumfOp: print_maximumf,
        memref.LoadOp: print_load,
        memref.StoreOp: print_store,
        memref.AllocaOp: print_alloca,
        ViewOp: print_view,
        SlotOp: print_slot,
        ConvertOp: print_convert,
        MaskCompareOp: print_mask_compare,
        MaskSelectOp: print_mask_select,
        vector.LoadOp: print_vector_load,
        vector.StoreOp: print_vector_store,
        vector.BroadcastOp: print_broadcast,
        LoadWidenedOp: print_load_widened,
        RoundTF32Op: print_round_tf32,
        MmaOp: print_mma,
        LdMatrixOp: print_ldmatrix,
        CpAsyncOp: print_cp_async,
        AsyncCommitOp: print_async_commit,
        AsyncWaitOp: print_async_wait,
        vector.ExtractOp: print_extract,
        scf.ForOp: print_for,
        scf.IfOp: print_if,
        scf.YieldOp: print_yield,
        func.CallOp: print_call,
        func.ReturnOp: print_return,
        GroupIdOp: print_group_id,
        LocalIdOp: print_local_id,
        BarrierOp: print_barrier,
        FenceOp: print_fence,
        AtomicIncOp: print_atomic_inc,
    }  # type: ignore[assignment]


def is_scalar_function(f: func.FuncOp) -> bool:
    types = [*f.function_type.inputs.data, *f.function_type.outputs.data]
    return bool(f.body.blocks) and not any(isinstance(t, MemRefType) for t in types)


def print_opencl(module: ModuleOp, stream: IO[str]) -> None:
    OpenCLPrinter(stream).print_module(module)
