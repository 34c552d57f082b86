"""SimuHome attribute values ⇄ the Matter types inside the home.

SimuHome stores attribute values raw (facts §2.1), so its published homes carry shapes the Matter data model
does not have (``emulator/simuhome/shapes.json``). Import turns each into the Matter type and names what it
did (the *normalisation*, counted by ``homefabric episodes import``); export turns a Matter value back into
SimuHome's shape for that (device type, path). What a value cannot be turned into raises
:class:`UnreadableValue` with the JSON path inside the value.

Normalisations (one name each):

* ``struct-field-spelling`` — SimuHome's struct keys (``ModeTags``, ``operational_state_id``,
  ``MajorNumber``) become chip's field labels (``modeTags``, ``operationalStateID``, ``majorNumber``).
* ``mode-tag-ints`` — a mode's ``ModeTags`` as bare ints become ``ModeTagStruct {value}``.
* ``null-optional-field`` — ``null`` in a struct field that Matter makes optional but not nullable
  (``AccuracyRanges[*].FixedMax``) means the field is absent.
* ``null-optional-attribute`` — ``null`` for an optional, non-nullable attribute
  (``RelativeHumidityMeasurement.Tolerance``): the attribute is not implemented.
* ``tag-names`` — ``Descriptor.TagList`` as strings (``["Grid"]``) becomes SemanticTagStructs carrying the
  name as ``label``: Freezer/Refrigerator use the standard Refrigerator namespace (0x41); the other names have
  no standard tag and get a manufacturer tag of the CSA test vendor (0xFFF1), namespace 0.
* ``spin-speed-ids`` — ``LaundryWasherControls.SpinSpeeds`` as SimuHome's speed ids (0 Low … 3 Extra High)
  becomes Matter's list of labels, and ``SpinSpeedCurrent`` (SimuHome: a speed id) Matter's index into it.
* ``text-truncated`` — a BasicInformation name longer than Matter's 32 characters is cut to 32.
* ``descriptor-structure-kept`` — ``Descriptor`` DeviceTypeList/ServerList/ClientList/PartsList describe
  SimuHome's endpoint layout; the home derives its own from the device model, so these are compatibility
  values kept in the origin record and written back unchanged.

The original value always stays in the origin record: an unchanged value is exported verbatim.
"""

from __future__ import annotations

import functools
import json
import json.scanner
import re
from collections.abc import Mapping
from typing import Any

from emulator.simuhome.shapes import Shape, path_shapes

NORMALISATIONS = (
    "struct-field-spelling",
    "mode-tag-ints",
    "null-optional-field",
    "null-optional-attribute",
    "tag-names",
    "spin-speed-ids",
    "text-truncated",
    "descriptor-structure-kept",
)
# SimuHome cluster ids that differ from the chip.clusters.Objects class names we use.
SIMUHOME_CLUSTER_TO_CHIP = {
    "RVCRunMode": "RvcRunMode",
    "RVCCleanMode": "RvcCleanMode",
    "RVCOperationalState": "RvcOperationalState",
    "RTCCMode": "RefrigeratorAndTemperatureControlledCabinetMode",
}
CHIP_CLUSTER_TO_SIMUHOME = {chip: simu for simu, chip in SIMUHOME_CLUSTER_TO_CHIP.items()}


def chip_cluster_name(name: str) -> str:
    """SimuHome's cluster spelling (RVCRunMode, RTCCMode, …) → chip's; any other name is returned as is."""
    return SIMUHOME_CLUSTER_TO_CHIP.get(name, name)


def simuhome_cluster_name(name: str) -> str:
    """chip's cluster name → SimuHome's spelling where it differs; any other name is returned as is."""
    return CHIP_CLUSTER_TO_SIMUHOME.get(name, name)


SPIN_SPEED_LABELS = ("Low", "Medium", "High", "Extra High")  # SimuHome's speed ids 0..3 (facts §2.2)
DESCRIPTOR_STRUCTURE = frozenset({"DeviceTypeList", "ServerList", "ClientList", "PartsList"})
MAX_NAME = 32
TEST_VENDOR_ID = 0xFFF1
REFRIGERATOR_NAMESPACE = 0x41
STANDARD_TAGS = {"refrigerator": (REFRIGERATOR_NAMESPACE, 0), "freezer": (REFRIGERATOR_NAMESPACE, 1)}
_TEXT = frozenset({"VendorName", "ProductName"})

# Struct keys whose chip label the generic rule cannot derive (acronyms, SimuHome's capitalised ModeTags).
SIMUHOME_KEY_TO_OURS = {
    "operational_state_id": "operationalStateID",
    "operational_state_label": "operationalStateLabel",
    "error_state_id": "errorStateID",
    "error_state_label": "errorStateLabel",
    "error_state_details": "errorStateDetails",
    "forecast_id": "forecastID",
    "manufacturer_esa_state": "manufacturerESAState",
    "ModeTags": "modeTags",
}


