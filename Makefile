# `make run`: set up, then lower an example to OpenCL, run it on the default device (PoCL)
# and check it against the reference semantics.
# `make test`: set up, then run the whole test suite (lit + pytest), reporting every failure;
# the corpus files whose outcome depends on the device's limits run a second time under a
# smaller device model (SMALL_DEVICE, see mdh_ir/device.py), so both outcomes are tested.
VENV := .venv
BIN := $(VENV)/bin
EXAMPLE ?= examples/matvec.mlir
SMALL_DEVICE ?= local_mem=262144,max_wg_size=1024

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
	$(BIN)/python -m pytest -q -n 2; all=$$?; \
	MDH_DEVICE_LIMITS=$(SMALL_DEVICE) $(BIN)/python -m pytest -q -p no:xdist -m device_model \
		tests/test_reliability_corpus.py; test $$all -eq 0 -a $$? -eq 0

clean:
	rm -rf $(VENV) *.egg-info lit_tests/**/Output
