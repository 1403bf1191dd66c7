"""The application services: commands (execute, retries, idempotency), dice and seeds, tokens,
reading, time travel, the timeline and the audit; ``Questlog`` (``application``) composes them.

It imports the storage adapters and the model; nothing in ``domain`` imports it.
"""
