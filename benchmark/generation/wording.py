"""How a user words a request to one device (qt3 and qt4 share these): one template list per intent."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from benchmark.generation.grammar import number, pick

# {dev} = "light 1", {room} = "living room"; every template names both.
COMMANDS: dict[str, tuple[str, ...]] = {
    "power_on": (
        "(turn|switch) on {dev} in the {room}",
        "(power|fire) up {dev} in the {room}",
        "(can|could) you turn on {dev} in the {room}",
        "{dev} in the {room} on(, please|)",
    ),
    "power_off": (
        "(turn|switch) off {dev} in the {room}",
        "shut off {dev} in the {room}",
        "(can|could) you switch off {dev} in the {room}",
        "kill {dev} in the {room}",
    ),
    "on_level": (
        "(turn|switch) on {dev} in the {room} (at|to) (brightness |)level {level}",
        "set {dev} in the {room} to brightness level {level}",
        "put {dev} in the {room} on at level {level}",
        "{dev} in the {room} on, level {level}",
    ),
    "on_percent": (
        "(turn|switch) on {dev} in the {room} (at|to) {percent} percent",
        "run {dev} in the {room} at {percent}%",
        "set {dev} in the {room} to {percent} percent[ speed]",
        "(get|have) {dev} in the {room} going at {percent} percent",
    ),
    "cool_to": (
        "(turn|switch) on {dev} in the {room} and cool to {celsius} degrees",
        "set {dev} in the {room} to cooling at {celsius} °C",
        "put {dev} in the {room} in cool mode with the setpoint at {celsius} degrees",
        "have {dev} in the {room} cool (to|down to) {celsius} degrees",
    ),
    "heat_to": (
        "set {dev} in the {room} to heat (to|at) {celsius} degrees",
        "switch {dev} in the {room} to heating at {celsius} °C",
        "put {dev} in the {room} in heat mode, setpoint {celsius} degrees",
    ),
    "mode_off": (
        "switch {dev} in the {room} to off mode",
        "set the system mode of {dev} in the {room} to off",
        "put {dev} in the {room} in off mode",
    ),
    "volume": (
        "turn on {dev} in the {room} and set the volume to {level}",
        "{dev} in the {room}: on, volume {level}",
        "switch on {dev} in the {room} with volume at {level}",
    ),
    "open": (
        "open {dev} in the {room}[ all the way]",
        "raise {dev} in the {room} fully",
        "(pull|roll) up {dev} in the {room} completely",
    ),
    "close": (
        "close {dev} in the {room}[ all the way]",
        "lower {dev} in the {room} (completely|all the way)",
        "(shut|draw) {dev} in the {room} fully",
    ),
    "position": (
        "set {dev} in the {room} to {percent_closed} percent closed",
        "close {dev} in the {room} to {percent_closed}%",
        "lower {dev} in the {room} so it's {percent_closed} percent closed",
    ),
    "cabinet_temp": (
        "set {dev} in the {room} to {celsius} degrees",
        "change the temperature of {dev} in the {room} to {celsius} °C",
        "(make|put) {dev} in the {room} (at|to) {celsius} degrees",
    ),
    "start": (
        "start {dev} in the {room}",
        "(turn on and start|switch on and run) {dev} in the {room}",
        "get {dev} in the {room} going",
    ),
    "start_program": (
        "start {dev} in the {room} on {program}",
        "run {dev} in the {room} on the {program} (program|cycle)",
        "(put|set) {dev} in the {room} on {program} and start it",
    ),
    "pause": (
        "pause {dev} in the {room}",
        "(hold|put on hold) {dev} in the {room} for a bit",
        "can you pause {dev} in the {room}",
    ),
    "resume": (
        "resume {dev} in the {room}",
        "(continue|restart) the paused {dev} in the {room}",
        "let {dev} in the {room} carry on",
    ),
    "stop": ("stop {dev} in the {room}", "cancel the cycle on {dev} in the {room}", "(halt|abort) {dev} in the {room}"),
    "rvc_start": (
        "start {dev} in the {room} vacuuming",
        "send {dev} in the {room} off to vacuum",
        "have {dev} in the {room} vacuum",
    ),
    "rvc_pause": ("pause {dev} in the {room}", "(hold|halt) {dev} in the {room} for now"),
    "rvc_resume": ("resume {dev} in the {room}", "let {dev} in the {room} continue cleaning"),
}


def program_phrase(params: Mapping[str, Any]) -> str | None:
    if "mode" in params:
        return str(params["mode"])
    if "dryness" in params:
        return f"{params['dryness']} dryness"
    return None


def command_slots(dev: str, room: str, params: Mapping[str, Any]) -> dict[str, Any]:
    slots: dict[str, Any] = {"dev": dev, "room": room}
    for key, value in params.items():
        slots[key] = number(value) if isinstance(value, float) else value
    program = program_phrase(params)
    if program is not None:
        slots["program"] = program
    return slots


def command(intent: str, dev: str, room: str, params: Mapping[str, Any], rng: random.Random) -> str:
    return pick(rng, COMMANDS[intent], command_slots(dev, room, params))


def mentioned_numbers(params: Mapping[str, Any]) -> list[str]:
    """Numbers a query must keep for this request."""
    return [
        number(v) if isinstance(v, float) else str(v)
        for k, v in sorted(params.items())
        if isinstance(v, int | float) and not isinstance(v, bool)
    ]
