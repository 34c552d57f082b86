"""JSON-style values ↔ Matter TLV over the official chip types: every attribute of every cluster server."""

from __future__ import annotations

import math
import struct

import chip.clusters.Objects as Objects
import pytest
from chip.tlv import TLVReader

from bridge.matter.codec import tlv
from bridge.matter.codec.values_tlv import decode_fields, decode_value, encode_fields, encode_value
from clusters import SERVER_CLASSES, ClusterServer, HomeError, Status
from clusters.chip_model import cluster_model
from emulator.home_generation.device_types import ALL_DEVICE_TYPES
from tests.emulator.helpers import fabric


def _f32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def _same(a: object, b: object) -> bool:
    """Equal, with float32 rounding tolerated."""
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, int | float)
            and isinstance(b, int | float)
            and (a == b or math.isclose(float(a), float(b), rel_tol=1e-6) or _f32(float(a)) == _f32(float(b)))
        )
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        keys = {k for k, v in a.items() if v is not None} | {k for k, v in b.items() if v is not None}
        return all(_same(a.get(k), b.get(k)) for k in keys)
    return a == b


def _round_trip(value: object, info: object) -> object:
    data = encode_value(value, info)  # type: ignore[arg-type]
    return decode_value(tlv.decode(data), info)  # type: ignore[arg-type]


def _all_servers() -> list[tuple[str, ClusterServer]]:
    servers = []
    seen = set()
    home = fabric([(f"d_{t}", t, "room") for t in ALL_DEVICE_TYPES])
    for device in home.devices():
        for endpoint in device.endpoints.values():
            for name, server in endpoint.clusters.items():
                servers.append((f"{device.device_type}/{endpoint.endpoint_id}/{name}", server))
                seen.add(name)
    for name, server_class in SERVER_CLASSES.items():
        if name not in seen:
            servers.append((f"default/{name}", server_class()))
    return servers


def test_every_attribute_of_every_server_round_trips() -> None:
    checked = 0
    covered = set()
    for where, server in _all_servers():
        for name in server.attribute_names():
            info = server.model.attributes[name].type
            value = server.read(name)
            back = _round_trip(value, info)
            assert _same(back, value), f"{where}.{name}: {value!r} -> {back!r}"
            checked += 1
        covered.add(server.cluster_name)
    assert covered >= set(SERVER_CLASSES)
    assert checked > 500


def test_encoding_agrees_with_chip_objects() -> None:
    """Our bytes decode with chip's own cluster objects to the same values (tags and types right)."""
    home = fabric([("t", "thermostat", "r"), ("l", "extended_color_light", "r"), ("w", "laundry_washer", "r")])
    for device in home.devices():
        for endpoint in device.endpoints.values():
            for server in endpoint.clusters.values():
                chip_attrs = getattr(Objects, server.cluster_name).Attributes
                for name in server.attribute_names():
                    info = server.model.attributes[name].type
                    value = server.read(name)
                    raw = TLVReader(encode_value(value, info)).get()["Any"]
                    decoded = getattr(chip_attrs, name).FromTagDictOrRawValue(raw)
                    assert decoded is not None or value is None


def test_struct_fields_by_chip_tags_nullable_and_optional() -> None:
    info = cluster_model("AccessControl").attributes["Acl"].type
    entry = {"privilege": 5, "authMode": 2, "subjects": [0x1122], "targets": None, "fabricIndex": 1}
    obj = tlv.decode(encode_value([entry], info))
    assert obj == [{1: 5, 2: 2, 3: [0x1122], 4: None, 0xFE: 1}]
    assert decode_value(obj, info) == [entry]
    # A write from fabric 3: the server sets FabricIndex, whatever the client sent.
    assert decode_value(obj, info, fabric_index=3)[0]["fabricIndex"] == 3


def test_signed_unsigned_float_bytes_and_strings() -> None:
    mv = cluster_model("TemperatureMeasurement").attributes["MeasuredValue"].type
    assert encode_value(2150, mv)[0] == 0x01  # signed int16 even when positive
    assert encode_value(None, mv) == b"\x14"
    on = cluster_model("OnOff").attributes["OnOff"].type
    assert encode_value(True, on) == b"\x09"
    label = cluster_model("BasicInformation").attributes["NodeLabel"].type
    assert _round_trip("Küche", label) == "Küche"
    assert _round_trip("x" * 300, label) == "x" * 300
    level = cluster_model("LevelControl").attributes["CurrentLevel"].type
    assert encode_value(254, level) == b"\x04\xfe"
    assert encode_value(70000, cluster_model("OnOff").attributes["FeatureMap"].type)[0] == 0x06


@pytest.mark.parametrize(
    "obj, status",
    [
        ("text", Status.INVALID_DATA_TYPE),
        (-1, Status.INVALID_DATA_TYPE),
        (True, Status.INVALID_DATA_TYPE),
        (None, Status.INVALID_DATA_TYPE),
        ([1], Status.INVALID_DATA_TYPE),
    ],
)
def test_decode_refuses_wrong_types(obj: object, status: Status) -> None:
    info = cluster_model("LevelControl").attributes["OnLevel"].type  # nullable uint8
    if obj is None:
        assert decode_value(None, info) is None
        info = cluster_model("OnOff").attributes["OnTime"].type
    with pytest.raises(HomeError) as error:
        decode_value(obj, info)
    assert error.value.status == status


def test_command_fields() -> None:
    model = cluster_model("LevelControl").commands["MoveToLevel"]
    data = encode_fields(model.fields, {"level": 100, "transitionTime": None, "optionsMask": 0, "optionsOverride": 0})
    assert tlv.decode(data) == {0: 100, 1: None, 2: 0, 3: 0}
    assert decode_fields(model.fields, tlv.decode(data), "MoveToLevel") == {
        "level": 100,
        "transitionTime": None,
        "optionsMask": 0,
        "optionsOverride": 0,
    }
    with pytest.raises(HomeError) as error:
        decode_fields(model.fields, {0: "high"}, "MoveToLevel")
    assert error.value.status == Status.INVALID_COMMAND
    with pytest.raises(HomeError):
        decode_fields(model.fields, [1, 2], "MoveToLevel")


def test_event_fields_use_chip_descriptor() -> None:
    fields = [f for f in Objects.BasicInformation.Events.StartUp.descriptor.Fields]
    assert [(f.Label, f.Tag) for f in fields] == [("softwareVersion", 0)]
    (model,) = cluster_model("BasicInformation").events["StartUp"].fields
    assert (model.label, model.tag, model.type.base.__name__) == ("softwareVersion", 0, "uint")
