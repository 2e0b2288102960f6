# `make run`: set up, then lower an example to OpenCL, run it on the default device (PoCL)
# and check it against the reference semantics.
# `make test`: set up, then run the whole test suite (lit + pytest).
VENV := .venv
BIN := $(VENV)/bin
EXAMPLE ?= examples/matvec.mlir

.PHONY: setup run test lit pytest clean

setup:
	@scripts/setup.sh

run: setup
	$(BIN)/mdh-opt --lower-to-opencl $(EXAMPLE)
	$(BIN)/mdh-run $(EXAMPLE)

test: setup lit pytest

lit:
	PATH=$(abspath $(BIN)):$$PATH $(BIN)/lit -sv lit_tests

pytest:
	$(BIN)/python -m pytest -q -x -n 2

clean:
	rm -rf $(VENV) *.egg-info lit_tests/**/Output
