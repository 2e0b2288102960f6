"""The tuning database, moved to `mdh_ir.database.store` (the compile driver reads it);
its names stay importable from here."""

from mdh_ir.database.store import (  # noqa: F401
    OK,
    Database,
    Evaluation,
    canonical_ir,
    computation_key,
    default_path,
)
