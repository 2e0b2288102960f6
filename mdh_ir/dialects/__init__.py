"""The dialects of mdh_ir: `mdh` (high level) and `lowlevel` (explicit decisions)."""
