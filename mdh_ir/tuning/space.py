"""The search space of one `mdh.compute` on one device, as a define-by-run sampler.

`sample_config(op, device, trial)` draws every parameter of DESIGN.md section 4 in
dependency order, each from a range that the earlier choices and the constraints of
`mdh_ir.constraints` leave open: lt_size <= N, pt_size <= lt_size, num_wi <=
ceil(lt_size/pt_size) within the work-group budget, num_wg <= ceil(N/lt_size), caches
only for buffers whose accesses share one box, `wi-combine` choices only when allowed.
The rules that depend on several choices at once (local and private memory) are checked
at the end; a draw that breaks them raises `Infeasible` and is never built.

Every parameter is drawn as `trial.suggest_float(name, 0, 1)` and mapped onto its
ordered list of choices (`choose`): each name keeps one fixed distribution even though
its choices depend on earlier draws (optuna requires that), tile sizes get an ordinal
scale a model can learn, and a local search can move any parameter the same way.
`trial` is an `optuna.Trial`, a `RandomTrial`, or a technique's own trial.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from mdh_ir.config import Config
from mdh_ir.constraints import violations
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.tiling import TilePlan, ceildiv


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


def choose(trial: Trial, name: str, choices: Sequence[Any]) -> Any:
    """The choice at the position `trial` draws for `name` in [0, 1)."""
    u = trial.suggest_float(name, 0.0, 1.0)
    return choices[min(int(u * len(choices)), len(choices) - 1)]


def candidates(limit: int, base: int | None = None) -> list[int]:
    """Values in [1, limit]: powers of two, divisors of `base`, and `limit` itself."""
    values = {1, limit}
    p = 2
    while p <= limit:
        values.add(p)
        p *= 2
    if base is not None:
        values.update(d for d in range(1, limit + 1) if base % d == 0)
    return sorted(values)


def permutation(trial: Trial, name: str, n: int) -> tuple[int, ...]:
    """A permutation of range(n), from one key per element (sorted by key)."""
    if n == 1:
        return (0,)
    keys = [trial.suggest_float(f"{name}_{i}", 0.0, 1.0) for i in range(n)]
    return tuple(int(i) for i in np.argsort(keys, kind="stable"))


def sample_config(op: ComputeOp, device: DeviceInfo, trial: Trial) -> Config:
    sizes, rank = op.sizes, op.rank
    kinds = [c.kind for c in op.combines]
    lt, pt, wi, wg = [], [], [], []
    budget = device.max_wg_size
    for d, n in enumerate(sizes):
        lt.append(choose(trial, f"lt{d}", candidates(n, n)))
        pt.append(choose(trial, f"pt{d}", candidates(lt[d], lt[d])))
        most = min(ceildiv(lt[d], pt[d]), budget, device.max_wi_sizes[0])
        wi.append(choose(trial, f"wi{d}", candidates(most)))
        budget //= wi[d]
        wg.append(choose(trial, f"wg{d}", candidates(ceildiv(n, lt[d]))))

    probe = Config(
        num_wg=tuple(wg), num_wi=tuple(wi), lt_size=tuple(lt), pt_size=tuple(pt),
        inp_mem=((), ()), res_mem=(), ocl_dim=((0,) * rank,) * 2,  # type: ignore[arg-type]
        buf_layout=((), ()), loop_order=(tuple(range(rank)),) * 2,  # type: ignore[arg-type]
    )  # fmt: skip
    plan = TilePlan(op, probe)
    boxable = [plan.box(b, "lt") is not None for b in range(len(op.inputs))]
    lcl = tuple(
        choose(trial, f"lcl{b}", ["glb", "lcl"]) if ok else "glb"
        for b, ok in enumerate(boxable)
    )
    prv = tuple(
        choose(trial, f"prv{b}", ["glb", "prv"]) if ok else "glb"
        for b, ok in enumerate(boxable)
    )
    cross_wi = any(wi[d] > 1 for d in range(rank) if kinds[d] == "pw")
    res_choices = ["prv"] if cross_wi or "pw" not in kinds else ["prv", "glb"]
    res = choose(trial, "res_mem", res_choices)
    layer_choices = ["end", "lt"] if cross_wi else ["end", "lt", "pt"]
    ranks = [len(v.type.get_shape()) for v in op.inputs]  # type: ignore[attr-defined]
    loop_order = (permutation(trial, "order_lt", rank), permutation(trial, "order_pt", rank))
    inner = loop_order[1][-1]
    lanes_ok = kinds[inner] != "pw" or res == "prv"
    widths = [
        w for w in (1, 2, 4, 8, 16)
        if lanes_ok and all(x % w == 0 for x in (sizes[inner], lt[inner], pt[inner]))
    ] or [1]  # fmt: skip
    cfg = Config(
        num_wg=tuple(wg),
        num_wi=tuple(wi),
        lt_size=tuple(lt),
        pt_size=tuple(pt),
        inp_mem=(lcl, prv),
        res_mem=(res,) * len(op.outputs),
        ocl_dim=tuple(
            tuple(choose(trial, f"ocl_{layer}{d}", [0, 1, 2]) for d in range(rank))
            for layer in ("wg", "wi")
        ),  # type: ignore[arg-type]
        buf_layout=tuple(
            tuple(permutation(trial, f"layout_{layer}{b}", r) for b, r in enumerate(ranks))
            for layer in ("lt", "pt")
        ),  # type: ignore[arg-type]
        loop_order=loop_order,
        combine_layer=choose(trial, "combine_layer", layer_choices),
        vector_width=choose(trial, "vector_width", widths),
        unroll=choose(trial, "unroll", [1, 2, 4, 8]),
    )
    found = violations(op, cfg, device)
    if found:
        raise Infeasible(str(found[0]))
    return cfg

