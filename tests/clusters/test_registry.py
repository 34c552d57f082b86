"""The registry covers the clusters the emulator promises, with official ids, and every command of
every server is exercised somewhere in the cluster tests."""

from __future__ import annotations

import re
from pathlib import Path

import chip.clusters.Objects as Objects

from clusters import SERVER_CLASSES

PROMISED = {
    "Descriptor", "BasicInformation", "BridgedDeviceBasicInformation", "Identify", "OnOff", "LevelControl",
    "ColorControl", "FanControl", "Thermostat", "TemperatureMeasurement", "RelativeHumidityMeasurement",
    "IlluminanceMeasurement", "OccupancySensing", "AirQuality", "Pm10ConcentrationMeasurement",
    "Pm25ConcentrationMeasurement", "BooleanState", "OperationalState", "DishwasherMode", "LaundryWasherMode",
    "LaundryWasherControls", "LaundryDryerControls", "RvcRunMode", "RvcCleanMode", "RvcOperationalState",
    "TemperatureControl", "RefrigeratorAndTemperatureControlledCabinetMode", "WindowCovering", "DoorLock",
    "MediaPlayback", "Channel", "KeypadInput", "WaterHeaterManagement", "WaterHeaterMode", "OvenMode",
    "OvenCavityOperationalState", "MicrowaveOvenControl", "ElectricalPowerMeasurement",
    "ElectricalEnergyMeasurement", "PowerSource",
}


def test_every_promised_cluster_has_a_server_with_official_ids() -> None:
    assert set(SERVER_CLASSES) >= PROMISED
    for name, server_class in SERVER_CLASSES.items():
        chip_cluster = getattr(Objects, name)
        assert server_class().cluster_id == chip_cluster.id
        for attribute in server_class.defaults:
            assert getattr(chip_cluster.Attributes, attribute).attribute_id == \
                server_class._model.attributes[attribute].attribute_id


def test_every_command_of_every_server_is_invoked_in_some_test() -> None:
    text = "\n".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    text += "\n".join(p.read_text() for p in Path(__file__).parent.parent.glob("emulator/test_*.py"))
    missing = []
    for name, server_class in sorted(SERVER_CLASSES.items()):
        for command in server_class._command_specs:
            if not re.search(rf"[\"']{command}[\"']", text):
                missing.append(f"{name}.{command}")
    assert not missing, f"commands never invoked by a test: {missing}"
