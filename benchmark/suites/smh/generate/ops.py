"""State-changing operations a template can ask for, each as (imperative phrase, action): only operations
that change the device's current state, so a do-nothing agent never passes by accident."""

from __future__ import annotations

from typing import TypeVar

from agent_tools.smh.rules import Action
from benchmark.suites.smh.generate.core import Scene, act
from benchmark.suites.smh.generate.homes import COVERS, DIMMABLE, LIGHTS, PLAYERS

Op = tuple[str, Action]
Choice = TypeVar("Choice")


def _other(s: Scene, choices: list[Choice], current: object) -> Choice:
    """A choice other than the current one (picked by the scene's seeded generator)."""
    picked: Choice = s.pick([c for c in choices if c != current])
    return picked


def clear_ops(s: Scene, did: str) -> list[Op]:
    t, st, n = s.type_of(did), s.state[did], s.name(did)
    out: list[Op] = []
    if t in LIGHTS or t == "smart_plug":
        out.append(
            (f"turn on the {n}", act(did, "turn_on"))
            if st["state"] == "off"
            else (f"turn off the {n}", act(did, "turn_off"))
        )
    if t in DIMMABLE and st["state"] == "on":
        b = _other(s, list(range(10, 101, 10)), st["brightness"])
        out.append((f"set the {n} to {b} percent brightness", act(did, "set_brightness", brightness=b)))
    if t in ("color_temperature_light", "extended_color_light") and st["state"] == "on":
        k = _other(s, list(range(2700, 6501, 100)), st["color_temperature"])
        out.append((f"set the {n} colour temperature to {k} K", act(did, "set_color_temperature", color_temperature=k)))
    if t == "fan_light":
        out.append(
            (
                f"turn {'off' if st['light.state'] == 'on' else 'on'} the light of the {n}",
                act(did, f"light.turn_{'off' if st['light.state'] == 'on' else 'on'}"),
            )
        )
        if st["fan.state"] == "on":
            speed = _other(s, ["low", "medium", "high"], st["fan.speed_level"])
            out.append((f"set the {n}'s fan to {speed} speed", act(did, "fan.set_speed_level", speed_level=speed)))
    if t == "fan":
        if st["state"] == "off":
            out.append((f"turn on the {n}", act(did, "turn_on")))
        else:
            speed = _other(s, ["low", "medium", "high"], st["speed_level"])
            out.append((f"set the {n} to {speed} speed", act(did, "set_speed_level", speed_level=speed)))
    if t == "air_conditioner":
        if st["state"] == "off":
            out.append((f"turn on the {n}", act(did, "turn_on")))
        else:
            temp = _other(s, [x / 2 for x in range(36, 57)], st["target_temperature"])
            shown = f"{temp:g}"
            out.append((f"set the {n} to {shown} degrees", act(did, "set_target_temperature", target_temperature=temp)))
            mode = _other(s, ["cool", "heat", "dry", "fan_only"], st["ac_mode"])
            out.append((f"switch the {n} to {mode.replace('_', ' ')} mode", act(did, "set_ac_mode", ac_mode=mode)))
    if t in COVERS:
        p = _other(s, list(range(10, 100, 10)), st["position"])
        out.append((f"open the {n} to {p} percent", act(did, "set_position", position=p)))
        if st["position"] != 0:
            out.append((f"close the {n}", act(did, "close")))
    if t in PLAYERS:
        if st["player.state"] == "off":
            out.append((f"turn on the {n}", act(did, "player.turn_on")))
        else:
            v = _other(s, list(range(10, 101, 10)), st["player.volume_level"])
            out.append((f"set the {n} volume to {v}", act(did, "player.set_volume", volume_level=v)))
            out.append(
                (f"pause the {n}", act(did, "player.pause"))
                if st["player.work_state"] == "playing"
                else (f"play something on the {n}", act(did, "player.play"))
            )
    if t == "rvc" and st["work_state"] in ("docked", "standby", "charging"):
        out.append((f"start the {n}", act(did, "start")))
    if t == "door_lock":
        out.append(
            (f"unlock the {n}", act(did, "open")) if st["state"] == "locked" else (f"lock the {n}", act(did, "lock"))
        )
    if t == "water_valve":  # water homes only (``water=True``)
        out.append(
            (f"close the {n}", act(did, "close")) if st["state"] == "open" else (f"open the {n}", act(did, "open"))
        )
    out += appliance_ops(s, did)
    return out


def _offered(s: Scene, did: str, service: str, argument: str) -> tuple[str, ...]:
    """What the washer's current programme offers for ``argument`` (the device's own lists)."""
    return s.env.offered(did, service)[argument]


