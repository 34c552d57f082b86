"""The MQTT bridge against a real mosquitto started by the test."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from typing import Any

import jsonschema

from bridge.mqtt import MqttBridge
from bridge.mqtt.entities import NOT_ANNOUNCED, entities_for
from emulator.catalogue import CATALOGUE
from emulator.emulated_home import EmulatedHome
from tests.emulator.helpers import fabric as make_fabric
from tests.mqtt.broker import Mosquitto, Recorder, on_topic
from tests.mqtt.ha_schema import DEVICE_CONFIG, semantic_problems

HOME = "test-home"
ROOT = f"homefabric/{HOME}"
DEVICES = [
    ("light", "color_temperature_light", "living"),
    ("ac", "air_conditioner", "living"),
    ("blinds", "window_covering_controller", "living"),
    ("fan", "fan", "living"),
    ("lock", "door_lock", "hall"),
    ("washer", "laundry_washer", "utility"),
    ("sensor", "climate_sensor", "living"),
]


# value template option → the topic option it applies to, where the name is not "<x>_template" → "<x>_topic"
TEMPLATE_TOPICS = {
    "value_template": "state_topic",
    "state_value_template": "state_topic",
    "percentage_value_template": "percentage_state_topic",
}


def run(coroutine: Coroutine[Any, Any, None], timeout: float = 40) -> None:
    asyncio.run(asyncio.wait_for(coroutine, timeout))


def bridge_for(fabric: EmulatedHome, broker: Mosquitto, **kwargs: Any) -> MqttBridge:
    return MqttBridge(
        fabric, "127.0.0.1", broker.port, home_id=HOME, reconnect_min_s=0.2, reconnect_max_s=1.0, **kwargs
    )


def state_topic(device: str, entity: str) -> str:
    return f"{ROOT}/{device}/{entity}/state"


def command_topic(device: str, entity: str, field: str | None = None) -> str:
    return f"{ROOT}/{device}/{entity}/set" + (f"/{field}" if field else "")


def test_discovery_payloads_of_every_device_type_are_valid_and_match_the_states(broker: Mosquitto) -> None:
    fabric = make_fabric([(name, name, "room") for name in CATALOGUE])
    # Controllers (light switches, remotes …) serve no state or command Home Assistant could show, nor does a meter
    # nothing feeds (SimuHome's electrical sensor): not announced.
    announced = [d.device_id for d in fabric.devices() if entities_for(d)]
    assert len(CATALOGUE) - len(announced) == len(NOT_ANNOUNCED) and "electrical_sensor" not in announced

    async def scenario() -> None:
        async with bridge_for(fabric, broker, origin_url="https://example.invalid/homefabric") as bridge:
            await bridge.wait_connected()
            # A client arriving later gets everything from the broker's retained store.
            async with Recorder(broker.port, "homeassistant/#", f"{ROOT}/#") as rec:
                configs = await rec.wait_for(
                    lambda m: m.topic.startswith("homeassistant/device/"), count=len(announced)
                )
                await rec.wait_for(on_topic(f"{ROOT}/status"))
                assert rec.matching(on_topic(f"{ROOT}/status"))[-1].payload == b"online"
                await asyncio.sleep(0.3)
                states = {m.topic: m.json() for m in rec.messages if m.topic.endswith("/state")}
        platforms = set()
        assert all(m.retain for m in configs)
        for message in configs:
            config = message.json()
            jsonschema.validate(config, DEVICE_CONFIG)
            assert semantic_problems(config) == [], message.topic
            assert config["o"] == {
                "name": "homefabric",
                "sw": config["o"]["sw"],
                "url": "https://example.invalid/homefabric",
            }
            assert message.topic == f"homeassistant/device/{config['dev']['ids'][0]}/config"
            for key, component in config["cmps"].items():
                platforms.add(component["p"])
                # every value template reads a field the state topic really carries
                for option, value in component.items():
                    if not option.endswith(("_template",)) or "value_json." not in value:
                        continue
                    topic_option = TEMPLATE_TOPICS.get(option) or option.replace("_template", "_topic")
                    topic = component[topic_option]
                    field = value.split("value_json.")[1].split()[0]
                    assert topic in states, f"{key}: no state on {topic}"
                    assert field in states[topic], f"{key}: {option} reads {field!r}, state has {states[topic]}"
        assert platforms == {
            "light",
            "fan",
            "climate",
            "cover",
            "lock",
            "sensor",
            "binary_sensor",
            "switch",
            "button",
            "select",
            "number",
            "vacuum",
            "water_heater",
            "valve",
            "event",
        }

    run(scenario())


def test_units_are_home_assistant_units(broker: Mosquitto) -> None:
    fabric = make_fabric(
        [
            ("sensor", "air_quality_sensor", "living"),
            ("light", "dimmable_light", "living"),
            ("blinds", "window_covering_controller", "living"),
        ],
        rooms={"living": {"temperature": 2150, "humidity": 4725, "pm10": 42.5}},
        attributes={
            "light": {"1.OnOff.OnOff": True, "1.LevelControl.CurrentLevel": 127},
            "blinds": {"1.WindowCovering.CurrentPositionLiftPercent100ths": 2500},
        },
    )

    async def scenario() -> None:
        async with bridge_for(fabric, broker) as bridge:
            await bridge.wait_connected()
            async with Recorder(broker.port, f"{ROOT}/#") as rec:
                await rec.wait_for(on_topic(state_topic("blinds", "cover_1")))
                await asyncio.sleep(0.2)
                states = {m.topic: m.json() for m in rec.messages if m.topic.endswith("/state")}
        assert states[state_topic("sensor", "temperature_1")] == {"value": 21.5}  # 2150 centi-°C
        assert states[state_topic("sensor", "humidity_1")] == {"value": 47.25}  # 4725 centi-%
        assert states[state_topic("sensor", "pm10_1")] == {"value": 42.5}
        assert states[state_topic("light", "light_1")]["brightness"] == 128  # level 127 of 254 → 128 of 255
        assert states[state_topic("blinds", "cover_1")] == {"state": "open", "position": 75}  # 25 % closed

    run(scenario())


def test_fabric_change_arrives_on_the_state_topic(broker: Mosquitto) -> None:
    fabric = make_fabric(DEVICES)

    async def scenario() -> None:
        async with bridge_for(fabric, broker) as bridge, Recorder(broker.port, f"{ROOT}/#") as rec:
            await bridge.wait_connected()
            await rec.wait_for(on_topic(state_topic("light", "light_1"), lambda s: s["state"] == "OFF"))
            mark = rec.mark()
            fabric.invoke("light", 1, "OnOff", "On")
            fabric.invoke("light", 1, "LevelControl", "MoveToLevel", {"level": 254})
            got = await rec.wait_for(
                on_topic(state_topic("light", "light_1"), lambda s: s["state"] == "ON" and s["brightness"] == 255),
                since=mark,
            )
            assert got[0].retain is False  # a live update to a subscriber
            # the burst (On + level) was coalesced: no intermediate ON-without-the-new-level message
            assert len(rec.matching(on_topic(state_topic("light", "light_1")), mark)) == 1
            # …and the broker keeps the latest state for newcomers
            async with Recorder(broker.port, state_topic("light", "light_1")) as late:
                retained = await late.wait_for(on_topic(state_topic("light", "light_1")))
                assert retained[0].retain and retained[0].json()["state"] == "ON"

    run(scenario())


def test_button_presses_arrive_as_home_assistant_events(broker: Mosquitto) -> None:
    from emulator.scenarios import press_button

    fabric = make_fabric([("button", "generic_switch", "hall")])

    async def scenario() -> None:
        async with bridge_for(fabric, broker) as bridge, Recorder(broker.port, f"{ROOT}/#") as rec:
            await bridge.wait_connected()
            mark = rec.mark()
            press_button(fabric, "button", 2)
            fabric.advance(2)
            got = await rec.wait_for(
                on_topic(state_topic("button", "button_1"), lambda e: e["event_type"] == "multi_press_complete"),
                since=mark,
            )
            events = [m.json() for m in rec.matching(on_topic(state_topic("button", "button_1")), mark)]
            assert [e["event_type"] for e in events] == [
                "initial_press",
                "short_release",
                "initial_press",
                "multi_press_ongoing",
                "short_release",
                "multi_press_complete",
            ]
            assert events[-1] == {
                "event_type": "multi_press_complete",
                "previous_position": 1,
                "total_number_of_presses_counted": 2,
            }
            assert not any(m.retain for m in got)  # events are of their moment: nothing retained

    run(scenario())


def test_commands_change_the_fabric(broker: Mosquitto) -> None:
    fabric = make_fabric(DEVICES)

    async def scenario() -> None:
        async with bridge_for(fabric, broker) as bridge, Recorder(broker.port, f"{ROOT}/#") as rec:
            await bridge.wait_connected()
            await rec.publish(
                command_topic("light", "light_1"), json.dumps({"state": "ON", "brightness": 128, "color_temp": 2700})
            )
            await rec.wait_for(
                on_topic(
                    state_topic("light", "light_1"),
                    lambda s: s["state"] == "ON" and s["color_temp"] == 2703 and s["brightness"] == 128,
                )
            )
            assert fabric.read("light", 1, "LevelControl", "CurrentLevel") == round(128 * 254 / 255)
            assert fabric.read("light", 1, "ColorControl", "ColorTemperatureMireds") == 370

            await rec.publish(command_topic("ac", "climate_1", "mode"), "cool")
            await rec.wait_for(on_topic(state_topic("ac", "climate_1"), lambda s: s["mode"] == "cool"))
            assert fabric.read("ac", 1, "OnOff", "OnOff") is True
            assert fabric.read("ac", 1, "Thermostat", "SystemMode") == 3
            await rec.publish(command_topic("ac", "climate_1", "temperature"), "23.5")
            await rec.wait_for(on_topic(state_topic("ac", "climate_1"), lambda s: s["temperature"] == 23.5))
            assert fabric.read("ac", 1, "Thermostat", "OccupiedCoolingSetpoint") == 2350
            await rec.publish(command_topic("ac", "climate_1", "fan_mode"), "medium")
            await rec.wait_for(on_topic(state_topic("ac", "climate_1"), lambda s: s["fan_mode"] == "medium"))

            await rec.publish(command_topic("fan", "fan_1", "percentage"), "66")
            await rec.wait_for(on_topic(state_topic("fan", "fan_1"), lambda s: s == {"state": "ON", "percentage": 66}))

            # Home Assistant position 30 (30 % open) is Matter 7000 (70 % closed)
            await rec.publish(command_topic("blinds", "cover_1", "position"), "30")
            await rec.wait_for(on_topic(state_topic("blinds", "cover_1"), lambda s: s["state"] == "closing"))
            assert fabric.read("blinds", 1, "WindowCovering", "TargetPositionLiftPercent100ths") == 7000
            fabric.advance(60)
            await rec.wait_for(
                on_topic(state_topic("blinds", "cover_1"), lambda s: s == {"state": "open", "position": 30})
            )

            await rec.publish(command_topic("lock", "lock_1"), "UNLOCK")
            await rec.wait_for(on_topic(state_topic("lock", "lock_1"), lambda s: s["state"] == "UNLOCKED"))

            await rec.publish(command_topic("washer", "switch_1"), "ON")
            await rec.publish(command_topic("washer", "mode_1"), "Delicate")
            await rec.wait_for(on_topic(state_topic("washer", "mode_1"), lambda s: s["option"] == "Delicate"))
            await rec.publish(command_topic("washer", "start_1"), "PRESS")
            await rec.wait_for(
                on_topic(state_topic("washer", "operational_state_1"), lambda s: s["value"] == "running")
            )
            countdown = await rec.wait_for(on_topic(state_topic("washer", "countdown_1"), lambda s: s["value"]))
            assert countdown[-1].json()["value"] > 0

    run(scenario())


def test_malformed_payloads_are_answered_on_the_error_topic_and_change_nothing(broker: Mosquitto) -> None:
    fabric = make_fabric(DEVICES)
    fabric.invoke("ac", 1, "OnOff", "On")

    async def scenario() -> None:
        async with bridge_for(fabric, broker) as bridge, Recorder(broker.port, f"{ROOT}/#") as rec:
            await bridge.wait_connected()
            before = fabric.snapshot()
            cases = [
                ("light", command_topic("light", "light_1"), b'{"state": "ON", "brightness": 300}', "brightness"),
                ("light", command_topic("light", "light_1"), b'{"state": "ON", "colour": 1}', "colour"),
                ("light", command_topic("light", "light_1"), b"not json", None),
                ("light", command_topic("light", "light_1"), b'{"state": "ON", "color_temp": 20}', "color_temp"),
                ("ac", command_topic("ac", "climate_1", "mode"), b"turbo", "mode"),
                ("ac", command_topic("ac", "climate_1", "temperature"), b"99", "temperature"),
                ("ac", command_topic("ac", "climate_1", "temperature"), b"warm", "value"),
                ("fan", command_topic("fan", "fan_1", "percentage"), b"150", "value"),
                ("blinds", command_topic("blinds", "cover_1"), b"UP", "value"),
                ("lock", command_topic("lock", "lock_1"), b'{"action": "UNLOCK", "code": "12"}', "code"),
                ("washer", command_topic("washer", "mode_1"), b"Turbo", "option"),
                ("washer", command_topic("washer", "start_1"), b"\xff\xfe", None),
                ("light", command_topic("light", "light_1", "brightness"), b"10", "topic"),
            ]
            for device, topic, payload, field in cases:

                def about(error: Any, sent: str = topic) -> bool:
                    return error["topic"] == sent

                mark = rec.mark()
                await rec.publish(topic, payload)
                answer = (await rec.wait_for(on_topic(f"{ROOT}/{device}/error", about), since=mark))[0].json()
                assert answer["changed"] is False
                assert answer["error"]["code"] in ("INVALID_PAYLOAD", "INVALID_JSON", "UNKNOWN_COMMAND"), answer
                assert answer["error"]["message"]
                assert "allowed" in answer["error"], answer
                if field is not None:
                    assert answer["error"]["field"] == field, answer
            # unknown device: answered at home level
            await rec.publish(command_topic("nope", "light_1"), "ON")
            answer = (await rec.wait_for(on_topic(f"{ROOT}/error")))[0].json()
            assert answer["error"]["code"] == "DEVICE_NOT_FOUND"
            await asyncio.sleep(0.1)
            assert EmulatedHome.diff(before, fabric.snapshot()) == []

            light_error = rec.matching(on_topic(f"{ROOT}/light/error", lambda e: "300" in json.dumps(e)))[0].json()
            assert light_error["error"]["allowed"]["brightness"] == "0..255"
            temperature_error = rec.matching(on_topic(f"{ROOT}/ac/error", lambda e: e["payload"] == "99"))[0].json()
            assert temperature_error["error"]["allowed"] == {"min": 7.0, "max": 32.0, "unit": "°C"}

    run(scenario())


def test_a_refused_command_is_answered_with_the_fabric_error_and_changes_nothing(broker: Mosquitto) -> None:
    fabric = make_fabric(DEVICES)
    assert fabric.read("ac", 1, "OnOff", "OnOff") is False

    async def scenario() -> None:
        async with bridge_for(fabric, broker) as bridge, Recorder(broker.port, f"{ROOT}/#") as rec:
            await bridge.wait_connected()
            before = fabric.snapshot()
            await rec.publish(command_topic("ac", "climate_1", "temperature"), "22")
            answer = (await rec.wait_for(on_topic(f"{ROOT}/ac/error")))[0].json()
            assert answer["error"]["code"] == "DEPENDENCY_VIOLATION"
            assert "is off" in answer["error"]["message"]
            assert answer["error"]["allowed"] == {"required": "1.OnOff.OnOff == true"}
            assert answer["changed"] is False
            # the washer refuses Start while switched off (dead front)
            await rec.publish(command_topic("washer", "start_1"), "PRESS")
            answer = (await rec.wait_for(on_topic(f"{ROOT}/washer/error")))[0].json()
            assert answer["error"]["matter_status"] == "INVALID_IN_STATE"
            await asyncio.sleep(0.1)
            assert EmulatedHome.diff(before, fabric.snapshot()) == []

    run(scenario())


def test_home_assistant_online_triggers_a_reannouncement(broker: Mosquitto) -> None:
    fabric = make_fabric(DEVICES)

    async def scenario() -> None:
        async with bridge_for(fabric, broker) as bridge, Recorder(broker.port, "homeassistant/#") as rec:
            await bridge.wait_connected()
            await rec.wait_for(lambda m: m.topic.startswith("homeassistant/device/"), count=len(DEVICES))
            mark = rec.mark()
            await rec.publish("homeassistant/status", "offline")
            await asyncio.sleep(0.2)
            assert rec.matching(lambda m: m.topic.endswith("/config"), mark) == []
            await rec.publish("homeassistant/status", "online")
            again = await rec.wait_for(lambda m: m.topic.endswith("/config"), since=mark, count=len(DEVICES))
            assert {m.topic for m in again} == {
                f"homeassistant/device/homefabric_{HOME}_{d}/config" for d, _, _ in DEVICES
            }
            for _ in range(100):  # the states follow the configs; the count moves when all are out
                if bridge.announcements == 2:
                    break
                await asyncio.sleep(0.02)
            assert bridge.announcements == 2

    run(scenario())


def test_availability_goes_offline_on_exit(broker: Mosquitto) -> None:
    fabric = make_fabric(DEVICES[:1])

    async def scenario() -> None:
        async with Recorder(broker.port, f"{ROOT}/status") as rec:
            async with bridge_for(fabric, broker) as bridge:
                await bridge.wait_connected()
                await rec.wait_for(lambda m: m.payload == b"online")
            await rec.wait_for(lambda m: m.payload == b"offline")

    run(scenario())


def test_a_broker_restart_is_survived(broker: Mosquitto) -> None:
    fabric = make_fabric(DEVICES)

    async def scenario() -> None:
        async with bridge_for(fabric, broker) as bridge:
            await bridge.wait_connected()
            async with Recorder(broker.port, "homeassistant/#") as rec:
                await rec.wait_for(lambda m: m.topic.endswith("/config"), count=len(DEVICES))
            broker.kill()  # a crash: nothing flushed, every connection dropped
            await asyncio.sleep(0.3)
            assert not bridge.connected
            fabric.invoke("light", 1, "OnOff", "On")  # a change while the broker is away
            await asyncio.sleep(1.0)  # the bridge retries (and fails) with backoff meanwhile
            broker.start()
            await bridge.wait_connected(timeout=10)
            assert bridge.connections == 2
            async with Recorder(broker.port, "homeassistant/#", f"{ROOT}/#") as rec:
                configs = await rec.wait_for(lambda m: m.topic.endswith("/config"), count=len(DEVICES))
                assert all(m.retain for m in configs)
                light = await rec.wait_for(on_topic(state_topic("light", "light_1")))
                assert light[-1].retain and light[-1].json()["state"] == "ON"  # the change made while away
                status = await rec.wait_for(on_topic(f"{ROOT}/status"))
                assert status[-1].payload == b"online"
                # state updates flow again …
                mark = rec.mark()
                fabric.invoke("fan", 1, "OnOff", "On")
                await rec.wait_for(on_topic(state_topic("fan", "fan_1"), lambda s: s["state"] == "ON"), since=mark)
                # … and so do commands
                await rec.publish(command_topic("light", "light_1"), '{"state": "OFF"}')
                await rec.wait_for(on_topic(state_topic("light", "light_1"), lambda s: s["state"] == "OFF"), since=mark)
                assert fabric.read("light", 1, "OnOff", "OnOff") is False

    run(scenario())
