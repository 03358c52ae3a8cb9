"""The ledger's schema version is one per migration: a file opened again is not migrated again."""

from pathlib import Path


def test_a_new_ledger_opens_again(tmp_path: Path):
    from handfoot.ledger import _MIGRATIONS, SCHEMA_VERSION, Ledger

    assert SCHEMA_VERSION == len(_MIGRATIONS)
    Ledger.open(tmp_path / "h.db").close()
    ledger = Ledger.open(tmp_path / "h.db")  # before the fix: "duplicate column name: teach"
    try:
        assert ledger._conn().execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        ledger.close()


def test_a_ledger_of_schema_5_keeps_its_games_read_as_photographed(tmp_path: Path):
    """A ledger written before a game kept whether its cards are printed light on dark (schema 5) opens with its
    games, each read as photographed (``negative`` false), and its version is unchanged by the migration; set, the
    setting is kept with the game, counts its version up, and a stale version is refused."""
    import json
    import sqlite3

    import pytest

    from handfoot.errors import StaleError
    from handfoot.ledger import _MIGRATIONS, Ledger

    old = tmp_path / "old.db"
    conn = sqlite3.connect(old, isolation_level=None)
    for step in _MIGRATIONS[:5]:  # the file as handfoot left it before: schema 5
        if callable(step):
            step(conn)
        else:
            for statement in filter(str.strip, step.split(";")):
                conn.execute(statement)
    conn.execute("INSERT INTO games (id, created, rules, house_rules, teams, names, deck, teach, version) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", ("0123456789abcdef", "2026-12-01T20:00:00+00:00", "pagat", "{}",
                                                        json.dumps(["Us", "Them"]), "{}", None, None, 3))
    conn.execute("PRAGMA user_version = 5")
    conn.close()
    ledger = Ledger.open(old)
    try:
        game = ledger.game("0123456789abcdef")
        assert game.teams == ["Us", "Them"] and game.negative is False and game.version == 3
        assert ledger.set_negative(game.id, True, expect=3) == 4
        assert ledger.game(game.id).negative is True
        assert ledger.set_negative(game.id, True, expect=4) == 4  # as it is already: nothing changes
        with pytest.raises(StaleError):
            ledger.set_negative(game.id, False, expect=3)
        assert ledger.game(game.id).negative is True
        assert ledger.create_game("pagat", {}, ["A", "B"], {}, negative=True).negative
    finally:
        ledger.close()