def _kitchen_ops(s: Scene, did: str) -> list[Op]:
    """The microwave (microwave_steam_oven.*), the fridge and the freezer."""
    t, st, n = s.type_of(did), s.state[did], s.name(did)
    out: list[Op] = []
    if t == "microwave_oven":
        oven = "microwave_steam_oven."
        if st[oven + "work_state"] == "stopped":
            seconds = _other(s, [30, 45, 60, 90, 120, 150, 180, 240, 300, 600], st[oven + "target_cooking_time"])
            shown = f"{seconds // 60} minutes" if seconds % 60 == 0 and seconds > 60 else f"{seconds} seconds"
            out.append(
                (f"set the {n} to cook for {shown}", act(did, oven + "set_cooking_time", target_cooking_time=seconds))
            )
            power = _other(s, list(range(10, 101, 10)), st[oven + "power_level"])
            out.append((f"set the {n} to {power} percent power", act(did, oven + "set_power_level", power_level=power)))
            mode = "normal" if st[oven + "work_mode"] == "defrost" else "defrost"
            out.append((f"put the {n} on {mode} mode", act(did, oven + "set_work_mode", work_mode=mode)))
            out.append((f"start the {n}", act(did, oven + "start")))
        else:
            out.append((f"stop the {n}", act(did, oven + "stop")))
    if t in ("refrigerator", "freezer"):
        temps = list(range(1, 8)) if t == "refrigerator" else list(range(-23, -14))
        temp = _other(s, temps, st["target_temperature"])
        out.append((f"set the {n} to {temp} degrees", act(did, "set_target_temperature", target_temperature=temp)))
        boost = "rapid_cool" if t == "refrigerator" else "rapid_freeze"
        mode = _other(s, ["normal", "energy_save", boost], st["mode"])
        out.append((f"put the {n} on {mode.replace('_', ' ')} mode", act(did, "set_mode", mode=mode)))
    return out


def appliance_ops(s: Scene, did: str) -> list[Op]:
    """The water heater, oven, washer, dryer, dishwasher, microwave, fridge and freezer (state-changing only,
    like every op)."""
    t, st, n = s.type_of(did), s.state[did], s.name(did)
    out: list[Op] = []
    if t == "water_heater":
        if st["heating_state"] == "idle":
            # above the tank's level: the heating run then ends exactly at it (benchmark/suites/smh/heating.py)
            mode = s.pick(["manual", "timed"])
            quantity = s.pick([q for q in range(50, 101, 10) if q > st["water_quantity"]])
            temp = s.pick(list(range(45, 76, 5)))
            out.append(
                (
                    f"start heating water on the {n} in {mode} mode, {quantity} percent of the tank at {temp} degrees",
                    act(
                        did,
                        "start_heating",
                        work_mode=mode,
                        target_water_quantity=quantity,
                        target_water_temperature=temp,
                    ),
                )
            )
        else:
            out.append((f"stop heating on the {n}", act(did, "stop_heating")))
        temp = _other(s, list(range(40, 81, 5)), st["target_water_temperature"])
        out.append(
            (f"set the {n} to {temp} degrees", act(did, "set_target_water_temperature", target_water_temperature=temp))
        )
    if t == "oven":
        temp = _other(s, list(range(150, 251, 10)), st["target_temperature"])
        out.append((f"set the {n} to {temp} degrees", act(did, "set_target_temperature", target_temperature=temp)))
        if st["work_state"] == "stopped":
            mode = _other(s, ["bake", "convection", "grill", "roast"], st["work_mode"])
            out.append((f"switch the {n} to {mode} mode", act(did, "set_work_mode", work_mode=mode)))
            out.append((f"start the {n}", act(did, "start")))
        else:
            out.append((f"stop the {n}", act(did, "stop")))
    if t in ("laundry_washer", "laundry_dryer", "dishwasher"):
        if st["state"] == "off":
            out.append((f"turn on the {n}", act(did, "turn_on")))
        elif st["work_state"] == "stopped":
            out.append((f"start the {n}", act(did, "start")))
            if t == "laundry_dryer":
                level = _other(s, ["low", "normal", "extra", "max"], st["dryness_level"])
                out.append((f"set the {n} to {level} dryness", act(did, "set_dryness_level", dryness_level=level)))
            else:
                modes = (
                    ["normal", "delicate", "heavy", "whites"]
                    if t == "laundry_washer"
                    else ["normal", "heavy_duty", "quick_wash", "silent"]
                )
                mode = _other(s, modes, st["wash_mode"])
                out.append(
                    (
                        f"put the {n} on the {mode.replace('_', ' ')} programme",
                        act(did, "set_wash_mode", wash_mode=mode),
                    )
                )
        elif st["work_state"] == "running":
            out.append((f"pause the {n}", act(did, "pause")))
    if t == "laundry_washer" and st["state"] == "on" and st["work_state"] == "stopped":
        temp = _other(s, [20, 30, 40, 60, 90], st["water_temperature"])
        out.append((f"wash at {temp} degrees on the {n}", act(did, "set_water_temperature", water_temperature=temp)))
        speeds = [x for x in _offered(s, did, "set_spin_speed", "spin_speed") if x != st["spin_speed"]]
        if speeds:
            speed = s.pick(speeds)
            out.append(
                (
                    f"set the spin speed of the {n} to {speed.replace('_', ' ')}",
                    act(did, "set_spin_speed", spin_speed=speed),
                )
            )
        rinses = [x for x in _offered(s, did, "set_rinses", "rinses") if x != st["rinses"]]
        if rinses:
            count = s.pick(rinses)
            out.append(
                (
                    f"set the {n} to {count} rinses" if count != "none" else f"turn off rinsing on the {n}",
                    act(did, "set_rinses", rinses=count),
                )
            )
    return out + _kitchen_ops(s, did)


