"""The device zoo, live: matter.js devices homefabric did not make (``zoo.mjs`` builds them from ``zoo.json``),
python-matter-server 7.0.1, both inside one network namespace, commissioned by manual pairing code.

The same setup as the bridge's live tests (``tests.matter_bridge.live_env``): a fresh namespace with a veth pair,
the devices on one end (``hfb``), matter-server on the other (``hfa``), this process reaching matter-server's
websocket by creating that one socket inside the namespace. Attestation is strict as there: matter-server trusts
only the directory ``export_paa`` writes — the connectedhomeip test PAA ("Matter Test PAA", NoVID), which is also
the root of matter.js's test DAC chain — so a device whose chain does not verify is refused.

``with zoo_home(work) as zoo: zoo.commission_all(); MatterHome.connect(zoo.url, connect_context=zoo.socket_context)``
"""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_tools.matter_backend.connection import MatterServerConnection
from tests.matter_bridge.live_env import (
    CONTROLLER_IF,
    MATTER_SERVER,
    NODE_IF,
    Proc,
    free_port,
    inside_namespace,
    network_namespace,
)

ZOO_DIR = Path(__file__).resolve().parent
ZOO_SPEC = ZOO_DIR / "zoo.json"
READY_PREFIX = "@@hf "
# The zoo's requirements beside tests.requirements.LIVE_CONTROLLER.
ZOO_REQUIREMENTS = ("node", "matter-zoo")


def zoo_spec() -> dict[str, Any]:
    return json.loads(ZOO_SPEC.read_text())


def expected_devices() -> dict[str, dict[str, Any]]:
    """node key (bridged: the bridged device's key) → its zoo.json entry, for the devices the home exposes."""
    out: dict[str, dict[str, Any]] = {}
    for node in zoo_spec()["nodes"]:
        if node["kind"] == "bridge":
            out.update({bridged["key"]: bridged for bridged in node["bridged"]})
        else:
            out[node["key"]] = node
    return out


class Zoo:
    """The zoo process, matter-server and one connection to it; ``node_ids``: zoo key → controller node id."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.port = free_port()
        self.namespace = ""
        self.nodes: dict[str, dict[str, Any]] = {}  # key → {port, passcode, discriminator, manual_code}
        self.node_ids: dict[str, int] = {}
        self.timings: dict[str, float] = {}
        self._stack = contextlib.ExitStack()
        self.zoo_proc: Proc | None = None
        self.server_proc: Proc | None = None
        self.connection: MatterServerConnection | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/ws"

    def socket_context(self) -> contextlib.AbstractContextManager[None]:
        return inside_namespace(self.namespace)

    # ------------------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        from bridge.matter.crypto.attestation import export_paa

        self.namespace = self._stack.enter_context(network_namespace("hfz"))
        paa = export_paa(self.work / "paa")
        started = time.monotonic()
        self.zoo_proc = self._proc(
            "zoo",
            [
                "ip",
                "netns",
                "exec",
                self.namespace,
                shutil.which("node") or "node",
                str(ZOO_DIR / "zoo.mjs"),
                str(ZOO_SPEC),
                str(self.work / "zoo-storage"),
                NODE_IF,
            ],
        )
        self.server_proc = self._proc(
            "matter-server",
            [
                "ip",
                "netns",
                "exec",
                self.namespace,
                str(MATTER_SERVER),
                "--storage-path",
                str(self.work / "storage"),
                "--paa-root-cert-dir",
                str(paa),
                "--primary-interface",
                CONTROLLER_IF,
                "--listen-address",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level-sdk",
                "progress",
            ],
        )
        self.nodes = {n["key"]: n for n in self._wait_ready(90)["nodes"]}
        self.connection = MatterServerConnection(self.url, connect_context=self.socket_context, timeout_s=60)
        deadline = time.monotonic() + 60
        while True:  # matter-server takes a while to listen
            try:
                self.connection.open()
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                self.connection = MatterServerConnection(self.url, connect_context=self.socket_context, timeout_s=60)
                time.sleep(1)
        self._stack.callback(self.connection.close)
        self.timings["start_s"] = time.monotonic() - started

    def stop(self) -> None:
        self._stack.close()

    def _proc(self, name: str, args: list[str]) -> Proc:
        proc = Proc(args, self.work / f"{name}.log")
        self._stack.callback(proc.stop)
        return proc

    def _wait_ready(self, timeout_s: float) -> dict[str, Any]:
        assert self.zoo_proc is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for line in self.zoo_proc.log.read_text(errors="replace").splitlines():
                if line.startswith(READY_PREFIX):
                    message = json.loads(line[len(READY_PREFIX) :])
                    if message.get("event") == "ready":
                        return message
            if not self.zoo_proc.alive:
                break
            time.sleep(0.5)
        raise RuntimeError(f"the zoo did not come up:\n{self.zoo_proc.tail()}")

    def logs(self) -> str:
        return "\n".join(f"--- {p.log.name}\n{p.tail(6000)}" for p in (self.zoo_proc, self.server_proc) if p)

    # ------------------------------------------------------------------------------ commissioning
    def call(self, command: str, timeout_s: float = 60, **args: Any) -> Any:
        assert self.connection is not None
        return self.connection.call(command, timeout_s=timeout_s, **args)

    def commission(self, key: str) -> int:
        started = time.monotonic()
        node = self.call("commission_with_code", timeout_s=180, code=self.nodes[key]["qr_code"], network_only=True)
        self.timings[f"commission_{key}_s"] = time.monotonic() - started
        self.node_ids[key] = int(node["node_id"])
        return self.node_ids[key]

    def commission_all(self, order: list[str] | None = None) -> dict[str, int]:
        for key in order or list(self.nodes):
            self.commission(key)
        return dict(self.node_ids)

    def decommission(self, key: str) -> None:
        """Remove the node from matter-server's fabric; matter.js opens commissioning again once its last
        fabric is gone (waited for by retrying the next commissioning)."""
        self.call("remove_node", timeout_s=60, node_id=self.node_ids.pop(key))

    def nodes_dump(self) -> list[dict[str, Any]]:
        """matter-server's node dicts (the raw interview, attributes by path), fresh from the server."""
        return self.call("get_nodes")


@contextlib.contextmanager
def zoo_home(work: Path) -> Iterator[Zoo]:
    zoo = Zoo(work)
    try:
        zoo.start()
        yield zoo
    except BaseException as error:
        raise AssertionError(f"{type(error).__name__}: {error}\n{zoo.logs()}") from error
    finally:
        zoo.stop()
        print(json.dumps({"matter_zoo_timings": {k: round(v, 2) for k, v in zoo.timings.items()}}))
