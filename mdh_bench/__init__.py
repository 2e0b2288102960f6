"""Benchmarks of mdh_ir against its peers: `python -m mdh_bench --help`."""
