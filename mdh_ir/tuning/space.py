"""The search space of one `mdh.compute` on one device, as a define-by-run sampler.

`sample_config(op, device, trial)` draws every parameter of DESIGN.md section 4 in
dependency order, each from a range that the earlier choices and the constraints of
`mdh_ir.schedule.constraints` leave open: lt_size <= N, pt_size <= lt_size, num_wi <=
ceil(lt_size/pt_size) within the work-group budget, num_wg <= ceil(N/lt_size), caches
only for buffers whose accesses share one box, `wi-combine` choices only when allowed.
The rules that depend on several choices at once (local and private memory) are checked
at the end; a draw that breaks them raises `Infeasible` and is never built. Choices
that cannot change the program are not drawn: the layout of a buffer that is not
cached, the OpenCL dimension of a dimension with one work-group or one work-item (2),
the combine layer of a computation without reductions, the order of the local-tile
loops when at most one of them takes more than one step (identity), `prefetch` without
local buffers, `stages` without `prefetch = 3`, `lcl_pad` without a local buffer of
two or more axes or with `lcl_swizzle` (drawn on fragments only, rule `lcl-swizzle`), `wg_combine`
without a pw dimension split across work-groups. `mma` is drawn first, between "none"
and the one kind the op's inputs allow (`mma_kind`: "tf32" for precision "tf32", "f16"
/ "bf16" for inputs all f16 / bf16), and only on a device with tensor cores for an op
that its fragments compute; a kind fixes what rule `mma` fixes (num_wi 1 along k and the
outer dimensions, pt_size a multiple of the fragment's K along k, both inputs in local
memory, res_mem "prv", vector_width 1) and draws along the fragments' rows and columns
only tiles and work-item counts that can give whole fragments and warps (`_warp_shapes`;
legal draws on fragments of 2000: f16 matmul 1000^3 17 -> 148, a ResNet-50 3 x 3
convolution at batch 32 1 -> 33).

Every parameter is drawn as `trial.suggest_float(name, 0, 1)` and mapped onto its
ordered list of choices (`choose`): each name keeps one fixed distribution even though
its choices depend on earlier draws (optuna requires that), tile sizes get an ordinal
scale a model can learn, and a local search can move any parameter the same way.
`trial` is an `optuna.Trial`, a `RandomTrial`, or a technique's own trial.
`config_params` inverts the mapping: the draws under which `sample_config` gives a
known configuration (the default), so that a search can start around it; `space_point`
maps a configuration made elsewhere (a transferred one) onto the space.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import isqrt, prod
from typing import Any, Protocol

import numpy as np

from mdh_ir.schedule.config import Config
from mdh_ir.schedule.constraints import mma_kind, violations
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.dialects.mdh_config import MAX_STAGES, WG_COMBINES
from mdh_ir.schedule.mma import SHAPES, WARP, MmaForm
from mdh_ir.schedule.tiling import TilePlan, ceildiv

STAGES = list(range(2, MAX_STAGES + 1))
"""`stages` choices (`prefetch = 3`): how many local tiles asynchronous copies fill ahead."""

LCL_PADS = [0, 1, 4, 8]
"""`lcl_pad` choices: one element shifts each row to the next bank; 4 and 8 keep rows
16- and 32-byte aligned for vector accesses."""


class Trial(Protocol):
    def suggest_float(self, name: str, low: float, high: float) -> float: ...


class Infeasible(Exception):
    """A draw that breaks a rule only checkable once every parameter is chosen."""


class RandomTrial:
    """Uniform random draws; records them like an optuna trial's `params`."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.params: dict[str, float] = {}

    def suggest_float(self, name: str, low: float, high: float) -> float:
        self.params[name] = float(self.rng.uniform(low, high))
        return self.params[name]


class ReplayTrial:
    """The draws that make `sample_config` choose `targets`' value for each name (a
    choice, or a permutation's key); a value that is not a choice raises ValueError."""

    def __init__(self, targets: dict[str, Any]):
        self.targets = targets
        self.params: dict[str, float] = {}

    def suggest_float(self, name: str, low: float, high: float) -> float:
        self.params[name] = self.targets[name]
        return self.params[name]

    def pick(self, name: str, choices: Sequence[Any]) -> float:
        self.params[name] = (list(choices).index(self.targets[name]) + 0.5) / len(choices)
        return self.params[name]


