"""Group-addressed messages: group keys from GroupKeyManagement, datagrams of the group session opened with
the operational group key (spec vectors), acted on by every member endpoint the group's ACL allows;
duplicates, unmapped groups and foreign keys dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge.matter.codec.message import ExchangeFlags, MessageHeader, ProtocolHeader, ProtocolId, SessionType
from bridge.matter.crypto.crypto import (
    aead_encrypt,
    generate_private_key,
    message_nonce,
    private_key_bytes,
    public_key_bytes,
)
from bridge.matter.crypto.fabric_keys import (
    group_multicast_address,
    group_session_id,
    operational_group_key,
)
from bridge.matter.im import im_messages as im
from bridge.matter.im.interaction import InteractionModel
from bridge.matter.node.bridge_node import BridgeNode
from bridge.matter.node.node import MatterNode
from bridge.matter.session.context import current_request
from bridge.matter.session.fabric_table import FabricRecord
from tests.emulator.helpers import fabric
from tests.matter_bridge.controller import EPOCH_KEY, FabricAuthority
from tests.matter_bridge.im_fakes import case_context

GROUP, OTHER_GROUP, KEY_SET = 0x0101, 0x0102, 0x01A1
EPOCH = bytes(range(0xA0, 0xB0))
SENDER = 0x0000_0000_0001_B669
AUTH_GROUP, OPERATE = 3, 3


def test_group_key_derivation_spec_vectors() -> None:
    key = operational_group_key(bytes.fromhex("235bf7e62823d358dca4ba50b1535f4b"), bytes.fromhex("87e1b004e235a130"))
    assert key.hex() == "a6f5306baf6d050af23ba4bd6b9dd960"
    assert group_session_id(key) == 0xB9F7
    assert group_multicast_address(0x2906C908D115D362, 0x1234) == "ff35:40:fd29:6c9:8d1:15d3:6200:1234"


class Home:
    def __init__(self, tmp_path: Path) -> None:
        self.home = fabric(
            [("lamp", "dimmable_light", "r"), ("plug", "smart_plug", "r"), ("hall", "on_off_light", "r")]
        )
        self.node = MatterNode(lambda roots: BridgeNode(self.home, roots), tmp_path, mdns=False)
        self.authority, key = FabricAuthority.create(), generate_private_key()
        self.record = FabricRecord(
            1,
            self.authority.fabric_id,
            0x55,
            0xFFF1,
            self.authority.rcac.hex(),
            self.authority.noc_for(public_key_bytes(key), 0x55).hex(),
            None,
            private_key_bytes(key).hex(),
            EPOCH_KEY.hex(),
        )
        self.node.table.add(self.record)
        self.node.table.save()
        self.interaction = InteractionModel(self.node.data_model, self.node.access)
        self.node.interaction = self.interaction  # what start() would make, without the network
        from bridge.matter.session.group_messages import GroupReceiver
        from bridge.matter.session.sessions import SessionManager

        self.node.sessions = SessionManager(lambda data, address: None)
        self.node.group_receiver = GroupReceiver(self.node.table, self.node._on_group_message)
        self.node.sessions.handle_group = self.node.group_receiver.receive
        self.counter = 1000
        self.model = self.node.data_model

    def admin(self, endpoint: int, cluster: int, command: str, args: dict[str, Any]) -> Any:
        token = current_request.set(case_context())
        try:
            return self.model.invoke(endpoint, cluster, command, args)
        finally:
            current_request.reset(token)

    def setup_group(self, *, acl: bool = True) -> None:
        token = current_request.set(case_context())
        try:
            self.model.invoke(
                0,
                0x3F,
                "KeySetWrite",
                {
                    "groupKeySet": {
                        "groupKeySetID": KEY_SET,
                        "groupKeySecurityPolicy": 0,
                        "epochKey0": EPOCH.hex(),
                        "epochStartTime0": 1110000,
                        "epochKey1": None,
                        "epochStartTime1": None,
                        "epochKey2": None,
                        "epochStartTime2": None,
                    }
                },
            )
            self.model.write(0, 0x3F, "GroupKeyMap", [{"groupId": GROUP, "groupKeySetID": KEY_SET, "fabricIndex": 1}])
            entries = [{"privilege": 5, "authMode": 2, "subjects": [0x1122], "targets": None, "fabricIndex": 1}]
            if acl:
                entries.append(
                    {
                        "privilege": OPERATE,
                        "authMode": AUTH_GROUP,
                        "subjects": [GROUP],
                        "targets": None,
                        "fabricIndex": 1,
                    }
                )
            self.model.write(0, 0x1F, "Acl", entries)
        finally:
            current_request.reset(token)
        for device in ("lamp", "plug"):
            self.admin(self.model.endpoint_of(device, 1), 0x04, "AddGroup", {"groupID": GROUP, "groupName": "Evening"})

    def datagram(
        self,
        command: int,
        *,
        group: int = GROUP,
        epoch: bytes = EPOCH,
        counter: int | None = None,
        write: im.AttributeData | None = None,
    ) -> bytes:
        key = operational_group_key(epoch, self.record.compressed_fabric_id)
        if counter is None:
            self.counter += 1
            counter = self.counter
        header = MessageHeader(
            session_id=group_session_id(key),
            message_counter=counter,
            security_flags=SessionType.GROUP,
            source_node_id=SENDER,
            destination_group_id=group,
        )
        invoke = im.encode(
            im.InvokeRequest((im.CommandData(im.CommandPath(None, 0x0006, command), {}),), suppress_response=True)
        )
        if write is not None:
            invoke = im.encode(im.WriteRequest((write,), suppress_response=True))
        opcode = im.Opcode.WRITE_REQUEST if write is not None else im.Opcode.INVOKE_REQUEST
        protocol = ProtocolHeader(
            exchange_flags=ExchangeFlags.INITIATOR,
            opcode=opcode,
            exchange_id=7,
            protocol_id=ProtocolId.INTERACTION_MODEL,
        )
        aad = header.encode()
        nonce = message_nonce(aad[3], counter, SENDER)
        return aad + aead_encrypt(key, nonce, protocol.encode() + invoke, aad)

    def on(self, device: str) -> bool:
        return bool(self.home.read(device, 1, "OnOff", "OnOff"))


def test_group_command_reaches_every_member_and_only_them(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.setup_group()
    assert home.node.group_receiver.multicast_addresses() == [group_multicast_address(home.authority.fabric_id, GROUP)]
    home.node.sessions.on_datagram(home.datagram(0x01), ("fd77::1", 5540, 0, 0))  # On
    assert home.on("lamp") and home.on("plug") and not home.on("hall")
    home.node.sessions.on_datagram(home.datagram(0x00), ("fd77::1", 5540, 0, 0))  # Off
    assert not home.on("lamp") and not home.on("plug")


def test_duplicates_foreign_keys_and_unmapped_groups_are_dropped(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.setup_group()
    on = home.datagram(0x01, counter=5000)
    assert home.node.group_receiver.receive(on) is not None and home.on("lamp")
    home.admin(home.model.endpoint_of("lamp", 1), 0x06, "Off", {})
    assert home.node.group_receiver.receive(on) is None and not home.on("lamp")  # the same counter again
    assert home.node.group_receiver.receive(home.datagram(0x01, epoch=bytes(16))) is None  # not our key
    assert home.node.group_receiver.receive(home.datagram(0x01, group=OTHER_GROUP)) is None  # no key map entry
    assert not home.on("lamp")


def test_the_group_acl_decides(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.setup_group(acl=False)
    assert home.node.group_receiver.receive(home.datagram(0x01)) is not None  # opened …
    assert not home.on("lamp") and not home.on("plug")  # … but no ACL entry grants the group Operate


def test_removing_the_fabric_forgets_its_group_keys(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.setup_group()
    home.node.table.remove(1)
    home.node.table.save()
    assert home.node.group_receiver.receive(home.datagram(0x01)) is None and not home.on("lamp")
    assert home.node.group_receiver.multicast_addresses() == []


def test_group_write_reaches_the_members_that_have_the_attribute(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.setup_group()
    on_level = im.AttributeData(im.AttributePath(None, 0x0008, 0x0011), 100)  # LevelControl.OnLevel
    assert home.node.group_receiver.receive(home.datagram(0, write=on_level)) is not None
    assert home.home.read("lamp", 1, "LevelControl", "OnLevel") == 100  # the plug has no LevelControl
    assert home.home.read("hall", 1, "OnOff", "OnOff") is False
