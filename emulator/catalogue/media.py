"""TVs, screens and speakers."""

from __future__ import annotations

from emulator.catalogue.build import BASIC_VIDEO_PLAYER, CASTING_VIDEO_PLAYER, SPEAKER, cluster, endpoint
from emulator.catalogue.spec import ClusterSpec, DeviceTypeSpec, PowerDependency

_LEVEL_WITH_ON_OFF = frozenset({"MoveToLevelWithOnOff", "MoveWithOnOff", "StepWithOnOff", "StopWithOnOff"})


def _volume() -> ClusterSpec:
    # Volume: a LevelControl that is not coupled to On/Off (SimuHome's TV).
    return cluster(
        "LevelControl",
        MinLevel=0,
        MaxLevel=254,
        CurrentLevel=None,
        OnLevel=None,
        Options=0,
        options={"couple_on_off": False},
    )


def _media_power(*clusters: str) -> PowerDependency:
    return PowerDependency(
        frozenset(clusters),
        except_commands=_LEVEL_WITH_ON_OFF,
        endpoints=frozenset({1}),
        writes=frozenset(
            {
                "Channel.CurrentChannel",
                "LevelControl.OnLevel",
                "LevelControl.DefaultMoveRate",
                "LevelControl.StartUpCurrentLevel",
            }
        ),
    )


DEVICE_TYPES = (
    DeviceTypeSpec(
        name="tv",
        label="TV",
        origin="simuhome",
        description="A TV: channels, playback, remote keys and volume, all needing the TV on.",
        vendor_name="homefabric",
        product_name="Television",
        product_id=5,
        endpoints=(
            endpoint(
                1,
                BASIC_VIDEO_PLAYER,
                cluster("OnOff"),
                cluster("Channel", "ChannelList", "LineupInfo"),
                cluster("MediaPlayback"),
                cluster("KeypadInput", "NavigationKeyCodes", "LocationKeys", "NumberKeys"),
                _volume(),
                compat=("LevelControl",),
            ),
        ),
        power_rules=(_media_power("Channel", "MediaPlayback", "LevelControl"),),
    ),
    DeviceTypeSpec(
        name="smart_screen",
        label="Smart screen",
        description="A smart display: playback, remote keys and volume.",
        vendor_name="homefabric",
        product_name="Smart Display",
        product_id=0x8030,
        endpoints=(
            endpoint(
                1,
                CASTING_VIDEO_PLAYER,
                cluster("OnOff"),
                cluster("MediaPlayback"),
                cluster("KeypadInput", "NavigationKeyCodes"),
                cluster("ContentLauncher"),
                _volume(),
                compat=("LevelControl",),
            ),
        ),
        power_rules=(_media_power("MediaPlayback", "LevelControl", "ContentLauncher"),),
    ),
    DeviceTypeSpec(
        name="smart_speaker",
        label="Smart speaker",
        description="A speaker: on/off, volume (LevelControl) and playback.",
        vendor_name="homefabric",
        product_name="Smart Speaker",
        product_id=0x8031,
        endpoints=(
            endpoint(
                1,
                SPEAKER,
                cluster("Identify", IdentifyType=0),
                cluster("OnOff"),
                _volume(),
                cluster("MediaPlayback"),
                compat=("MediaPlayback",),
            ),
        ),
        power_rules=(_media_power("MediaPlayback", "LevelControl"),),
    ),
)
