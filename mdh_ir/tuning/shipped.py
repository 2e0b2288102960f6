"""The shipped configurations, moved to `mdh_ir.database.shipped` (the compile driver
reads them); its names stay importable from here, and `python -m mdh_ir.tuning.shipped
DB...` still rewrites `shipped.json`."""

import sys

from mdh_ir.database.shipped import SHIPPED, best_entries, load, main, merge, shipped_config  # noqa: F401

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
