"""Seeds of a tuning: what is known about other sizes, adapted to this one.

A computation tuned at some sizes has the best configuration of each in the tuning
database and, for the devices it was shipped for, in `shipped.json`. Tuning it at a new
size starts from those (`seeds`): first the configurations of the same computation
(`store.family_key`: same views, functions and combine operators) at other sizes, nearest
sizes first, then those of structurally similar computations (`store.shape_key`: the same
combine operator kinds, input ranks and number of outputs), each from the same device.

`adapt` carries a configuration to new sizes: every per-dimension decision is kept (the
number of work-items, the private tile size, memory choices, layouts, loop orders, the
vector width where the private tile still allows it); tile sizes are kept, clamped to the
new dimension; the number of work-groups keeps its meaning: each gets as many local tiles
as before (all tiles in parallel stay in parallel), and a reduction or scan dimension
left to one work-group stays so (no partial results across work-groups), except on a
GPU whose compute units the work-groups would leave idle: there the default's rule
(`default_config.side_and_split`) decides between halving the kept dimensions' tiles of
128 or more and splitting the innermost reduction across work-groups, as the default
decides between sides of 128 and 64 (4096³'s matmul configuration carried to 128 x 4096
x 4096 kept 32 work-groups for 132 compute units, 0.44 ms against 0.11 for the tuned:
its reduction is split in 8; carried to 1000³, 64 work-groups of 128 x 128 tiles split
in 8 took 107 us against 77 for the default's 256 of 64 x 64: its tiles are halved).
Then the rules a configuration still breaks are repaired (`legalize`: caches dropped,
vectors narrowed, work-groups shrunk), and the result is mapped onto the search space
(`space.space_point`) so a search can start around it. A configuration that cannot be
repaired is not a seed, nor is a stored computation or configuration that does not
parse (a damaged row of the database).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mdh_ir.database import shipped
from mdh_ir.database.store import Database, describe, parse_computation, parse_config
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.schedule.config import Config
from mdh_ir.schedule.constraints import violations
from mdh_ir.schedule.default_config import side_and_split
from mdh_ir.schedule.tiling import ceildiv
from mdh_ir.tuning.space import space_point

MAX_SEEDS = 3
"""Seeds evaluated before the search: each costs one evaluation of the budget."""
REPAIRS = 8
"""Rounds of `legalize` before a configuration is given up."""
SMALLER_SIDE = 64
"""Kept dimensions' local tiles of at least twice this are halved where the default's
rule takes the smaller side (`default_config.side_and_split`)."""


@dataclass(frozen=True)
class Seed:
    """A known configuration adapted to the op's sizes, and where it came from."""

    config: Config
    origin: str
    """`database` or `shipped`."""
    kin: str
    """`same` (the same computation at other sizes) or `similar` (same shape key)."""
    sizes: tuple[int, ...]
    """The sizes it was tuned at."""
    seconds: float
    """Its time there."""

    def __str__(self) -> str:
        what = "same computation" if self.kin == "same" else "similar computation"
        return f"{self.origin}: {what} at {'x'.join(map(str, self.sizes))}"


@dataclass(frozen=True)
class _Known:
    origin: str
    kin: str
    sizes: tuple[int, ...]
    config: str
    seconds: float


def seeds(
    op: ComputeOp, info: DeviceInfo, db: Database | None, limit: int = MAX_SEEDS, shipped_path: Path | None = None
) -> list[Seed]:
    """Up to `limit` distinct seeds for `op` on `info` (module docstring); the shipped
    configurations are read from `shipped_path` (default: the package's `shipped.json`)."""
    found: list[Seed] = []
    texts: set[str] = set()
    for known in _known(op, info, db, shipped_path):
        try:
            cfg = adapt(parse_config(known.config, op), known.sizes, op, info)
        except Exception:  # noqa: BLE001 - a damaged row is no seed
            continue
        if cfg is None or (text := str(cfg.to_attr())) in texts:
            continue
        texts.add(text)
        found.append(Seed(cfg, known.origin, known.kin, known.sizes, known.seconds))
        if len(found) == limit:
            break
    return found


def _known(op: ComputeOp, info: DeviceInfo, db: Database | None, shipped_path: Path | None) -> list[_Known]:
    """The best configurations of the same and of similar computations at other sizes on
    this device, same computation first, then nearest sizes first."""
    mine = describe(op)
    entries: list[_Known] = []

    def add(origin: str, keys: dict, config: str, seconds: float) -> None:
        sizes = tuple(keys["sizes"])
        if keys["family"] == mine["family"] and sizes != op.sizes:
            entries.append(_Known(origin, "same", sizes, config, seconds))
        elif keys["family"] != mine["family"] and keys["shape"] == mine["shape"]:
            entries.append(_Known(origin, "similar", sizes, config, seconds))

    if db is not None:
        for key, ir in db.computations(info.key):
            best = db.best(key, info.key)
            if best is None or best.seconds is None:
                continue
            try:
                keys = describe(parse_computation(ir))
            except Exception:  # noqa: BLE001 - a damaged row is no seed
                continue
            add("database", keys, best.config, best.seconds)
    model = info.key.rsplit("|", 1)[0]
    for e in shipped.load(shipped_path):
        if "family" in e and e["device"].rsplit("|", 1)[0] == model:
            add("shipped", e, e["config"], e["seconds"])

    def distance(k: _Known) -> tuple:
        far = sum(abs(math.log(s / n)) for s, n in zip(k.sizes, op.sizes))
        return (k.kin != "same", far, k.origin != "database", k.seconds)

    return sorted(entries, key=distance)