def colloquial_ops(s: Scene, did: str) -> list[Op]:
    """Everyday wording that must be mapped onto a service or a value."""
    t, st, n = s.type_of(did), s.state[did], s.name(did)
    out: list[Op] = []
    if t in LIGHTS and st["state"] == "on":
        out.append((f"kill the {n}, it's way too bright", act(did, "turn_off")))
    if t in LIGHTS and st["state"] == "off":
        out.append((f"can I get some light from the {n}", act(did, "turn_on")))
    if (
        t in ("color_temperature_light", "extended_color_light")
        and st["state"] == "on"
        and st["color_temperature"] != 2700
    ):
        out.append((f"make the {n} as warm as it goes", act(did, "set_color_temperature", color_temperature=2700)))
    if t in DIMMABLE and st["state"] == "on" and st["brightness"] != 100:
        out.append((f"crank the {n} all the way up", act(did, "set_brightness", brightness=100)))
    if t == "fan" and st["state"] == "on" and st["speed_level"] != "high":
        out.append((f"give me everything the {n} has got", act(did, "set_speed_level", speed_level="high")))
    if t in COVERS and st["position"] != 100:
        out.append((f"let the sun in through the {n}, all the way", act(did, "open")))
    if t in COVERS and st["position"] != 0:
        out.append((f"shut the {n}, I need some privacy", act(did, "close")))
    if t in PLAYERS and st["player.work_state"] == "playing":
        out.append((f"shush the {n} for a sec", act(did, "player.pause")))
    if t == "rvc" and st["work_state"] in ("docked", "standby"):
        out.append((f"get the {n} doing its thing", act(did, "start")))
    if t == "door_lock" and st["state"] == "unlocked":
        out.append((f"make sure nobody can get in through the {n}", act(did, "lock")))
    if t == "air_conditioner" and st["state"] == "on" and st["ac_mode"] != "cool":
        out.append((f"I want the {n} blowing cold air", act(did, "set_ac_mode", ac_mode="cool")))
    if t == "oven" and st["work_state"] == "stopped":
        out.append((f"fire up the {n}", act(did, "start")))
    if t in ("laundry_washer", "laundry_dryer", "dishwasher") and st["work_state"] == "running":
        out.append((f"hold the {n} a moment, I forgot something", act(did, "pause")))
    if (
        t in ("laundry_washer", "dishwasher")
        and st["state"] == "on"
        and st["work_state"] == "stopped"
        and st["wash_mode"] not in ("delicate", "light_wash")
    ):
        gentle = "delicate" if t == "laundry_washer" else "light_wash"
        out.append((f"go easy on the load in the {n}", act(did, "set_wash_mode", wash_mode=gentle)))
    if t == "water_heater" and st["heating_state"] == "heating":
        out.append((f"the {n} can have a rest now", act(did, "stop_heating")))
    if t == "microwave_oven" and st["microwave_steam_oven.work_state"] == "stopped":
        out.append((f"zap my food in the {n}", act(did, "microwave_steam_oven.start")))
    if t in ("refrigerator", "freezer") and st["target_temperature"] != (1 if t == "refrigerator" else -23):
        coldest = 1 if t == "refrigerator" else -23
        out.append((f"make the {n} as cold as it goes", act(did, "set_target_temperature", target_temperature=coldest)))
    if (
        t == "laundry_washer"
        and st["state"] == "on"
        and st["work_state"] == "stopped"
        and st["rinses"] != "extra"
        and "extra" in _offered(s, did, "set_rinses", "rinses")
    ):
        out.append((f"give the laundry in the {n} an extra rinse", act(did, "set_rinses", rinses="extra")))
    if t == "water_valve":
        out.append(
            (f"shut off the water at the {n}", act(did, "close"))
            if st["state"] == "open"
            else (f"get the water running again at the {n}", act(did, "open"))
        )
    return out