class UnreadableValue(ValueError):
    """A SimuHome value that has no Matter meaning; ``where`` is the JSON path inside the value."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)


@functools.lru_cache(maxsize=4096)  # the same struct keys recur in every home
def our_key(key: str) -> str:
    """SimuHome struct key → chip field label: explicit table, then snake_case / PascalCase → lowerCamel."""
    if key in SIMUHOME_KEY_TO_OURS:
        return SIMUHOME_KEY_TO_OURS[key]
    if "_" in key:
        head, *rest = key.split("_")
        return head.lower() + "".join(part[:1].upper() + part[1:] for part in rest)
    # Lower the leading capitals, keeping the last one if it starts a word: ESAType → esaType, ID → id.
    match = re.match(r"[A-Z]+", key)
    if match is None:
        return key
    run = match.group(0)
    if len(run) > 1 and len(key) > len(run) and key[len(run)].islower():
        run = run[:-1]
    return run.lower() + key[len(run) :]


_SCALARS = frozenset({int, float, str, bool, type(None)})  # values with no struct keys to respell or fields to drop


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def spell_ours(value: Any, applied: set[str] | None = None) -> Any:
    """SimuHome's struct keys → chip labels; bare mode-tag ints → ModeTagStruct (recording what changed)."""
    if type(value) in _SCALARS:
        return value  # most values: nothing to spell
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = our_key(key)
            if name != key and applied is not None:
                applied.add("struct-field-spelling")
            if name == "modeTags" and isinstance(item, list):
                if applied is not None and any(is_number(tag) for tag in item):
                    applied.add("mode-tag-ints")
                item = [{"value": tag} if is_number(tag) else tag for tag in item]
            out[name] = spell_ours(item, applied)
        return out
    if isinstance(value, list):
        return [spell_ours(item, applied) for item in value]
    return value


# --- import ----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _chip_type(cluster: str, attribute: str) -> Any:
    from clusters.chip_model import cluster_model

    try:
        model = cluster_model(cluster).attribute(attribute)
    except (KeyError, ValueError, AttributeError):
        return None
    return model.type if model is not None else None


def _drop_null_optional_fields(value: Any, info: Any, applied: set[str]) -> Any:
    """Walk ``value`` along the chip type: struct fields that are null but optional-not-nullable go."""
    if info is None or type(value) in _SCALARS:
        return value
    if info.is_list and isinstance(value, list):
        return [_drop_null_optional_fields(item, info.element, applied) for item in value]
    if info.is_struct and isinstance(value, Mapping):
        types = {f.label: f.type for f in info.struct_fields}
        out = {}
        for key, item in value.items():
            field_type = types.get(key[:1].lower() + key[1:])
            if item is None and field_type is not None and field_type.optional and not field_type.nullable:
                applied.add("null-optional-field")
                continue
            out[key] = _drop_null_optional_fields(item, field_type, applied)
        return out
    return value


def _tag_struct(name: Any, index: int, where: str) -> dict[str, Any]:
    if isinstance(name, Mapping):
        return dict(name)
    if not isinstance(name, str):
        raise UnreadableValue(where, f"a tag must be a name or a SemanticTagStruct, got {name!r}")
    standard = STANDARD_TAGS.get(name.casefold())
    if standard is not None:
        return {"mfgCode": None, "namespaceID": standard[0], "tag": standard[1], "label": name}
    return {"mfgCode": TEST_VENDOR_ID, "namespaceID": 0, "tag": index, "label": name}


def _spin_label(speed: Any, where: str) -> str:
    if isinstance(speed, str):
        return speed
    if isinstance(speed, bool) or not isinstance(speed, int) or not 0 <= speed < len(SPIN_SPEED_LABELS):
        raise UnreadableValue(
            where, f"spin speed {speed!r} is not one of SimuHome's speed ids 0..3 ({', '.join(SPIN_SPEED_LABELS)})"
        )
    return SPIN_SPEED_LABELS[speed]


# import_value's scalar cases: a spin speed's id becomes its index, a vendor or product name over MAX_NAME is cut.
# Any other scalar value (null aside) is imported as it is.
_SCALAR_RULES = frozenset({("LaundryWasherControls", "SpinSpeedCurrent")})  # whatever the value
_KEPT_SCALARS = frozenset({int, float, str, bool})  # no struct keys, no fields, not null


def keeps_scalars(cluster: str, attribute: str) -> bool:
    """Whether :func:`import_value` returns this attribute's values unchanged when they are :func:`kept_as_it_is`."""
    return (cluster, attribute) not in _SCALAR_RULES


