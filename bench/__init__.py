"""Questlog benchmarks: ``python -m bench.run`` from the repository root.

See docs/performance.md.
"""
