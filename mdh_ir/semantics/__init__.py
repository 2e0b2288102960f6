"""Reference semantics of `mdh.compute`: the oracle every lowering is tested against."""
