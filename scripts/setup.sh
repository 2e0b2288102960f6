#!/usr/bin/env bash
# Create the virtual environment, install mdh_ir with its test tools, and make sure an
# OpenCL platform exists (Debian's PoCL when none is found) and PostgreSQL for the shared
# tuning tests (Debian's postgresql, started by scripts/postgres.sh). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[test]'
  touch "$stamp"
fi
has_platform() {
  .venv/bin/python -c 'import pyopencl as cl, sys; sys.exit(0 if cl.get_platforms() else 1)' 2>/dev/null
}
apt_install() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}
if ! has_platform; then
  echo "setup: no OpenCL platform found; installing PoCL (Debian pocl-opencl-icd)" >&2
  apt_install pocl-opencl-icd ocl-icd-libopencl1
  has_platform || { echo "setup: still no OpenCL platform after installing PoCL" >&2; exit 1; }
fi
# Oclgrind (Debian's package; tests/test_oclgrind.py runs the generated code under it and
# registers it for its own subprocesses only). MDH_OCLGRIND=0 skips it (and that test).
if [ "${MDH_OCLGRIND:-1}" != 0 ] && [ ! -e /usr/lib/oclgrind/liboclgrind-rt-icd.so ]; then
  echo "setup: installing Oclgrind (Debian oclgrind)" >&2
  apt_install oclgrind
fi
# PostgreSQL (Debian's package; tests/test_distributed_tuning.py starts a server with
# scripts/postgres.sh). MDH_POSTGRES=0 skips it (and those tests).
if [ "${MDH_POSTGRES:-1}" != 0 ] && ! command -v pg_ctl >/dev/null && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  echo "setup: installing PostgreSQL (Debian postgresql)" >&2
  apt_install postgresql
fi
