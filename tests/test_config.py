"""The configuration's two homes: the dialect checks `#mdh.config`'s structure against
its op, the schedule model (`mdh_ir.schedule.config`) types it; they agree on the keys."""

from __future__ import annotations

import subprocess
import sys

from mdh_ir.schedule.config import Config
from mdh_ir.dialects.mdh_config import CONFIG_KEYS

DIALECT_ONLY = r'''
import sys
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func
from xdsl.parser import Parser
from mdh_ir.dialects.mdh import MDH

ctx = Context()
for d in (builtin.Builtin, func.Func, arith.Arith, MDH):
    ctx.load_dialect(d)
text = """
func.func @f(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @g(%x: memref<8xf32>) -> memref<8xf32> {
  %y = mdh.compute "copy" {inp_view = [[affine_map<(i) -> (i)>]],
    md_hom = {scalar_func = @f, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [8], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1]>} (%x) : (memref<8xf32>) -> memref<8xf32>
  func.return %y : memref<8xf32>
}
"""
module = Parser(ctx, text).parse_module()
try:
    module.verify()
except Exception as e:
    print(e)
print(sorted(m for m in sys.modules if m.startswith("mdh_ir.schedule")))
'''


def test_the_dialect_and_the_schedule_model_agree_on_the_keys() -> None:
    assert Config.keys() == list(CONFIG_KEYS)


def test_the_dialect_verifies_a_configuration_without_the_schedule_model() -> None:
    """A malformed configuration is refused by the verifier alone; the schedule model is
    never imported."""
    out = subprocess.run(
        [sys.executable, "-c", DIALECT_ONLY], capture_output=True, text=True, check=True
    ).stdout
    assert 'mdh.compute "copy": config: num_wg must be a list of 1 positive integers' in out
    assert out.strip().endswith("[]")
