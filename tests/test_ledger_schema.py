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
