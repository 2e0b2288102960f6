"""The rules a configuration must satisfy (DESIGN.md section 4), each with a name.

`violations(op, cfg, device)` lists every broken rule; the tuner's search space is built
so that it never proposes a configuration with one, and `mdh-check-config` refuses one
before anything is built. `input_violations(op, device)` lists the rules that no
configuration can satisfy (sizes beyond the index range or the device's memory, mixed pw
functions): `mdh-tune` refuses such an input before it allocates anything. Rules that
bound a resource name the limit and the device model it comes from in their message
(`device limit 524288 (preset cpu)`: `mdh_ir.device`).

| rule | what it requires |
|---|---|
| tile-sizes | 1 <= pt_size <= lt_size <= N in every dimension |
| wg-tiles | num_wg <= ceil(N / lt_size): every work-group gets a local tile |
| wi-tiles | num_wi <= ceil(lt_size / pt_size): every work-item gets a private tile |
| wg-size | the work-group fits the device's work-group size limits |
| index-range | NDRange, dimension sizes, buffers and every index computed for a read (before a boundary mode folds it back, and inside that folding) stay below 2^31: generated index arithmetic is 32-bit `int` |
| global-memory | inputs, outputs and temporary buffers (work-group partial results, scan chunk totals) together fit the device's global memory |
| cache-box | a cached buffer's accesses differ by constants only (one box holds them) |
| local-memory | local caches (two slots with prefetch 2, `stages` with prefetch 3), accumulators, the work-item combine and the last work-group's combine fit local memory; so do a scan kernel's staged chunks and work-item totals |
| private-memory | private caches and accumulators (on fragments: the fragments' accumulators, which replace them) fit the private budget |
| wi-combine | work-items can combine partial results (needs combine_layer "end"/"lt" and res_mem "prv"/"lcl" when a pw dimension has num_wi > 1) |
| wg-combine | wg_combine "last" only on a device whose global-memory fences order across work-groups (`DeviceInfo.fences_across_groups`) |
| pw-functions | every pw dimension uses the same combine function |
| vector-width | with vector_width N > 1: the innermost loop (last of loop_order[1]) is over a dimension whose pt_size is a multiple of N (its size and lt_size need not be: a vector that ends beyond its local tile runs as scalar code; a pw dimension needs private accumulators, res_mem "prv", and a combine function with a known identity: each lane accumulates separately; so does each row statistic reducing it); every read moving along it, a row statistic's too, is contiguous in the memory it reads (last axis, coefficient 1, no boundary mode outside caches); outputs written per point are contiguous along it; element types are 32-bit (f16 and bf16 inputs, read as f32, too); the scalar function takes no index arguments |
| epilogue | an op with an epilogue and pw dimensions accumulates privately (res_mem "prv"): "glb" combines into the output until its last point, with no place to apply the epilogue once |
| tensor-cores | mma other than "none" only on a device with tensor cores (`DeviceInfo.tensor_cores`: NVIDIA's compute capability 8.0 and later; never PoCL) |
| mma-inputs | mma "tf32" only for an op whose precision is "tf32" (f32 inputs are never rounded unasked), "f16" / "bf16" only for an op whose inputs are all f16 / bf16 |
| rows | an op with row statistics has one work-group along every dimension a statistic reduces: each work-group holds whole rows, so each phase of its kernel reads statistics its own work-group wrote (`mdh-split-stats`) |
| mma | mma other than "none" only where its fragments can compute the private tiles (`mdh_ir.schedule.mma.MmaPlan`): a sum of products of two reads A(i, k) B(k, j) (`MmaForm`: pw dimensions combined by addition, the scalar function a multiplication; the other dimensions outer: a batch, a convolution's pixels and taps); both inputs cached in local memory (fragments load from there) and not in private memory; res_mem "prv" and combine_layer "end" or "lt" (the fragments take the private accumulators' place, flushed after their scope); vector_width 1; num_wi 1 along k (each warp takes the whole reduction) and the outer dimensions, pt_size of k a multiple of the fragment's K (8 for "tf32", 16 for "f16" and "bf16"); a work-group of whole warps (32 work-items) whose step block (num_wi * pt_size along i and j) splits into one warp tile of whole 16 x 8 fragments per warp |
| stages | stages other than 2 only with prefetch 3 (the slots of asynchronous copies) |
| lcl-swizzle | lcl_swizzle 1 only on tensor-core fragments (mma other than "none": their local buffers are read by `ldmatrix` rows of 16 bytes, and written by copies of at most 16 bytes, each inside one chunk) and with lcl_pad 0 |
| implemented | res_mem is not "lcl" (not generated yet) |
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from mdh_ir.affine import dim_of, linear_results
from mdh_ir.schedule.combine import meaning
from mdh_ir.schedule.config import Config
from mdh_ir.schedule.mma import SHAPES, MmaForm, MmaPlan
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.schedule.tiling import TilePlan, ceildiv, element_bytes

INDEX_LIMIT = 2**31


@dataclass(frozen=True)
class Violation:
    rule: str
    message: str

    def __str__(self) -> str:
        return f"configuration breaks rule '{self.rule}': {self.message}"


def ocl_sizes(cfg: Config) -> tuple[list[int], list[int]]:
    """Number of work-groups and work-group size per OpenCL dimension."""
    groups, local = [1, 1, 1], [1, 1, 1]
    for d, (o_wg, o_wi) in enumerate(zip(*cfg.ocl_dim)):
        groups[o_wg] *= cfg.num_wg[d]
        local[o_wi] *= cfg.num_wi[d]
    return groups, local


def local_bytes(plan: TilePlan) -> int:
    op, cfg = plan.op, plan.cfg
    total = cfg.local_slots * sum(
        prod(plan.local_shape(b)) * element_bytes(op.input_element_types[b])
        for b in plan.cached("lt")
    )
    if plan.accumulates:
        acc = prod(plan.acc_extents)
        for j, t in enumerate(op.output_element_types):
            if cfg.res_mem[j] == "lcl" or plan.cross_wi:
                total += plan.wg_size * acc * element_bytes(t)
        if plan.cross_wi:
            total += plan.wg_size * 4
        if cfg.wg_combine == "last" and plan.combine_lanes > 1:
            lanes = plan.combine_lanes * plan.group_points
            total += sum(lanes * element_bytes(t) for t in op.output_element_types)
    scans = [plan.scan_shape(d).local_elems for d in plan.kept_dims if plan.kind(d) == "ps"]
    scan = max(scans, default=0) * sum(element_bytes(t) for t in op.output_element_types)
    return max(total, scan)


def private_elems(plan: TilePlan) -> int:
    """Private elements a work-item holds: its private input tiles, and its
    accumulators, or, on fragments, its fragments' accumulators (which `mdh-mma` flushes
    in their place)."""
    total = sum(plan.box(b, "pt").size for b in plan.cached("pt"))  # type: ignore[union-attr]
    mma = MmaPlan.of(plan) if plan.cfg.mma != "none" else None
    if isinstance(mma, MmaPlan):
        total += mma.fragments(plan) * mma.shape[0] * mma.shape[1] // 32
    elif plan.accumulates:
        total += prod(plan.acc_extents) * plan.cfg.res_mem.count("prv")
    return total


def read_layout(cfg: Config, b: int, rank: int) -> tuple[int, ...]:
    """The axis order of the memory the element loops read input b from."""
    if cfg.inp_mem[1][b] == "prv":
        return cfg.buf_layout[1][b]
    if cfg.inp_mem[0][b] == "lcl":
        return cfg.buf_layout[0][b]
    return tuple(range(rank))


def _contiguous(forms, last: int, d: int) -> bool:
    """Whether a read of linear `forms` moves along dim `d` in axis `last` alone, by one
    element a step (or not at all)."""
    moving = [a for a, f in enumerate(forms) if f.coeffs[d]]
    return not moving or (moving == [last] and forms[last].coeffs[d] == 1)


def vector_problem(plan: TilePlan) -> str | None:
    """Why `vector_width` cannot apply (rule `vector-width`), or None."""
    op, cfg, lanes = plan.op, plan.cfg, plan.cfg.vector_width
    if lanes == 1:
        return None
    d = cfg.loop_order[1][-1]
    if plan.kind(d) == "pw" and set(cfg.res_mem) != {"prv"}:
        return f"the innermost loop is over pw dim {d} and results are not accumulated in private memory"
    if plan.kind(d) == "pw" and meaning(op, plan.combines[d]) is None:
        return f"the innermost loop is over pw dim {d}, whose combine function has no known identity"
    if cfg.pt_size[d] % lanes:
        return f"pt_size {cfg.pt_size[d]} of dim {d} is not a multiple of {lanes}"
    extra = [v.type.element_type for v in op.epilogue_inputs]  # type: ignore[attr-defined]
    if any(element_bytes(t) != 4 for t in [*op.input_read_types, *op.output_element_types, *extra]):
        return "vectors are generated for 32-bit element types only (f16 and bf16 inputs are read as f32)"
    for s in op.row_stats:
        if s.combines[d].kind == "pw" and meaning(op, s.combines[d]) is None:
            return f"statistic @{s.func} reduces dim {d} with a combine function of no known identity"
        for b, (maps, mode) in enumerate(zip(s.maps, s.boundaries)):
            for forms in map(linear_results, maps):
                if not any(f.coeffs[d] for f in forms):  # type: ignore[union-attr]
                    continue
                if not _contiguous(forms, len(forms) - 1, d):
                    return f"input {b} of statistic @{s.func} is not read contiguously along dim {d}"
                if mode != "none":
                    return f"input {b} of statistic @{s.func} has boundary mode '{mode}' (read from global memory)"
    for b, (maps, mode) in enumerate(zip(op.input_maps, op.boundaries)):
        cached = cfg.inp_mem[1][b] == "prv" or cfg.inp_mem[0][b] == "lcl"
        for amap in maps:
            forms = linear_results(amap)
            if not any(f.coeffs[d] for f in forms):  # type: ignore[union-attr]
                continue
            if not _contiguous(forms, read_layout(cfg, b, len(forms))[-1], d):  # type: ignore[arg-type]
                return f"input {b} is not read contiguously along dim {d}"
            if mode != "none" and not cached:
                return f"input {b} has boundary mode '{mode}' and is read from global memory"
    if not plan.accumulates:
        for b, (maps, mode) in enumerate(zip(op.epilogue_maps, op.epilogue_boundaries)):
            for amap in maps:
                forms = linear_results(amap)
                moving = [a for a, f in enumerate(forms) if f.coeffs[d]]  # type: ignore[union-attr]
                if moving and (moving != [len(forms) - 1] or forms[-1].coeffs[d] != 1):  # type: ignore[index]
                    return f"epilogue input {b} is not read contiguously along dim {d}"
                if moving and mode != "none":
                    return f"epilogue input {b} has boundary mode '{mode}'"
    if not plan.accumulates or "glb" in cfg.res_mem:
        for j, amap in enumerate(op.output_maps):
            if dim_of(amap.results[-1]) != d:
                return f"output {j} is not written contiguously along dim {d}"
    scalar = op.lookup_func(op.scalar_func)
    if scalar is not None and len(scalar.function_type.inputs) > op.scalar_arity:
        return "the scalar function takes index arguments"
    return None


def index_problems(op: ComputeOp) -> list[str]:
    """Why indices of `op` leave the 32-bit range whatever the configuration (rule
    `index-range`): a dimension or a buffer of 2^31 elements or more, or a read whose index
    arithmetic (the affine expression, then the boundary mode's folding: `wrap` adds the
    extent, `mirror` twice the period) reaches 2^31."""
    problems = []
    for v in [*op.inputs, *op.outputs]:
        n = prod(v.type.get_shape())  # type: ignore[attr-defined]
        if n >= INDEX_LIMIT:
            problems.append(f"a buffer of {n} elements >= 2^31")
    problems += [f"dim {d}: size {n} >= 2^31" for d, n in enumerate(op.sizes) if n >= INDEX_LIMIT]
    for b, (maps, mode, v) in enumerate(zip(op.input_maps, op.boundaries, op.inputs)):
        if mode == "none":  # the verifier keeps every index inside the buffer
            continue
        shape = v.type.get_shape()  # type: ignore[attr-defined]
        for amap in maps:
            for axis, (form, n) in enumerate(zip(linear_results(amap), shape)):  # type: ignore
                reach = abs(form.const) + sum(abs(c) * (s - 1) for c, s in zip(form.coeffs, op.sizes))
                need = max(reach, {"wrap": 2 * n, "mirror": 4 * (n - 1)}.get(mode, 0))
                if need >= INDEX_LIMIT:
                    problems.append(
                        f"input {b} (boundary '{mode}'): reading axis {axis} with map {amap} "
                        f"computes indices up to {need} >= 2^31"
                    )
    return problems


def buffer_bytes(op: ComputeOp) -> int:
    """Bytes of the op's input and output buffers."""
    buffers = [*op.buffers, *op.outputs]
    return sum(
        prod(v.type.get_shape()) * element_bytes(v.type.element_type)  # type: ignore[attr-defined]
        for v in buffers
    )


