"""Live environment for tests and benchmarks with the real controller: a network namespace, the
``homefabric serve`` process, python-matter-server 7.0.1, and clients for both.

Everything Matter happens inside one network namespace holding a veth pair (facts §1.4): the CHIP
controller's minimal mDNS ignores loopback, and the root namespace would leak mDNS to the LAN. The
driving process stays in the root namespace; it reaches matter-server's websocket by creating that
one socket inside the namespace (``setns`` on the calling thread, then back), and the emulator's
control socket is a Unix socket, which namespaces do not separate.

Every wait is bounded; ``LiveBridge`` always stops its processes and deletes the namespace.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agent_tools.matter_backend.ws_client import MatterServerClient as WsClient
from tests.matter_bridge.event_wait import wait_event
from tests.requirements import LIVE_CONTROLLER, missing

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
# HF_MATTER_SERVER: another python-matter-server build to drive (e.g. 8.x on Python 3.13, see .ci/run).
MATTER_SERVER = Path(os.environ.get("HF_MATTER_SERVER") or VENV_BIN / "matter-server")
HOMEFABRIC = VENV_BIN / "homefabric"
CONTROLLER_IF, NODE_IF = "hfa", "hfb"
CLONE_NEWNET = 0x40000000
PASSCODE, DISCRIMINATOR = 20202021, 3840


def live_skip_reason() -> str | None:
    """Why the live setup cannot run here, or None (for bench scripts; tests use the ``requires`` marker)."""
    reasons = missing(*LIVE_CONTROLLER)
    return "; ".join(reasons) or None


def _sh(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, check=check, timeout=20)


@contextlib.contextmanager
def network_namespace(prefix: str = "hfe") -> Iterator[str]:
    """A fresh namespace with lo and a veth pair (both ends inside), deleted on exit. Named by the whole pid: no
    two live runs share it (a pid modulo could, and the leftover clean-up below would delete the other's)."""
    name = f"{prefix}{os.getpid()}"
    _sh("ip", "netns", "del", name, check=False)  # a leftover from a killed run
    _sh("ip", "netns", "add", name)
    try:
        # No duplicate-address detection in a namespace of our own: link-local addresses are usable at once,
        # not "tentative" for the first second or two (mDNS sockets bound then miss that interface).
        for scope in ("all", "default"):
            _sh("ip", "netns", "exec", name, "sysctl", "-qw", f"net.ipv6.conf.{scope}.accept_dad=0")
        _sh("ip", "-n", name, "link", "set", "lo", "up")
        _sh("ip", "-n", name, "link", "add", CONTROLLER_IF, "type", "veth", "peer", "name", NODE_IF)
        _sh("ip", "-n", name, "addr", "add", "10.77.0.1/24", "dev", CONTROLLER_IF)
        _sh("ip", "-n", name, "addr", "add", "fd77::1/64", "dev", CONTROLLER_IF, "nodad")
        _sh("ip", "-n", name, "link", "set", CONTROLLER_IF, "up")
        _sh("ip", "-n", name, "link", "set", NODE_IF, "up")
        yield name
    finally:
        _sh("ip", "netns", "del", name, check=False)


@contextlib.contextmanager
def inside_namespace(name: str) -> Iterator[None]:
    """Move the calling thread into ``name`` (sockets created meanwhile stay there), then back."""
    libc = ctypes.CDLL(None, use_errno=True)
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(target, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {name} failed")
        try:
            yield
        finally:
            if libc.setns(own, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back to the own namespace failed")
    finally:
        os.close(own)
        os.close(target)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Proc:
    """A child process in its own process group, logging to a file; ``stop`` is idempotent."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str] | None = None) -> None:
        self.args, self.log = args, log
        self._handle = log.open("a")
        self.popen = subprocess.Popen(
            args,
            stdout=self._handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
        )

    @property
    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.alive:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, sig)

    def stop(self, grace_s: float = 10) -> None:
        if self.alive:
            self.kill(signal.SIGTERM)
            try:
                self.popen.wait(grace_s)
            except subprocess.TimeoutExpired:
                self.kill(signal.SIGKILL)
                self.popen.wait(5)
        self._handle.close()

    def tail(self, chars: int = 4000) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-chars:]
        return ""


# ---------------------------------------------------------------------------------- clients
class MatterServerClient(WsClient):
    """python-matter-server's websocket API (the one client, ``agent_tools.matter_backend.ws_client``) reached
    inside a namespace; events are kept in order, each with the monotonic time it arrived."""

    def __init__(self) -> None:
        super().__init__("", timeout_s=60)
        self.events: list[dict[str, Any]] = []
        self._event_added = asyncio.Condition()

    async def connect(self, namespace: str, port: int, timeout_s: float = 40) -> None:  # type: ignore[override]
        self.url = f"http://127.0.0.1:{port}/ws"
        self._connect_context = lambda: inside_namespace(namespace)  # matter-server listens on its 127.0.0.1
        await super().connect(timeout_s=10, retry_for_s=timeout_s)
        await self.call("start_listening", timeout_s=30)

    async def on_event(self, event: dict[str, Any]) -> None:
        async with self._event_added:
            event["received"] = time.monotonic()
            self.events.append(event)
            self._event_added.notify_all()

    async def wait_event(
        self, predicate: Callable[[dict[str, Any]], bool], timeout_s: float, since: int = 0
    ) -> dict[str, Any]:
        """The first event at index ≥ ``since`` matching ``predicate``, waiting up to ``timeout_s``."""
        return await wait_event(self.events, self._event_added, predicate, timeout_s, since)


class ControlClient:
    """The ``homefabric serve`` control socket (see ``homefabric_cli/serve.py``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._lock = asyncio.Lock()

    async def connect(self, timeout_s: float = 30) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self._reader, self._writer = await asyncio.open_unix_connection(str(self.path))
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)

    async def __call__(self, op: str, **fields: Any) -> Any:
        assert self._reader is not None and self._writer is not None
        async with self._lock:
            self._writer.write(json.dumps({"op": op, **fields}).encode() + b"\n")
            await self._writer.drain()
            answer = json.loads(await asyncio.wait_for(self._reader.readline(), 20))
        if not answer["ok"]:
            raise RuntimeError(f"control {op}: {answer['error']}")
        return answer["result"]

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()
            self._writer = None


# ---------------------------------------------------------------------------------- the small home
# The small home of the end-to-end test and the benchmark: device id → (catalogue type, room, Matter device type).
HOME_DEVICES = {
    "lamp": ("on_off_light", "living_room", 0x0100),
    "dimmer": ("dimmable_light", "living_room", 0x0101),
    "ac": ("air_conditioner", "living_room", 0x0072),
    "fan": ("fan", "living_room", 0x002B),
    "sensor": ("climate_sensor", "living_room", 0x0302),
    "dishwasher": ("dishwasher", "kitchen", 0x0075),
    "kitchen_light": ("dimmable_light", "kitchen", 0x0101),
}


def write_small_home(path: Path) -> Path:
    from emulator.home_config import HomeConfig, dump_home

    environment = {"humidity": 5000, "illuminance": 300, "pm10": 20}
    home = HomeConfig.model_validate(
        {
            "name": "e2e home",
            "base_time": "2025-08-23 14:00:00",
            "extensions": {},
            "rooms": [
                {
                    "id": "living_room",
                    "name": "living_room",
                    "type": "living_room",
                    "environment": {"temperature": 2800, **environment},
                },
                {
                    "id": "kitchen",
                    "name": "kitchen",
                    "type": "kitchen",
                    "environment": {"temperature": 2400, **environment},
                },
            ],
            "devices": [
                {"id": device_id, "type": kind, "room": room, "attributes": {}}
                for device_id, (kind, room, _) in HOME_DEVICES.items()
            ],
        }
    )
    path.write_text(dump_home(home))
    return path


# ---------------------------------------------------------------------------------- the setup
class LiveBridge:
    """``homefabric serve`` + matter-server in one namespace, with clients; use ``async with``."""

    def __init__(
        self, home: Path, work: Path, *, speed: float = 60, namespace_prefix: str = "hfe", matter_server: bool = True
    ) -> None:
        self.home, self.work, self.speed = home, work, speed
        self.with_matter_server = matter_server  # False: only ``serve`` (another controller stack drives it)
        self.state_dir = work / "state"
        self.control_path = work / "control.sock"
        self.ws_port = free_port()
        self._prefix = namespace_prefix
        self._stack = contextlib.ExitStack()
        self.namespace = ""
        self.serve_proc: Proc | None = None
        self.server_proc: Proc | None = None
        self.matter = MatterServerClient()
        self.paa_dir = work / "paa"
        self.extra_procs: list[Proc] = []  # other controllers' processes, for ``logs``
        self.control = ControlClient(self.control_path)

    async def __aenter__(self) -> LiveBridge:
        from bridge.matter.crypto.attestation import export_paa

        try:
            self.namespace = self._stack.enter_context(network_namespace(self._prefix))
            self.paa_dir = export_paa(self.work / "paa")  # with a fresh .version: matter-server keeps the dir
            await self.start_serve()
            if not self.with_matter_server:
                return self
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
                    str(self.paa_dir),
                    "--primary-interface",
                    CONTROLLER_IF,
                    "--listen-address",
                    "127.0.0.1",
                    "--port",
                    str(self.ws_port),
                    "--log-level-sdk",
                    "progress",
                ],
            )
            await self.matter.connect(self.namespace, self.ws_port)
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    def _proc(self, name: str, args: list[str], env: dict[str, str] | None = None) -> Proc:
        proc = Proc(args, self.work / f"{name}.log", env)
        self._stack.callback(proc.stop)
        return proc

    async def start_serve(self) -> None:
        self.serve_proc = self._proc(
            "serve",
            [
                "ip",
                "netns",
                "exec",
                self.namespace,
                str(HOMEFABRIC),
                "serve",
                str(self.home),
                "--state-dir",
                str(self.state_dir),
                "--speed",
                f"{self.speed:g}",
                "--interface",
                NODE_IF,
                "--passcode",
                str(PASSCODE),
                "--discriminator",
                str(DISCRIMINATOR),
                "--control-socket",
                str(self.control_path),
            ],
            env={"COLUMNS": "200"},
        )
        await self.control.close()
        with contextlib.suppress(FileNotFoundError):
            self.control_path.unlink()
        try:
            await self.control.connect(timeout_s=60)
        except OSError as error:
            raise RuntimeError(f"homefabric serve did not come up:\n{self.serve_proc.tail()}") from error

    async def kill_serve(self) -> None:
        """kill -9 the emulator (what a crash looks like to the controller)."""
        assert self.serve_proc is not None
        await self.control.close()
        self.serve_proc.kill(signal.SIGKILL)
        await asyncio.to_thread(self.serve_proc.popen.wait, 10)

    def logs(self) -> str:
        parts = []
        for proc in (self.serve_proc, self.server_proc, *self.extra_procs):
            if proc is not None:
                parts.append(f"--- {proc.log.name}\n{proc.tail(6000)}")
        return "\n".join(parts)

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            await self.matter.close()
        with contextlib.suppress(Exception):
            await self.control.close()
        self._stack.close()


def manual_code() -> str:
    from bridge.matter.node.node import DEFAULT_PRODUCT_ID, DEFAULT_VENDOR_ID
    from bridge.matter.node.setup_payload import SetupPayload

    return SetupPayload(PASSCODE, DISCRIMINATOR, DEFAULT_VENDOR_ID, DEFAULT_PRODUCT_ID).manual_code()


# ---------------------------------------------------------------------------------- mDNS browse
async def browse_commissionable(namespace: str, seconds: float = 3) -> list[dict[str, str]]:
    """The ``_matterc._udp`` services visible inside ``namespace`` (TXT properties and instance name).

    matter-server 7.0.1's ``discover`` command fails with this chip-core (``supportsTcp``), so the test
    browses itself: a python-zeroconf child in the namespace (this module's ``__main__``).
    """
    proc = await asyncio.create_subprocess_exec(
        "ip",
        "netns",
        "exec",
        namespace,
        sys.executable,
        "-m",
        "tests.matter_bridge.live_env",
        "browse",
        str(seconds),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), seconds + 20)
    except TimeoutError:
        proc.kill()
        raise
    if proc.returncode:
        raise RuntimeError(f"mDNS browse failed: {err.decode()[-2000:]}")
    return json.loads(out.decode().strip().splitlines()[-1])


def _browse_main(seconds: float) -> None:
    from zeroconf import IPVersion, ServiceBrowser, ServiceListener, Zeroconf

    service_type = "_matterc._udp.local."
    found: dict[str, dict[str, str]] = {}
    zc = Zeroconf(ip_version=IPVersion.All)  # the node may answer on IPv6 link-local only

    class Listener(ServiceListener):
        def _resolve(self, zc: Zeroconf, type_: str, name: str) -> None:
            info = zc.get_service_info(type_, name, timeout=2000)
            if info is not None:
                found[name] = {
                    "instance": name,
                    **{k.decode(): (v or b"").decode(errors="replace") for k, v in info.properties.items()},
                }

        def add_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            self._resolve(zc, type_, name)

        update_service = add_service

        def remove_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            found.pop(name, None)

    browser = ServiceBrowser(zc, service_type, Listener())
    time.sleep(seconds)
    browser.cancel()
    zc.close()
    print(json.dumps(list(found.values())))


if __name__ == "__main__":
    if sys.argv[1:2] == ["browse"]:
        _browse_main(float(sys.argv[2]))
