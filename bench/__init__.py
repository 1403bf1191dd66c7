"""Questlog benchmarks: ``python -m bench.run`` from the repository root.

What to run for what, and how the folders are laid out: bench/README.md. How to measure:
docs/performance.md.
"""
