"""Bring a live Matter home to an episode's initial state, where Matter allows it, and say where it does not.

The target is what the episode's home holds (``{device_id: {"ep.Cluster.Attribute": value}}``, an emulated
home's snapshot ``devices``). Each served, differing value is set the way a controller can set it: a write when
the attribute is writable, else the command that sets it (On/Off, MoveToLevel and the colour moves — executed
even while off, through the Options override —, Lock/Unlock). Everything is then read back; what still differs
is a problem that makes the episode not runnable on this home, with the reason — unless nothing sets it and the
episode neither reads nor checks it (a read-only value that follows history, such as OnOff GlobalSceneControl):
that one is left as it is and named in ``untouched``. Not set and not a problem:
identity (endpoint 0), structure (Descriptor, labels, global lists) and measurements of the environment (a
sensor's MeasuredValue, a thermostat's LocalTemperature: the real room decides them). A path the episode needs
(``must_serve``) that the live device does not serve is a problem too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_tools.matter_backend.home import MatterHome
from agent_tools.matter_backend.naming import cluster_by_name
from agent_tools.matter_backend.twin import is_state
from emulator.errors import HomeError

# Values the room decides, not the controller: compared, never set, never a problem.
ENVIRONMENT = frozenset(
    {
        ("Thermostat", "LocalTemperature"),
        ("TemperatureMeasurement", "MeasuredValue"),
        ("RelativeHumidityMeasurement", "MeasuredValue"),
        ("IlluminanceMeasurement", "MeasuredValue"),
        ("Pm10ConcentrationMeasurement", "MeasuredValue"),
        ("OccupancySensing", "Occupancy"),
    }
)
EXECUTE_IF_OFF = {"OptionsMask": 1, "OptionsOverride": 1}  # LevelControl / ColorControl: act while off
# Read-only state a command sets: (cluster, attribute) → the command and its arguments for the wanted value.
COMMAND_SETTERS: dict[tuple[str, str], Callable[[Any], tuple[str, dict[str, Any]]]] = {
    ("OnOff", "OnOff"): lambda v: ("On" if v else "Off", {}),
    ("LevelControl", "CurrentLevel"): lambda v: ("MoveToLevel", {"Level": v, "TransitionTime": 0, **EXECUTE_IF_OFF}),
    ("ColorControl", "ColorTemperatureMireds"): lambda v: (
        "MoveToColorTemperature",
        {"ColorTemperatureMireds": v, "TransitionTime": 0, **EXECUTE_IF_OFF},
    ),
    ("DoorLock", "LockState"): lambda v: ({1: "LockDoor", 2: "UnlockDoor"}.get(v, ""), {}),
}
# Applied last: a level or colour is set first (while off if need be), then on/off.
LAST = ("OnOff", "OnOff")


@dataclass
class Preparation:
    """What was done to the live home and whether it now holds the episode's initial state."""

    actions: list[dict[str, Any]] = field(default_factory=list)  # {device_id, path, how, value}
    problems: list[str] = field(default_factory=list)  # each makes the episode not runnable on this home
    environment: list[dict[str, Any]] = field(default_factory=list)  # measured values that differ (not set)
    # Read-only values nothing sets (e.g. OnOff GlobalSceneControl, which follows the command history) that
    # differ but that the episode neither reads nor checks: left as they are, named here.
    untouched: list[dict[str, Any]] = field(default_factory=list)

    @property
    def runnable(self) -> bool:
        return not self.problems

    def reason(self) -> str:
        return "; ".join(self.problems)

    def to_dict(self) -> dict[str, Any]:
        return {
            "runnable": self.runnable,
            "actions": self.actions,
            "problems": self.problems,
            "environment": self.environment,
            "untouched": self.untouched,
        }


