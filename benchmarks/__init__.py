"""Benchmarks of mdh_ir against its peers: `python -m benchmarks --help`."""
