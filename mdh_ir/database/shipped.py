"""Tuned configurations that travel with the package (`shipped.json`).

The compile driver asks the user's tuning database first (`mdh_ir.driver.choose`); for a
computation it has never tuned, it takes the configuration shipped for the same device
(platform and device name; an entry measured with the same driver is preferred). A shipped
configuration is still checked against the device's limits before it is built.

`python -m mdh_ir.database.shipped DB...` rewrites `shipped.json` from tuning databases:
the best configuration (`Database.best`) of every (computation, device) they hold,
merged with the entries already shipped (a faster measurement on the same device
replaces one). Each entry also names the computation's family and shape keys and its sizes
(`store.describe`), so that tuning a new size starts from it (`mdh_ir.tuning.transfer`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mdh_ir.schedule.config import Config
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.database.store import Database, computation_key, describe, parse_computation, parse_config

SHIPPED = Path(__file__).with_name("shipped.json")


def load(path: Path | None = None) -> list[dict]:
    path = path or SHIPPED
    return json.loads(path.read_text()) if path.exists() else []


def shipped_config(op: ComputeOp, info: DeviceInfo, path: Path | None = None) -> Config | None:
    """The configuration shipped for `op` on this device (same platform and name)."""
    key, device = computation_key(op), info.key
    same_device = [
        e for e in load(path)
        if e["computation"] == key and e["device"].rsplit("|", 1)[0] == device.rsplit("|", 1)[0]
    ]  # fmt: skip
    if not same_device:
        return None
    entry = min(same_device, key=lambda e: (e["device"] != device, e["seconds"]))
    return parse_config(entry["config"], op)


def best_entries(db: Path) -> list[dict]:
    """The best evaluation (`Database.best`) of every (computation, device) in a database."""
    database = Database(db)
    entries = []
    for computation, device in database.tuned():
        best, ir = database.best(computation, device), database.ir(computation)
        if best is not None:
            known = describe(parse_computation(ir)) if ir is not None else {}  # no IR: no transfer keys
            entries.append(
                dict(computation=computation, device=device, config=best.config, seconds=best.seconds) | known
            )
    return entries


def merge(entries: list[dict], new: list[dict]) -> list[dict]:
    """`entries` with `new` added; per (computation, device) the fastest is kept."""
    best: dict[tuple[str, str], dict] = {}
    for e in [*entries, *new]:
        k = (e["computation"], e["device"])
        if k not in best or e["seconds"] < best[k]["seconds"]:
            best[k] = e
    return sorted(best.values(), key=lambda e: (e["device"], e["computation"]))


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m mdh_ir.database.shipped DB...", file=sys.stderr)
        return 1
    entries = load()
    for db in argv:
        entries = merge(entries, best_entries(Path(db)))
    SHIPPED.write_text(json.dumps(entries, indent=1) + "\n")
    print(f"{SHIPPED}: {len(entries)} configurations")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
