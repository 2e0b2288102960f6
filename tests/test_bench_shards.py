"""`python -m mdh_bench --gpus N` (`mdh_bench.shards`): the cases dealt over processes,
each running the real harness on its share (here on the CPU, `CUDA_VISIBLE_DEVICES`
set but unused), their results merged into one folder as a single process writes them."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest

from mdh_bench import shards
from mdh_bench.__main__ import parse_args, selection

CARDS = ["0", "1"]


def _setup(out: Path) -> tuple[list[list[str]], list[str], dict[str, list[str]]]:
    """Two processes' commands for the quick CPU matmul sweep (3 cases, untimed tuning)."""
    argv = ["--device", "cpu", "--quick", "--sweep", "cpu-matmul", "--budget", "none", "--peers", "numpy",
            "--repeats", "2", "--out", str(out)]  # fmt: skip
    args = parse_args(argv)
    cases, sweeps = selection(args)
    commands = [shards.command(argv, args, i, card, len(CARDS)) for i, card in enumerate(CARDS)]
    return commands, [c.name for c in cases], sweeps


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _section(text: str, key: str) -> str:
    return text[text.index(f"<!-- begin {key} -->") : text.index(f"<!-- end {key} -->")]


def test_share_deals_round_robin() -> None:
    names = [f"c{k}" for k in range(7)]
    assert [shards.share(names, i, 3) for i in range(3)] == [["c0", "c3", "c6"], ["c1", "c4"], ["c2", "c5"]]


def test_each_process_has_its_folder_and_database(tmp_path: Path) -> None:
    commands, _, _ = _setup(tmp_path)
    for card, argv in zip(CARDS, commands):
        here = tmp_path / f"gpu{card}"  # given last: overrides the command's --out and --db
        assert argv[-6:] == ["--out", str(here), "--db", str(here / "tuning.sqlite"), "--shard", f"{card}/2"]
    url = "postgresql://localhost:5432/tuning"  # a server is shared by every process
    args = parse_args(["--device", "gpu", "--db", url, "--gpus", "2"])
    assert shards.command([], args, 1, "1", 2)[-4:] == ["--db", url, "--shard", "1/2"]
    with pytest.raises(SystemExit):
        parse_args(["--device", "cpu", "--gpus", "2"])


def test_processes_merge_into_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every case once, in the sweep's order, in the CSV and in the sweep's section; the
    JSON and the run lines say which card of how many each case ran on."""
    commands, names, sweeps = _setup(tmp_path)
    assert len(names) == 3
    assert shards.run(commands, CARDS, tmp_path, "cpu", names, sweeps) == 0
    rows = _rows(tmp_path / "results_cpu.csv")
    assert [r["case"] for r in rows if r["variant"] == "ours default"] == names
    assert all(r["status"] == "ok" for r in rows if r["variant"] in ("ours default", "numpy"))
    runs = json.loads((tmp_path / "results_cpu.json").read_text())
    assert len(runs) == 2 and {(r["card"], r["cards"]) for r in runs.values()} == {("0", 2), ("1", 2)}
    card_of = {r["case"]: runs[r["run"]]["card"] for r in rows}
    assert card_of == {names[0]: "0", names[1]: "1", names[2]: "0"}

    text = (tmp_path / "RESULTS.md").read_text()
    assert text.count("<!-- begin cpu -->") == 1
    sweep = _section(text, "cpu sweep cpu-matmul")
    assert "3 of 3 cases measured" in sweep and all(sweep.count(f"| {n} |") == 1 for n in names)
    cpu = _section(text, "cpu")
    assert sum(line.startswith("| matmul |") for line in cpu.splitlines()) == 1
    for card in CARDS:
        assert f"card {card}, one of 2 cards of this kind" in cpu
    assert "3 of 12 cases measured" in _section(text, "cpu sweep cpu")

    err = capsys.readouterr().err
    assert f"[gpu 1] == {names[1]}" in err and f"[gpu 0] == {names[2]}" in err
    assert f"== {names[1]}" in (tmp_path / "gpu1" / "run.log").read_text()


def test_a_failing_process_keeps_the_others_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commands, names, sweeps = _setup(tmp_path)
    commands[1] = [sys.executable, "-c", "import sys; print('no device'); sys.exit(3)"]
    assert shards.run(commands, CARDS, tmp_path, "cpu", names, sweeps) == 1
    log = tmp_path / "gpu1" / "run.log"
    assert f"gpu 1 failed (exit 3): see {log}" in capsys.readouterr().err
    assert log.read_text() == "no device\n"
    rows = _rows(tmp_path / "results_cpu.csv")
    assert [r["case"] for r in rows if r["variant"] == "ours default"] == [names[0], names[2]]
    sweep = _section((tmp_path / "RESULTS.md").read_text(), "cpu sweep cpu-matmul")
    assert "2 of 3 cases measured" in sweep and f"| {names[1]} | not measured |" in sweep


def test_cards_of_one_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """The processes' cards: the first N GPUs visible (of `CUDA_VISIBLE_DEVICES` if set),
    refused if there are fewer or they differ."""
    from types import SimpleNamespace

    from mdh_ir import runtime

    def platform_with(*names: str) -> None:
        devices = [SimpleNamespace(name=n) for n in names]
        platform = SimpleNamespace(get_devices=lambda kind: devices)
        monkeypatch.setattr(runtime, "select_device", lambda spec: SimpleNamespace(platform=platform))

    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    platform_with("H100", "H100", "H100")
    assert shards.cards(2) == ["0", "1"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "5,6,7")
    assert shards.cards(3) == ["5", "6", "7"]
    with pytest.raises(SystemExit, match="3 GPUs visible"):
        shards.cards(4)
    platform_with("H100", "A100")
    with pytest.raises(SystemExit, match="the cards differ"):
        shards.cards(2)


def test_a_run_rewrites_every_written_sweep_section(tmp_path: Path) -> None:
    """A run rewrites the sections of every sweep RESULTS.md holds for its device, not
    only its own: a run's rows replace a former run's, whose number then goes to the
    next, so another sweep's rows would otherwise keep a stale run number. Sections of
    another device's sweeps and of sweeps no longer known are left alone."""
    (tmp_path / "RESULTS.md").write_text(
        "<!-- begin cpu sweep cpu-conv -->\nold\n<!-- end cpu sweep cpu-conv -->\n"
        "<!-- begin gpu sweep gpu-matmul -->\nold\n<!-- end gpu sweep gpu-matmul -->\n"
        "<!-- begin cpu sweep gone -->\nold\n<!-- end cpu sweep gone -->\n"
    )
    args = parse_args(["--device", "cpu", "--quick", "--sweep", "cpu-matmul", "--out", str(tmp_path)])
    _, sweeps = selection(args)
    assert sorted(sweeps) == ["cpu", "cpu-conv", "cpu-matmul"]
    args = parse_args(["--device", "cpu", "--quick", "--cases", "dot:8", "--out", str(tmp_path)])
    assert sorted(selection(args)[1]) == ["cpu-conv"]
