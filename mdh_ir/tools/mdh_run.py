"""`mdh-run`: run an `.mlir` file's host function on a device and check it.

    mdh-run examples/matvec.mlir [--device cpu|gpu|PLATFORM:DEVICE] [--config "..."]
            [--repeats 20] [--seed 0] [--print-source] [--allow-large]

The host function holds one or several `mdh.compute` ops (run as a sequence of kernels,
their results passed on in buffers), on buffers or tensors (`mdh-bufferize`). Random
arguments (seeded), the program built for the device, its outputs (results, then the
arguments it writes) checked against the reference semantics of the host function
(`mdh_ir.semantics.host`), then the program's time (OpenCL profiling events, first
kernel to last) over the repeats. `--config` takes `#mdh.config` entries (`"num_wg = [4,
1], num_wi = [32, 1]"`) that replace the file's, for a module of one op; keys given
nowhere take the default configuration. A computation of more than 2^32 points (the
reference check alone would take minutes) is refused unless `--allow-large` is given.
Exit status 0 when the result is correct; errors are one line and exit status 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys

import numpy as np
from xdsl.dialects.builtin import DictionaryAttr
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Span

from mdh_ir.dialects.mdh import ComputeOp, ConfigAttr
from mdh_ir.driver import compile_module
from mdh_ir.runtime import BuildError
from mdh_ir.semantics.compare import compare, reduces
from mdh_ir.errors import MDHError
from mdh_ir.semantics.host import evaluate_host, host_function, random_arguments
from mdh_ir.tools.checks import MAX_POINTS, check_work, read_input
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import diagnose, load_module, one_line_warnings, the_compute


CONFIG_PREFIX = "#mdh.config<"


def apply_config_option(op: ComputeOp, text: str) -> None:
    """Merge `--config` entries over the op's own configuration; a parse error points
    into the option's text (`--config:1:COL`)."""
    try:
        attr = Parser(make_context(), f"{CONFIG_PREFIX}{text}>", "--config").parse_attribute()
    except ParseError as e:
        start = min(len(text), max(0, e.span.start - len(CONFIG_PREFIX)))
        end = min(len(text), max(start, e.span.end - len(CONFIG_PREFIX)))
        raise ParseError(Span(start, end, Input(text, "--config")), e.msg) from None
    assert isinstance(attr, ConfigAttr)
    entries = dict(op.config.entries.data) if op.config is not None else {}
    entries.update(attr.entries.data)
    op.config = ConfigAttr(DictionaryAttr(entries))
    try:
        op.verify_()
    except VerifyException as e:
        raise MDHError(str(e), op) from None


def format_seconds(t: float) -> str:
    return f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.3f} ms"


def run(args: argparse.Namespace) -> int:
    if args.repeats <= 0:
        raise ValueError(f"--repeats {args.repeats}: expected a positive number of runs")
    with open(args.input, "rb") as f:
        module = load_module(make_context(), read_input(f, args.input), args.input)
    if args.config:
        apply_config_option(the_compute(module), args.config)
    program = compile_module(module, args.device)
    if not args.allow_large:  # after the rules: a computation that cannot run says why
        check_work(module)
    print(f"device: {program.info.platform} | {program.info.name}")
    for op, choice in zip(program.ops, program.choices):
        label = f' "{op.comp_name.data}"' if len(program.ops) > 1 else ""
        print(f"config{label}: {choice.config.to_attr()}")
    if args.print_source:
        print(program.source)
    configured = program.module
    inputs = random_arguments(host_function(configured), np.random.default_rng(args.seed))
    outputs, times = program.run(inputs, repeats=args.repeats)
    reference = evaluate_host(configured, inputs, promote=reduces(configured))
    result = compare(configured, inputs, outputs, reference)
    print(f"check: {'ok' if result.ok else 'WRONG'} ({result.message})")
    print(
        f"kernel time: median {format_seconds(statistics.median(times))} "
        f"(min {format_seconds(min(times))}, max {format_seconds(max(times))}) "
        f"over {len(times)} runs"
    )
    return 0 if result.ok else 1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="mdh-run", description=__doc__.splitlines()[0])
    parser.add_argument("input", help="an .mlir file: a host function of mdh.compute ops")
    parser.add_argument("--device", help="cpu, gpu or PLATFORM:DEVICE (default: $MDH_DEVICE or cpu)")
    parser.add_argument("--config", help='configuration entries, e.g. "num_wi = [32, 1]"')
    parser.add_argument("--repeats", type=int, default=20, help="timed runs (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--print-source", action="store_true", help="print the OpenCL program")
    parser.add_argument(
        "--allow-large", action="store_true", help=f"run computations of more than {MAX_POINTS} points"
    )
    args = parser.parse_args(argv)
    try:
        with one_line_warnings():
            sys.exit(run(args))
    except BuildError as e:
        first = next((line for line in e.log.splitlines() if "error" in line), e.log.strip()[:200])
        print(f"{args.input}: error: OpenCL build failed: {first}", file=sys.stderr)
    except OSError as e:
        print(f"{args.input}: error: cannot read input: {e.strerror}", file=sys.stderr)
    except Exception as e:  # noqa: BLE001 - every failure is one diagnostic
        print(diagnose(e, args.input), file=sys.stderr)
    sys.exit(1)


if __name__ == "__main__":
    main()
