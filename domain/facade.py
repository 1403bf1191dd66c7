"""The domain's one door for the outer layers: ``webapi`` and ``projections`` import the domain
from here (and its configuration from ``domain.settings``), never from its packages.

It names what they may use: the application services, the errors, the event envelope with
what reads it (summaries, audits, checkpoints, the timeline of undone versions), the games'
public tables, access, the store's configuration for the processes that run it, and the
logging every process sets up (``domain.logs``). An
import-linter contract (pyproject.toml) holds the outer layers to it, so the model, the services
and the storage adapters can change shape behind it. The games register their commands when
``domain.service.application`` imports them, so importing this module is enough for both.
"""

from __future__ import annotations

from domain.logs import (
    LOG_FORMATS,
    TracebackThrottle,
    configure_logging,
    is_json,
    log_uncaught_errors,
)
from domain.model import chain, samples
from domain.model.access import (
    ROLES,
    TOKEN_ROLES,
    Membership,
    Token,
    TokenCheck,
    acting_as,
    actor_label,
)
from domain.model.calendar_board import action_events as cb_action_events
from domain.model.calendar_board import board_events as cb_board_events
from domain.model.calendar_board import modifiers
from domain.model.calendar_board.state import WEATHERS, party_figures
from domain.model.campaign import Campaign
from domain.model.command_schema import FACE_DOCUMENT, Command, Document
from domain.model.dice.notation import DiceExpression
from domain.model.dice.notation import parse as parse_dice
from domain.model.errors import (
    ConcurrencyConflict,
    InvalidInput,
    NotFound,
    NotHeld,
    NotLoggedYet,
    QuestlogError,
    RuleViolation,
    StaleVersion,
    StoreUnavailable,
    TokenRefused,
)
from domain.model.event_summaries import roll_summary, summarise, summarise_decoded
from domain.model.events import campaign_payloads as campaign_events
from domain.model.events.payload import ABSENT, Absent, EventType, Payload, payload_class, topic_of
from domain.model.games import RULES, command_schemas, rules_for
from domain.model.house_rules import CALENDAR_BOARD, GAMES, QUEST_CALENDAR, book
from domain.model.patch import resolve as resolve_pointer
from domain.model.quest_calendar import catalogue
from domain.model.quest_calendar import fight_events as qc_fight_events
from domain.model.quest_calendar import hero_events as qc_hero_events
from domain.model.quest_calendar import page_events as qc_page_events
from domain.model.quest_calendar.state import COMPARTMENTS
from domain.model.quest_calendar.state import FIGURES as QC_FIGURES
from domain.model.rule_index import SETTLED_IN_CODE, STATEMENTS
from domain.model.rules_engine import Figures
from domain.model.schema_fields import IdOrObject, StrictBoolean, StrictInteger, Text
from domain.model.signed_note import NoteError, VerifierKey, parse_verifier_key, valid_name
from domain.model.text import ascii_number, has_control_characters, not_unicode, quoted
from domain.model.tlog.merkle import ProofError, consistency_evidence, tree_root
from domain.model.tlog.merkle import entry as log_entry
from domain.model.tlog.misbehaviour import BadConsistencyProof, PairVerdict, check_pair, pair_heads
from domain.model.tlog.policy import Policy, PolicyError, parse_policy
from domain.model.tlog.proof import (
    LogEntry,
    ProofVerdict,
    check_tlog_proof,
    parse_entry,
    parse_tlog_proof,
)
from domain.model.tlog.tiles import Tile, TileError, tile_nodes_reader
from domain.model.tlog.witness_protocol import SIZE_CONTENT_TYPE, size_body
from domain.service import bundles, command_results
from domain.service.actions import Caller
from domain.service.application import campaign_facts
from domain.service.audit.checkpoints import CheckpointVerdict, check_checkpoint, hashes_by_version
from domain.service.audit.public import audit_public_events
from domain.service.audit.read import collection_paused
from domain.service.audit.resume import ResumePoint
from domain.service.audit.rolls import roll_verdict
from domain.service.audit.stored import AuditReport
from domain.service.command_results import (
    CommandCounters,
    CommandResult,
    EarlierResponse,
    Idempotency,
    Outcome,
    unavailable,
)
from domain.service.importing import refusal
from domain.service.questlog import Questlog
from domain.service.timeline import Timeline
from domain.service.timetravel import MAX_REPLAY, Replay, ReplayStep
from domain.service.transparency.log import Transparency
from domain.service.transparency.publisher import Publisher
from domain.service.witness import (
    StaleSize,
    Witness,
    WitnessRefusal,
    new_witness_key,
    parse_log_keys,
)
from domain.storage.advisory_locks import (
    VIEW_LEASE_SPACE,
    VIEWS_SETUP_LOCK_KEY,
    session_lock,
    view_lease_keys,
)
from domain.storage.backup import BackupRefused, backup_store
from domain.storage.log_order import (
    EVENTS_TABLE,
    START,
    LogPosition,
    UpgradeBlocked,
    legacy_positions_statements,
    restart_tlog,
)
from domain.storage.recorders import configure_pool
from domain.storage.retries import TRANSIENT_ERRORS
from domain.storage.store import StoreConfig
from domain.storage.witness_state import StateError, WitnessState

