"""The xDSL context the tools parse with: every dialect of the installed universe."""

from xdsl.context import Context
from xdsl.universe import Universe


def make_context() -> Context:
    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    return ctx
