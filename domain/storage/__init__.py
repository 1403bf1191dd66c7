"""The storage adapters: the event store and its side tables (SQLite or PostgreSQL), the
PostgreSQL advisory locks, and the one module that reaches into eventsourcing's internals.

It may import the model (``domain.model``), never the services above it.
"""
