"""``get_device_structure`` in SimuHome's shape, with the metadata SimuHome loses.

``{device_id, device_type, endpoints:{"<ep>":{clusters:{Cid:{cluster_id, attributes:{Aid:{value, type,
readonly, [enum_name, enum_values], [constraint]}}, commands:[{name, arguments}]}}}}}``

Differences from SimuHome (facts §2.1, bug 14), all additive: ``value`` stays the raw integer of an
enum (what get_attribute returns and write_attribute takes) and ``enum_name`` is the name of that
value, ``enum_values`` maps names → integers for every enum (also after a home is loaded);
``commands`` lists objects ``{name, arguments:[{name, type, required, default, constraint, aliases,
enum_values}]}``
instead of bare names; the four list-valued global attributes (AttributeList, AcceptedCommandList,
GeneratedCommandList, EventList) are left out (get_all_attributes has them).
"""

from __future__ import annotations

from typing import Any

from clusters import SERVER_CLASSES
from clusters.chip_model import GLOBAL_LIST_ATTRIBUTES
from clusters.values import enum_members
from emulator.home_api import HomeAPI


def _attribute(entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"value": entry["value"], "type": entry["type"], "readonly": not entry["writable"]}
    enum_values = entry.get("enum_values")
    if enum_values is not None:
        names = [name for name, number in enum_values.items() if number == entry["value"]]
        out["enum_name"] = names[0] if names else None
        out["enum_values"] = enum_values
    if "constraint" in entry:
        out["constraint"] = entry["constraint"]
    return out


def _arguments(cluster: str, command: str, described: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fabric's argument descriptions, plus the members of enum-typed arguments."""
    server_class = SERVER_CLASSES.get(cluster)  # a real device may serve clusters the emulator does not
    spec = server_class.declared_command(command) if server_class is not None else None
    if spec is None:
        return described
    out = []
    for field, entry in zip(spec.model.fields, described, strict=True):
        out.append({**entry, "enum_values": enum_members(field.type.base)} if field.type.is_enum else entry)
    return out


def device_structure(fabric: HomeAPI, device_id: str) -> dict[str, Any]:
    described = fabric.describe_device(device_id)
    endpoints: dict[str, Any] = {}
    for ep, endpoint in described["endpoints"].items():
        clusters: dict[str, Any] = {}
        for name, cluster in endpoint["clusters"].items():
            clusters[name] = {
                "cluster_id": name,
                "attributes": {
                    a: _attribute(e) for a, e in cluster["attributes"].items() if a not in GLOBAL_LIST_ATTRIBUTES
                },
                "commands": [
                    {"name": c, "arguments": _arguments(name, c, spec["arguments"])}
                    for c, spec in cluster["commands"].items()
                ],
            }
        endpoints[ep] = {"clusters": clusters}
    return {
        "device_id": described["device_id"],
        "device_type": described["device_type"],
        "room_id": described["room_id"],
        "endpoints": endpoints,
    }
