"""The compile driver: module -> configuration of each op -> passes -> OpenCL -> runtime
(`compiler`), the configuration chosen by `choose`."""

from mdh_ir.driver.choose import Choice, choose_config, known_config
from mdh_ir.driver.compiler import Compiled, compile_module, configure, lower

__all__ = ["Choice", "Compiled", "choose_config", "compile_module", "configure", "known_config", "lower"]
