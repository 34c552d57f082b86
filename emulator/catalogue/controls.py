"""Controls: wall switches, buttons, remotes and mode dials — the devices people press to make things happen."""

from __future__ import annotations

import clusters.official as Objects
from emulator.catalogue.build import (
    COLOR_DIMMER_SWITCH,
    DIMMER_SWITCH,
    DOOR_LOCK_CONTROLLER,
    GENERIC_SWITCH,
    MODE_SELECT,
    ON_OFF_LIGHT_SWITCH,
    VIDEO_REMOTE_CONTROL,
    cluster,
    endpoint,
)
from emulator.catalogue.spec import DeviceTypeSpec


def _client_device(
    name: str, label: str, device_type: tuple[int, int], product_id: int, controls: str, *, identify: bool = True
) -> DeviceTypeSpec:
    """A controller: a client of other devices' clusters; as a server it has only Identify (if any)."""
    serves = "Identify" if identify else "its Descriptor"
    return DeviceTypeSpec(
        name=name,
        label=label,
        description=f"A {label.lower()} that controls {controls} (a client device: its commands go to the devices "
        f"it controls; it serves only {serves}).",
        vendor_name="homefabric",
        product_name=label,
        product_id=product_id,
        endpoints=(endpoint(1, device_type, *([cluster("Identify", IdentifyType=0)] if identify else [])),),
    )


def _light_switch(
    name: str, label: str, device_type: tuple[int, int], product_id: int, sends: tuple[str, ...], acts: str
) -> DeviceTypeSpec:
    """A wall switch that drives the lights it is bound to: a client of ``sends`` (its Descriptor's ClientList,
    with Identify), and a Binding server whose entries name the lights (emulator/bindings.py)."""
    clients = sorted(getattr(Objects, client).id for client in ("Identify", *sends))
    return DeviceTypeSpec(
        name=name,
        label=label,
        description=f"A {label.lower()}: {acts} on every light its Binding list names (write 1.Binding.Binding = "
        "[{node, endpoint, cluster}], the node being the light's node id in the home).",
        vendor_name="homefabric",
        product_name=label,
        product_id=product_id,
        endpoints=(
            endpoint(
                1,
                device_type,
                cluster("Descriptor", options={"client_clusters": clients}),
                cluster("Identify", IdentifyType=0),
                cluster("Binding"),
            ),
        ),
    )


DEVICE_TYPES = (
    DeviceTypeSpec(
        name="generic_switch",
        label="Button",
        description="A momentary push button: each press is a Matter event (InitialPress, ShortRelease, "
        "MultiPressComplete with the count of up to 3 presses; LongPress and LongRelease when held).",
        vendor_name="homefabric",
        product_name="Smart Button",
        product_id=0x8070,
        endpoints=(endpoint(1, GENERIC_SWITCH, cluster("Identify", IdentifyType=0), cluster("Switch")),),
    ),
    _light_switch(
        "on_off_light_switch", "Light switch", ON_OFF_LIGHT_SWITCH, 0x8071, ("OnOff",), "flipping it toggles On/Off"
    ),
    _light_switch(
        "dimmer_switch",
        "Dimmer switch",
        DIMMER_SWITCH,
        0x8072,
        ("OnOff", "LevelControl"),
        "flipping it toggles On/Off, turning it sets the level (MoveToLevelWithOnOff)",
    ),
    _light_switch(
        "color_dimmer_switch",
        "Colour dimmer switch",
        COLOR_DIMMER_SWITCH,
        0x8073,
        ("OnOff", "LevelControl", "ColorControl"),
        "flipping it toggles On/Off, turning it sets the level, tinting it the colour temperature",
    ),
    _client_device(
        "door_lock_controller", "Door lock controller", DOOR_LOCK_CONTROLLER, 0x8074, "door locks", identify=False
    ),
    _client_device(
        "video_remote_control",
        "Video remote control",
        VIDEO_REMOTE_CONTROL,
        0x8075,
        "a TV's power, playback and keys",
        identify=False,
    ),
    DeviceTypeSpec(
        name="mode_select",
        label="Mode selector",
        description="A device with its own list of modes (Normal 0, Eco 1, Boost 2): ChangeToMode picks one.",
        vendor_name="homefabric",
        product_name="Mode Selector",
        product_id=0x8076,
        endpoints=(
            endpoint(
                1,
                MODE_SELECT,
                cluster("Identify", IdentifyType=0),
                cluster("ModeSelect", options={"description": "Operating mode"}),
            ),
        ),
    ),
)
