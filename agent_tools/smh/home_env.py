"""The HomeEnv view of a fabric home: an agent-facing projection (SMH-Bench App. A), not a second home model.

Every device becomes ``{name, description, attributes, services, components, userdata}``; every read goes
to the fabric's clusters and every service becomes cluster commands/writes (``agent_tools.smh.products``).
A call is validated first (§1 validation rules): the service exists, argument names are known and none is
missing, values have the right type, lie in range, respect precision and options. A refused call changes
nothing and says why, with a machine-readable code the error taxonomy maps onto (AV/TV subtypes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_tools.smh.products import PRODUCTS, Attribute, Port, Product, Service
from emulator.emulated_home import EmulatedHome
from emulator.errors import HomeError
from emulator.workflows import WorkflowStep

# Codes of a refused call; each maps to an AV (DR) / TV (EIA) subtype in the taxonomy.
CALL_ERRORS = (
    "UNKNOWN_DEVICE",
    "UNKNOWN_SERVICE",
    "UNKNOWN_ARGUMENT",
    "MISSING_ARGUMENT",
    "NONE_VALUE",
    "WRONG_TYPE",
    "OUT_OF_RANGE",
    "BAD_PRECISION",
    "NOT_AN_OPTION",
    "DEVICE_REFUSED",
    "BAD_CALL",
)


@dataclass
class CallResult:
    ok: bool
    code: str = "OK"
    message: str = ""
    changes: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": "success" if self.ok else "error", "code": self.code}
        if self.message:
            out["message"] = self.message
        if self.changes:
            out["changes"] = self.changes
        return out


def spid(device_type: str) -> str:
    """Devices with identical capability sets share a product-spec id."""
    return f"hf.{device_type}.v1"


class HomeEnv:
    """The SMH view over one fabric. Cheap to make; holds no state of its own."""

    def __init__(self, fabric: EmulatedHome) -> None:
        self.fabric = fabric

    # ------------------------------------------------------------------------------ structure
    def product(self, device_id: str) -> Product | None:
        return PRODUCTS.get(self.fabric.device(device_id).device_type)

    def device_ids(self) -> list[str]:
        return [d.device_id for d in self.fabric.devices() if d.device_type in PRODUCTS]

    def rooms(self) -> list[dict[str, Any]]:
        return [
            {"id": r.room_id, "type": r.type, "name": r.name, "floor": r.floor, "parent": r.parent}
            for r in self.fabric.rooms()
        ]

    def userdata(self, device_id: str) -> dict[str, Any]:
        device = self.fabric.device(device_id)
        product = PRODUCTS[device.device_type]
        room = self.fabric.room(device.room_id)
        tags = sorted({product.category, product.subcategory, room.type, *product.tags})
        return {
            "did": device_id,
            "spid": spid(device.device_type),
            "category": product.category,
            "subcategory": product.subcategory,
            "tags": tags,
            "room": device.room_id,
        }

    def device_name(self, device_id: str) -> str:
        device = self.fabric.device(device_id)
        return device.name or f"{self.fabric.room(device.room_id).name} {PRODUCTS[device.device_type].subcategory}"

    def export_device(self, device_id: str, *, values: bool = True) -> dict[str, Any]:
        device = self.fabric.device(device_id)
        product = PRODUCTS[device.device_type]
        out: dict[str, Any] = {
            "name": self.device_name(device_id),
            "description": product.description,
            "attributes": [],
            "services": [],
            "components": [],
        }
        for component, endpoint, function in product.parts:
            port = Port(self.fabric, device_id, endpoint)
            attributes = [_attribute_view(a, port, values) for a in function.attributes]
            services = [s.schema() for s in function.services]
            if component is None:
                out["attributes"], out["services"] = attributes, services
            else:
                out["components"].append(
                    {"name": component, "endpoint": endpoint, "attributes": attributes, "services": services}
                )
        out["userdata"] = self.userdata(device_id)
        return out

    def export(self, *, values: bool = True) -> dict[str, Any]:
        unmapped = [d.device_id for d in self.fabric.devices() if d.device_type not in PRODUCTS]
        return {
            "rooms": self.rooms(),
            "devices": [self.export_device(d, values=values) for d in self.device_ids()],
            "unmapped_devices": unmapped,
        }  # device types without an SMH product (not visible to agents)

    def index(self) -> list[dict[str, Any]]:
        """The partial observation of EIA: one line per device, no states or schemas."""
        return [
            {"did": d, "name": self.device_name(d), **{k: v for k, v in self.userdata(d).items() if k != "did"}}
            for d in self.device_ids()
        ]

    # ------------------------------------------------------------------------------ state
    def _attributes(self, device_id: str) -> list[tuple[str, Attribute, Port]]:
        product = self.product(device_id)
        if product is None:
            return []
        out = []
        for component, endpoint, function in product.parts:
            port = Port(self.fabric, device_id, endpoint)
            out += [
                (f"{component}.{a.param.name}" if component else a.param.name, a, port) for a in function.attributes
            ]
        return out

    def device_state(self, device_id: str) -> dict[str, Any]:
        return {path: attribute.read(port) for path, attribute, port in self._attributes(device_id)}

    def state(self) -> dict[str, dict[str, Any]]:
        """did → {path: value}; the state the critic and the preservation check compare."""
        return {did: self.device_state(did) for did in self.device_ids()}

    def read(self, device_id: str, path: str) -> Any:
        for name, attribute, port in self._attributes(device_id):
            if name == path:
                return attribute.read(port)
        raise KeyError(f"{device_id} has no attribute {path!r}")

    def attribute(self, device_id: str, path: str) -> tuple[Attribute, int]:
        product = self.product(device_id)
        for component, endpoint, function in product.parts if product else ():
            for attribute in function.attributes:
                if (f"{component}.{attribute.param.name}" if component else attribute.param.name) == path:
                    return attribute, endpoint
        raise KeyError(path)

    # ------------------------------------------------------------------------------ services
    def _service(self, device_id: object, locator: object) -> tuple[Service, Port] | CallResult:
        if not isinstance(device_id, str) or device_id not in self.device_ids():
            return CallResult(False, "UNKNOWN_DEVICE", f"no device {device_id!r}")
        product = PRODUCTS[self.fabric.device(device_id).device_type]
        if not isinstance(locator, str):
            return CallResult(
                False, "WRONG_TYPE", f"locator must be text like 'turn_on' or 'light.turn_on', got {locator!r}"
            )
        component, _, name = locator.rpartition(".")
        known = []
        for part, endpoint, function in product.parts:
            for service in function.services:
                known.append(f"{part}.{service.name}" if part else service.name)
                if service.name == name and (part or "") == component:
                    return service, Port(self.fabric, device_id, endpoint)
        return CallResult(False, "UNKNOWN_SERVICE", f"{device_id} has no service {locator!r}; known: {known}")

    def offered(self, device_id: str, locator: str) -> dict[str, tuple[str, ...]]:
        """Argument values the device offers now where they depend on its state (else {})."""
        found = self._service(device_id, locator)
        if isinstance(found, CallResult):
            raise KeyError(found.message)
        service, port = found
        return dict(service.offered(port)) if service.offered else {}

    def plan(self, device_id: object, locator: object, arguments: object) -> list[WorkflowStep] | CallResult:
        """The cluster steps a call would run, or the refusal (nothing is changed either way)."""
        found = self._service(device_id, locator)
        if isinstance(found, CallResult):
            return found
        service, port = found
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, Mapping):
            return CallResult(False, "WRONG_TYPE", f"arguments must be an object, got {type(arguments).__name__}")
        names = {p.name for p in service.arguments}
        unknown = sorted(set(arguments) - names)
        if unknown:
            return CallResult(
                False, "UNKNOWN_ARGUMENT", f"{locator} has no argument {unknown[0]!r}; allowed: {sorted(names)}"
            )
        for param in service.arguments:
            if param.name not in arguments:
                return CallResult(False, "MISSING_ARGUMENT", f"{locator} needs {param.name} ({param.type})")
            problem = param.problem(arguments[param.name])
            if problem is not None:
                return CallResult(False, *problem)
        for name, offered in (service.offered(port) if service.offered else {}).items():
            if arguments[name] not in offered:
                return CallResult(
                    False,
                    "DEVICE_REFUSED",
                    f"{device_id} refused {locator}: {name}={arguments[name]!r}"
                    f" is not offered in its current state; offered now: {list(offered)}",
                )
        return service.steps(port, dict(arguments))

    def call(self, device_id: Any, locator: Any, arguments: Any = None) -> CallResult:
        """Validate, then run the steps; a refusal by the device itself rolls nothing forward."""
        steps = self.plan(device_id, locator, arguments)
        if isinstance(steps, CallResult):
            return steps
        before = self.device_state(device_id)
        for step in steps:
            try:
                self.fabric.apply(step)
            except HomeError as error:  # services are single-step, so a refusal leaves the state as it was
                return CallResult(False, "DEVICE_REFUSED", f"{device_id} refused {locator}: {error.message}")
        after = self.device_state(device_id)
        return CallResult(
            True,
            changes=[
                {"did": device_id, "attribute": k, "old": before[k], "new": after[k]}
                for k in after
                if before.get(k) != after[k]
            ],
        )


def _attribute_view(attribute: Attribute, port: Port, values: bool) -> dict[str, Any]:
    out = attribute.param.schema()
    if values:
        out["value"] = attribute.read(port)
    out["matter"] = attribute.matter
    return out


def state_diff(before: Mapping[str, Mapping[str, Any]], after: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """{"did/path": [old, new]} for every attribute that changed (the predicted labels)."""
    out = {}
    for did in sorted(set(before) | set(after)):
        b, a = before.get(did, {}), after.get(did, {})
        for path in sorted(set(b) | set(a)):
            if b.get(path) != a.get(path):
                out[f"{did}/{path}"] = [b.get(path), a.get(path)]
    return out
