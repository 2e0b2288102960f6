"""The configuration of one `mdh.compute` for one device, and where it came from.

In order: the configuration the caller gives (`given`), else the op's own `#mdh.config`
(`op`), else the best one the tuning database knows for this computation and device
(`database`), else the one shipped with the package for this device (`shipped`), else
the default (`default`). A partial configuration is completed for the device by the
defaults (`complete_config`).

The database is only a cache: one that cannot be used (not a tuning database, damaged,
of a newer schema, its pick unparsable; `DatabaseError`) is passed over with one
`TuningDatabaseWarning` naming the file, and the shipped or default configuration taken.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from mdh_ir.schedule.config import Config
from mdh_ir.database.shipped import shipped_config
from mdh_ir.database.store import Database, DatabaseError, best_config, default_path
from mdh_ir.schedule.default_config import complete_config
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp

ORIGINS = ("given", "op", "database", "shipped", "default")


@dataclass(frozen=True)
class Choice:
    """The complete configuration of an op, and its origin (one of `ORIGINS`)."""

    config: Config
    origin: str


class TuningDatabaseWarning(UserWarning):
    """A tuning database passed over; the message names the file and why."""


def known_config(op: ComputeOp, info: DeviceInfo, database: Database | None = None) -> Choice | None:
    """The best configuration `database` knows for `op` on this device (by default the
    file or PostgreSQL database `default_path()` names, where it exists), else the one
    shipped for the device."""
    try:
        if database is None and (isinstance(path := default_path(), str) or path.exists()):
            database = Database(path)
        if database is not None and (known := best_config(database, op, info)) is not None:
            return Choice(known, "database")
    except DatabaseError as e:
        message = f"{e.path}: warning: tuning database not used: {e.reason}"
        warnings.warn(message, TuningDatabaseWarning, stacklevel=2)
    shipped = shipped_config(op, info)
    return None if shipped is None else Choice(shipped, "shipped")


def choose_config(
    op: ComputeOp, info: DeviceInfo, given: Config | None = None, database: Database | None = None
) -> Choice:
    """The configuration of `op` on `info` (module docstring); `op` then carries it."""
    if given is not None:
        origin = "given"
    elif op.config is not None:
        origin = "op"
    elif (known := known_config(op, info, database)) is not None:
        given, origin = known.config, known.origin
    else:
        origin = "default"
    if given is not None:
        op.config = given.to_attr()
    op.config = complete_config(op, info).to_attr()
    return Choice(Config.of(op), origin)
