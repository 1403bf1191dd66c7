"""The analyst's dataset: ``questlog export --all`` and ``questlog sql`` on a large store."""
