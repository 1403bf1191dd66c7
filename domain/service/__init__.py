"""The application services: commands (execute, retries, idempotency), dice and seeds, tokens,
reading, time travel, the timeline and the audit. ``CampaignService`` (``application``) is the
core; ``Questlog`` (``questlog``) holds the use cases built on it, each once.

It imports the storage adapters and the model; nothing in ``domain`` imports it.
"""