def choose(trial: Trial, name: str, choices: Sequence[Any]) -> Any:
    """The choice at the position `trial` draws for `name` in [0, 1); a trial with a
    `pick` method (`ReplayTrial`) is shown the choices and picks the position itself."""
    pick = getattr(trial, "pick", None)
    u = pick(name, choices) if pick else trial.suggest_float(name, 0.0, 1.0)
    return choices[min(int(u * len(choices)), len(choices) - 1)]


def candidates(limit: int, base: int | None = None, extra: int | None = None) -> list[int]:
    """Values in [1, limit]: powers of two, divisors of `base`, `extra`, and `limit`."""
    values = {1, limit} | ({extra} if extra is not None and extra <= limit else set())
    p = 2
    while p <= limit:
        values.add(p)
        p *= 2
    if base is not None:
        small = [d for d in range(1, isqrt(base) + 1) if base % d == 0]
        values.update(v for d in small for v in (d, base // d) if v <= limit)
    return sorted(values)


def permutation(trial: Trial, name: str, n: int) -> tuple[int, ...]:
    """A permutation of range(n), from one key per element (sorted by key)."""
    if n == 1:
        return (0,)
    keys = [trial.suggest_float(f"{name}_{i}", 0.0, 1.0) for i in range(n)]
    return tuple(int(i) for i in np.argsort(keys, kind="stable"))


def _keys(name: str, order: Sequence[int]) -> dict[str, float]:
    """Keys under which `permutation` gives `order`."""
    return {f"{name}_{i}": (j + 0.5) / len(order) for j, i in enumerate(order)}


def config_params(op: ComputeOp, device: DeviceInfo, cfg: Config) -> dict[str, float] | None:
    """The draws under which `sample_config` gives `cfg`, or None if it cannot."""
    replayed = _replay(op, device, cfg)
    return replayed[1] if replayed is not None and replayed[0] == cfg else None


def space_point(op: ComputeOp, device: DeviceInfo, cfg: Config) -> Config | None:
    """The configuration `sample_config` gives under `cfg`'s choices: `cfg` with the
    choices that cannot change the program (not drawn) set as the space sets them; None
    if a choice is not one of the space's or the result breaks a rule."""
    replayed = _replay(op, device, cfg)
    return None if replayed is None else replayed[0]


def _replay(op: ComputeOp, device: DeviceInfo, cfg: Config) -> tuple[Config, dict[str, float]] | None:
    """`sample_config` under the draws of `cfg`'s choices, and those draws."""
    targets: dict[str, Any] = dict(res_mem=cfg.res_mem[0], combine_layer=cfg.combine_layer)
    targets.update(
        vector_width=cfg.vector_width, unroll=cfg.unroll, prefetch=cfg.prefetch, lcl_pad=cfg.lcl_pad,
        wg_combine=cfg.wg_combine, mma=cfg.mma, stages=cfg.stages, lcl_swizzle=cfg.lcl_swizzle,
    )
    for d in range(op.rank):
        targets.update({f"lt{d}": cfg.lt_size[d], f"pt{d}": cfg.pt_size[d]})
        targets.update({f"wi{d}": cfg.num_wi[d], f"wg{d}": cfg.num_wg[d]})
        targets.update({f"ocl_wg{d}": cfg.ocl_dim[0][d], f"ocl_wi{d}": cfg.ocl_dim[1][d]})
    for b in range(len(op.inputs)):
        targets.update({f"lcl{b}": cfg.inp_mem[0][b], f"prv{b}": cfg.inp_mem[1][b]})
        for layer, layouts in zip(("lt", "pt"), cfg.buf_layout):
            targets.update(_keys(f"layout_{layer}{b}", layouts[b]))
    for layer, order in zip(("lt", "pt"), cfg.loop_order):
        targets.update(_keys(f"order_{layer}", order))
    trial = ReplayTrial(targets)
    try:
        return sample_config(op, device, trial, cfg), trial.params
    except (ValueError, Infeasible):
        return None


def space_names(op: ComputeOp, device: DeviceInfo) -> list[str]:
    """Every name `sample_config` may draw for `op` on `device` (each draw draws those
    its earlier choices leave open), in a fixed order: a technique that draws them all
    in every trial sees one fixed space."""
    rank, ranks = op.rank, [len(v.type.get_shape()) for v in op.inputs]  # type: ignore[attr-defined]
    kinds = [c.kind for c in op.combines]
    fragments = mma_kind(op, device) != "none"
    names = ["mma"] if fragments else []
    names += [f"{p}{d}" for d in range(rank) for p in ("lt", "pt", "wi", "wg")]
    names += [f"{p}{b}" for b in range(len(ranks)) for p in ("lcl", "prv")]
    names += ["res_mem"] + [f"order_{layer}_{i}" for layer in ("lt", "pt") for i in range(rank) if rank > 1]
    names += [f"ocl_{layer}{d}" for layer in ("wg", "wi") for d in range(rank) if op.sizes[d] > 1]
    names += [f"layout_{layer}{b}_{i}" for layer in ("lt", "pt") for b, r in enumerate(ranks) if r > 1 for i in range(r)]
    names += ["combine_layer", "wg_combine"] if "pw" in kinds else []
    names += ["vector_width", "unroll", "prefetch"] + (["stages"] if device.async_copies else [])
    return names + ((["lcl_swizzle"] if fragments else []) + ["lcl_pad"] if max(ranks) > 1 else [])


def _warp_shapes(form: MmaForm, d: int, fragment: int, pt: int, choices: list[int], earlier: list[int]) -> list[int]:
    """The work-item counts of `choices` along the fragments' rows or columns d (`form`)
    under which the step block holds whole fragments of `fragment` rows or columns along
    d (num_wi * pt a multiple of it) and, for the later of the two, the work-group whole
    warps (rule `mma`); the other dimensions have one work-item (`single`). Infeasible
    where none does."""
    drawn = prod(earlier[x] for x in (form.i, form.j) if x < d)
    last = d == max(form.i, form.j)
    fit = [c for c in choices if c * pt % fragment == 0 and (not last or drawn * c % WARP == 0)]
    if not fit:
        raise Infeasible(f"no work-items along dimension {d} give whole fragments and warps")
    return fit


def sample_config(op: ComputeOp, device: DeviceInfo, trial: Trial, around: Config | None = None) -> Config:
    """A configuration from `trial`'s draws; the sizes of `around` (the default
    configuration) join the choices of each size, so a search can start from it."""
    sizes, rank = op.sizes, op.rank
    kinds = [c.kind for c in op.combines]
    lt, pt, wi, wg = [], [], [], []
    budget = device.max_wg_size

    def own(key: str, d: int) -> int | None:
        return getattr(around, key)[d] if around is not None else None

    kind = mma_kind(op, device)
    mma = choose(trial, "mma", ["none", kind]) if kind != "none" else "none"
    form = MmaForm.of(op) if mma != "none" else None
    k = form.k if isinstance(form, MmaForm) else None
    single = {k, *form.outer} if isinstance(form, MmaForm) else set()
    for d, n in enumerate(sizes):
        fragment_k = SHAPES[mma][2] if d == k else 1
        side = SHAPES[mma][(form.i, form.j).index(d)] if isinstance(form, MmaForm) and d in (form.i, form.j) else 1
        lts = [c for c in candidates(n, n, own("lt_size", d)) if c >= min(max(fragment_k, side), n)]
        lt.append(choose(trial, f"lt{d}", lts))
        pts = candidates(lt[d], lt[d], own("pt_size", d))
        pt.append(choose(trial, f"pt{d}", [c for c in pts if c % fragment_k == 0 and (c % side == 0 or side % c == 0)]))
        most = min(ceildiv(lt[d], pt[d]), budget, device.max_wi_sizes[0])
        wis = candidates(most, None, own("num_wi", d))
        if isinstance(form, MmaForm) and d in (form.i, form.j):
            wis = _warp_shapes(form, d, side, pt[d], wis, wi)
        wi.append(choose(trial, f"wi{d}", wis) if d not in single else 1)
        budget //= wi[d]
        wg.append(choose(trial, f"wg{d}", candidates(ceildiv(n, lt[d]), None, own("num_wg", d))))

    probe = Config(
        num_wg=tuple(wg), num_wi=tuple(wi), lt_size=tuple(lt), pt_size=tuple(pt),
        inp_mem=((), ()), res_mem=(), ocl_dim=((0,) * rank,) * 2,  # type: ignore[arg-type]
        buf_layout=((), ()), loop_order=(tuple(range(rank)),) * 2,  # type: ignore[arg-type]
    )  # fmt: skip
    plan = TilePlan(op, probe)
    boxable = [plan.box(b, "lt") is not None for b in range(len(op.inputs))]
    lcl = tuple(
        choose(trial, f"lcl{b}", ["glb", "lcl"]) if ok and mma == "none" else "lcl" if ok else "glb"
        for b, ok in enumerate(boxable)
    )
    prv = tuple(
        choose(trial, f"prv{b}", ["glb", "prv"]) if ok and mma == "none" else "glb"
        for b, ok in enumerate(boxable)
    )
    cross_wi = any(wi[d] > 1 for d in range(rank) if kinds[d] == "pw")
    fixed = cross_wi or "pw" not in kinds or op.epilogue is not None or mma != "none"
    res = choose(trial, "res_mem", ["prv"] if fixed else ["prv", "glb"])
    layer_choices = ["end", "lt"] if cross_wi or mma != "none" else ["end", "lt", "pt"]
    ranks = [len(v.type.get_shape()) for v in op.inputs]  # type: ignore[attr-defined]
    lt_steps = [ceildiv(ceildiv(n, lt[d]), wg[d]) for d, n in enumerate(sizes)]
    order_lt = permutation(trial, "order_lt", rank) if sum(s > 1 for s in lt_steps) > 1 else tuple(range(rank))
    loop_order = (order_lt, permutation(trial, "order_pt", rank))
    inner = loop_order[1][-1]
    lanes_ok = kinds[inner] != "pw" or res == "prv"
    widths = [
        w for w in (1, 2, 4, 8, 16)
        if lanes_ok and pt[inner] % w == 0 and mma == "none"
    ] or [1]  # fmt: skip
    rows = any(m == "lcl" and r > 1 for m, r in zip(lcl, ranks))
    swizzle = choose(trial, "lcl_swizzle", [0, 1]) if rows and mma != "none" else 0
    cfg = Config(
        num_wg=tuple(wg),
        num_wi=tuple(wi),
        lt_size=tuple(lt),
        pt_size=tuple(pt),
        inp_mem=(lcl, prv),
        res_mem=(res,) * len(op.outputs),
        ocl_dim=tuple(
            tuple(choose(trial, f"ocl_{layer}{d}", [0, 1, 2]) if counts[d] > 1 else 2 for d in range(rank))
            for layer, counts in (("wg", wg), ("wi", wi))
        ),  # type: ignore[arg-type]
        buf_layout=tuple(
            tuple(
                permutation(trial, f"layout_{layer}{b}", r) if mem[b] != "glb" else tuple(range(r))
                for b, r in enumerate(ranks)
            )
            for layer, mem in (("lt", lcl), ("pt", prv))
        ),  # type: ignore[arg-type]
        loop_order=loop_order,
        combine_layer=choose(trial, "combine_layer", layer_choices) if "pw" in kinds else "end",
        vector_width=choose(trial, "vector_width", widths),
        unroll=choose(trial, "unroll", [1, 2, 4, 8]),
        prefetch=choose(trial, "prefetch", [0, 1, 2, 3] if device.async_copies else [0, 1, 2]) if "lcl" in lcl else 0,
        lcl_pad=choose(trial, "lcl_pad", LCL_PADS) if rows and not swizzle else 0,
        lcl_swizzle=swizzle,
        wg_combine=choose(trial, "wg_combine", WG_COMBINES) if any(
            wg[d] > 1 for d in range(rank) if kinds[d] == "pw"
        ) else "kernel",
        mma=mma,
    )
    if cfg.prefetch == 3:
        cfg = cfg.with_(stages=choose(trial, "stages", STAGES))
    found = violations(op, cfg, device)
    if found:
        raise Infeasible(str(found[0]))
    return cfg
