"""Front ends producing `mdh.compute`: the MDH Python interface and the annotated-loop form.

The `convert-linalg-to-mdh` pass (`mdh_ir.passes.convert_linalg_to_mdh`) is the third.
"""

from mdh_ir.frontend.loops import combine_ops
from mdh_ir.frontend.python import (
    Buffer,
    Computation,
    cc,
    chain,
    inp,
    inp_view,
    md_hom,
    mdh,
    out,
    out_view,
    ps,
    pw,
)

__all__ = [
    "Buffer", "Computation", "cc", "chain", "combine_ops", "inp", "inp_view", "md_hom", "mdh", "out",
    "out_view", "ps", "pw",
]  # fmt: skip