def _differences(
    home: MatterHome, target: Mapping[str, Mapping[str, Any]], must_serve: set[tuple[str, str]], out: Preparation
) -> dict[str, dict[str, tuple[Any, Any]]]:
    """device → path → (live, wanted) for served state paths that differ; missing devices and unserved needed
    paths go to ``out.problems``, differing measurements to ``out.environment``."""
    known = {d.device_id for d in home.devices()}
    found: dict[str, dict[str, tuple[Any, Any]]] = {}
    for device_id, wanted in sorted(target.items()):
        if device_id not in known:
            out.problems.append(f"device {device_id!r} is not in this home")
            continue
        live = home.read_all(device_id)
        for needed in sorted(p for d, p in must_serve if d == device_id and p not in live):
            out.problems.append(f"device {device_id!r} does not serve {needed}, which the episode needs")
        for path, value in sorted(wanted.items()):
            served = (device_id, path) in must_serve  # an identity question (endpoint 0) counts then too
            if not (is_state(path) or served) or path not in live:
                continue
            if live[path] == value:
                continue
            _, cluster, attribute = path.split(".")
            if (cluster, attribute) in ENVIRONMENT:
                out.environment.append({"device_id": device_id, "path": path, "live": live[path], "episode": value})
                continue
            found.setdefault(device_id, {})[path] = (live[path], value)
    return found


def _setter(path: str, value: Any) -> tuple[str, str, Any] | None:
    """("write", attribute, value) or ("invoke", command, args) that sets ``path`` to ``value``; None if none."""
    _, cluster, attribute = path.split(".")
    model = cluster_by_name(cluster)
    entry = model.attribute(attribute) if model is not None else None
    if entry is not None and entry.writable:
        return "write", attribute, value
    setter = COMMAND_SETTERS.get((cluster, attribute))
    if setter is not None:
        name, args = setter(value)
        if name:
            return "invoke", name, args
    return None


def prepare(
    home: MatterHome,
    target: Mapping[str, Mapping[str, Any]],
    must_serve: Iterable[tuple[str, str]] = (),
    *,
    apply: bool = True,
) -> Preparation:
    """Set every differing state value of ``target`` that Matter lets a controller set; read back; report.
    ``apply=False`` (a dry run) changes nothing: ``actions`` are what would be done, and a differing value
    nothing sets is a problem (a value derived from another one counts as one too: only a real run knows)."""
    out = Preparation()
    needed = set(must_serve)
    differing = _differences(home, target, needed, out)
    for device_id, paths in differing.items():
        ordered = sorted(paths, key=lambda p: (tuple(p.split(".")[1:]) == LAST, p))
        for path in ordered:
            live, want = paths[path]
            how = _setter(path, want)
            if how is None:
                if not apply and (device_id, path) in needed:
                    out.problems.append(
                        f"device {device_id!r} {path} is {live!r} on the live device, the episode "
                        f"starts from {want!r}, and no write or command sets it"
                    )
                continue  # maybe derived from another value; the read-back decides
            endpoint, cluster, _ = path.split(".")
            kind, name, argument = how
            if not apply:
                out.actions.append({"device_id": device_id, "path": path, "how": f"{kind} {name}", "value": want})
                continue
            try:
                if kind == "write":
                    home.write(device_id, int(endpoint), cluster, name, argument)
                else:
                    home.invoke(device_id, int(endpoint), cluster, name, argument)
            except HomeError as error:
                out.problems.append(
                    f"device {device_id!r}: setting {path} to {want!r} was refused: {error.code} {error.message}"
                )
                continue
            out.actions.append({"device_id": device_id, "path": path, "how": f"{kind} {name}", "value": want})
    if not apply:
        return out
    still = _differences(
        home, {d: {p: target[d][p] for p in paths} for d, paths in differing.items()}, needed, Preparation()
    )
    for device_id, paths in still.items():
        for path, (live, want) in paths.items():
            settable = _setter(path, want) is not None
            if not settable and (device_id, path) not in needed:
                out.untouched.append({"device_id": device_id, "path": path, "live": live, "episode": want})
                continue
            why = "it did not take" if settable else "no write or command sets it"
            out.problems.append(
                f"device {device_id!r} {path} is {live!r} on the live device, the episode starts "
                f"from {want!r}, and {why}"
            )
    return out
