"""Controls: wall switches, buttons, remotes and mode dials — the devices people press to make things happen."""

from __future__ import annotations

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
    _client_device("on_off_light_switch", "Light switch", ON_OFF_LIGHT_SWITCH, 0x8071, "lights' On/Off"),
    _client_device("dimmer_switch", "Dimmer switch", DIMMER_SWITCH, 0x8072, "lights' On/Off and level"),
    _client_device(
        "color_dimmer_switch", "Colour dimmer switch", COLOR_DIMMER_SWITCH, 0x8073, "lights' On/Off, level and colour"
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
