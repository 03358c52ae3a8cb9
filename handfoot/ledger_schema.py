"""The ledger file's layout (:mod:`handfoot.ledger`): its tables, the migrations that bring an older file up to
:data:`SCHEMA_VERSION` (SQLite's ``user_version``), and the ids and times its rows keep."""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
from datetime import datetime, timezone
from typing import Any, Callable

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
#: the JSON text columns of each table that may hold text a user typed (a team's or a player's name)
TEXT_COLUMNS = {"games": ("house_rules", "teams", "names"), "rounds": ("layout", "corrections"),
                "readings": ("result", "files"), "lessons": ("lesson",)}
#: a lone UTF-16 surrogate, in text parsed from JSON
_SURROGATE = re.compile("[\ud800-\udfff]")


def _replaced(item: Any) -> Any:
    """``item`` (a parsed JSON value) with each lone surrogate in its text, keys too, written as its escape: the six
    characters ``\\ud800``, so that two names differing only there stay two names."""
    if isinstance(item, str):
        return _SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", item)
    if isinstance(item, list):
        return [_replaced(v) for v in item]
    if isinstance(item, dict):
        return {_replaced(k): _replaced(v) for k, v in item.items()}
    return item


def repair_lone_surrogates(conn: sqlite3.Connection) -> int:
    """Rewrite each JSON text of :data:`TEXT_COLUMNS` holding a lone UTF-16 surrogate (an escape such as ``\\ud800``
    not paired with its other half, which an older handfoot stored in a team's name; an answer holding it cannot
    be written as UTF-8, so the games could not be listed) with the surrogate written as its escape, in plain
    characters (a team ``\\ud800`` is named ``\\ud800``, six characters). Returns how many texts were rewritten."""
    rewritten = 0
    for table, columns in TEXT_COLUMNS.items():
        for column in columns:
            rows = conn.execute(f"SELECT rowid, {column} FROM {table} WHERE instr(lower({column}), '\\ud') > 0")
            for rowid, text in rows.fetchall():
                doc = json.loads(text)
                repaired = _replaced(doc)
                if repaired != doc:  # not only whole characters written as their two escapes (an emoji)
                    conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (json.dumps(repaired), rowid))
                    rewritten += 1
    return rewritten


#: migrations from version k to k + 1 (k = index): SQL statements, or a function run on the connection; version 0
#: is an empty file
MIGRATIONS: tuple[str | Callable[[sqlite3.Connection], Any], ...] = (
    SCHEMA,
    "ALTER TABLE games ADD COLUMN deck TEXT",  # the deck profile the game's photos are read with (vision.decks)
    # the deck the game's saved rounds teach (handfoot.teaching; NULL: none), and each taught deck's last lesson
    "ALTER TABLE games ADD COLUMN teach TEXT; CREATE TABLE lessons (deck TEXT PRIMARY KEY, lesson TEXT NOT NULL)",
    # every change of a game counts up its version (ETag, If-Match); the first answers to Idempotency-Keys
    "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE answers (key TEXT PRIMARY KEY, request TEXT NOT NULL, status INTEGER NOT NULL, "
    "media_type TEXT NOT NULL, body BLOB NOT NULL, created TEXT NOT NULL, game TEXT)",
    repair_lone_surrogates,
    # the game's cards are printed light on dark (1): every phone reads its photos' negatives (the round page's box)
    "ALTER TABLE games ADD COLUMN negative INTEGER NOT NULL DEFAULT 0",
    # the game a game was started as the next of ("New game, same teams"; NULL: none said)
    "ALTER TABLE games ADD COLUMN follows TEXT",
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
