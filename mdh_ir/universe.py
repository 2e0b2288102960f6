"""What mdh_ir publishes to xDSL tools (`xdsl-opt`, `xdsl-run`, any xDSLOptMain)."""

from xdsl.universe import Universe


def _mdh():
    from mdh_ir.dialects.mdh import MDH

    return MDH


UNIVERSE = Universe(all_dialects={"mdh": _mdh})
