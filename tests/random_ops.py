"""Random but valid MDH computations, built with `mdh_ir.builder`, for fuzzing the lowering.

`random_module(rng)` returns `(module, inputs)`: a module holding one `mdh.compute` and
numpy inputs for it; `random_module(rng, wide=True)` draws from the wider space of the
property-based fuzzing (tests/test_fuzz_hypothesis.py), and `rank=` fixes the number of
dimensions. `random_module(rng, awkward=True)` draws ops for checking configurations
without running them (tests/test_default_config.py): sizes of `AWKWARD_SIZES` (1, primes,
one more than a tile), a third of the dimensions `ps`, at most `AWKWARD_MAX_POINTS`
points, and no inputs (an empty list). What a draw can hold:

- 1-5 dimensions of size 1-12 (mostly primes, sometimes 1); wide: 1-6 dimensions, a third
  of them of size 13-70; at most `MAX_POINTS` points either way (the largest dimensions
  are halved until the iteration space fits);
- per dimension `cc`, `pw` or `ps`; every reducing (pw/ps) dimension of one op uses the
  same combine function, so any mix of pw and ps stays a homomorphism (and the lowering's
  rule that all pw dimensions share one function holds even for user functions);
- combine functions: builtins (add, mul, max, min; and, or, xor for integer outputs),
  user functions that the lowering recognises as one builtin op (`a + b`), user functions
  it does not (`(a + b) * 1.0`, `select(a > b, a, b)`: the "first value" accumulator
  path), and user functions over two outputs (sum & max, sum & product, arg-max / arg-min
  keeping the smaller index on ties);
- 1-3 input buffers (f32, f64, i32) of rank 1-3 with 1-3 accesses each: dimensions,
  offsets, strides (`2*j + k`), sums of dimensions, constants; stencil-like extra accesses
  (constant offsets of the first) or unrelated ones; sometimes a boundary mode (clamp,
  zero, wrap, mirror) with an explicit shape so that accesses leave the buffer, sometimes
  a buffer larger than what is read;
- 1-2 outputs (f32, f64, i32), the second maybe with a permuted view;
- a scalar function of sums, products, select, maximum/minimum, absf, division by a
  constant, and (with `indices=True`) the point's indices.

Values are kept well-conditioned: multiplicative reductions see inputs near 1 (floats)
or ±1 (integers) and at most `MAX_MUL_POINTS` factors; integer results cannot overflow;
conversions float -> int scale by a power of two before truncation, so the oracle
(float64 for reductions) and the device truncate the same value; arg-max values are
input elements converted exactly, so the chosen index cannot depend on rounding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerType, ModuleOp

from mdh_ir.builder import (
    Input,
    Output,
    absf,
    cast,
    cc,
    compute_module,
    f32,
    f64,
    i32,
    maximum,
    minimum,
    ps,
    pw,
    select,
)
from mdh_ir.dialects.mdh import Combine
from mdh_ir.semantics.reference import find_compute
from mdh_ir.semantics.scalar_eval import numpy_dtype

DIM_NAMES = "ijklmn"
PRIMES = (2, 3, 5, 7, 11)
COMPOSITES = (4, 6, 8, 9, 10, 12)
MAX_POINTS = 6000
"""Largest iteration space (keeps the oracle and PoCL quick)."""
MAX_MUL_POINTS = 256
"""Most factors a multiplicative reduction/scan combines into one result."""
WIDE_MAX_SIZE = 70
"""Largest dimension size of a wide draw (before the iteration space is bounded)."""
AWKWARD_SIZES = (1, 2, 3, 5, 7, 13, 17, 23, 31, 33, 65, 127, 129, 257, 1025)
"""Sizes of an awkward draw: 1, primes, and one more than the tiles and work-group sizes
that default configurations choose (4, 16, 32, 64, 128, 256, 1024)."""
AWKWARD_MAX_POINTS = 1 << 22
"""Largest iteration space of an awkward draw (never run: nothing is allocated)."""
BOUNDARIES = ("clamp", "zero", "wrap", "mirror")
TYPES = (f32, f64, i32)


def _is_int(t) -> bool:
    return isinstance(t, IntegerType)


# ---------------------------------------------------------------------------------------
# Combine functions
# ---------------------------------------------------------------------------------------


@dataclass
class CombineChoice:
    """The one function of all reducing dimensions, and per output its family."""

    label: str
    """E.g. "builtin:add", "user1:add", "first:max", "pair:add,max", "argmax"."""
    fn: str | object
    families: list[str]
    """Per output: add, mul, max, min, bit, argval, argidx."""


def _user_single(name: str, recognised: bool, t) -> object:
    """A one-output user function computing builtin `name`."""
    integer = _is_int(t)
    one = 1 if integer else 1.0
    if recognised:
        return {
            "add": lambda a, b: a + b,
            "mul": lambda a, b: a * b,
            "max": lambda a, b: maximum(a, b),
            "min": lambda a, b: minimum(a, b),
            "and": lambda a, b: a & b,
            "or": lambda a, b: a | b,
        }[name]
    return {  # two or more ops: the lowering cannot take it for a builtin
        "add": lambda a, b: (a + b) * one,
        "mul": lambda a, b: (a * b) * one,
        "max": lambda a, b: select(a > b, a, b),
        "min": lambda a, b: select(a < b, a, b),
        "and": lambda a, b: (a & b) | (a & b),
        "or": lambda a, b: (a | b) * 1,
    }[name]


def _arg_better(largest: bool):
    """(value, index) pairs: the larger (smaller) value; equal values keep the smaller index."""

    def better(v1, j1, v2, j2):
        wins = (v2 > v1) if largest else (v2 < v1)
        second = wins | (v2.eq(v1) & (j2 < j1))
        return select(second, v2, v1), select(second, j2, j1)

    return better


_PAIRS = {
    "add,add": (lambda a1, a2, b1, b2: (a1 + b1, a2 + b2)),
    "add,max": (lambda a1, a2, b1, b2: (a1 + b1, maximum(a2, b2))),
    "mul,min": (lambda a1, a2, b1, b2: (a1 * b1, minimum(a2, b2))),
}


def _family(name: str) -> str:
    return "bit" if name in ("and", "or", "xor") else name


def _choose_combine(rng, out_types: list) -> CombineChoice:
    ints = all(_is_int(t) for t in out_types)
    builtins = ["add", "mul", "max", "min"] + (["and", "or", "xor"] if ints else [])
    r = rng.random()
    if len(out_types) == 1:
        if r < 0.4:
            name = str(rng.choice(builtins))
            return CombineChoice(f"builtin:{name}", name, [_family(name)])
        names = ["add", "mul", "max", "min"] + (["and", "or"] if ints else [])
        name = str(rng.choice(names))
        recognised = r < 0.6
        label = f"{'user1' if recognised else 'first'}:{name}"
        return CombineChoice(label, _user_single(name, recognised, out_types[0]), [_family(name)])
    if r < 0.35:
        name = str(rng.choice(builtins))
        return CombineChoice(f"builtin:{name}", name, [_family(name)] * 2)
    if r < 0.65:
        key = str(rng.choice(list(_PAIRS)))
        return CombineChoice(f"pair:{key}", _PAIRS[key], key.split(","))
    largest = bool(rng.random() < 0.6)
    label = "argmax" if largest else "argmin"
    return CombineChoice(label, _arg_better(largest), ["argval", "argidx"])


def _share_combine_function(module: ModuleOp) -> bool:
    """Make every reducing dimension refer to the first one's function (the builder traces
    one copy per dimension) and drop the copies; whether the module changed."""
    op = find_compute(module)
    combines = op.combines
    users = [c for c in combines if c.kind != "cc" and not c.builtin]
    if len(users) < 2:
        return False
    keep = users[0].func
    new = [c if c.kind == "cc" or c.builtin else Combine(c.kind, keep) for c in combines]
    md_hom = dict(op.md_hom.data)
    md_hom["combine_ops"] = ArrayAttr([c.to_attr() for c in new])
    op.properties["md_hom"] = DictionaryAttr(md_hom)
    for c in users[1:]:
        if c.func == keep:
            continue
        f = next(f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == c.func)
        module.body.block.erase_op(f)
    return True


# ---------------------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------------------


@dataclass
class Affine:
    coeffs: dict[int, int] = field(default_factory=dict)
    const: int = 0

    def text(self) -> str:
        parts = [f"{c}*{DIM_NAMES[d]}" if c != 1 else DIM_NAMES[d] for d, c in self.coeffs.items()]
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts).replace("+ -", "- ")

    def range(self, sizes: list[int]) -> tuple[int, int]:
        lo = self.const + sum(min(c, 0) * (sizes[d] - 1) for d, c in self.coeffs.items())
        hi = self.const + sum(max(c, 0) * (sizes[d] - 1) for d, c in self.coeffs.items())
        return lo, hi

    def shifted(self, by: int) -> Affine:
        return Affine(dict(self.coeffs), self.const + by)


def _axis_expr(rng, sizes: list[int], prefer: int, boundary: bool) -> Affine:
    rank = len(sizes)
    low = -2 if boundary else 0
    r = rng.random()
    other = int(rng.integers(rank))
    if r < 0.5:
        e = Affine({prefer: 1})
    elif r < 0.65:
        e = Affine({prefer: 1}, int(rng.integers(low, 3)))
    elif r < 0.75 and other != prefer:
        e = Affine({prefer: 2, other: 1})  # strided, convolution-like: 2*j + k
    elif r < 0.85 and other != prefer:
        e = Affine({prefer: 1, other: 1})
    elif r < 0.88:
        e = Affine({prefer: 2})
    elif r < 0.94:  # reversed: n-1-i
        e = Affine({prefer: -1}, sizes[prefer] - 1 + int(rng.integers(low, 1)))
    else:
        e = Affine({}, int(rng.integers(0, 3)))
    if e.const == 0 and boundary and rng.random() < 0.3:
        e.const = int(rng.integers(-2, 3))
    return e


def _draw_input(rng, b: int, sizes: list[int], dtype, mul_mode: bool) -> tuple[Input, int]:
    """Input buffer `b` and its number of accesses."""
    rank = len(sizes)
    axes = int(rng.integers(1, min(3, rank + 1) + 1))
    boundary = "none"
    if rng.random() < 0.3:
        modes = [m for m in BOUNDARIES if not (mul_mode and m == "zero")]
        boundary = str(rng.choice(modes))
    dims = list(rng.permutation(rank))
    pads = boundary != "none"
    first = [_axis_expr(rng, sizes, int(dims[a % rank]), pads) for a in range(axes)]
    maps = [first]
    for _ in range(int(rng.choice([0, 0, 1, 2]))):
        if rng.random() < 0.7:  # stencil: a constant offset of the first access
            low = -2 if pads else 0
            maps.append([e.shifted(int(rng.integers(low, 3))) for e in first])
        else:
            other = [_axis_expr(rng, sizes, int(rng.integers(rank)), pads) for _ in range(axes)]
            maps.append(other)
    highest = [max(m[a].range(sizes)[1] for m in maps) for a in range(axes)]
    shape = None
    if pads:  # reads may leave the buffer on both sides
        shape = [max(1, hi + 1 - int(rng.integers(0, 4))) for hi in highest]
    elif rng.random() < 0.15:  # a buffer larger than what is read
        shape = [hi + 1 + int(rng.integers(0, 3)) for hi in highest]
    views = [", ".join(e.text() for e in m) for m in maps]
    inp = Input(f"in{b}", dtype, views if len(views) > 1 else views[0], boundary, shape)
    return inp, len(maps)


# ---------------------------------------------------------------------------------------
# Scalar function
# ---------------------------------------------------------------------------------------


class ScalarRecipe:
    """Draws, while being traced, one expression per output from the accesses."""

    def __init__(
        self, rng, families, out_types, access_types, argmax_access, arg_dims, sizes, indices
    ):
        self.rng = rng
        self.families = families
        self.out_types = out_types
        self.access_types = access_types
        self.argmax_access = argmax_access
        self.arg_dims = arg_dims
        self.sizes = sizes
        self.indices = indices

    def convert(self, x, t, family: str):
        """Access `x` as a value of type `t`, exactly where the family needs it."""
        if x.type == t:
            return x
        if not _is_int(t):
            return cast(x, t)
        if _is_int(x.type):
            return cast(x, t)
        if family == "mul":  # inputs near 1: keep the sign pattern
            return select(x > 1.0, 1, -1, t)
        return cast(x * 8.0, t)  # exact scaling, then truncation

    def parity(self, idx):
        k = idx[int(self.rng.integers(len(idx)))]
        return (cast(k, i32) % 2).eq(0)

    def __call__(self, *args):
        n = len(self.access_types)
        accesses, idx = list(args[:n]), list(args[n:])
        return tuple(self.expression(j, accesses, idx) for j in range(len(self.out_types)))

    def expression(self, j: int, accesses, idx):
        rng, t, family = self.rng, self.out_types[j], self.families[j]
        if family == "argval":
            return self.convert(accesses[self.argmax_access], t, "argval")
        if family == "argidx":
            value = cast(idx[self.arg_dims[0]], i32)
            for d in self.arg_dims[1:]:
                value = value * self.sizes[d] + cast(idx[d], i32)
            return value
        order = list(rng.permutation(len(accesses)))
        terms = [self.convert(accesses[a], t, family) for a in order[: int(rng.integers(1, 4))]]
        while len(terms) < 2:
            terms.append(terms[0])
        integer = _is_int(t)
        if family == "mul":
            r = rng.random()
            if r < 0.4:
                e = terms[0] * terms[1]
            elif r < 0.6:
                e = maximum(terms[0], terms[1]) if not integer else terms[0] * terms[1] * terms[-1]
            elif r < 0.8 and not integer:
                e = (terms[0] + terms[1]) * 0.5
            else:
                e = terms[0]
            if self.indices and rng.random() < 0.6:
                e = select(self.parity(idx), e, terms[-1])
            return e
        r = rng.random()
        if r < 0.25:
            e = terms[0]
            for x in terms[1:]:
                e = e + x
        elif r < 0.4:
            e = terms[0] * terms[1] + terms[-1]
        elif r < 0.5:
            e = select(terms[0] > terms[1], terms[0], terms[-1] - terms[1])
        elif r < 0.6:
            e = maximum(terms[0], terms[1]) - minimum(terms[1], terms[-1])
        elif r < 0.7:
            e = terms[0] - terms[1] if integer else (terms[0] + terms[1] + terms[-1]) / 3.0
        elif r < 0.8:
            e = (terms[0] * -1 if integer else absf(terms[0])) + terms[1]
        else:
            e = terms[0]
        if self.indices:
            r = rng.random()
            if r < 0.4:
                k = idx[int(rng.integers(len(idx)))]
                e = e + (cast(k, t) if integer else cast(k, t) * 0.25)
            elif r < 0.7:
                e = select(self.parity(idx), e, terms[-1])
        return e


# ---------------------------------------------------------------------------------------
# The whole op
# ---------------------------------------------------------------------------------------


def _size(rng, wide: bool = False, awkward: bool = False) -> int:
    if awkward:
        return int(rng.choice(AWKWARD_SIZES))
    if wide and rng.random() < 1 / 3:
        return int(rng.integers(13, WIDE_MAX_SIZE + 1))
    r = rng.random()
    if r < 0.12:
        return 1
    if r < 0.65:
        return int(rng.choice(PRIMES))
    return int(rng.choice(COMPOSITES))


def _shrink(sizes: list[int], dims: list[int], limit: int) -> None:
    while dims and prod(sizes[d] for d in dims) > limit:
        d = max(dims, key=lambda d: sizes[d])
        sizes[d] = (sizes[d] + 1) // 2


def _draw_kinds(rng, rank: int, awkward: bool = False) -> list[str]:
    if awkward:
        return [str(k) for k in rng.choice(["cc", "pw", "ps"], size=rank, p=[0.4, 0.27, 0.33])]
    r = rng.random()
    if r < 0.1:
        return ["pw"] * rank  # a full reduction to a single value
    if r < 0.2 and rank >= 2:  # a scan next to concatenated dims
        kinds = ["cc"] * rank
        kinds[int(rng.integers(rank))] = "ps"
        return kinds
    if r < 0.3 and rank >= 3:  # several pw dims
        kinds = ["cc"] * rank
        for d in rng.choice(rank, size=int(rng.integers(2, rank + 1)), replace=False):
            kinds[int(d)] = "pw"
        return kinds
    weights = np.array([0.5, 0.35, 0.15])
    return [str(k) for k in rng.choice(["cc", "pw", "ps"], size=rank, p=weights)]


def random_module(
    rng: np.random.Generator, wide: bool = False, rank: int | None = None, awkward: bool = False
) -> tuple[ModuleOp, list[np.ndarray]]:
    if rank is None and wide:
        rank = int(rng.choice([1, 2, 3, 4, 5, 6], p=[0.1, 0.2, 0.25, 0.2, 0.15, 0.1]))
    elif rank is None:
        rank = int(rng.choice([1, 2, 3, 4, 5], p=[0.15, 0.3, 0.3, 0.15, 0.1]))
    sizes = [_size(rng, wide, awkward) for _ in range(rank)]
    kinds = _draw_kinds(rng, rank, awkward)
    reducing = [d for d in range(rank) if kinds[d] != "cc"]
    _shrink(sizes, list(range(rank)), AWKWARD_MAX_POINTS if awkward else MAX_POINTS)

    n_out = 2 if rng.random() < 0.35 else 1
    out_types = [TYPES[int(rng.integers(3))] for _ in range(n_out)]
    choice = _choose_combine(rng, out_types)
    mul_mode = "mul" in choice.families and bool(reducing)
    if mul_mode:
        _shrink(sizes, reducing, MAX_MUL_POINTS)
    mul_factors = prod(sizes[d] for d in reducing)

    n_in = int(rng.choice([1, 2, 3], p=[0.45, 0.35, 0.2]))
    in_types = [TYPES[int(rng.integers(3))] for _ in range(n_in)]
    inputs, access_types = [], []
    for b, t in enumerate(in_types):
        inp, n_maps = _draw_input(rng, b, sizes, t, mul_mode)
        inputs.append(inp)
        access_types += [t] * n_maps

    argmax_access, arg_dims = 0, []
    indices = bool(rng.random() < 0.35)
    if "argval" in choice.families:
        argmax_access = int(rng.integers(len(access_types)))
        source = access_types[argmax_access]
        # a type holding every value of the access exactly
        exact = {f32: [f32, f64], f64: [f64], i32: [i32, f64, f32]}[source]
        out_types[0] = exact[int(rng.integers(len(exact)))]
        out_types[1] = i32
        indices = True
        dims = reducing or list(range(rank))
        arg_dims = sorted(int(d) for d in rng.choice(dims, size=min(len(dims), 2), replace=False))
    if choice.label.startswith("builtin:") and choice.fn in ("and", "or", "xor"):
        assert all(_is_int(t) for t in out_types)

    names = DIM_NAMES[:rank]
    kept = [names[d] for d in range(rank) if kinds[d] != "pw"]
    outputs = [Output("out0", out_types[0], ", ".join(kept))]
    if n_out == 2:
        second = list(kept) if rng.random() < 0.5 else [kept[i] for i in rng.permutation(len(kept))]
        outputs.append(Output("out1", out_types[1], ", ".join(second)))

    recipe = ScalarRecipe(
        rng, choice.families, out_types, access_types, argmax_access, arg_dims, sizes, indices
    )
    specs = []
    for k in kinds:
        if k == "cc":
            specs.append(cc)
        else:
            specs.append((pw if k == "pw" else ps)(choice.fn))  # type: ignore[arg-type]
    module = compute_module(
        "fuzz", dict(zip(names, sizes)), inputs, outputs, recipe, specs, indices=indices
    )
    if _share_combine_function(module):  # compute_module verified the module it built
        module.verify()

    module.fuzz_label = choice.label  # type: ignore[attr-defined]
    if awkward:
        return module, []
    op = find_compute(module)
    arrays = []
    for v, t in zip(op.inputs, op.input_element_types):
        shape = v.type.get_shape()  # type: ignore[attr-defined]
        dtype = numpy_dtype(t)
        if mul_mode:
            if dtype.kind == "f":
                lo, hi = (0.5, 1.5) if mul_factors <= 16 else (0.9, 1.1)
                arrays.append(rng.uniform(lo, hi, shape).astype(dtype))
            else:
                arrays.append(rng.choice(np.array([-1, 1], dtype=dtype), size=shape))
        elif dtype.kind == "f":
            arrays.append(rng.uniform(-1, 1, shape).astype(dtype))
        else:
            arrays.append(rng.integers(-8, 8, shape).astype(dtype))
    return module, arrays


def describe(module: ModuleOp) -> dict:
    """Coverage facts of a generated module (for the generator's own test and reports)."""
    from mdh_ir.schedule.combine import meaning

    op = find_compute(module)
    combines = op.combines
    return {
        "rank": op.rank,
        "sizes": op.sizes,
        "kinds": [c.kind for c in combines],
        "outputs": len(op.outputs),
        "inputs": len(op.inputs),
        "accesses": sum(len(m) for m in op.input_maps),
        "boundaries": [b for b in op.boundaries if b != "none"],
        "user_funcs": sorted({c.func for c in combines if c.kind != "cc" and not c.builtin}),
        "first_value": any(
            c.kind != "cc" and not c.builtin and meaning(module, c) is None for c in combines
        ),
        "label": getattr(module, "fuzz_label", "?"),
        "out_types": [str(t) for t in op.output_element_types],
        "in_types": [str(t) for t in op.input_element_types],
    }