__all__ = [  # noqa: RUF022 (grouped by what each name is for)
    # The application services
    "bundles",
    "Caller",
    "campaign_facts",
    "command_results",
    "CommandCounters",
    "CommandResult",
    "EarlierResponse",
    "Idempotency",
    "MAX_REPLAY",
    "Outcome",
    "Questlog",
    "refusal",
    "Replay",
    "ReplayStep",
    "unavailable",
    # The host's transparency log: its publisher thread (``questlog serve``)
    "Publisher",
    # Errors
    "ConcurrencyConflict",
    "NotLoggedYet",
    "InvalidInput",
    "NotFound",
    "NotHeld",
    "QuestlogError",
    "RuleViolation",
    "StaleVersion",
    "StoreUnavailable",
    "TokenRefused",
    # The event envelope and the audit: an event as shown, the chain, verdicts and checkpoints
    "audit_public_events",
    "AuditReport",
    "ResumePoint",
    "Campaign",
    "chain",
    "check_checkpoint",
    "CheckpointVerdict",
    "EventType",
    "Figures",
    "hashes_by_version",
    "NoteError",
    "parse_verifier_key",
    "resolve_pointer",
    "roll_summary",
    "roll_verdict",
    "collection_paused",
    "samples",
    "summarise",
    "summarise_decoded",
    "Timeline",
    "VerifierKey",
    # The events' payloads: a class per event type (the modules that hold them), what a class
    # decodes from what it stored, and each class's stored topic
    "ABSENT",
    "Absent",
    "campaign_events",
    "cb_action_events",
    "cb_board_events",
    "Payload",
    "payload_class",
    "qc_fight_events",
    "qc_hero_events",
    "qc_page_events",
    "topic_of",
    # The games: their commands, house rules, rules and the values their views read
    "book",
    "CALENDAR_BOARD",
    "Command",
    "command_schemas",
    "FACE_DOCUMENT",
    "catalogue",
    "COMPARTMENTS",
    "DiceExpression",
    "Document",
    "GAMES",
    "IdOrObject",
    "modifiers",
    "parse_dice",
    "party_figures",
    "QC_FIGURES",
    "QUEST_CALENDAR",
    "RULES",
    "rules_for",
    "SETTLED_IN_CODE",
    "STATEMENTS",
    "StrictBoolean",
    "StrictInteger",
    "Text",
    "WEATHERS",
    # Access: roles, tokens and who is acting
    "acting_as",
    "TokenCheck",
    "actor_label",
    "Membership",
    "ROLES",
    "Token",
    "TOKEN_ROLES",
    # Text helpers every layer shares
    "ascii_number",
    "has_control_characters",
    "quoted",
    "not_unicode",
    # Logging, for every process: its handler and format, its last words, repeated tracebacks
    "configure_logging",
    "is_json",
    "LOG_FORMATS",
    "log_uncaught_errors",
    "TracebackThrottle",
    # The store: its configuration, locks, retries and backups
    "backup_store",
    "BackupRefused",
    "configure_pool",
    "session_lock",
    "StoreConfig",
    "TRANSIENT_ERRORS",
    "UpgradeBlocked",
    "LogPosition",
    "START",
    "EVENTS_TABLE",
    "legacy_positions_statements",
    "restart_tlog",
    "view_lease_keys",
    "VIEW_LEASE_SPACE",
    "VIEWS_SETUP_LOCK_KEY",
    # The host's Merkle log as a verifier and a witness see it: trust policies, offline proofs,
    # proofs of misbehaviour, and the witness with its state
    "BadConsistencyProof",
    "check_pair",
    "check_tlog_proof",
    "LogEntry",
    "consistency_evidence",
    "pair_heads",
    "ProofError",
    "Tile",
    "Transparency",
    "TileError",
    "tile_nodes_reader",
    "tree_root",
    "log_entry",
    "new_witness_key",
    "PairVerdict",
    "parse_log_keys",
    "parse_policy",
    "parse_entry",
    "parse_tlog_proof",
    "Policy",
    "PolicyError",
    "ProofVerdict",
    "size_body",
    "SIZE_CONTENT_TYPE",
    "StaleSize",
    "StateError",
    "Witness",
    "WitnessRefusal",
    "WitnessState",
    "valid_name",
]
