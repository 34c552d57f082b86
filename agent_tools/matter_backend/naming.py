"""Cluster, attribute and command names ↔ Matter ids, and values between the tools' JSON and the wire JSON.

Names are chip.clusters.Objects' (``clusters.chip_model``). python-matter-server sends struct values keyed
by field tag (``{"0": 256, "1": 3}``); the tools (like the fabric) key them by the chip field label
(``{"deviceType": 256, "revision": 3}``). Command arguments are accepted in every spelling the fabric
accepts (PascalCase, lowerCamel, snake_case, the listed aliases), completed with the emulator's defaults
and checked for type and range before anything is sent; the payload is keyed by chip labels, which is
what matter-server's ``device_command`` turns into the chip command dataclass.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from clusters import SERVER_CLASSES
from clusters.chip_model import ClusterModel, CommandModel, TypeInfo, cluster_ids, cluster_model
from clusters.status import HomeError, Status
from clusters.values import coerce

# Cluster-specific failures a device reports inside a *successful* invoke response.
_RESPONSE_FAILURES = {
    "ChangeToModeResponse": ("status", "INVALID_IN_MODE"),
    "OperationalCommandResponse": ("commandResponseState.errorStateID", "INVALID_STATE"),
}


@functools.cache
def cluster_names_by_id() -> dict[int, str]:
    out: dict[int, str] = {}
    for name, cluster_id in cluster_ids().items():
        out.setdefault(cluster_id, name)
    return out


def cluster_by_name(name: str) -> ClusterModel | None:
    try:
        return cluster_model(name)
    except KeyError:
        return None


@functools.cache
def attribute_names_by_id(cluster: str) -> dict[int, str]:
    model = cluster_by_name(cluster)
    return {a.attribute_id: a.name for a in model.attributes.values()} if model else {}


@functools.cache
def command_names_by_id(cluster: str) -> dict[int, str]:
    model = cluster_by_name(cluster)
    return {c.command_id: c.name for c in model.commands.values()} if model else {}


# --- values -------------------------------------------------------------------------------------------------


def from_wire(value: Any, info: TypeInfo) -> Any:
    """matter-server's JSON (structs keyed by tag) → the tools' JSON (structs keyed by label)."""
    if value is None:
        return None
    if info.is_list and isinstance(value, list):
        element = info.element
        return [from_wire(v, element) for v in value]
    if info.is_struct and isinstance(value, dict):
        fields = {str(f.tag): f for f in info.struct_fields}
        out = {}
        for key, item in value.items():
            field = fields.get(str(key))
            if field is None:
                out[key] = item
            else:
                out[field.label] = from_wire(item, field.type)
        return out
    return value


def attribute_value(cluster: str, attribute: str, value: Any) -> Any:
    model = cluster_by_name(cluster)
    entry = model.attribute(attribute) if model else None
    return from_wire(value, entry.type) if entry is not None else value


def needs_timed_invoke(cluster: str, command: str) -> bool:
    """Whether the specification requires a timed invoke for the command (DoorLock LockDoor, …)."""
    model = cluster_by_name(cluster)
    entry = model.commands.get(command) if model else None
    return entry is not None and entry.timed_invoke


# --- command payloads ---------------------------------------------------------------------------------------


def _normal(key: str) -> str:
    return re.sub(r"[_\s]", "", key).casefold()


def command_payload(cluster: str, command: CommandModel, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments as a chip-label payload; HomeError COMMAND_INVALID_ARGS / CONSTRAINT_ERROR otherwise."""
    server_class = SERVER_CLASSES.get(cluster)
    spec = server_class.declared_command(command.name) if server_class is not None else None
    where = f"{cluster}.{command.name}"
    try:
        if spec is not None:
            # the emulator's own argument rules (names, defaults, types, ranges): a real device checks the same
            return spec.normalise(args, where, fill_optional=False)
        return _plain_payload(command, where, args)
    except HomeError as error:
        raise error.at(where) from None


