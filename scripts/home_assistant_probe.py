"""A manual check against a real Home Assistant (not part of the test suite: Home Assistant is a large, separate
install). Starts mosquitto, ``homefabric mqtt`` for each home file, and Home Assistant in-process with its MQTT
integration set up through the real config flow; prints JSON: devices and MQTT entities Home Assistant created, the
entities left "unknown" (stateless events and buttons aside), and what Home Assistant saw of refused commands (a TV's
volume while it is off, a dishwasher's Start while it is off) on the devices' "Command refused" event entities.

    python3.13 -m venv /tmp/hass && /tmp/hass/bin/pip install homeassistant==2025.4.4
    .venv/bin/homefabric home generate --tier complex --seed 3 --out /tmp/complex.json
    /tmp/hass/bin/python scripts/home_assistant_probe.py /tmp/complex.json [more homes …]
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SETTLE_S = 25


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def refusal(
    hass: Any, ents: list[Any], domain: str, needle: tuple[str, ...], service: str, data: dict[str, Any]
) -> dict[str, Any]:
    """Call ``service`` on the first entity of ``domain`` whose id contains every needle; the event it caused."""
    target = next(
        (e.entity_id for e in ents if e.entity_id.startswith(domain + ".") and all(n in e.entity_id for n in needle)),
        None,
    )
    if target is None:
        return {"entity": None}
    device_events = [
        e.entity_id
        for e in ents
        if e.device_id == next(x.device_id for x in ents if x.entity_id == target)
        and e.entity_id.endswith("_command_refused")
    ]
    await hass.services.async_call(domain, service, {"entity_id": target, **data}, blocking=True)
    await asyncio.sleep(2)
    state = hass.states.get(device_events[0]) if device_events else None
    return {
        "entity": target,
        "event_entity": device_events[0] if device_events else None,
        "event_type": state.attributes.get("event_type") if state else None,
        "message": state.attributes.get("message") if state else None,
        "state_after": hass.states.get(target).state,
    }


async def main(homes: list[str]) -> dict[str, Any]:
    # Home Assistant lives in its own venv (Python 3.13), not the project's: no stubs here.
    from homeassistant import bootstrap  # type: ignore[import-not-found]
    from homeassistant.helpers import device_registry, entity_registry  # type: ignore[import-not-found]
    from homeassistant.runner import RuntimeConfig  # type: ignore[import-not-found]

    work = Path(tempfile.mkdtemp(prefix="hf-ha-"))
    port = free_port()
    (work / "mosquitto.conf").write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
    procs = [
        subprocess.Popen(
            ["mosquitto", "-c", str(work / "mosquitto.conf")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    ]
    time.sleep(0.5)
    for i, home in enumerate(homes):
        procs.append(
            subprocess.Popen(
                [
                    str(REPO / ".venv/bin/homefabric"),
                    "mqtt",
                    home,
                    "--broker",
                    f"127.0.0.1:{port}",
                    "--home-id",
                    f"h{i}",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    config = work / "config"
    config.mkdir()
    (config / "configuration.yaml").write_text(
        "homeassistant:\n  name: probe\n  unit_system: metric\n  time_zone: UTC\n  latitude: 0\n  longitude: 0\n"
        "  elevation: 0\n  currency: EUR\n  country: DE\nlogger:\n  default: warning\n"
    )
    try:
        hass = await bootstrap.async_setup_hass(RuntimeConfig(config_dir=str(config), skip_pip=False))
        await hass.async_start()
        flow = await hass.config_entries.flow.async_init("mqtt", context={"source": "user"})
        flow = await hass.config_entries.flow.async_configure(flow["flow_id"], {"broker": "127.0.0.1", "port": port})
        await asyncio.sleep(SETTLE_S)
        await hass.async_block_till_done()
        ents = [e for e in entity_registry.async_get(hass).entities.values() if e.platform == "mqtt"]
        states = {e.entity_id: hass.states.get(e.entity_id) for e in ents}
        unknown = sorted(
            i
            for i, s in states.items()
            if s is not None and s.state == "unknown" and not i.startswith(("event.", "button."))
        )
        result: dict[str, Any] = {
            "mqtt_config_entry": flow.get("type"),
            "devices": len(device_registry.async_get(hass).devices),
            "mqtt_entities": len(ents),
            "unavailable": sum(1 for s in states.values() if s is not None and s.state == "unavailable"),
            "unknown": unknown,
            "tv_volume_while_off": await refusal(hass, ents, "number", ("tv", "volume"), "set_value", {"value": 60}),
            "dishwasher_start_while_off": await refusal(hass, ents, "button", ("dishwasher", "start"), "press", {}),
        }
        await hass.async_stop()
        log = await asyncio.to_thread((config / "home-assistant.log").read_text)
        result["log_errors_and_mqtt_warnings"] = [
            line[:300]
            for line in log.splitlines()
            if (" ERROR " in line and "libturbojpeg" not in line) or ("WARNING" in line and "components.mqtt" in line)
        ]
        return result
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            await asyncio.to_thread(proc.wait)


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:])), indent=1))
