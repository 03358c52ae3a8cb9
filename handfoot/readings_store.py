"""The photo readings part of the ledger (:class:`handfoot.ledger.Ledger` is one): each reading's row, its
photos' folder ``photos/<reading id>/``, and the check that a photo reading, or a photo of the same bytes, is
scored once."""

from __future__ import annotations

import json
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Callable

from .errors import ConflictError, NotFoundError
from .ledger_schema import is_id, timestamp
from .records import ReadingRecord, SavedAs


class ReadingsStore:
    """The photo readings kept in a ledger's SQLite file and photos folder; a base of
    :class:`handfoot.ledger.Ledger`, which gives it its connection, write transactions and ``photos_dir``.

    Raises:
        LedgerError: from every method, for a file that is not a usable database.
    """

    photos_dir: Path
    _conn: Callable[[], sqlite3.Connection]
    _write: Callable[[], AbstractContextManager[sqlite3.Connection]]

    def reading_dir(self, reading_id: str) -> Path:
        """``photos/<id>/`` of a reading. Raises NotFoundError for a string that is not an id."""
        if not is_id(reading_id):
            raise NotFoundError(f"no photo reading {reading_id!r}")
        return self.photos_dir / reading_id

    def add_reading(self, reading_id: str, result: str, files: list[dict[str, str]]) -> None:
        with self._write() as conn:
            conn.execute("INSERT INTO readings VALUES (?, ?, ?, ?)",
                         (reading_id, timestamp(), result, json.dumps(files)))

    def reading(self, reading_id: str) -> ReadingRecord:
        """Raises: NotFoundError."""
        row = self._conn().execute("SELECT id, created, result, files FROM readings WHERE id = ?",
                                   (reading_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no photo reading {reading_id!r}")
        return ReadingRecord(row[0], row[1], row[2], json.loads(row[3]))

    # -- a reading, and a photo, scored once ------------------------------------------------------------------
    def check_once(self, reading: str | None, game_id: str, n: int | None = None) -> None:
        """Raise ConflictError when the photo reading is already a round (other than round ``n`` of the game),
        before work is done on a round (the write checks again)."""
        self._once(self._conn(), reading, game_id, n)

    def saved_as(self, reading: str, game_id: str, n: int | None = None) -> SavedAs | None:
        """Where the photo reading ``reading`` is already scored, other than as round ``n`` of game ``game_id``:
        a round of any game made from this very reading, else the first round of this game with a photo of the
        same bytes (each photo's sha256 is kept with its reading); None when neither."""
        return self._saved_as(self._conn(), reading, game_id, n)

    def _once(self, conn: sqlite3.Connection, reading: str | None, game_id: str, n: int | None) -> None:
        """Refuse (ConflictError naming the game and round) a photo reading that is already another round (a
        reading becomes one round), or one with a photo of the same bytes as a photo of another round of the game
        (the same photo sent twice, or by two phones)."""
        found = self._saved_as(conn, reading, game_id, n) if reading else None
        if found is not None:
            raise ConflictError(found.message, game=found.game, round=found.round)

    def _saved_as(self, conn: sqlite3.Connection, reading: str, game_id: str, n: int | None) -> SavedAs | None:
        row = conn.execute("SELECT game_id, n FROM rounds WHERE reading = ? AND NOT (game_id = ? AND n IS ?) "
                           "ORDER BY game_id != ?, n LIMIT 1", (reading, game_id, n, game_id)).fetchone()
        if row is not None:
            where = f"round {row[1]}" + ("" if row[0] == game_id else f" of game {row[0]}")
            return SavedAs(row[0], row[1], reading, None,
                           f"this photo reading is already {where}: a reading is saved once (correct {where} instead)")
        row = conn.execute(
            "SELECT r.n, json_extract(mine.value, '$.name'), r.reading FROM readings x, json_each(x.files) mine, "
            "rounds r JOIN readings y ON y.id = r.reading, json_each(y.files) theirs WHERE x.id = ? AND "
            "r.game_id = ? AND r.reading != ? AND r.n IS NOT ? AND json_extract(mine.value, '$.sha256') = "
            "json_extract(theirs.value, '$.sha256') ORDER BY r.n LIMIT 1", (reading, game_id, reading, n)).fetchone()
        if row is not None:
            return SavedAs(game_id, row[0], row[2], row[1],
                           f"{row[1]} is already scored in round {row[0]} (the same photo, sent again or from another "
                           f"phone): a photo is scored once (correct round {row[0]} instead)")
        return None
