"""The agent tools over real Matter: a second backend that drives commissioned nodes through
python-matter-server's websocket API instead of the in-process fabric.

``ToolBox(MatterHome.connect("ws://127.0.0.1:5580/ws", mapping=load_mapping(path) or None))`` — see
``home.MatterHome`` (the EmulatedHome-shaped API), ``discovery`` (devices and rooms from the interview or a
mapping file), ``naming`` (names ↔ ids, value and argument conversion), ``scheduler`` (host-clock
workflows), ``ws_client`` (python-matter-server's websocket API) and ``connection`` (its blocking facade).
"""

from agent_tools.matter_backend.connection import MatterServerConnection
from agent_tools.matter_backend.discovery import MatterDevice, Room, discover
from agent_tools.matter_backend.home import MatterHome
from agent_tools.matter_backend.mapping import DeviceEntry, HomeMapping, MappingError, RoomEntry, load_mapping
from agent_tools.matter_backend.ws_client import MatterServerError

__all__ = [
    "DeviceEntry",
    "HomeMapping",
    "MappingError",
    "MatterDevice",
    "MatterHome",
    "MatterServerConnection",
    "MatterServerError",
    "Room",
    "RoomEntry",
    "discover",
    "load_mapping",
]
