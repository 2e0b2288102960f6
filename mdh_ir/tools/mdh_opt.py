"""`mdh-opt`: xdsl-opt with the mdh_ir dialects, passes and the `opencl` target.

    mdh-opt f.mlir                       # parse, verify, print
    mdh-opt f.mlir -p mdh-default-config,mdh-tile
    mdh-opt --lower-to-opencl f.mlir     # OpenCL kernels + launch description
    cat f.mlir | mdh-opt -o out.mlir
    mdh-opt --help                       # the options, then our passes one line each

Malformed or invalid input gives one line `file:line:col: error: reason` on stderr and
exit status 1; nothing is written to the output file then.
"""

from __future__ import annotations

import argparse
import sys
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from mdh_ir.passes import ALL_PASSES
from mdh_ir.tools.checks import read_input
from mdh_ir.tools.diagnostics import MDHError, diagnose, load_module, one_line_warnings, verify_located


def pass_summary(pass_type: type[ModulePass]) -> str:
    """The first line of the pass's module docstring, less its "`name`:" prefix."""
    doc = (sys.modules[pass_type.__module__].__doc__ or "").strip()
    return (doc.splitlines() or [""])[0].removeprefix(f"`{pass_type.name}`:").strip()


def pass_summaries() -> str:
    """Each mdh_ir pass with its summary (imports them all)."""
    lines = ["mdh_ir passes (xDSL's passes are available too):"]
    lines += [f"  {name:<24}{pass_summary(factory())}" for name, factory in ALL_PASSES.items()]
    return "\n".join(lines)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Evaluates a callable epilog, so that `--help` alone pays for `pass_summaries`."""

    def add_text(self, text) -> None:
        super().add_text(text() if callable(text) else text)


class MDHOptMain(xDSLOptMain):
    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.formatter_class = HelpFormatter
        arg_parser.epilog = pass_summaries  # type: ignore[assignment]
        arg_parser.add_argument(
            "--lower-to-opencl",
            action="store_true",
            help="run the whole lowering pipeline and print the OpenCL program",
        )

    def setup_pipeline(self) -> None:
        if self.args.lower_to_opencl:
            self.args.passes = ",".join(p for p in (self.args.passes, "lower-to-opencl") if p)
            self.args.target = "opencl"

        def verify_between(_prev: ModulePass | None, module: ModuleOp, _next) -> None:
            if _prev is not None and not self.args.disable_verify:
                verify_located(module)

        try:
            self.pipeline = PassPipeline.parse_spec(
                self.available_passes, self.args.passes, verify_between
            )
        except (ValueError, ArgSpecParseError) as e:
            print(f"mdh-opt: error: -p: {' '.join(str(e).split())}", file=sys.stderr)
            sys.exit(1)

    def input_chunks(self, name: str) -> list[tuple[str | bytes, int]]:
        if self.args.input_file is None:
            data = read_input(sys.stdin.buffer, name)
        else:
            with open(self.args.input_file, "rb") as f:
                data = read_input(f, name)
        if not self.args.split_input_file:
            return [(data, 0)]
        chunks, offset = [], 0
        for chunk in data.split(b"// -----"):
            chunks.append((chunk, offset))
            offset += chunk.count(b"\n")
        return chunks

    def process(self, text: str | bytes, offset: int, name: str) -> str:
        prefix = "\n" * offset
        if isinstance(text, bytes):
            text = prefix.encode() + text
        else:
            text = prefix + text
        module = load_module(self.ctx, text, name)
        with one_line_warnings():  # a pass's remarks (mdh-fuse), one line each
            self.apply_passes(module)
        return self.output_resulting_program(module)

    def run(self) -> None:
        name = self.get_input_name()
        try:
            chunks = self.input_chunks(name)
        except OSError as e:
            print(f"{name}: error: cannot read input: {e.strerror}", file=sys.stderr)
            sys.exit(1)
        except MDHError as e:
            print(diagnose(e, name), file=sys.stderr)
            sys.exit(1)
        out, failed = StringIO(), False
        for i, (text, offset) in enumerate(chunks):
            if i:
                out.write("// -----\n")
            try:
                out.write(self.process(text, offset, name))
            except (MDHError, Exception) as e:  # noqa: BLE001 - every failure is a diagnostic
                print(diagnose(e, name), file=sys.stderr)
                failed = True
        if failed:
            sys.exit(1)
        if self.args.output_file is None:
            sys.stdout.write(out.getvalue())
        else:
            try:
                with open(self.args.output_file, "w") as f:
                    f.write(out.getvalue())
            except OSError as e:
                message = f"{self.args.output_file}: error: cannot write: {e.strerror}"
                print(message, file=sys.stderr)
                sys.exit(1)


def main() -> None:
    MDHOptMain(description="mdh_ir optimizer driver").run()


if __name__ == "__main__":
    main()