def temp_bytes(plan: TilePlan) -> int:
    """Bytes of the temporary buffers: work-group partial results and scan chunk totals
    of every output."""
    elems = plan.scan_temp_elems
    if plan.accumulates and plan.pw_groups > 1:
        elems += plan.pw_groups * plan.kept_points
    return sum(elems * element_bytes(t) for t in plan.op.output_element_types)


def input_violations(op: ComputeOp, device: DeviceInfo | None = None) -> list[Violation]:
    """The broken rules that no configuration can repair (see the module docstring)."""
    found = [Violation("index-range", m) for m in index_problems(op)]
    if device is not None and device.global_mem and buffer_bytes(op) > device.global_mem:
        limit = f"{device.global_mem} ({device.model})"
        message = f"buffers of {buffer_bytes(op)} bytes > device global memory {limit}"
        found.append(Violation("global-memory", message))
    pw = {(c.func, c.builtin) for c in op.combines if c.kind == "pw"}
    if len(pw) > 1:
        found.append(Violation("pw-functions", "pw dimensions with different combine functions"))
    return found


def violations(op: ComputeOp, cfg: Config, device: DeviceInfo | None = None) -> list[Violation]:
    plan = TilePlan(op, cfg)
    found: list[Violation] = []

    def rule(name: str, ok: bool, message: str) -> None:
        if not ok:
            found.append(Violation(name, message))

    for d, n in enumerate(plan.sizes):
        lt, pt, wg, wi = cfg.lt_size[d], cfg.pt_size[d], cfg.num_wg[d], cfg.num_wi[d]
        rule("tile-sizes", pt <= lt <= n, f"dim {d}: need pt_size {pt} <= lt_size {lt} <= {n}")
        rule("wg-tiles", wg <= ceildiv(n, lt), f"dim {d}: num_wg {wg} > {ceildiv(n, lt)} local tiles")
        rule("wi-tiles", wi <= ceildiv(lt, pt), f"dim {d}: num_wi {wi} > {ceildiv(lt, pt)} private tiles")
    if found:
        return found

    groups, local = ocl_sizes(cfg)
    if device is not None:
        rule(
            "wg-size",
            plan.wg_size <= device.max_wg_size,
            f"{plan.wg_size} work-items per work-group > device limit {device.max_wg_size} ({device.model})",
        )
        for o, (n, limit) in enumerate(zip(local, device.max_wi_sizes)):
            message = f"OpenCL dim {o}: {n} work-items > device limit {limit} ({device.model})"
            rule("wg-size", n <= limit, message)
    rows = op.stat_dims
    rule("rows", all(cfg.num_wg[d] == 1 for d in rows), f"dims {rows}: a statistic reduces them, num_wg must be 1")
    for o, (g, n) in enumerate(zip(groups, local)):
        rule("index-range", g * n < INDEX_LIMIT, f"OpenCL dim {o}: global size {g * n} >= 2^31")
    found += [Violation("index-range", m) for m in index_problems(op)]
    if plan.accumulates and plan.pw_groups > 1:
        n = plan.pw_groups * plan.kept_points
        rule("index-range", n < INDEX_LIMIT, f"the work-group partials ({n} elements) >= 2^31")
    if device is not None and device.global_mem:
        used = buffer_bytes(op) + temp_bytes(plan)
        rule(
            "global-memory",
            used <= device.global_mem,
            f"buffers of {used} bytes > device global memory {device.global_mem} ({device.model})",
        )

    for layer in ("lt", "pt"):
        for b in plan.cached(layer):
            rule(
                "cache-box",
                plan.box(b, layer) is not None,
                f"input {b} is cached at {layer} but its accesses differ by more than constants",
            )
    if found:
        return found

    if device is not None:
        used = local_bytes(plan)
        limit = f"{device.local_mem} ({device.model})"
        rule("local-memory", used <= device.local_mem, f"{used} bytes > device limit {limit}")
        used, limit = private_elems(plan), f"{device.private_elems} ({device.model})"
        rule("private-memory", used <= device.private_elems, f"{used} elements > budget {limit}")

    if plan.cross_wi:
        rule(
            "wi-combine",
            cfg.combine_layer != "pt" and "glb" not in cfg.res_mem,
            "a pw dimension has num_wi > 1, which needs combine_layer 'end' or 'lt' and no "
            "res_mem 'glb'",
        )
    if device is not None and cfg.wg_combine == "last":
        rule(
            "wg-combine",
            device.fences_across_groups,
            "wg_combine 'last' needs global-memory fences that order across work-groups "
            f"(NVIDIA's OpenCL, PoCL), not known for {device.model}",
        )
    pw = {(c.func, c.builtin) for c in op.combines if c.kind == "pw"}
    rule("pw-functions", len(pw) <= 1, "pw dimensions with different combine functions")
    problem = vector_problem(plan)
    rule("vector-width", problem is None, problem or "")
    rule(
        "epilogue",
        op.epilogue is None or not plan.accumulates or set(cfg.res_mem) == {"prv"},
        "an op with an epilogue and pw dimensions needs res_mem 'prv' (its final values are written once)",
    )
    if (problem := mma_input_problem(op, cfg.mma)) is not None:
        found.append(Violation("mma-inputs", problem))
    if device is not None and cfg.mma != "none":
        rule(
            "tensor-cores",
            device.tensor_cores,
            f"mma '{cfg.mma}' needs tensor cores (NVIDIA's compute capability 8.0 or later), "
            f"which {device.model} does not have (compute capability {device.compute_capability})",
        )
    rule("stages", cfg.stages == 2 or cfg.prefetch == 3, f"stages {cfg.stages} needs prefetch 3 (asynchronous copies)")
    rule(
        "lcl-swizzle",
        not cfg.lcl_swizzle or (cfg.mma != "none" and cfg.lcl_pad == 0),
        f"lcl_swizzle needs mma other than 'none' and lcl_pad 0 (mma '{cfg.mma}', lcl_pad {cfg.lcl_pad})",
    )
    rule("implemented", "lcl" not in cfg.res_mem, "res_mem 'lcl' is not generated yet")
    if cfg.mma != "none" and isinstance(problem := MmaPlan.of(plan), str):
        found.append(Violation("mma", problem))
    return found


