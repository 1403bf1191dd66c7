"""``python -m projections``: run, rebuild or inspect the views in their own process."""

from projections.cli import projections

projections(prog_name="python -m projections")
