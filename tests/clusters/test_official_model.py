"""The committed official model (clusters/official_model.jsonl) is what scripts/official_model.py makes of the
installed chip, and the emulator reads the same facts from it as from chip.clusters.Objects, without importing it.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import typing

import chip.clusters.Objects as ChipObjects
import pytest
from chip.clusters.Types import Nullable

import clusters.official as Objects
from clusters import chip_model
from clusters.chip_model import MODEL_FILE, TypeInfo, cluster_model
from scripts.official_model import model_lines


def test_the_committed_file_is_what_the_installed_chip_generates() -> None:
    committed = MODEL_FILE.read_text(encoding="utf-8").splitlines()
    generated = model_lines()
    changed = [line[: line.index(",")] for line in sorted(set(committed) ^ set(generated))]
    assert committed == generated, f"rerun python scripts/official_model.py (changed: {changed[:8]})"


def _matches(info: TypeInfo, hint: typing.Any) -> None:
    """``info`` is chip's type ``hint``: same qualities, same base (names and members for enums and bitmaps)."""
    optional = nullable = False
    if typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None) and a is not Nullable]
        optional = type(None) in typing.get_args(hint)
        nullable = Nullable in typing.get_args(hint)
        (hint,) = args
    assert (info.optional, info.nullable) == (optional, nullable), hint
    if typing.get_origin(hint) is list:
        assert info.is_list
        _matches(info.element, typing.get_args(hint)[0])
    elif dataclasses.is_dataclass(hint):
        assert info.is_struct and info.name == hint.__name__
        fields = hint.descriptor.Fields
        assert [(f.label, f.tag) for f in info.struct_fields] == [(f.Label, f.Tag) for f in fields]
        for model, field in zip(info.struct_fields, fields, strict=True):
            if field.Type is not hint:  # a struct that holds itself
                _matches(model.type, field.Type)
    elif isinstance(hint, type) and issubclass(hint, ChipObjects.MatterIntEnum | ChipObjects.IntFlag):
        assert (info.is_enum, info.is_bitmap) == (
            issubclass(hint, ChipObjects.MatterIntEnum),
            issubclass(hint, ChipObjects.IntFlag),
        )
        assert info.name == hint.__name__
        assert {k: int(v) for k, v in info.base.__members__.items()} == {
            k: int(v) for k, v in typing.cast(typing.Any, hint).__members__.items()
        }
    else:
        assert info.base is hint


@pytest.mark.parametrize("name", chip_model.all_cluster_names())
def test_a_cluster_reads_as_chip_declares_it(name: str) -> None:
    chip_class = getattr(ChipObjects, name)
    model = cluster_model(name)
    assert model.cluster_id == chip_class.id == Objects.cluster(name).id
    by_tag = {f.Tag: f for f in chip_class.descriptor.Fields}
    for attr in model.attributes.values():
        chip_attr = getattr(chip_class.Attributes, attr.name)
        assert attr.attribute_id == chip_attr.attribute_id
        assert attr.timed_write == chip_attr.must_use_timed_write
        field = by_tag.get(attr.attribute_id)
        _matches(attr.type, field.Type if field is not None else chip_attr.attribute_type.Type)
    for command in model.commands.values():
        chip_command = getattr(chip_class.Commands, command.name)
        assert chip_command.is_client
        assert (command.command_id, command.response) == (chip_command.command_id, chip_command.response_type)
        assert [(f.label, f.tag) for f in command.fields] == [(f.Label, f.Tag) for f in chip_command.descriptor.Fields]
    for event in model.events.values():
        assert event.event_id == getattr(chip_class.Events, event.name).event_id


def test_official_spells_enums_and_bitmaps_as_chip_does() -> None:
    ours, theirs = Objects.DoorLock.Enums.DlLockState, ChipObjects.DoorLock.Enums.DlLockState
    assert [(m.name, int(m)) for m in ours] == [(m.name, int(m)) for m in theirs]
    assert ours(200) is ours.kUnknownEnumValue and theirs(200) is theirs.kUnknownEnumValue  # chip's MatterIntEnum
    assert str(ours.kLocked) == str(theirs.kLocked) and repr(ours.kLocked) == repr(theirs.kLocked)
    feature = Objects.OnOff.Bitmaps.Feature
    assert int(feature.kLighting | feature.kOffOnly) == int(ChipObjects.OnOff.Bitmaps.Feature(5))
    assert list(Objects.Globals.Enums.AreaTypeTag) == list(ChipObjects.Globals.Enums.AreaTypeTag)
    assert Objects.cluster("OnOff") is Objects.OnOff  # one namespace (and one class per enum) per process
    with pytest.raises(AttributeError, match="no cluster named 'NoSuchCluster'"):
        _ = Objects.NoSuchCluster
    with pytest.raises(AttributeError, match="OnOff has no enum named 'NoSuchEnum'"):
        _ = Objects.OnOff.Enums.NoSuchEnum
    with pytest.raises(KeyError, match="no cluster named 'NoSuchCluster'"):
        cluster_model("NoSuchCluster")


def test_every_type_the_model_names_resolves() -> None:
    """Each enum, bitmap and struct a field names exists in the file (its owner declares it)."""
    seen = 0
    for name in chip_model.all_cluster_names():
        model = cluster_model(name)
        fields = [f for c in model.commands.values() for f in c.fields] + [
            f for e in model.events.values() for f in e.fields
        ]
        for info in [a.type for a in model.attributes.values()] + [f.type for f in fields]:
            while info.is_list:
                info = info.element
            if info.is_struct:
                assert info.struct_fields is not None
            seen += 1
    assert len(chip_model.all_cluster_names()) > 100 and seen > 2000


def test_running_a_home_and_an_episode_does_not_import_chip_cluster_objects() -> None:
    code = (
        "import sys, asyncio, tempfile; from pathlib import Path\n"
        "import benchmark.runs.runner, emulator.emulated_home\n"
        "from emulator.emulated_home import EmulatedHome\n"
        "from emulator.home_generation.generator import generate_home\n"
        "from benchmark.generation.generate import generate_episodes, write_episodes\n"
        "from homefabric_cli.main import main\n"
        "EmulatedHome(generate_home('simuhome', 1)).devices()\n"
        "out = Path(tempfile.mkdtemp())\n"
        "write_episodes(generate_episodes(['qt1'], 1, 7), out / 'episodes')\n"
        "sys.argv = ['homefabric', 'bench', 'run', '--agent', 'oracle', '--episodes', str(out / 'episodes'),\n"
        "            '--out', str(out / 'run'), '--quiet']\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
        "assert any((out / 'run').rglob('*.jsonl')), 'no records written'\n"
        "print(sorted(m for m in sys.modules if m.startswith('chip.clusters')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "[]"
