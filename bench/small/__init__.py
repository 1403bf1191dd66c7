"""The small figures the docs quote, each measured and printed with the doc it backs."""