def _plain_payload(command: CommandModel, where: str, args: dict[str, Any]) -> dict[str, Any]:
    """A command the emulator does not implement: match names to chip labels, check types."""
    by_name = {_normal(f.label): f for f in command.fields}
    out: dict[str, Any] = {}
    for key, value in args.items():
        field = by_name.get(_normal(key))
        if field is None:
            raise HomeError.refused(
                Status.INVALID_COMMAND, f"{where} has no argument {key!r}", allowed=[f.label for f in command.fields]
            )
        out[field.label] = coerce(value, field.type, f"{where}.{field.label}", status=Status.INVALID_COMMAND)
    missing = [f.label for f in command.fields if f.label not in out and not f.type.optional]
    if missing:
        raise HomeError.refused(
            Status.INVALID_COMMAND,
            f"{where}: missing arguments {', '.join(missing)}",
            allowed=[f.label for f in command.fields],
        )
    return out


def response_failure(response_name: str | None, response: Any, where: str) -> HomeError | None:
    """A refusal carried in a successful invoke response (ModeBase status, OperationalState error)."""
    rule = _RESPONSE_FAILURES.get(response_name or "")
    if rule is None or not isinstance(response, dict):
        return None
    value: Any = response
    for key in rule[0].split("."):
        value = value.get(key) if isinstance(value, dict) else None
    if value in (None, 0):
        return None
    return HomeError(rule[1], f"{where}: the device answered {rule[0]} = {value}", response=response)


# --- statuses -----------------------------------------------------------------------------------------------

_STATUS_NAMES = {re.sub(r"_", "", s.name).casefold(): s for s in Status}
# The Interaction Model statuses the specification names (clusters.status.Status), id → the name controllers
# print (UnsupportedCluster). Not chip.interaction_model: that is home-assistant-chip-core, which a client of
# python-matter-server does not install (the Docker image has only the cluster definitions); chip's other codes are
# deprecated or reserved and show as hex.
IM_STATUS_NAMES: dict[int, str] = {int(s): "".join(part.capitalize() for part in s.name.split("_")) for s in Status}
_IM_ERROR = re.compile(r"InteractionModelError: (\w+) \(0x([0-9a-fA-F]+)")
_STATUS_NUMBER = re.compile(r"\(0x([0-9a-fA-F]{1,2})[,)]")


def status_code_from_text(text: str) -> int | None:
    """The IM status code in a controller error text, e.g. 'InteractionModelError: ConstraintError (0x87)'."""
    if match := _IM_ERROR.search(text):
        return int(match.group(2), 16)
    for number in _STATUS_NUMBER.findall(text):
        if int(number, 16) in IM_STATUS_NAMES and int(number, 16) != 0:
            return int(number, 16)
    for word in re.findall(r"[A-Za-z_]+", text):
        status = _STATUS_NAMES.get(word.replace("_", "").casefold())
        if status is not None and status is not Status.SUCCESS:
            return int(status)
    return None


def status_from_text(text: str) -> Status | None:
    """``status_code_from_text`` as one of the statuses the emulator knows (None for the others)."""
    code = status_code_from_text(text)
    try:
        return Status(code) if code is not None else None
    except ValueError:
        return None


def status_in_value(value: Any) -> int | None:
    """The IM status python-matter-server put where a read's value belongs (``{"TLVValue": None, "Reason":
    "InteractionModelError: UnsupportedCluster (0xc3)"}``): its code (FAILURE when it names none), else None."""
    if not isinstance(value, dict) or not value or not set(value) <= {"TLVValue", "Reason"}:
        return None
    reason = value.get("Reason")
    return (status_code_from_text(str(reason)) if reason else None) or int(Status.FAILURE)


def error_from_status(status: Status | int, where: str, detail: str = "") -> HomeError:
    """The tools' structured error for an IM status; a status the emulator has no code for is named by chip."""
    code = int(status)
    name = IM_STATUS_NAMES.get(code, f"0x{code:02x}")
    message = f"the Matter device refused it with status {name} (0x{code:02x})"
    if detail:
        message += f": {detail}"
    try:
        known = Status(code)
    except ValueError:
        return HomeError(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper(), message).at(where)
    return HomeError.refused(known, message).at(where)
