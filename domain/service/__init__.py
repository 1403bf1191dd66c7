"""The application services: commands (execute, retries, idempotency), dice and seeds, tokens,
reading, time travel, the timeline and the audit. ``CommandService`` (``commands_service``, on
the store of ``campaign_store``) is the core, the one eventsourcing application; ``Questlog``
(``questlog``) is that core holding the use cases built on it, each once.

It imports the storage adapters and the model; nothing in ``domain`` imports it.
"""
