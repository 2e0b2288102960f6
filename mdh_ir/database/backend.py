"""Where a tuning database lives: an SQLite file, or a PostgreSQL database shared by the
workers of several hosts (`mdh_ir.database.store` holds the schema and the queries).

A backend connects, runs the store's SQL (written for SQLite's `?` parameters, in the
dialect both systems share: `ON CONFLICT ... DO NOTHING/UPDATE` upserts), and answers what
the store's check needs: the tables and their columns, the schema version, damage. Each
statement commits on its own; `transaction()` groups statements (a migration);
`initializing()` keeps other processes from creating or migrating the schema while one
checks, creates and migrates it; `exclusive()` is a transaction that no other process's
`exclusive()` overlaps (a count and the claim it allows, `Database.claim`).

SQLite: a file (or `:memory:`), WAL journal and a 60 s busy timeout so several processes
share it; the schema version is `user_version`.

PostgreSQL (`postgresql://user@host:port/database`, through psycopg 3): the tables live in
the schema `mdh_tuning` of that database (so other tables, in `public` of the same
database, are no foreign tables of it); the schema version is the schema's comment; an
advisory lock serializes creation and migration.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

URL_SCHEMES = ("postgresql://", "postgres://", "postgresql+psycopg://")
PG_SCHEMA = "mdh_tuning"
"""The PostgreSQL schema that holds the tuning tables."""
_PG_TYPES = {r"\bINTEGER PRIMARY KEY\b": "BIGSERIAL PRIMARY KEY", r"\bREAL\b": "DOUBLE PRECISION"}
"""SQLite column types of the store's schema and their PostgreSQL equivalents (SQLite's
REAL is a double; PostgreSQL's is a float)."""
_LOCK_KEY = 0x6D6468  # "mdh"
_CLAIM_LOCK = _LOCK_KEY + 1


def is_url(target: Path | str) -> bool:
    """Whether `target` names a PostgreSQL database rather than an SQLite file."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def shown(target: Path | str) -> str:
    """`target` as messages name it: a URL without its password."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", str(target))


BUSY_SECONDS = 60
"""How long an SQLite connection waits for another's lock."""


class SQLite:
    kind = "SQLite file"

    @staticmethod
    def errors() -> tuple[type[Exception], ...]:
        """What its operations raise when the database cannot be used."""
        return (sqlite3.Error,)

    def __init__(self, path: Path | str):
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.memory = str(path) == ":memory:"
        self.conn = sqlite3.connect(str(path), timeout=BUSY_SECONDS, isolation_level=None)
        self.conn.execute(f"PRAGMA busy_timeout = {BUSY_SECONDS * 1000}")

    def execute(self, sql: str, params: tuple = ()) -> Any:
        return self.conn.execute(sql, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """A transaction holding SQLite's write lock from its start (`transaction`)."""
        with self.transaction():
            yield

    @contextmanager
    def initializing(self) -> Iterator[None]:
        """The check only reads; creation is idempotent and a migration takes SQLite's
        write lock (`transaction`)."""
        yield

    def create(self, schema: str) -> None:
        """Switch to the WAL journal (outside any transaction), then create the tables.
        SQLite answers the switch "database is locked" at once, without waiting, while
        another connection opens the same new file (4 threads opening one: 11 of 300
        times): it is tried again until the busy timeout."""
        if not self.memory:
            deadline = time.monotonic() + BUSY_SECONDS
            while True:
                try:
                    self.conn.execute("PRAGMA journal_mode = WAL")
                    break
                except sqlite3.OperationalError as e:
                    if "locked" not in str(e) or time.monotonic() > deadline:
                        raise
                    time.sleep(0.01)
        self.conn.executescript(schema)

    def tables(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def columns(self, table: str) -> set[str]:
        return {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}

    def version(self) -> int:
        return self.conn.execute("PRAGMA user_version").fetchone()[0]

    def set_version(self, version: int) -> None:
        self.conn.execute(f"PRAGMA user_version = {version}")

    def damage(self) -> str | None:
        found = self.conn.execute("PRAGMA quick_check(1)").fetchone()[0]
        return None if found == "ok" else found


class PostgreSQL:
    kind = "PostgreSQL database"

    @staticmethod
    def errors() -> tuple[type[Exception], ...]:
        try:
            import psycopg
        except ImportError:
            return ()  # connecting raises `DriverMissing`
        return (psycopg.Error,)

    def __init__(self, url: str):
        try:
            import psycopg
        except ImportError:
            raise DriverMissing() from None
        self.conn = psycopg.connect(libpq_url(url), autocommit=True, connect_timeout=30)
        self.execute(f"SET search_path TO {PG_SCHEMA}")

    def execute(self, sql: str, params: tuple = ()) -> Any:
        return self.conn.execute(sql.replace("?", "%s"), params)  # type: ignore[arg-type]

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A transaction (a savepoint within one)."""
        with self.conn.transaction():
            yield

    @contextmanager
    def initializing(self) -> Iterator[None]:
        with self.transaction():
            self.execute("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,))
            yield

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """A transaction holding an advisory lock: under PostgreSQL's read committed, two
        transactions could each count before the other's insert."""
        with self.transaction():
            self.execute("SELECT pg_advisory_xact_lock(?)", (_CLAIM_LOCK,))
            yield

    def create(self, schema: str) -> None:
        self.execute(f"CREATE SCHEMA IF NOT EXISTS {PG_SCHEMA}")
        for sqlite_type, pg_type in _PG_TYPES.items():
            schema = re.sub(sqlite_type, pg_type, schema)
        for statement in filter(str.strip, schema.split(";")):
            self.execute(statement)

    def tables(self) -> set[str]:
        rows = self.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = ?", (PG_SCHEMA,))
        return {r[0] for r in rows}

    def columns(self, table: str) -> set[str]:
        rows = self.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ?",
            (PG_SCHEMA, table),
        )
        return {r[0] for r in rows}

    def version(self) -> int:
        row = self.execute(
            "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = ?", (PG_SCHEMA,)
        ).fetchone()
        return int(row[0]) if row and row[0] and row[0].isdigit() else 0

    def set_version(self, version: int) -> None:
        self.execute(f"COMMENT ON SCHEMA {PG_SCHEMA} IS '{int(version)}'")

    def damage(self) -> str | None:
        return None  # the server keeps its files consistent


class DriverMissing(OSError):
    def __init__(self):
        super().__init__("PostgreSQL needs psycopg: pip install -e '.[distributed]'")


def libpq_url(url: str) -> str:
    """`url` as libpq reads it (without SQLAlchemy's driver name)."""
    return re.sub(r"^postgres(ql)?(\+psycopg)?://", "postgresql://", url)


def backend_for(target: Path | str) -> type[SQLite] | type[PostgreSQL]:
    return PostgreSQL if is_url(target) else SQLite
