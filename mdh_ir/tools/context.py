"""The xDSL context the tools parse with: every dialect of the installed universe, and
mdh_ir's own even where the package is only on the path (no entry points installed)."""

from xdsl.context import Context
from xdsl.universe import Universe

from mdh_ir.universe import UNIVERSE


def make_context() -> Context:
    ctx = Context()
    dialects = {**Universe.get_multiverse().all_dialects, **UNIVERSE.all_dialects}
    for name, factory in dialects.items():
        ctx.register_dialect(name, factory)
    return ctx