def mma_input_problem(op: ComputeOp, mma: str) -> str | None:
    """Why tensor-core fragments of kind `mma` cannot read `op`'s inputs (rule
    `mma-inputs`), or None: "tf32" rounds f32 inputs, which the op must ask for itself."""
    if mma == "none":
        return None
    if mma == "tf32":
        if op.input_precision != "tf32":
            return "mma 'tf32' rounds f32 inputs to TF32, which only the op's own precision = \"tf32\" allows"
        return None
    wrong = [b for b, t in enumerate(op.inp_types.data) if str(t) != mma]
    if wrong:
        return f"mma '{mma}' reads {mma} inputs, but input {wrong[0]} has element type {op.inp_types.data[wrong[0]]}"
    return None


def mma_kind(op: ComputeOp, device: DeviceInfo) -> str:
    """The tensor-core kind for `op` on `device` (the one the tuner draws beside "none"
    and the GPU default uses): on a device with tensor cores, for an op in the form
    tensor-core fragments compute with a reduction of at least one fragment's K, the kind
    its inputs allow (rule `mma-inputs`: "tf32" for precision "tf32", "f16" / "bf16" for
    inputs all f16 / bf16); else "none"."""
    kinds = [kind for kind in SHAPES if mma_input_problem(op, kind) is None]
    form = MmaForm.of(op)
    if not device.tensor_cores or not kinds or isinstance(form, str):
        return "none"
    return kinds[0] if op.sizes[form.k] >= SHAPES[kinds[0]][2] else "none"