def kept_as_it_is(value: Any) -> bool:
    """A scalar :func:`import_value` returns unchanged for an attribute that :func:`keeps_scalars` (texts up to
    MAX_NAME: a longer name may be cut)."""
    kind = type(value)
    return kind in _KEPT_SCALARS and (kind is not str or len(value) <= MAX_NAME)


def import_value(cluster: str, attribute: str, value: Any, device: Mapping[str, Any], applied: set[str]) -> Any:
    """One SimuHome value (``cluster`` in chip's spelling) → the Matter value the home restores.

    ``device`` is the device's whole raw SimuHome attribute map (some values depend on a sibling);
    ``applied`` collects the names of the normalisations used.
    """
    if kept_as_it_is(value) and keeps_scalars(cluster, attribute):
        return value  # most values: nothing to spell, to map or to drop
    value = spell_ours(value, applied)
    if cluster == "Descriptor" and attribute == "TagList" and isinstance(value, list):
        if any(isinstance(tag, str) for tag in value):
            applied.add("tag-names")
        value = [_tag_struct(tag, index, f"[{index}]") for index, tag in enumerate(value)]
    elif cluster == "LaundryWasherControls" and attribute == "SpinSpeeds" and isinstance(value, list):
        if any(not isinstance(speed, str) for speed in value):
            applied.add("spin-speed-ids")
        value = [_spin_label(speed, f"[{index}]") for index, speed in enumerate(value)]
    elif cluster == "LaundryWasherControls" and attribute == "SpinSpeedCurrent":
        value = _spin_index(value, device, applied)
    elif cluster == "BasicInformation" and attribute in _TEXT and isinstance(value, str) and len(value) > MAX_NAME:
        applied.add("text-truncated")
        value = value[:MAX_NAME]
    info = _chip_type(cluster, attribute)
    if value is None and info is not None and info.optional and not info.nullable:
        applied.add("null-optional-attribute")
    return _drop_null_optional_fields(value, info, applied)


# A list or struct's import by (cluster, attribute, the value's repr): the same lists (a meter's Accuracy, a
# cabinet's SupportedModes) recur in every home, and walking one costs up to 0.1 ms. The import is kept as JSON
# text, each home gets its own copy; kept only when the value and its import are JSON data read back exactly.
IMPORTED_KEPT = 4096
_imported: dict[tuple[str, str, str], tuple[str, tuple[str, ...]] | None] = {}
# A kept import's copy: the JSON value at the start of its text (json.dumps wrote it: nothing before or after),
# json.loads less its two Python-level steps and whitespace matches (half the time of a copy).
_read_json_value = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed: context is a make_scanner; json passes its decoder


def import_list_or_struct(cluster: str, attribute: str, value: list[Any] | dict[str, Any], applied: set[str]) -> Any:
    """:func:`import_value` of a list or struct of an attribute that :func:`keeps_scalars` (whose import depends
    on the value alone, not on its device's other values)."""
    key = (cluster, attribute, repr(value))
    kept = _imported.get(key)
    if kept is not None:
        applied.update(kept[1])
        return _read_json_value(kept[0], 0)[0]
    used: set[str] = set()
    result = import_value(cluster, attribute, value, {}, used)
    applied.update(used)
    if key not in _imported:
        _imported[key] = _as_json_text(value, result, used)
        if len(_imported) > IMPORTED_KEPT:
            del _imported[next(iter(_imported))]
    return result


def _as_json_text(value: Any, result: Any, used: set[str]) -> tuple[str, tuple[str, ...]] | None:
    """(``result`` as JSON text, the normalisations used) when ``value`` and ``result`` read back from JSON exactly
    as they are (``repr``: the same types all the way down), else None: imported again each time."""
    try:
        texts = [json.dumps(item, ensure_ascii=False, allow_nan=False) for item in (value, result)]
    except (TypeError, ValueError):
        return None
    if any(repr(json.loads(text)) != repr(item) for text, item in zip(texts, (value, result), strict=True)):
        return None
    return texts[1], tuple(sorted(used))


def _raw_spin_speeds(device: Mapping[str, Any]) -> list[Any] | None:
    for path, value in device.items():
        if path.endswith(".LaundryWasherControls.SpinSpeeds") and isinstance(value, list):
            return value
    return None


def _spin_index(current: Any, device: Mapping[str, Any], applied: set[str]) -> Any:
    speeds = _raw_spin_speeds(device)
    if current is None or speeds is None or all(isinstance(s, str) for s in speeds):
        return current  # already Matter's index (or nothing to map against)
    applied.add("spin-speed-ids")
    if current in speeds:
        return speeds.index(current)
    if isinstance(current, int) and not isinstance(current, bool) and 0 <= current < len(speeds):
        return current  # SimuHome also accepts an index into SpinSpeeds
    raise UnreadableValue(
        "", f"spin speed {current!r} is neither a speed id in SpinSpeeds {speeds} nor an index into it"
    )


