"""Our struct keys and values → SimuHome's spelling where no inventory shape says how (facts §2.2).

The other direction (SimuHome's keys → chip field labels) is ``emulator.simuhome.values.spell_ours``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from emulator.simuhome.values import SIMUHOME_KEY_TO_OURS, is_number, our_key

OUR_KEY_TO_SIMUHOME = {ours: simu for simu, ours in SIMUHOME_KEY_TO_OURS.items()}

# How SimuHome spells struct keys per cluster when no original value shows it (facts §2.2).
KeyStyle = Literal["camel", "pascal", "snake"]
SIMUHOME_KEY_STYLE: dict[str, KeyStyle] = {
    "Channel": "pascal",
    "Descriptor": "pascal",
    "RvcRunMode": "pascal",
    "OperationalState": "snake",
    "RvcOperationalState": "snake",
    "DeviceEnergyManagement": "snake",
}


def simuhome_key(key: str, cluster: str) -> str:
    """Chip field label → SimuHome's spelling for ``cluster`` (used when no original value shows it)."""
    if key in OUR_KEY_TO_SIMUHOME:
        return OUR_KEY_TO_SIMUHOME[key]
    style = SIMUHOME_KEY_STYLE.get(cluster, "camel")
    if style == "pascal":
        return key[:1].upper() + key[1:]
    if style == "snake":
        return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower()
    return key


def to_simuhome_value(value: Any, cluster: str, template: Any = None) -> Any:
    """Our value → SimuHome's spelling, following ``template`` (the original value) where it shows one."""
    if isinstance(value, Mapping):
        spelled = {our_key(k): k for k in template} if isinstance(template, Mapping) else {}
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = spelled.get(key) or simuhome_key(key, cluster)
            sub_template = template[name] if isinstance(template, Mapping) and name in template else None
            out[name] = to_simuhome_value(item, cluster, sub_template)
        return out
    if isinstance(value, list):
        templates = template if isinstance(template, list) else []
        out_list = []
        for index, item in enumerate(value):
            item_template = templates[index] if index < len(templates) else (templates[0] if templates else None)
            if is_number(item_template) and isinstance(item, Mapping) and set(item) <= {"value", "mfgCode"}:
                out_list.append(item.get("value"))  # SimuHome wrote this mode tag as a bare int
            else:
                out_list.append(to_simuhome_value(item, cluster, item_template))
        return out_list
    return value
