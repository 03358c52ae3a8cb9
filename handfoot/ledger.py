"""The game ledger: games, their rounds and photo readings in one SQLite file that never loses a round.

The file is opened in WAL mode with ``synchronous=FULL``: a round is on disk when :meth:`Ledger.add_round`
returns, and a process killed at any moment leaves the file consistent. The schema's version is SQLite's
``user_version``; :meth:`Ledger.open` migrates an older file and refuses a newer one. Photos (originals and
annotated copies) lie in ``photos/<reading id>/`` beside the database file; nothing is read or written outside
that folder.

Rounds are stored as layouts (``docs/layout.md``) and scored when read, under the game's rules, so a
correction is re-scoring, never arithmetic on stored totals.

Here: the file's connections and write transactions, games and their versions, rounds, and the first answers to
Idempotency-Keys. The tables and their migrations are :mod:`handfoot.ledger_schema`; the photo readings, and the
check that one is scored once, :mod:`handfoot.readings_store`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from scorer.wording import counted

from .errors import ConflictError, NotFoundError, StaleError
# the file's layout, and the records below, can be imported from here too
from .ledger_schema import MIGRATIONS as _MIGRATIONS, SCHEMA as _SCHEMA  # noqa: F401
from .ledger_schema import ID_ALPHABET, SCHEMA_VERSION, is_id, new_id, timestamp  # noqa: F401
from .readings_store import ReadingsStore
from .renaming import renamed
from .records import (Answer, DiskError, GameRecord, LedgerError, ReadingRecord, RoundRecord,  # noqa: F401
                      SavedAs, cannot_write)

#: how long the first answer to an Idempotency-Key is kept, seconds
ANSWER_SECONDS = 24 * 3600


def _ledger_error(path: Path, exc: sqlite3.DatabaseError) -> LedgerError:
    if cannot_write(exc):
        return DiskError(f"the data folder {path.parent} cannot be written ({exc}): a read-only or full disk, or "
                         "no permission; nothing was changed")
    return LedgerError(f"{path}: not a handfoot database ({exc})")


class Ledger(ReadingsStore):
    """The SQLite file at ``path`` (created with its folder when missing), one connection per thread.

    Raises:
        LedgerError: from :meth:`open` and every method, for a file that is not a usable database.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.photos_dir = self.path.parent / "photos"
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._conns: list[sqlite3.Connection] = []
        #: held by :mod:`handfoot.games` while it numbers, scores and stores a round, so two rounds posted to
        #: one game at once become rounds n and n + 1
        self.rounds_lock = threading.RLock()
        #: called with (game id, its new version; 0 when just made, None once deleted) after every committed change
        #: of a game
        self.listeners: list[Callable[[str, int | None], None]] = []

    @classmethod
    def open(cls, path: str | Path) -> "Ledger":
        """Open (and create or migrate) the ledger at ``path``."""
        ledger = cls(path)
        try:
            ledger.path.parent.mkdir(parents=True, exist_ok=True)
            ledger.photos_dir.mkdir(exist_ok=True)
        except OSError as exc:
            made = ledger.path.parent.is_dir()  # the folder is there: its photos folder could not be made in it
            raise LedgerError(f"cannot {'write in' if made else 'create'} the data folder {ledger.path.parent}: "
                              f"{exc.strerror}" + (" (choose another --db)" if made else "")) from None
        ledger._migrate()
        return ledger

    # -- connection -----------------------------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
                conn.execute("PRAGMA foreign_keys=ON")
            except sqlite3.DatabaseError as exc:
                raise _ledger_error(self.path, exc) from None
            self._local.conn = conn
            with self._write_lock:
                self._conns.append(conn)
        return conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``), committed when the block ends without an error."""
        conn = self._conn()
        with self._write_lock:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise _disk_or(exc, self.path) from None
            try:
                yield conn
            except sqlite3.OperationalError as exc:
                conn.execute("ROLLBACK")
                raise _disk_or(exc, self.path) from None
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise _disk_or(exc, self.path) from None

    def _migrate(self) -> None:
        try:
            with self._write() as conn:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise LedgerError(f"{self.path} was written by a newer handfoot (schema {version}; this one "
                                      f"reads {SCHEMA_VERSION})")
                for step in _MIGRATIONS[version:]:
                    for statement in [step] if callable(step) else step.split(";"):
                        if callable(statement):
                            statement(conn)
                        elif statement.strip():
                            conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise _ledger_error(self.path, exc) from None

    def integrity(self) -> str:
        """``PRAGMA integrity_check``'s answer (``ok`` for a sound file)."""
        return self._conn().execute("PRAGMA integrity_check").fetchone()[0]

    def close(self) -> None:
        """Close every thread's connection."""
        with self._write_lock:
            for conn in self._conns:
                conn.close()
            self._conns.clear()
        self._local = threading.local()

    # -- games ------------------------------------------------------------------------------------------------
    def create_game(self, rules: str, house_rules: dict[str, Any], teams: list[str],
                    names: dict[str, list[str]], deck: str | None = None, teach: str | None = None,
                    negative: bool = False, follows: str | None = None) -> GameRecord:
        """Store a new game; ``negative``: its cards are printed light on dark; ``follows``: the id of the game it
        was started as the next of (None: none)."""
        game = GameRecord(new_id(), timestamp(), rules, dict(house_rules), list(teams), dict(names), deck, teach,
                          negative=negative)
        with self._write() as conn:
            conn.execute("INSERT INTO games (id, created, rules, house_rules, teams, names, deck, teach, negative, "
                         "follows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (game.id, game.created, game.rules, json.dumps(game.house_rules), json.dumps(game.teams),
                          json.dumps(game.names), deck, teach, int(negative), follows))
        self._tell(game.id, 0)
        return game

    def set_teach(self, game_id: str, deck: str | None) -> None:
        """Let the game's saved rounds teach the deck ``deck`` (None: teach none). Raises: NotFoundError."""
        with self._write() as conn:
            if conn.execute("UPDATE games SET teach = ? WHERE id = ?", (deck, game_id)).rowcount == 0:
                raise NotFoundError(f"no game {game_id!r}")
            version = self._changed(conn, game_id, None)
        self._tell(game_id, version)

    def teaching(self, deck: str) -> list[str]:
        """The ids of the games whose rounds teach ``deck``, oldest first."""
        rows = self._conn().execute("SELECT id FROM games WHERE teach = ? ORDER BY created, rowid", (deck,))
        return [r[0] for r in rows.fetchall()]

    def lesson(self, deck: str) -> dict[str, Any] | None:
        """The last lesson of ``deck`` (``handfoot.teaching.Lesson`` as a dict), or None."""
        row = self._conn().execute("SELECT lesson FROM lessons WHERE deck = ?", (deck,)).fetchone()
        return json.loads(row[0]) if row else None

    def set_lesson(self, deck: str, lesson: dict[str, Any]) -> None:
        """Keep ``lesson`` as the last lesson of ``deck``."""
        with self._write() as conn:
            conn.execute("INSERT INTO lessons (deck, lesson) VALUES (?, ?) ON CONFLICT(deck) DO UPDATE SET "
                         "lesson = excluded.lesson", (deck, json.dumps(lesson)))

    def set_deck(self, game_id: str, deck: str | None) -> None:
        """Read the game's photos with the deck profile ``deck`` (None: the stock reader). Raises: NotFoundError."""
        with self._write() as conn:
            if conn.execute("UPDATE games SET deck = ? WHERE id = ?", (deck, game_id)).rowcount == 0:
                raise NotFoundError(f"no game {game_id!r}")
            version = self._changed(conn, game_id, None)
        self._tell(game_id, version)

    def set_negative(self, game_id: str, negative: bool, expect: int | None = None) -> int:
        """Read the game's photos as their negatives (its cards printed light on dark) or as photographed, set from
        version ``expect`` of the game (None: any); set as it is already, nothing changes. Returns the game's
        version.

        Raises:
            NotFoundError: no such game; StaleError: the game is at another version than ``expect``.
        """
        with self._write() as conn:
            row = conn.execute("SELECT version, negative FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is not None and bool(row[1]) == negative and expect in (None, row[0]):
                return row[0]
            version = self._changed(conn, game_id, expect)
            conn.execute("UPDATE games SET negative = ? WHERE id = ?", (int(negative), game_id))
        self._tell(game_id, version)
        return version

    def rename_teams(self, game_id: str, teams: list[str], names: dict[str, list[str]] | None = None,
                     expect: int | None = None) -> int:
        """Name the game's teams ``teams`` (in seating order, as many as it has: the team in each seat takes its new
        name) and its players ``names`` (team -> player names; None: each team keeps its players), from version
        ``expect`` of the game (None: any), in one write: the game, every round's layout and corrections, and the
        photo reading each round was made from (:func:`handfoot.renaming.renamed`). When the game is named so
        already nothing changes, whatever ``expect`` (a rename sent again). Returns the game's version.

        Raises:
            NotFoundError: no such game; StaleError: the game is at another version than ``expect``;
            ValueError: another number of teams than the game's.
        """
        with self._write() as conn:
            row = conn.execute("SELECT version, teams, names FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise NotFoundError(f"no game {game_id!r}")
            old = json.loads(row[1])
            if len(teams) != len(old):
                raise ValueError(f"{counted(len(teams), 'team name')} for the {counted(len(old), 'team')} of the game")
            new_names = dict(zip(old, teams))
            players = renamed({"names": json.loads(row[2])}, new_names)["names"] if names is None else names
            if old == teams and players == json.loads(row[2]):
                return row[0]
            version = self._changed(conn, game_id, expect)
            conn.execute("UPDATE games SET teams = ?, names = ? WHERE id = ?",
                         (json.dumps(teams), json.dumps(players), game_id))
            rows = conn.execute("SELECT n, layout, reading, corrections FROM rounds WHERE game_id = ?",
                                (game_id,)).fetchall()
            for n, layout, reading, corrections in rows:
                conn.execute("UPDATE rounds SET layout = ?, corrections = ? WHERE game_id = ? AND n = ?",
                             (json.dumps(renamed(json.loads(layout), new_names)),
                              json.dumps(renamed(json.loads(corrections), new_names)), game_id, n))
                result = conn.execute("SELECT result FROM readings WHERE id = ?", (reading,)).fetchone()
                if result is not None:
                    conn.execute("UPDATE readings SET result = ? WHERE id = ?",
                                 (json.dumps(renamed(json.loads(result[0]), new_names)), reading))
        self._tell(game_id, version)
        return version

    def game(self, game_id: str) -> GameRecord:
        """Raises: NotFoundError."""
        row = self._conn().execute("SELECT id, created, rules, house_rules, teams, names, deck, teach, version, "
                                   "negative FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no game {game_id!r}")
        return GameRecord(row[0], row[1], row[2], json.loads(row[3]), json.loads(row[4]), json.loads(row[5]),
                          row[6], row[7], row[8], bool(row[9]))

    def version(self, game_id: str) -> int:
        """The game's version: 0 when made, one more after each change. Raises: NotFoundError."""
        row = self._conn().execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no game {game_id!r}")
        return row[0]

    def check_version(self, game_id: str, expect: int | None) -> None:
        """Raise StaleError when the game is not at version ``expect`` (None: any), before work is done on a
        change (the change itself checks again as it is written). Raises: NotFoundError."""
        version = self.version(game_id)
        if expect is not None and version != expect:
            raise _stale(game_id, version, expect)

    def _changed(self, conn: sqlite3.Connection, game_id: str, expect: int | None) -> int:
        """Inside a write: refuse a change made from ``expect`` (a version the writer saw; None: any) when the
        game is at another version now (StaleError), else count the version up. Returns the new version."""
        row = conn.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no game {game_id!r}")
        if expect is not None and row[0] != expect:
            raise _stale(game_id, row[0], expect)
        conn.execute("UPDATE games SET version = ? WHERE id = ?", (row[0] + 1, game_id))
        return row[0] + 1

    def _tell(self, game_id: str, version: int | None) -> None:
        for listener in list(self.listeners):
            try:
                listener(game_id, version)
            except Exception:  # a listener's fault never undoes a committed change
                pass

    def games(self) -> list[GameRecord]:
        """Every game, newest first."""
        rows = self._conn().execute("SELECT id FROM games ORDER BY created DESC, rowid DESC").fetchall()
        return [self.game(r[0]) for r in rows]

    def game_after(self, game_id: str, since: str) -> str | None:
        """The id of the newest game made after game ``game_id`` and not before ``since`` (an ISO 8601 time as kept
        here) that was started as its next (``follows`` it, whatever its teams are called) or has the same teams
        (the same names, in any seating order), or None. Raises: NotFoundError."""
        conn = self._conn()
        row = conn.execute("SELECT rowid, teams FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no game {game_id!r}")
        teams = sorted(json.loads(row[1]))
        later = conn.execute("SELECT id, teams, follows FROM games WHERE rowid > ? AND created >= ? "
                             "ORDER BY rowid DESC", (row[0], since))
        return next((found for found, names, follows in later
                     if follows == game_id or sorted(json.loads(names)) == teams), None)

    def delete_game(self, game_id: str, expect: int | None = None) -> None:
        """Delete a game and its rounds, made from version ``expect`` of the game (None: any).

        Raises:
            NotFoundError: no such game; StaleError: the game is at another version than ``expect``.
        """
        with self._write() as conn:
            row = conn.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is not None and expect is not None and row[0] != expect:
                raise _stale(game_id, row[0], expect)
            conn.execute("DELETE FROM rounds WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM answers WHERE game = ?", (game_id,))  # a request made again makes it anew
            if conn.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount == 0:
                raise NotFoundError(f"no game {game_id!r}")
        self._tell(game_id, None)

    # -- rounds -----------------------------------------------------------------------------------------------
    def rounds(self, game_id: str) -> list[RoundRecord]:
        rows = self._conn().execute("SELECT n, layout, reading, corrections, created, updated FROM rounds "
                                    "WHERE game_id = ? ORDER BY n", (game_id,)).fetchall()
        return [RoundRecord(r[0], json.loads(r[1]), r[2], json.loads(r[3]), r[4], r[5]) for r in rows]

    def add_round(self, game_id: str, n: int, layout: dict[str, Any], reading: str | None,
                  corrections: list[Any], expect: int | None = None) -> int:
        """Store round ``n`` (the caller checked it is the next one; a round already there is a conflict), made
        from version ``expect`` of the game (None: any). Returns the game's new version.

        Raises:
            StaleError: the game is at another version; ConflictError: round ``n`` is not the next, or the photo
            reading is already a round.
        """
        now = timestamp()
        with self._write() as conn:
            self._once(conn, reading, game_id, None)
            version = self._changed(conn, game_id, expect)
            have = conn.execute("SELECT COUNT(*) FROM rounds WHERE game_id = ?", (game_id,)).fetchone()[0]
            if have != n - 1:
                raise ConflictError(f"round {n} cannot be added: the game has {counted(have, 'round')}")
            conn.execute("INSERT INTO rounds VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (game_id, n, json.dumps(layout), reading, json.dumps(corrections), now, now))
        self._tell(game_id, version)
        return version

    def replace_round(self, game_id: str, n: int, layout: dict[str, Any], reading: str | None,
                      corrections: list[Any], expect: int | None = None) -> int:
        """Replace round ``n``, made from version ``expect`` of the game (None: any). Returns the new version.

        Raises:
            NotFoundError: the round is not there; StaleError, ConflictError: as :meth:`add_round`.
        """
        with self._write() as conn:
            self._once(conn, reading, game_id, n)
            version = self._changed(conn, game_id, expect)
            cur = conn.execute("UPDATE rounds SET layout = ?, reading = ?, corrections = ?, updated = ? "
                               "WHERE game_id = ? AND n = ?",
                               (json.dumps(layout), reading, json.dumps(corrections), timestamp(), game_id, n))
            if cur.rowcount == 0:
                raise NotFoundError(f"game {game_id} has no round {n}")
        self._tell(game_id, version)
        return version

    def delete_round(self, game_id: str, n: int, expect: int | None = None) -> int:
        """Remove round ``n``; the rounds after it move up one (their layouts' ``round`` too), as if it had
        never been played. ``expect``: as :meth:`add_round`. Returns the new version.

        Raises:
            NotFoundError: no such round; StaleError: the game is at another version than ``expect``.
        """
        with self._write() as conn:
            version = self._changed(conn, game_id, expect)
            last = conn.execute("SELECT MAX(n) FROM rounds WHERE game_id = ?", (game_id,)).fetchone()[0]
            if last is None or not 1 <= n <= last:
                raise NotFoundError(f"game {game_id} has no round {n}")
            conn.execute("DELETE FROM rounds WHERE game_id = ? AND n = ?", (game_id, n))
            later = conn.execute("SELECT n, layout FROM rounds WHERE game_id = ? AND n > ? ORDER BY n",
                                 (game_id, n)).fetchall()
            for k, layout in later:
                doc = json.loads(layout)
                doc["round"] = k - 1
                conn.execute("UPDATE rounds SET n = ?, layout = ?, updated = ? WHERE game_id = ? AND n = ?",
                             (k - 1, json.dumps(doc), timestamp(), game_id, k))
        self._tell(game_id, version)
        return version

    # -- first answers to Idempotency-Keys -------------------------------------------------------------------------
    def answer(self, key: str) -> Answer | None:
        """The first answer kept for ``key`` (within :data:`ANSWER_SECONDS`), or None."""
        row = self._conn().execute("SELECT request, status, media_type, body, created, game FROM answers "
                                   "WHERE key = ?", (key,)).fetchone()
        if row is None or _age(row[4]) > ANSWER_SECONDS:
            return None
        return Answer(row[0], row[1], row[2], bytes(row[3]), row[5])

    def keep_answer(self, key: str, answer: Answer) -> None:
        """Keep the first answer to ``key`` (those older than :data:`ANSWER_SECONDS` are forgotten)."""
        old = datetime.fromtimestamp(datetime.now(timezone.utc).timestamp() - ANSWER_SECONDS, timezone.utc)
        with self._write() as conn:
            conn.execute("DELETE FROM answers WHERE created < ?", (old.isoformat(timespec="seconds"),))
            conn.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (key, answer.request, answer.status, answer.media_type, answer.body, timestamp(), answer.game))


def _disk_or(exc: sqlite3.OperationalError, path: Path) -> Exception:
    """A write SQLite refused: DiskError when the disk cannot be written (:func:`_ledger_error`), else the error
    itself."""
    return _ledger_error(path, exc) if cannot_write(exc) else exc


def _stale(game_id: str, version: int, expect: int) -> StaleError:
    return StaleError(f"the game was changed on another phone (it is at version {version}; this change was made "
                      f"from version {expect}): look at it again, then redo the change", game_id, version)


def _age(created: str) -> float:
    """Seconds since an ISO 8601 time kept by :func:`timestamp`."""
    return datetime.now(timezone.utc).timestamp() - datetime.fromisoformat(created).timestamp()
