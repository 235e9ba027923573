"""Benchmarks: `python -m benchmarks` (or `make bench`) from the repository root."""
