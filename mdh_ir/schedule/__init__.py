"""The schedule model: the configuration of an `mdh.compute` (`config`), the rules it
must satisfy on a device (`constraints`), the tile plan it makes (`tiling`), the default
for a device (`default_config`) and the facts of combine operators (`combine`). Below
the passes, above the dialects."""