# --- export ------------------------------------------------------------------------------------------


def _simuhome_spin_id(label: Any) -> Any:
    if isinstance(label, str):
        folded = [s.casefold() for s in SPIN_SPEED_LABELS]
        if label.casefold() in folded:
            return folded.index(label.casefold())
    return label


def _tag_name(tag: Any) -> Any:
    if isinstance(tag, Mapping):
        label = tag.get("label")
        if isinstance(label, str):
            return label
        for name, (namespace, number) in STANDARD_TAGS.items():
            if tag.get("namespaceID") == namespace and tag.get("tag") == number and tag.get("mfgCode") is None:
                return name.title()
        return f"{tag.get('namespaceID')}.{tag.get('tag')}"
    return tag


def export_value(device_type: str, simuhome_path: str, value: Any, ours: Mapping[str, Any]) -> tuple[bool, Any]:
    """Our value at a path → SimuHome's shape there, from the shape table; (False, value) when the inventory
    has no shape for (device type, path). ``ours`` is the device's state in our paths (siblings)."""
    entry = path_shapes(device_type, simuhome_path)
    if entry is None:
        return False, value
    endpoint, _, attribute = simuhome_path.split(".")
    shapes = entry.parsed()
    if attribute == "TagList" and isinstance(value, list) and any(_item_kind(s) == "str" for s in shapes):
        value = [_tag_name(tag) for tag in value]
    elif attribute == "SpinSpeeds" and isinstance(value, list) and any(_item_kind(s) == "int" for s in shapes):
        value = [_simuhome_spin_id(label) for label in value]
    elif attribute == "SpinSpeedCurrent" and is_number(value):
        speeds = ours.get(f"{endpoint}.LaundryWasherControls.SpinSpeeds")
        spin_entry = path_shapes(device_type, f"{endpoint}.LaundryWasherControls.SpinSpeeds")
        if (
            isinstance(speeds, list)
            and spin_entry is not None
            and 0 <= value < len(speeds)
            and any(_item_kind(s) == "int" for s in spin_entry.parsed())
        ):
            value = _simuhome_spin_id(speeds[int(value)])
    if value is not None and [s.kind for s in shapes] == ["null"]:
        info = _chip_type(chip_cluster_name(simuhome_path.split(".")[1]), attribute)
        if info is not None and info.optional and not info.nullable:
            return True, None  # SimuHome's device does not implement it (e.g. a humidity sensor's Tolerance)
    return True, conform(value, _pick(shapes, value))


def _item_kind(shape: Shape) -> str | None:
    return shape.item.kind if shape.kind == "list" and shape.item is not None else None


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "str"
    return "list" if isinstance(value, list) else "struct"


def _pick(shapes: list[Shape], value: Any) -> Shape:
    """The inventory shape that fits ``value`` (null vs int, list vs null …), else the first."""
    kind = _kind_of(value)
    for shape in shapes:
        if (shape.kind in ("int", "float") and kind == "number") or shape.kind == kind:
            return shape
    return shapes[0]


def conform(value: Any, shape: Shape) -> Any:
    """Our value written in ``shape``: SimuHome's key spellings, bare ints for mode tags, ints vs floats,
    nulls for the struct fields SimuHome writes as null; fields SimuHome does not have are left out."""
    if value is None:
        return None
    if shape.kind == "float" and is_number(value):
        return float(value)
    if shape.kind == "int" and isinstance(value, float) and value.is_integer():
        return int(value)
    if shape.kind == "int" and isinstance(value, Mapping) and set(value) <= {"value", "mfgCode"}:
        return value.get("value")  # a ModeTagStruct SimuHome writes as its bare value
    if shape.kind == "list" and isinstance(value, list):
        if shape.item is None:
            return [spell_simuhome(item) for item in value]
        return [conform(item, shape.item) for item in value]
    if shape.kind == "struct" and isinstance(value, Mapping):
        by_label = {our_key(name): (name, sub) for name, sub in shape.fields}
        out = {}
        for key, item in value.items():
            if key in by_label:
                name, sub = by_label[key]
                out[name] = conform(item, sub)
        for name, sub in shape.fields:
            if name not in out and sub.kind == "null":
                out[name] = None
        return {name: out[name] for name, _ in shape.fields if name in out}
    return value


def spell_simuhome(value: Any) -> Any:
    """Without a shape: chip labels in PascalCase (SimuHome's most common struct spelling)."""
    if isinstance(value, Mapping):
        return {key[:1].upper() + key[1:]: spell_simuhome(item) for key, item in value.items()}
    if isinstance(value, list):
        return [spell_simuhome(item) for item in value]
    return value
