"""A build-pool builder with faults injected by configuration (tests only).

Run as `python -m tests.faulty_builder FD`: the faults of `tests.faulty_worker` (a
candidate whose `pt_size` starts with 4 fails to build, 3 kills the builder).
"""

import sys
from multiprocessing.connection import Connection

import tests.faulty_worker  # noqa: F401 - injects the faults into compile_module
from mdh_ir.tuning import pool

if __name__ == "__main__":
    pool._serve(Connection(int(sys.argv[1])))
