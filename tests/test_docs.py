"""The docs stay true: each front-end page's Python examples run, the pipeline example
runs, and docs/ir-levels.md is what `python -m docs.generate_ir_levels` writes."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

DOCS = Path(__file__).parent.parent / "docs"
FRONT_ENDS = ["python-interface.md", "loop-form.md", "linalg.md", "reduced-precision.md"]


@pytest.mark.parametrize("page", FRONT_ENDS)
def test_page_examples_run(page, tmp_path):
    """A page's ```python blocks, in order, as one script (a file: the loop form reads
    its functions' source)."""
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), re.S)
    assert blocks
    script = tmp_path / f"{Path(page).stem.replace('-', '_')}.py"
    script.write_text("\n\n".join(blocks))
    runpy.run_path(str(script), run_name="__main__")


def test_pipeline_example():
    example = runpy.run_path(str(DOCS / "examples" / "pipeline.py"))
    source = example["main"]()
    assert "__kernel" in source and "// host matmul(" in source


def test_ir_levels_page_is_up_to_date():
    generator = runpy.run_path(str(DOCS / "generate_ir_levels.py"))
    assert (DOCS / "ir-levels.md").read_text() == generator["render"](), (
        "docs/ir-levels.md is stale: run `.venv/bin/python -m docs.generate_ir_levels`"
    )


def test_readme_snippet_runs_as_it_stands(tmp_path):
    """The README's "Try it" block, pasted into a shell at the clone's root, prints the
    OpenCL program and a checked run (its `mktemp -d` lands in this test's directory)."""
    import os
    import subprocess
    import sys

    readme = (DOCS.parent / "README.md").read_text()
    (snippet,) = [b for b in re.findall(r"```sh\n(.*?)```", readme, re.S) if "cat > matvec.mlir" in b]
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    r = subprocess.run(
        ["bash", "-e", "-c", snippet],
        cwd=DOCS.parent, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "__kernel " in r.stdout and "check: ok" in r.stdout
    assert list(tmp_path.glob("*/matvec.mlir")), "the snippet wrote outside its temporary directory"
