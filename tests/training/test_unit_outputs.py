"""The per-unit outputs a killed dataset build or speech render resumes from (benchmark.execution.unit_outputs)."""

from __future__ import annotations

from pathlib import Path

from benchmark.execution.executors import WorkUnit
from benchmark.execution.unit_outputs import UnitOutputs

UNITS = [WorkUnit(number, "qt1", number * 2, 2) for number in range(4)]


def test_a_fresh_start_writes_the_state_and_clears_units_of_an_earlier_run(tmp_path: Path) -> None:
    outputs = UnitOutputs(tmp_path / "units", tmp_path / "build.json")
    assert outputs.earlier_state() is None  # nothing to resume
    outputs.begin("spec 1\n")
    outputs.write(UNITS[2], "two\n")
    again = UnitOutputs(tmp_path / "units", tmp_path / "build.json")
    assert again.earlier_state() == "spec 1\n" and again.kept(UNITS) == {2} and again.read(UNITS[2]) == "two\n"
    again.begin("spec 2\n")
    assert again.kept(UNITS) == set() and again.earlier_state() == "spec 2\n"


def test_a_unit_torn_by_a_kill_mid_write_is_not_kept_and_its_temp_file_goes(tmp_path: Path) -> None:
    outputs = UnitOutputs(tmp_path / ".render", tmp_path / ".render" / "render.json")
    outputs.begin("{}\n")
    outputs.write(UNITS[0], "[]")
    torn = tmp_path / ".render" / f".{UNITS[1].file_name}.k1ll3d.tmp"  # write_atomically's temp, never renamed
    torn.write_text("[")
    assert outputs.kept(UNITS) == {0}
    assert not torn.exists() and (tmp_path / ".render" / "render.json").read_text() == "{}\n"


def test_a_state_path_that_cannot_be_read_is_no_state(tmp_path: Path) -> None:
    (tmp_path / "build.json").mkdir()  # a directory where the state file should be
    assert UnitOutputs(tmp_path / "units", tmp_path / "build.json").earlier_state() is None
