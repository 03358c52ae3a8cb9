"""The ledger file's layout (:mod:`handfoot.ledger`): its tables, the migrations that bring an older file up to
:data:`SCHEMA_VERSION` (SQLite's ``user_version``), and the ids and times its rows keep."""

from __future__ import annotations

import secrets
from datetime import datetime, timezone

SCHEMA = """
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    rules TEXT NOT NULL,
    house_rules TEXT NOT NULL,      -- JSON object
    teams TEXT NOT NULL,            -- JSON array of team names
    names TEXT NOT NULL             -- JSON object: team -> player names
);
CREATE TABLE rounds (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    n INTEGER NOT NULL,             -- 1-based round number
    layout TEXT NOT NULL,           -- JSON layout (docs/layout.md)
    reading TEXT,                   -- the photo reading it came from, if any
    corrections TEXT NOT NULL,      -- JSON array of the corrections applied to that reading
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    PRIMARY KEY (game_id, n)
);
CREATE TABLE readings (
    id TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    result TEXT NOT NULL,           -- JSON of handfoot.results.PhotoScore
    files TEXT NOT NULL             -- JSON array: [{"name", "file", "annotated", "kind"}] under photos/<id>/
);
"""
#: migrations from version k to k + 1 (k = index); version 0 is an empty file
MIGRATIONS: tuple[str, ...] = (
    SCHEMA,
    "ALTER TABLE games ADD COLUMN deck TEXT",  # the deck profile the game's photos are read with (vision.decks)
    # the deck the game's saved rounds teach (handfoot.teaching; NULL: none), and each taught deck's last lesson
    "ALTER TABLE games ADD COLUMN teach TEXT; CREATE TABLE lessons (deck TEXT PRIMARY KEY, lesson TEXT NOT NULL)",
    # every change of a game counts up its version (ETag, If-Match); the first answers to Idempotency-Keys
    "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE answers (key TEXT PRIMARY KEY, request TEXT NOT NULL, status INTEGER NOT NULL, "
    "media_type TEXT NOT NULL, body BLOB NOT NULL, created TEXT NOT NULL, game TEXT)",
)
#: the schema this handfoot writes (``PRAGMA user_version``): every migration applied
SCHEMA_VERSION = len(MIGRATIONS)

ID_ALPHABET = set("0123456789abcdef")


def new_id() -> str:
    """A random 16-hex-digit id."""
    return secrets.token_hex(8)


def is_id(text: str) -> bool:
    """True for an id made by :func:`new_id` (so a path built from it stays in the data folder)."""
    return len(text) == 16 and set(text) <= ID_ALPHABET


def timestamp() -> str:
    """The time now as the ledger keeps it: UTC, ISO 8601 to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
