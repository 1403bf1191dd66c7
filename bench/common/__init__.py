"""Shared by the parts and the commands: the load generator, the server, the run's tables."""
