"""The campaigns in creation order, read through an index of their creation events only.

``GET /campaigns`` lists campaigns a page at a time by their creation events' notification ids.
Read as the library reads notifications by topic, it walked the log's ids and skipped every other
event: a page cost the events stored between its campaigns, so the listing grew with every roll
ever stored. A partial index holding only the creation events (``questlog_campaign_creations``,
``WHERE topic = 'questlog.CampaignCreated'``) finds a page in as many rows as it lists, on both
stores; every other event's insert only tests the index's condition. The statement names the
topic as a literal, not a parameter, so that each store's planner can prove the index applies.
A store written by an earlier release gets the index when it first opens: one pass over the
events table, about a second a million events (on PostgreSQL under the upgrade's lock timeout,
``log_order.ensure_index``: a long transaction holding the table makes the start fail with its
cause, instead of every append queueing behind the build).
"""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Notification

from domain.model.campaign import Campaign

CREATIONS_INDEX = "questlog_campaign_creations"
CREATED_TOPIC = Campaign.Created.TOPIC
"""The topic of a campaign's creation event, as stored (a literal in the SQL below)."""
if "'" in CREATED_TOPIC:  # written into SQL as a literal below
    raise RuntimeError(f"the creation topic cannot be an SQL literal: {CREATED_TOPIC}")


class CampaignCreations:
    """The creation index's statements, on the side tables' connection (``SideTables`` has it)."""

    datastore: Any
    events_table_name: str
    notification_column = "notification_id"
    """The events' notification id (SQLite's recorder keeps it as the ``rowid``)."""
    creations_key = "notification_id"
    """The index's column. SQLite cannot name the ``rowid`` there, but every index of its ends
    with it: an index on the topic, all of one value here, is in ``rowid`` order."""

    def _table(self, name: str) -> str:
        return name

    def _fetch(self, statement: str, params: tuple[Any, ...]) -> list[Any]:
        raise NotImplementedError

    def creation_index_statements(self) -> list[str]:
        """The index's CREATE, run with the tables' others (the PostgreSQL recorder builds it in
        ``create_table`` instead, under a lock timeout)."""
        return [self.creations_index_statement()]

    def creations_index_statement(self) -> str:
        """CREATE statement of the partial index over the creation events."""
        return (
            f"CREATE INDEX IF NOT EXISTS {CREATIONS_INDEX} ON "
            f"{self._table(self.events_table_name)} ({self.creations_key}) "
            f"WHERE topic = '{CREATED_TOPIC}'"
        )

    def creations_statement(self) -> str:
        """The creation events after a notification id, oldest first (``?``: the id, the limit)."""
        return (
            f"SELECT {self.notification_column} AS notification_id, originator_id, "
            "originator_version, topic, state "
            f"FROM {self._table(self.events_table_name)} "
            f"WHERE topic = '{CREATED_TOPIC}' AND {self.notification_column} > ? "
            f"ORDER BY {self.notification_column} LIMIT ?"
        )

    def campaign_creations(self, after: int, limit: int) -> list[Notification]:
        """Up to ``limit`` creation events after notification id ``after``, oldest first."""
        rows = self._fetch(self.creations_statement(), (after, limit))
        return [
            Notification(
                id=int(row["notification_id"]),
                originator_id=row["originator_id"],
                originator_version=int(row["originator_version"]),
                topic=str(row["topic"]),
                state=bytes(row["state"]),
            )
            for row in rows
        ]
