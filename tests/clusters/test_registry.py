"""The registry covers the clusters the emulator promises, with official ids, and every command of
every server is really invoked by the cluster or emulator tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import chip.clusters.Objects as Objects
import pytest

from clusters import SERVER_CLASSES

ROOT = Path(__file__).resolve().parents[2]
# Handlers a server inherits but refuses whatever its features (the spec disallows them there); a test
# pins the refusal (test_operational_state.py::test_oven_cavity_accepts_start_and_stop_only).
NEVER_ACCEPTED = {("OvenCavityOperationalState", "Pause"), ("OvenCavityOperationalState", "Resume")}

PROMISED = {
    "Descriptor",
    "BasicInformation",
    "BridgedDeviceBasicInformation",
    "Identify",
    "OnOff",
    "LevelControl",
    "ColorControl",
    "FanControl",
    "Thermostat",
    "TemperatureMeasurement",
    "RelativeHumidityMeasurement",
    "IlluminanceMeasurement",
    "OccupancySensing",
    "AirQuality",
    "Pm10ConcentrationMeasurement",
    "Pm25ConcentrationMeasurement",
    "BooleanState",
    "OperationalState",
    "DishwasherMode",
    "LaundryWasherMode",
    "LaundryWasherControls",
    "LaundryDryerControls",
    "RvcRunMode",
    "RvcCleanMode",
    "RvcOperationalState",
    "TemperatureControl",
    "RefrigeratorAndTemperatureControlledCabinetMode",
    "WindowCovering",
    "DoorLock",
    "MediaPlayback",
    "Channel",
    "KeypadInput",
    "WaterHeaterManagement",
    "WaterHeaterMode",
    "OvenMode",
    "OvenCavityOperationalState",
    "MicrowaveOvenControl",
    "ElectricalPowerMeasurement",
    "ElectricalEnergyMeasurement",
    "PowerSource",
}


def test_every_promised_cluster_has_a_server_with_official_ids() -> None:
    assert set(SERVER_CLASSES) >= PROMISED
    for name, server_class in SERVER_CLASSES.items():
        chip_cluster = getattr(Objects, name)
        assert server_class().cluster_id == chip_cluster.id
        for attribute in server_class.defaults:
            assert (
                getattr(chip_cluster.Attributes, attribute).attribute_id
                == server_class._model.attributes[attribute].attribute_id
            )


def test_every_command_of_every_server_is_invoked_in_some_test(tmp_path: Path) -> None:
    # Counts real invocations: the cluster and emulator tests run once more with every command that
    # reaches a server recorded (tests/clusters/invocation_recorder.py), not mentions in their text.
    out = tmp_path / "invocations.json"
    this = f"{Path(__file__).relative_to(ROOT)}::test_every_command_of_every_server_is_invoked_in_some_test"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "tests/clusters",
            "tests/emulator",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.clusters.invocation_recorder",
            "--deselect",
            this,
        ],
        cwd=ROOT,
        env={**os.environ, "HOMEFABRIC_INVOCATIONS_OUT": str(out)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.exists(), f"the recording run wrote nothing:\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
    invoked = {tuple(pair) for pair in json.loads(out.read_text())}
    for name, command in NEVER_ACCEPTED:
        assert not SERVER_CLASSES[name]().accepts(command) and (name, command) not in invoked
    missing = [
        f"{name}.{command}"
        for name, server_class in sorted(SERVER_CLASSES.items())
        for command in server_class._command_specs
        if (server_class.cluster_name, command) not in invoked | NEVER_ACCEPTED
    ]
    assert not missing, f"commands never invoked by a cluster or emulator test: {missing}"


def test_the_lazy_registry_table_names_every_server_of_the_package_once() -> None:
    """clusters.registry imports a server's module on its first lookup, by SERVER_MODULES: the table must list
    every server the package's modules define, in its own module, and no cluster twice."""
    from clusters.registry import SERVER_MODULES, defined_servers, server_modules

    defined: dict[str, str] = {}
    for module_name in server_modules():
        for cluster_name in defined_servers(module_name):
            assert cluster_name not in defined, (
                f"two servers for {cluster_name}: {defined[cluster_name]}, {module_name}"
            )
            defined[cluster_name] = module_name
    assert defined == SERVER_MODULES
    for cluster_name, module_name in SERVER_MODULES.items():
        assert SERVER_CLASSES[cluster_name].__module__ == module_name


def test_importing_the_package_loads_no_server_module() -> None:
    """A process imports the servers its homes use, on first lookup (a bench run starts smaller)."""
    probe = "import sys, clusters; print(sorted(m for m in sys.modules if m.startswith('clusters.')))"
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout.replace("'", '"')
    )
    from clusters.registry import SERVER_MODULES

    assert set(loaded) & set(SERVER_MODULES.values()) == set()


def test_a_loaded_module_serving_a_cluster_the_table_gives_elsewhere_fails_at_load() -> None:
    """The check made as each server module's classes are loaded: a second server for a cluster (or one missing
    from SERVER_MODULES) is a TypeError naming both places, not a silent pick of the table's one."""
    from clusters.on_off import OnOffServer
    from clusters.registry import check_listed

    check_listed("clusters.on_off", {"OnOff": OnOffServer})  # as listed: fine
    with pytest.raises(TypeError, match=r"OnOffServer in clusters.level_control serves OnOff, .*'clusters.on_off'"):
        check_listed("clusters.level_control", {"OnOff": OnOffServer})
