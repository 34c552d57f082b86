"""A CHIP SDK controller (chip-core, the stack under python-matter-server) for the live group test; run
inside the test's network namespace:

    python -m tests.matter_bridge.chip_group_client WORK_DIR PAA_DIR MANUAL_CODE MEMBERS OTHERS

It commissions the node on its own fabric, gives it the SDK's test group key set for group 0x0101
(the keys ``InitGroupTestingData`` loads into this controller), grants the group Operate in the ACL, adds
the MEMBERS device ids' endpoints to the group, stores and recalls a scene, then sends group commands
(``SendGroupCommand``) and reads every light back. Prints one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

NODE_ID = 0x55
GROUP, KEY_SET = 0x0101, 0x01A1  # chip's GroupTesting::InitData: group 1 ↔ key set 0x01a1
EPOCH_KEYS = [
    (1110000, bytes(range(0xA0, 0xB0))),
    (1110001, bytes(range(0xB0, 0xC0))),
    (1110002, bytes(range(0xC0, 0xD0))),
]


async def run(work: Path, paa: Path, code: str, members: list[str], others: list[str]) -> dict[str, Any]:
    import chip.CertificateAuthority
    import chip.clusters as Clusters
    import chip.native
    from chip.ChipStack import ChipStack
    from chip.clusters.Types import NullValue
    from chip.discovery import DiscoveryType

    chip.native.Init(999)
    stack = ChipStack(persistentStoragePath=str(work / "chip.json"), enableServerInteractions=False)
    authorities = chip.CertificateAuthority.CertificateAuthorityManager(chipStack=stack)
    authorities.LoadAuthoritiesFromStorage()
    authority = authorities.NewCertificateAuthority()
    authority.maximizeCertChains = False
    admin = authority.NewFabricAdmin(vendorId=0xFFF1, fabricId=0x77)
    ctrl = admin.NewController(paaTrustStorePath=str(paa))
    out: dict[str, Any] = {}
    try:
        started = time.monotonic()
        await ctrl.CommissionWithCode(code, NODE_ID, DiscoveryType.DISCOVERY_NETWORK_ONLY)
        out["commissioned_s"] = round(time.monotonic() - started, 1)
        ctrl.InitGroupTestingData()  # this controller's own copy of the test group keys

        serials = await ctrl.ReadAttribute(NODE_ID, [Clusters.BridgedDeviceBasicInformation.Attributes.SerialNumber])
        endpoint_of = {
            v[Clusters.BridgedDeviceBasicInformation][
                Clusters.BridgedDeviceBasicInformation.Attributes.SerialNumber
            ]: ep
            for ep, v in serials.items()
        }
        lights = {name: endpoint_of[name] for name in members + others}
        out["endpoints"] = lights

        GKM = Clusters.GroupKeyManagement
        keys = {f"epochKey{i}": key for i, (_, key) in enumerate(EPOCH_KEYS)}
        starts = {f"epochStartTime{i}": start for i, (start, _) in enumerate(EPOCH_KEYS)}
        await ctrl.SendCommand(
            NODE_ID,
            0,
            GKM.Commands.KeySetWrite(
                GKM.Structs.GroupKeySetStruct(
                    groupKeySetID=KEY_SET,
                    groupKeySecurityPolicy=GKM.Enums.GroupKeySecurityPolicyEnum.kTrustFirst,
                    **keys,
                    **starts,
                )
            ),
        )
        await ctrl.WriteAttribute(
            NODE_ID,
            [
                (
                    0,
                    GKM.Attributes.GroupKeyMap(
                        [GKM.Structs.GroupKeyMapStruct(groupId=GROUP, groupKeySetID=KEY_SET, fabricIndex=1)]
                    ),
                )
            ],
        )
        AC = Clusters.AccessControl
        acl = (await ctrl.ReadAttribute(NODE_ID, [(0, AC.Attributes.Acl)]))[0][AC][AC.Attributes.Acl]
        group_entry = AC.Structs.AccessControlEntryStruct(
            privilege=AC.Enums.AccessControlEntryPrivilegeEnum.kOperate,
            authMode=AC.Enums.AccessControlEntryAuthModeEnum.kGroup,
            subjects=[GROUP],
            targets=NullValue,
        )
        await ctrl.WriteAttribute(NODE_ID, [(0, AC.Attributes.Acl([*acl, group_entry]))])
        for name in members:
            response = await ctrl.SendCommand(
                NODE_ID, lights[name], Clusters.Groups.Commands.AddGroup(groupID=GROUP, groupName="Evening")
            )
            out.setdefault("add_group", {})[name] = response.status
        table = await ctrl.ReadAttribute(NODE_ID, [(0, GKM.Attributes.GroupTable)])
        out["group_table"] = [
            {"group": e.groupId, "endpoints": list(e.endpoints), "name": e.groupName}
            for e in table[0][GKM][GKM.Attributes.GroupTable]
        ]

        async def on_off() -> dict[str, bool]:
            values = {}
            for name, endpoint in lights.items():
                read = await ctrl.ReadAttribute(NODE_ID, [(endpoint, Clusters.OnOff.Attributes.OnOff)])
                values[name] = bool(read[endpoint][Clusters.OnOff][Clusters.OnOff.Attributes.OnOff])
            return values

        async def until(expected: dict[str, bool], timeout_s: float = 10) -> dict[str, bool]:
            deadline = time.monotonic() + timeout_s
            while True:
                values = await on_off()
                if values == expected or time.monotonic() > deadline:
                    return values
                await asyncio.sleep(0.3)

        out["before"] = await on_off()
        ctrl.SendGroupCommand(GROUP, Clusters.OnOff.Commands.On())
        out["after_on"] = await until({n: n in members for n in lights})
        ctrl.SendGroupCommand(GROUP, Clusters.OnOff.Commands.Off())
        out["after_off"] = await until(dict.fromkeys(lights, False))

        # Scenes, live: store the dimmer at level 200 in scene 1 of the group, move away, recall.
        dimmer = next(n for n in members if "dimmer" in n)
        LC, SM = Clusters.LevelControl, Clusters.ScenesManagement
        await ctrl.SendCommand(NODE_ID, lights[dimmer], Clusters.OnOff.Commands.On())
        await ctrl.SendCommand(
            NODE_ID,
            lights[dimmer],
            LC.Commands.MoveToLevel(level=200, transitionTime=0, optionsMask=0, optionsOverride=0),
        )
        stored = await ctrl.SendCommand(NODE_ID, lights[dimmer], SM.Commands.StoreScene(groupID=GROUP, sceneID=1))
        await ctrl.SendCommand(
            NODE_ID,
            lights[dimmer],
            LC.Commands.MoveToLevel(level=20, transitionTime=0, optionsMask=0, optionsOverride=0),
        )
        await ctrl.SendCommand(NODE_ID, lights[dimmer], Clusters.OnOff.Commands.Off())
        await ctrl.SendCommand(
            NODE_ID, lights[dimmer], SM.Commands.RecallScene(groupID=GROUP, sceneID=1, transitionTime=0)
        )
        level = await ctrl.ReadAttribute(NODE_ID, [(lights[dimmer], LC.Attributes.CurrentLevel)])
        info = await ctrl.ReadAttribute(NODE_ID, [(lights[dimmer], SM.Attributes.FabricSceneInfo)])
        scene_info = info[lights[dimmer]][SM][SM.Attributes.FabricSceneInfo]
        out["scene"] = {
            "store_status": stored.status,
            "level": level[lights[dimmer]][LC][LC.Attributes.CurrentLevel],
            "on": (await on_off())[dimmer],
            "info": [
                {"count": i.sceneCount, "current": i.currentScene, "group": i.currentGroup, "valid": i.sceneValid}
                for i in scene_info
            ],
        }
        # A group RecallScene: every member recalls its own scene 1 (the plain lamp has none: NOT_FOUND there).
        await ctrl.SendCommand(
            NODE_ID,
            lights[dimmer],
            LC.Commands.MoveToLevel(level=50, transitionTime=0, optionsMask=0, optionsOverride=0),
        )
        ctrl.SendGroupCommand(GROUP, SM.Commands.RecallScene(groupID=GROUP, sceneID=1, transitionTime=0))
        deadline = time.monotonic() + 10
        while True:
            level = await ctrl.ReadAttribute(NODE_ID, [(lights[dimmer], LC.Attributes.CurrentLevel)])
            out["group_recall_level"] = level[lights[dimmer]][LC][LC.Attributes.CurrentLevel]
            if out["group_recall_level"] == 200 or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.3)
    finally:
        ctrl.Shutdown()
        authorities.Shutdown()
        stack.Shutdown()
    return out


if __name__ == "__main__":
    work_dir, paa_dir, manual = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    result = asyncio.run(
        asyncio.wait_for(run(work_dir, paa_dir, manual, sys.argv[4].split(","), sys.argv[5].split(",")), 240)
    )
    print(json.dumps(result, default=str))
