"""The table page: its load in a browser, what it downloads, its charts' bytes."""