def adapt(cfg: Config, source: Sequence[int], op: ComputeOp, info: DeviceInfo) -> Config | None:
    """`cfg`, tuned at sizes `source`, carried to `op`'s sizes (module docstring); None
    if no repair makes it legal."""
    lt = [min(t, n) for t, n in zip(cfg.lt_size, op.sizes)]
    wg = _groups(cfg, source, op, lt)
    reduced = [d for d, c in enumerate(op.combines) if c.kind == "pw"]
    if info.kind == "gpu" and reduced and wg[reduced[-1]] == 1:
        r, kept = reduced[-1], [c.kind == "cc" for c in op.combines]
        halved = [t // 2 if cc and t >= 2 * SMALLER_SIDE else t for t, cc in zip(lt, kept)]
        wg_halved = _groups(cfg, source, op, halved)
        smaller, parts = side_and_split(
            math.prod(wg), math.prod(wg_halved), math.prod(op.sizes[d] for d in reduced), op.sizes[r], info
        )
        if smaller:
            lt, wg = halved, wg_halved
        wg[r] = min(parts, ceildiv(op.sizes[r], lt[r]))
    pt = [min(p, t) for p, t in zip(cfg.pt_size, lt)]
    wi = [min(w, ceildiv(t, p)) for w, t, p in zip(cfg.num_wi, lt, pt)]
    inner = cfg.loop_order[1][-1]
    lanes = max(w for w in (1, 2, 4, 8, 16) if w <= cfg.vector_width and pt[inner] % w == 0)
    moved = cfg.with_(
        lt_size=tuple(lt), pt_size=tuple(pt), num_wi=tuple(wi), num_wg=tuple(wg), vector_width=lanes
    )
    legal = legalize(moved, op, info)
    if legal is None:
        return None
    return space_point(op, info, legal) or legal


def _groups(cfg: Config, source: Sequence[int], op: ComputeOp, lt: Sequence[int]) -> list[int]:
    """Work-groups per dimension for local tiles `lt` at `op`'s sizes, each getting as
    many tiles as `cfg`'s did at `source`; a reduction or scan left to one work-group
    stays so."""
    wg = []
    for d, (s, n) in enumerate(zip(source, op.sizes)):
        per_group = ceildiv(ceildiv(s, cfg.lt_size[d]), cfg.num_wg[d])
        tiles = ceildiv(n, lt[d])
        alone = cfg.num_wg[d] == 1 and op.combines[d].kind != "cc"
        wg.append(1 if alone else min(tiles, ceildiv(tiles, per_group)))
    return wg


def legalize(cfg: Config, op: ComputeOp, info: DeviceInfo) -> Config | None:
    """`cfg` with the rules it breaks repaired, one at a time, or None if a broken rule
    has no repair (a resource beyond the device whatever the tiles)."""
    for _ in range(REPAIRS):
        found = violations(op, cfg, info)
        if not found:
            return cfg
        repaired = _repair(cfg, found[0].rule)
        if repaired is None or repaired == cfg:
            return None
        cfg = repaired
    return None


def _repair(cfg: Config, rule: str) -> Config | None:
    """A configuration closer to legal for the broken `rule`."""
    uncached = tuple(("glb",) * len(layer) for layer in cfg.inp_mem)
    if rule == "vector-width":
        return cfg.with_(vector_width=1)
    if rule == "wg-combine":
        return cfg.with_(wg_combine="kernel")
    if rule in ("wi-combine", "implemented"):
        return cfg.with_(combine_layer="end", res_mem=("prv",) * len(cfg.res_mem))
    if rule == "cache-box":
        return cfg.with_(inp_mem=uncached, prefetch=0, lcl_pad=0, stages=2, lcl_swizzle=0)
    if rule == "local-memory":
        if cfg.stages > 2:
            return cfg.with_(stages=cfg.stages - 1)
        if cfg.prefetch:
            return cfg.with_(prefetch=0)
        return cfg.with_(inp_mem=(uncached[0], cfg.inp_mem[1]), lcl_pad=0, lcl_swizzle=0)
    if rule == "private-memory":
        if "prv" in cfg.inp_mem[1]:
            return cfg.with_(inp_mem=(cfg.inp_mem[0], uncached[1]))
        return cfg.with_(pt_size=_halved(cfg.pt_size))
    if rule == "wg-size":
        return cfg.with_(num_wi=_halved(cfg.num_wi))
    if rule == "stages":
        return cfg.with_(stages=2)
    return None


def _halved(values: tuple[int, ...]) -> tuple[int, ...]:
    """`values` with the largest halved (rounded up)."""
    d = max(range(len(values)), key=lambda i: values[i])
    return tuple(ceildiv(v, 2) if i == d else v for i, v in enumerate(values))
