"""The write path: the roll route, game commands, the core against the naive app."""
