"""The cluster server base: typed attributes, commands with argument validation, global attributes.

A subclass names its chip cluster, the attributes it supports (with their initial values), extra
spec constraints, and handlers marked with :func:`command`. Everything else — ids, types,
writability, global attributes, argument parsing and the Matter status of every refusal — is
derived here from the official model (``clusters.chip_model``).
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast, overload

from clusters.attribute_values import AttributeValues, WriteMark
from clusters.chip_model import (
    GLOBAL_ATTRIBUTE_IDS,
    AttributeModel,
    ClusterModel,
    CommandModel,
    FieldModel,
    cluster_model,
    response_model,
)
from clusters.status import HomeError, Status
from clusters.values import Constraint, coerce

if TYPE_CHECKING:
    from clusters.runtime import Runtime

ChangeListener = Callable[["ClusterServer", str, Any, Any], None]
# (server, event name, event fields (chip labels), priority)
EventListener = Callable[["ClusterServer", str, dict[str, Any], "EventPriority"], None]


class HostingEndpoint(Protocol):
    """What a cluster server may ask of the endpoint it sits on: its siblings, its device types and parts, and a
    hook on a sibling's attribute. :class:`clusters.endpoint.Endpoint` implements it (and imports this module:
    the dependency runs one way, from the endpoint to its servers)."""

    endpoint_id: int
    clusters: dict[str, ClusterServer]
    runtime: Runtime | None  # its servers' (they hold none of their own)

    @property
    def device_types(self) -> Sequence[tuple[int, int]]: ...  # (device type id, revision)

    @property
    def parts(self) -> Sequence[int]: ...

    def find(self, name: str) -> ClusterServer | None: ...

    def watch(self, cluster: str, attribute: str, callback: Callable[[Any, Any], None]) -> None: ...


class EventPriority(IntEnum):
    """Event priority levels (Core spec §7.14.2.2)."""

    DEBUG = 0
    INFO = 1
    CRITICAL = 2


def snake_case(label: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", label).lower()


@dataclass
class CommandSpec:
    """A supported command: the official model, the handler, and how its arguments may be named."""

    model: CommandModel
    method: str
    constraints: dict[str, Constraint]
    defaults: dict[str, Any]
    names: dict[str, str] = field(default_factory=dict)  # accepted spelling → chip label

    def field(self, label: str) -> FieldModel:
        return next(f for f in self.model.fields if f.label == label)

    def normalise(self, args: Mapping[str, Any] | None, where: str, *, fill_optional: bool = True) -> dict[str, Any]:
        """The arguments keyed by chip label: every accepted spelling mapped (each field at most once),
        defaults filled in, types coerced and constraints checked; HomeError INVALID_COMMAND /
        CONSTRAINT_ERROR otherwise. ``fill_optional``: an absent optional field without a default is
        None (the handler's keyword) rather than left out (a wire payload)."""
        given: dict[str, Any] = {}
        for key, value in (args or {}).items():
            label = self.names.get(key)
            if label is None:
                raise HomeError.refused(
                    Status.INVALID_COMMAND, f"{where} has no argument {key!r}", allowed=self.describe_args()
                )
            if label in given:
                raise HomeError.refused(Status.INVALID_COMMAND, f"{where}: argument {key!r} given twice")
            given[label] = value
        out: dict[str, Any] = {}
        for f in self.model.fields:
            what = f"{where}.{f.label[:1].upper() + f.label[1:]}"
            if f.label not in given:
                if f.label in self.defaults:
                    out[f.label] = self.defaults[f.label]
                elif not f.type.optional:
                    raise HomeError.refused(Status.INVALID_COMMAND, f"{what} is required", allowed=self.describe_args())
                elif fill_optional:
                    out[f.label] = None
                continue
            value = coerce(given[f.label], f.type, what, status=Status.INVALID_COMMAND)
            constraint = self.constraints.get(f.label)
            if constraint is not None:
                constraint.check(value, what)
            out[f.label] = value
        return out

    def describe_args(self) -> list[dict[str, Any]]:
        out = []
        for f in self.model.fields:
            entry: dict[str, Any] = {
                "name": f.label[:1].upper() + f.label[1:],
                "type": f.type.describe(),
                "required": f.label not in self.defaults and not f.type.optional,
            }
            if f.label in self.defaults:
                entry["default"] = self.defaults[f.label]
            if f.label in self.constraints:
                entry["constraint"] = self.constraints[f.label].describe()
            aliases = sorted(k for k, v in self.names.items() if v == f.label and k != entry["name"])
            if aliases:
                entry["aliases"] = aliases
            out.append(entry)
        return out


_Handler = TypeVar("_Handler", bound=Callable[..., Any])


def command(
    name: str, *, aliases: Mapping[str, str] | None = None, constraints: Mapping[str, Constraint] | None = None
) -> Callable[[_Handler], _Handler]:
    """Mark a method as the handler of the official command ``name``.

    The handler's keyword parameters are the chip field labels (lowerCamel); their defaults make a
    field optional for callers. ``aliases`` maps extra accepted argument names (e.g. SimuHome's
    ``new_mode``) to labels; PascalCase and snake_case spellings are always accepted.
    """

    def mark(method: _Handler) -> _Handler:
        # The mark is read back when the class is created (__init_subclass__): the ignore.
        method._command = (name, dict(aliases or {}), dict(constraints or {}))  # type: ignore[attr-defined]
        return method

    return mark


class _RareHooks:
    """What few servers get: live sources (bound by room physics and the like), event listeners (the Matter and MQTT
    faces) and a watcher's mark (``watch_writes``: a home's snapshots). One slot of the server for all three: a home
    holds hundreds of servers, most with none, which share :data:`_NO_HOOKS` — or, watched, their mark's hooks
    (``WriteMark.hooks``: one per device) — until their first source or event listener (then they take hooks of
    their own, each part shared empty until used)."""

    __slots__ = ("event_listeners", "sources", "write_mark")

    def __init__(self, write_mark: WriteMark | None = None) -> None:
        self.sources: dict[str, Callable[[], Any]] = _NO_SOURCES
        self.event_listeners: list[EventListener] = _NO_EVENT_LISTENERS
        self.write_mark = write_mark  # carried to the server's own values when it takes them

    def shared(self) -> bool:
        """Whether these are hooks servers share (never changed then: a server takes hooks of its own first)."""
        return self is _NO_HOOKS or (self.write_mark is not None and self.write_mark.hooks is self)


def _watched_by(mark: WriteMark) -> _RareHooks:
    """The hooks the servers ``mark`` watches share while they hold none of their own."""
    hooks = mark.hooks
    if hooks is None:
        hooks = mark.hooks = _RareHooks(mark)
    return cast(_RareHooks, hooks)


_Listener = TypeVar("_Listener", bound=Callable[..., Any])


class ListenersMadeOnFirstUse(Generic[_Listener]):
    """A server's list of listeners, kept in ``slot``, which holds the shared ``()`` until the list is first asked
    for (most servers never get a listener, and ``()`` is immutable: a catalogue entry's servers are copied with it).
    Reading the attribute gives the list, made then (append to add one); the server calls what ``slot`` holds."""

    def __init__(self, slot: str, doc: str) -> None:
        self.slot = slot
        self.__doc__ = doc

    @overload
    def __get__(self, server: None, owner: type[Any]) -> ListenersMadeOnFirstUse[_Listener]: ...
    @overload
    def __get__(self, server: object, owner: type[Any]) -> list[_Listener]: ...
    def __get__(self, server: object, owner: type[Any]) -> ListenersMadeOnFirstUse[_Listener] | list[_Listener]:
        if server is None:
            return self
        listeners: list[_Listener] = getattr(server, self.slot)
        if type(listeners) is not list:
            listeners = []
            setattr(server, self.slot, listeners)
        return listeners


# Shared empty stand-ins, never changed: a server's hooks take their own dict or list on first use
_NO_SOURCES: dict[str, Callable[[], Any]] = {}
_NO_EVENT_LISTENERS: list[EventListener] = []
# The hooks of every server that has none (never changed: a server takes its own ``_RareHooks`` first)
_NO_HOOKS = _RareHooks()
_ABSENT = object()  # a name a server holds no value for (None is a value)
# Values a server's current value of the same type and equal stands for on restore (already checked when stored)
_PLAIN_SCALARS = (bool, int, str)
# ... and lists and structs when also alike in JSON with sorted keys: the same types all the way down (true is not 1,
# 1.0 is not 1), in any key order — a stored list or struct is what coercion made of it, coercing it again gives it
# back, and an equal list or struct is no change (set)
_CONTAINERS = (list, dict)
_CANONICAL_JSON = json.JSONEncoder(sort_keys=True).encode


def _written_alike(value: Any, current: Any) -> bool:
    try:
        return bool(_CANONICAL_JSON(value) == _CANONICAL_JSON(current))
    except (TypeError, ValueError):  # not JSON data: coerced as any other value
        return False


class _SharedValues(AttributeValues):
    """The values of a server that others were copied from (a catalogue entry's first), read by each copy until its
    first change (it then takes its own: ``ClusterServer._values``), or of servers alike (``share_alike``): a home
    holds hundreds of servers, most of them never changed. Never changed itself: a change through it would change
    every copy's."""

    __slots__ = ()

    def __setitem__(self, name: str, value: Any) -> None:
        raise AssertionError(f"values shared by copied servers are never changed ({name!r})")

    def pop(self, name: str, default: Any = None) -> Any:
        raise AssertionError(f"values shared by copied servers are never changed ({name!r})")

    def shared_with(self, table: dict[str, Any] | None) -> dict[str, Any]:
        raise AssertionError("values shared by copied servers are never changed")

    def derive_changes(self, changes: Mapping[str, Any]) -> None:
        raise AssertionError("values shared by copied servers are never changed")


# id of a shared table → the values object every server holding exactly that table's values, no changes of its own,
# reads until its first change (``ClusterServer.share_alike``): servers built alike but not copied (their own state is
# not immutable), sensors without their live reading. At most _ALIKE_MAX (the oldest go first).
_ALIKE: dict[int, _SharedValues] = {}
_ALIKE_MAX = 4096


def _shared_alike(values: AttributeValues) -> _SharedValues | None:
    """The shared values object alike ``values`` (made on first ask), or None when ``values`` may not be shared."""
    key = values.alike_key()
    if key is None:
        return None
    shared = _ALIKE.get(key)
    if shared is None or shared.table is not values.table:  # none yet, or another table had that id
        if len(_ALIKE) >= _ALIKE_MAX:
            del _ALIKE[next(iter(_ALIKE))]
        shared = _ALIKE[key] = _SharedValues(values.table)
    return shared


# What a server's own attributes may hold for :meth:`ClusterServer.copy_as_built` to copy it (immutable values) …
_IMMUTABLE = (bool, int, float, str, bytes, type(None), frozenset)
# … or an empty table or list its constructor made (a Groups table, ColorControl's motions): the copy gets its own
_FRESH_WHEN_EMPTY = (dict, list)
# A server's own attributes as ``copy_as_built`` copies them: (name, value, whether the copy gets a new empty one)
CopyPlan = tuple[tuple[str, Any, bool], ...]
# (server class, its value names, its source names) → (attribute names, AttributeList): one per shape in use
_ATTRIBUTE_LAYOUTS: dict[tuple[type, tuple[str, ...], tuple[str, ...]], tuple[tuple[str, ...], list[int]]] = {}


# server class → (the slots its subclasses of ClusterServer declare, whether its instances have a dict too): what
# ``copy_as_built`` copies besides the base's state (most classes: nothing)
_OWN_LAYOUTS: dict[type, tuple[tuple[str, ...], bool]] = {}


def _own_layout(cls: type) -> tuple[tuple[str, ...], bool]:
    layout = _OWN_LAYOUTS.get(cls)
    if layout is None:
        declared = [vars(k).get("__slots__", ()) for k in reversed(cls.__mro__[: cls.__mro__.index(ClusterServer)])]
        slots = tuple(
            name
            for names in declared
            for name in ((names,) if isinstance(names, str) else names)
            if name not in ("__dict__", "__weakref__")
        )
        layout = _OWN_LAYOUTS[cls] = (slots, cls.__dictoffset__ != 0)
    return layout


@dataclass(frozen=True)
class _ReadPlan:
    """What ``ClusterServer.read_all`` reads for servers of one shape: the stored or sourced attributes, then the
    globals (fixed for the shape: their values are kept), and the keys by prefix (``1.OnOff.`` …)."""

    names: tuple[str, ...]  # attribute_names: own, then globals
    own: tuple[str, ...] | None  # stored or sourced, read now (None: every name through ``read``)
    derived: tuple[Any, ...]  # the other names' values (the globals), in names order after own
    live: tuple[int, ...] = ()  # positions in names of the class's ``live_reads``, asked of ``read`` each time
    _keys: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def keys(self, prefix: str) -> tuple[str, ...]:
        keys = self._keys.get(prefix)
        if keys is None:
            keys = self._keys[prefix] = tuple(prefix + name for name in self.names)
        return keys


# (server class, feature map, stored names, sourced names) → its _ReadPlan
_READ_PLANS: dict[tuple[type, int, tuple[str, ...], tuple[str, ...]], _ReadPlan] = {}
# (server class, feature map) → (AcceptedCommandList, GeneratedCommandList, EventList): see _derived_lists
_COMMAND_AND_EVENT_LISTS: dict[tuple[type, int], tuple[list[int], list[int], list[int]]] = {}
_DERIVED_LISTS = {"AcceptedCommandList": 0, "GeneratedCommandList": 1, "EventList": 2}


class ClusterServer:
    """Server side of one Matter cluster on one endpoint.

    Its values (``_held``) are read from a table shared by the servers built alike, with its own changes over
    it (:class:`clusters.attribute_values.AttributeValues`; a copied server shares even that object until its first
    change): a value read from a server is never changed in place — a change is a new value given to ``set`` (or
    stored in ``_values``, the server's own values object).

    A home holds hundreds of servers: the base's state is in slots, and every subclass declares the attributes it
    adds in ``__slots__`` (no instance dict); a class without still works (``copy_as_built`` copies its dict). Its
    runtime is its endpoint's; its change listeners are one callable (its endpoint's, shared by the endpoint's
    servers) or a tuple of them; its rarely set sources and event listeners share one slot (``_hooks``)."""

    __slots__ = ("_held", "_hooks", "_listeners", "endpoint", "feature_map")

    cluster_name: ClassVar[str]
    revision: ClassVar[int]
    default_features: ClassVar[int] = 0
    # Supported attributes (besides the globals) and their initial values.
    defaults: ClassVar[dict[str, Any]] = {}
    constraints: ClassVar[dict[str, Constraint]] = {}
    # Attributes the official tables mark writable but this server keeps read-only (or vice versa).
    writable_override: ClassVar[dict[str, bool]] = {}
    # Events this server emits (official names); EventList is derived from them.
    events: ClassVar[tuple[str, ...]] = ()
    # Attributes a scene stores (the spec's "S" quality) → the AttributeValuePairStruct field that
    # carries each (valueUnsigned8, valueUnsigned16, …); such a server implements apply_scene.
    scene_attributes: ClassVar[dict[str, str]] = {}
    # Attributes a subclass's ``read`` derives itself (live, e.g. from its endpoint) when it overrides ``read`` for
    # those alone: ``read_all`` asks ``read`` for these and reads the rest in one pass. A subclass that overrides
    # ``read`` without naming them here is read attribute by attribute.
    live_reads: ClassVar[frozenset[str]] = frozenset()
    _command_specs: ClassVar[dict[str, CommandSpec]]
    _commands_by_id: ClassVar[tuple[str, ...]]  # the declared commands in command-id order
    _model: ClassVar[ClusterModel]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "cluster_name" not in cls.__dict__ and not hasattr(cls, "cluster_name"):
            return
        model = cluster_model(cls.cluster_name)
        cls._model = model
        unknown = sorted(set(cls.defaults) - set(model.attributes))
        if unknown:
            raise TypeError(f"{cls.__name__}: {cls.cluster_name} has no attribute(s) {unknown}")
        specs: dict[str, CommandSpec] = {}
        for attr in dir(cls):
            method: Callable[..., Any] | None = getattr(cls, attr, None)
            marker = getattr(method, "_command", None)
            if marker is None or method is None:
                continue
            cmd_name, aliases, cons = marker
            if cmd_name not in model.commands:
                raise TypeError(f"{cls.__name__}: {cls.cluster_name} has no client command {cmd_name!r}")
            cmd = model.commands[cmd_name]
            params = inspect.signature(method).parameters
            labels = {f.label for f in cmd.fields}
            missing = labels - set(params)
            if missing:
                raise TypeError(f"{cls.__name__}.{attr} lacks parameters {sorted(missing)}")
            defaults = {p: params[p].default for p in labels if params[p].default is not inspect.Parameter.empty}
            names: dict[str, str] = {}
            for label in labels:
                for spelling in (label, label[:1].upper() + label[1:], snake_case(label)):
                    names[spelling] = label
            for alias, label in aliases.items():
                if label not in labels:
                    raise TypeError(f"{cls.__name__}.{attr}: alias {alias!r} names unknown field {label!r}")
                names[alias] = label
            specs[cmd_name] = CommandSpec(cmd, attr, cons, defaults, names)
        cls._command_specs = specs
        cls._commands_by_id = tuple(sorted(specs, key=lambda n: specs[n].model.command_id))
        unknown_scene = sorted(set(cls.scene_attributes) - set(model.attributes))
        if unknown_scene:
            raise TypeError(f"{cls.__name__}: {cls.cluster_name} has no scene attribute(s) {unknown_scene}")
        unknown_events = sorted(e for e in cls.events if e not in model.events)
        if unknown_events:
            raise TypeError(f"{cls.__name__}: {cls.cluster_name} has no event(s) {unknown_events}")

    def __init__(self, *, features: int | None = None, values: Mapping[str, Any] | None = None) -> None:
        self.feature_map = self.default_features if features is None else features
        self._held = AttributeValues(self.initial_values())  # shared until changed (copy on write)
        self._hooks = _NO_HOOKS  # most servers never bind a source or get an event listener (memory per home)
        self._listeners: ChangeListener | tuple[ChangeListener, ...] = ()  # one in practice: the endpoint
        self.endpoint: HostingEndpoint | None = None
        for name, value in (values or {}).items():
            self.restore(name, value)

    def copy_as_built(self) -> ClusterServer | None:
        """A new server in the state this one is in, for a server not attached yet whose own attributes are all
        immutable values: what building one alike again gives, without re-running its constructor (a catalogue
        entry's servers are built so); an empty dict or list of its own is a new empty one in the copy. None when it
        cannot be copied so (attached, listened to, sourced, or holding another mutable attribute of its own)."""
        plan = self.copy_plan()
        return None if plan is None else self.copy_by(plan)

    def copy_plan(self) -> CopyPlan | None:
        """What :meth:`copy_as_built` copies of this server's own attributes — (name, value, whether the copy gets a
        new empty one) each — or None when it cannot be copied so. Holds while the server does not change: a
        catalogue entry keeps its prepared server's plan and copies by it (``copy_by``) without checking again."""
        hooks = self._hooks
        if self.endpoint is not None or hooks.sources or self._listeners or hooks.event_listeners:
            return None
        slots, has_dict = _own_layout(type(self))
        own = self._own_attributes() if slots or has_dict else {}
        for value in own.values():
            if (
                not isinstance(value, _IMMUTABLE)
                and not (type(value) is tuple and all(isinstance(item, _IMMUTABLE) for item in value))
                and not (type(value) in _FRESH_WHEN_EMPTY and not value)
            ):
                return None
        return tuple((name, value, type(value) in _FRESH_WHEN_EMPTY) for name, value in own.items())

    def copy_by(self, plan: CopyPlan) -> ClusterServer:
        """The copy :meth:`copy_as_built` makes, by a plan ``copy_plan`` gave for this server in its state now."""
        if type(self._held) is not _SharedValues:  # its values, read by every copy until the copy's first change
            self._held = _SharedValues(self._held.as_dict())
        copied = object.__new__(type(self))
        copied.feature_map = self.feature_map
        copied._held = self._held
        copied._hooks = _NO_HOOKS
        copied._listeners = ()
        copied.endpoint = None
        for name, value, fresh in plan:  # into its slots (or, without, one by one: compact key-sharing attributes)
            setattr(copied, name, type(value)() if fresh else value)
        return copied

    def as_copied_on(self, endpoint: HostingEndpoint) -> bool:
        """Whether this server is still as it was copied (``copy_by``) and put on ``endpoint``: it reads shared
        values (those it was copied with, or those of servers alike: ``share_alike``), binds no source, has no
        event listener and no watcher of its writes, and ``endpoint``, which it is attached to, is its one change
        listener."""
        listeners: object = self._listeners
        return (
            type(self._held) is _SharedValues
            and self._hooks is _NO_HOOKS
            and listeners is endpoint
            and self.endpoint is endpoint
        )

    def _own_attributes(self) -> dict[str, Any]:
        """The attributes a subclass keeps besides the base's, set so far: its slots' (every server class of the
        package declares ``__slots__``, a home holds hundreds of servers) and any instance dict's (a class without)."""
        slots, has_dict = _own_layout(type(self))
        own = {name: value for name in slots if (value := getattr(self, name, _ABSENT)) is not _ABSENT}
        if has_dict:
            own.update(vars(self))
        return own

    def initial_values(self) -> dict[str, Any]:
        """Hook: the supported attributes and initial values for this instance's features (read, never changed:
        the server keeps its changes apart, so the class's ``defaults`` themselves may be returned)."""
        return self.defaults

    @property
    def _values(self) -> AttributeValues:
        """This server's values to change (or for a subclass to read): its own, taken from the shared ones of the
        server it was copied from on first use (``read``, ``read_all`` and the checks of ``set`` read ``_held``)."""
        held = self._held
        if type(held) is _SharedValues:
            held = self._held = held.copy()
            held.mark = self._hooks.write_mark  # a copy starts without one: its writes must raise the server's
        return held

    def share_values(self, table: dict[str, Any] | None) -> dict[str, Any]:
        """Read the values from ``table`` (those of a server built alike, e.g. from the same catalogue entry) when
        they are exactly this server's, dropping its own copies; returns the table for the next server built
        alike (this server's values as a new table when ``table`` is None)."""
        return self._values.shared_with(table)

    def accepts(self, command_name: str) -> bool:
        """Hook: whether this instance (with its features) accepts a command it has a handler for. A function of
        the class and its features only: AcceptedCommandList is derived once per (class, features)."""
        return True

    def has_feature(self, bit: int) -> bool:
        return bool(self.feature_map & int(bit))

    # ----------------------------------------------------------------------------- introspection
    @property
    def model(self) -> ClusterModel:
        return self._model

    @classmethod
    def class_model(cls) -> ClusterModel:
        """The official model of this server class (what ``model`` gives on an instance)."""
        return cls._model

    @classmethod
    def declared_command(cls, name: str) -> CommandSpec | None:
        """The command ``name`` as this server class declares it (whatever its features), else None."""
        return cls._command_specs.get(name)

    @property
    def cluster_id(self) -> int:
        return self._model.cluster_id

    def attribute_names(self) -> list[str]:
        """Supported attributes, spec order, globals last."""
        return list(self._attribute_layout()[0])

    def _attribute_layout(self) -> tuple[tuple[str, ...], list[int]]:
        """(attribute_names, AttributeList) for the attributes this instance holds now — shared by every server
        of its class holding the same ones (snapshots and wildcard reads ask for them on every server)."""
        key = (type(self), tuple(self._held.table), tuple(self._hooks.sources))  # the table holds every name
        layout = _ATTRIBUTE_LAYOUTS.get(key)
        if layout is None:
            attributes = self._model.attributes
            own = [a for a in attributes if a in self._held or a in self._hooks.sources]
            names = tuple(
                [a for a in own if a not in GLOBAL_ATTRIBUTE_IDS] + [a for a in GLOBAL_ATTRIBUTE_IDS if a in attributes]
            )
            layout = _ATTRIBUTE_LAYOUTS[key] = (names, sorted(attributes[a].attribute_id for a in names))
        return layout

    def has_attribute(self, name: str) -> bool:
        return name in GLOBAL_ATTRIBUTE_IDS or name in self._held or name in self._hooks.sources

    def command_names(self) -> list[str]:
        return [n for n in self._commands_by_id if self.accepts(n)]

    def command_spec(self, name: str) -> CommandSpec:
        spec = self._command_specs.get(name)
        if spec is None or not self.accepts(name):
            raise HomeError.refused(
                Status.UNSUPPORTED_COMMAND,
                f"{self.cluster_name} does not accept command {name!r}",
                allowed=self.command_names(),
            )
        return spec

    def is_writable(self, name: str) -> bool:
        model = self._attribute_model(name)
        return self.writable_override.get(name, model.writable)

    def _attribute_model(self, name: str) -> AttributeModel:
        if not self.has_attribute(name):
            raise HomeError.refused(
                Status.UNSUPPORTED_ATTRIBUTE,
                f"{self.cluster_name} has no attribute {name!r}",
                allowed=self.attribute_names(),
            )
        return self._model.attributes[name]

    # ----------------------------------------------------------------------------- binding
    def attach(self, endpoint: HostingEndpoint, runtime: Runtime | None) -> None:
        """Sit on ``endpoint``, whose runtime (``runtime``, which it holds) is the server's from now on."""
        if runtime is not endpoint.runtime:
            raise AssertionError(f"{self.cluster_name}: attached with a runtime its endpoint does not hold")
        self.endpoint = endpoint
        self.on_attach()
        self.share_alike()

    def share_alike(self) -> None:
        """Read its values from the object every server holding exactly the same values reads (a shared table, no
        changes of its own: ``AttributeValues.alike_key``) instead of an object of its own, until its first change
        (``_values`` then takes a copy): servers built alike hold the same values in every home. Nothing when its
        values may not be shared (changes or a table of its own, a watcher's mark on them)."""
        held = self._held
        if type(held) is AttributeValues and (shared := _shared_alike(held)) is not None:
            self._held = shared

    @property
    def runtime(self) -> Runtime | None:
        """Its endpoint's runtime (None before it is attached): one per endpoint, not one per server."""
        endpoint = self.endpoint
        return None if endpoint is None else endpoint.runtime

    def on_attach(self) -> None:
        """Hook: called once the server sits on an endpoint (siblings and runtime available)."""

    def add_listener(self, listener: ChangeListener) -> None:
        """Be told of changes by ``listener``, after those it has: a server's first is kept as it is, no tuple (an
        endpoint is its servers' one listener in practice, and a home holds hundreds of endpoints)."""
        held = self._listeners
        if type(held) is tuple and not held:
            self._listeners = listener
        else:
            self.add_listeners((listener,))

    def add_listeners(self, listeners: tuple[ChangeListener, ...]) -> None:
        """Be told of changes by each of ``listeners``, after those it has, in order."""
        held = self._listeners
        before = held if type(held) is tuple else (held,)
        self._listeners = (*before, *listeners)

    @property
    def _sources(self) -> Mapping[str, Callable[[], Any]]:
        """Its live sources by attribute name (``bind_source``), for a subclass to read."""
        return self._hooks.sources

    def _own_hooks(self) -> _RareHooks:
        hooks = self._hooks
        if hooks.shared():
            hooks = self._hooks = _RareHooks(hooks.write_mark)
        return hooks

    def bind_source(self, name: str, source: Callable[[], Any]) -> None:
        """Make ``name`` a live value read from ``source`` (e.g. a sensor fed by room physics)."""
        if name not in self._model.attributes:
            raise HomeError.refused(Status.UNSUPPORTED_ATTRIBUTE, f"{self.cluster_name} has no attribute {name!r}")
        hooks = self._own_hooks()
        if hooks.sources is _NO_SOURCES:
            hooks.sources = {}
        hooks.sources[name] = source
        self._values.pop(name, None)
        self.share_alike()  # a sensor's values without its live reading: those of every sensor built alike

    def now(self) -> float:
        if self.runtime is None:
            raise HomeError.refused(Status.FAILURE, f"{self.cluster_name} is not attached to a runtime")
        return self.runtime.now()

    # ----------------------------------------------------------------------------- reads
    def read(self, name: str) -> Any:
        hooks = self._hooks
        if hooks is not _NO_HOOKS and (source := hooks.sources.get(name)) is not None:
            return source()
        values = self._held  # AttributeValues.get, inlined: snapshots read every attribute of every server
        changed = values.changed
        if changed and name in changed:
            return changed[name]
        table = values.table
        if name in table:
            return table[name]
        return self._global_value(name)

    def _global_value(self, name: str) -> Any:
        """A global attribute (FeatureMap, ClusterRevision and the lists derived from the class and its features)."""
        if name == "FeatureMap":
            return self.feature_map
        if name == "ClusterRevision":
            return self.revision
        if name == "AttributeList":
            return list(self._attribute_layout()[1])
        if name in _DERIVED_LISTS:
            return list(self._derived_lists()[_DERIVED_LISTS[name]])
        self._attribute_model(name)
        raise AssertionError("unreachable")

    def _derived_lists(self) -> tuple[list[int], list[int], list[int]]:
        """(AcceptedCommandList, GeneratedCommandList, EventList): functions of the class and its features alone
        (``accepts`` and ``supported_events`` look at nothing else), so derived once per pair in use."""
        key = (type(self), self.feature_map)
        lists = _COMMAND_AND_EVENT_LISTS.get(key)
        if lists is None:
            specs = [self._command_specs[n] for n in self.command_names()]
            responses = {spec.model.response for spec in specs if spec.model.response}
            events = self.supported_events()
            lists = _COMMAND_AND_EVENT_LISTS[key] = (
                sorted(spec.model.command_id for spec in specs),
                sorted(response_model(self.cluster_name, r).command_id for r in responses),
                sorted(self._model.events[e].event_id for e in events) if events else [],
            )
        return lists

    def read_all(
        self, prefix: str = "", into: dict[str, Any] | None = None, *, shared_lists: bool = False
    ) -> dict[str, Any]:
        """Every attribute now, keyed ``prefix + name`` in ``attribute_names`` order: what ``read`` gives for each,
        in one pass over the stored values, the live sources and the globals (snapshots read every server).
        ``into``: the dict to add them to and return (a snapshot's map of a whole device), else a new one.
        ``shared_lists``: the globals' lists (AttributeList, the command and event lists) are those the read plan
        keeps for every server of this shape, not copies, for a caller that never changes a value in place (as
        stored lists are shared already): a home's snapshots."""
        plan = self._read_plan()
        if plan.own is None:  # a class with live values of its own (ColorControl's moves), or a stored global
            found = [self.read(name) for name in plan.names]
        else:
            sources, values = self._hooks.sources, self._held
            if sources:
                found = [values[name] if (source := sources.get(name)) is None else source() for name in plan.own]
            else:
                found = list(map(values.__getitem__, plan.own))
            if shared_lists:
                found.extend(plan.derived)
            else:
                for value in plan.derived:  # lists of the caller's own, as ``read`` gives them
                    found.append(list(value) if type(value) is list else value)
            for position in plan.live:
                found[position] = self.read(plan.names[position])
        if into is None:
            return dict(zip(plan.keys(prefix), found, strict=True))
        into.update(zip(plan.keys(prefix), found, strict=True))
        return into

    def watch_writes(self, mark: WriteMark) -> bool:
        """Have every stored write of this server raise ``mark`` (told to listeners or not); returns whether
        ``read_all`` may give other values without one: values read live (a bound source, a ``read`` of its own,
        ``live_reads`` included). The rest it reads from the stored values and the globals of its class and
        features (a server's features are fixed)."""
        hooks = self._hooks
        if hooks.shared():
            self._hooks = _watched_by(mark)
        else:
            hooks.write_mark = mark
        if type(self._held) is not _SharedValues:  # shared values are never written: the mark goes to its own
            self._held.mark = mark  # values when it takes them (``_values``), so watching keeps the sharing
        return bool(self._hooks.sources) or type(self).read is not ClusterServer.read

    def _read_plan(self) -> _ReadPlan:
        """How ``read_all`` reads this server: shared by every server of its class with the same features and the
        same stored and sourced attributes (a handful of shapes per process)."""
        key = (type(self), self.feature_map, tuple(self._held), tuple(self._hooks.sources))
        plan = _READ_PLANS.get(key)
        if plan is None:
            names = self._attribute_layout()[0]
            own = tuple(name for name in names if name in self._held or name in self._hooks.sources)
            live_reads = type(self).live_reads
            overridden = type(self).read is not ClusterServer.read and not live_reads
            general = overridden or names[: len(own)] != own
            derived = () if general else tuple(self._global_value(name) for name in names[len(own) :])
            live = () if general else tuple(i for i, name in enumerate(names) if name in live_reads)
            plan = _READ_PLANS[key] = _ReadPlan(names, None if general else own, derived, live)
        return plan

    # ----------------------------------------------------------------------------- writes
    def validate_write(self, name: str, value: Any) -> Any:
        """Static checks of an external write (existence, access, type, range): no state needed."""
        model = self._attribute_model(name)
        if not self.is_writable(name):
            writable = [a for a in self.attribute_names() if self.is_writable(a)]
            raise HomeError.refused(
                Status.UNSUPPORTED_WRITE,
                f"{self.cluster_name}.{name} is read-only",
                allowed={"writable_attributes": writable},
            )
        normalised = coerce(value, model.type, f"{self.cluster_name}.{name}")
        constraint = self.constraints.get(name)
        if constraint is not None:
            constraint.check(normalised, f"{self.cluster_name}.{name}")
        return normalised

    def write(self, name: str, value: Any) -> tuple[Any, Any]:
        """External write (controller, agent): validated, then applied; returns (old, new)."""
        return self.write_validated(name, self.validate_write(name, value))

    def write_validated(self, name: str, normalised: Any) -> tuple[Any, Any]:
        """Apply a value ``validate_write`` returned (a caller may check its own rules in between)."""
        self.check_write(name, normalised)
        old = self.read(name)
        self.apply_write(name, normalised)
        return old, self.read(name)

    def check_write(self, name: str, value: Any) -> None:
        """Hook: state-dependent checks of a write (raise INVALID_IN_STATE / CONSTRAINT_ERROR)."""

    def apply_write(self, name: str, value: Any) -> None:
        """Hook: apply a validated write. Subclasses redirect writes with side effects."""
        self.set(name, value)

    def restore(self, name: str, value: Any) -> None:
        """Load a stored value (home file, snapshot): type-checked, ignores writability."""
        model = self._model.attributes.get(name)
        if model is None or name in GLOBAL_ATTRIBUTE_IDS:
            raise HomeError.refused(
                Status.UNSUPPORTED_ATTRIBUTE,
                f"{self.cluster_name} has no attribute {name!r}",
                allowed=self.attribute_names(),
            )
        if name in self._hooks.sources:
            return  # live values are owned by their source
        if value is None and model.type.optional and not model.type.nullable:
            # null for an optional, non-nullable attribute means "not implemented" (SimuHome writes
            # e.g. Tolerance = null): the attribute is absent, as on a real device.
            self._values.pop(name, None)
            return
        kind = type(value)
        if (
            kind is type(current := self._held.get(name, _ABSENT))
            and value == current
            and (kind in _PLAIN_SCALARS or (kind in _CONTAINERS and _written_alike(value, current)))
        ):
            return  # the value it holds already (a home file lists every attribute, most at their initial value)
        self.set(name, coerce(value, model.type, f"{self.cluster_name}.{name}"))

    def set(self, name: str, value: Any) -> None:
        """Internal state change; tells listeners when the value really changed."""
        old = self._held.get(name)
        if name in self._held and old == value and type(old) is type(value):
            return
        self._values[name] = value
        self._tell(name, old, value)

    def notify(self, name: str, old: Any, new: Any) -> None:
        """Announce a change of a live (sourced) attribute."""
        if old != new or type(old) is not type(new):
            self._tell(name, old, new)

    def _tell(self, name: str, old: Any, new: Any) -> None:
        """Tell its listeners of a change: its sole one (its endpoint, in practice) or each, in order."""
        listeners = self._listeners
        if isinstance(listeners, tuple):
            for listener in listeners:
                listener(self, name, old, new)
        else:
            listeners(self, name, old, new)

    # ----------------------------------------------------------------------------- scenes
    def scene_values(self) -> dict[str, Any]:
        """The current values of this instance's scene attributes (what StoreScene captures)."""
        return {name: self.read(name) for name in self.scene_attributes if self.has_attribute(name)}

    def apply_scene(self, values: Mapping[str, Any], transition_s: float) -> None:
        """Hook: move to a stored scene's values over ``transition_s`` seconds (RecallScene)."""
        raise HomeError.refused(Status.FAILURE, f"{self.cluster_name} cannot recall scenes")

    # ----------------------------------------------------------------------------- events
    def supported_events(self) -> tuple[str, ...]:
        """Hook: the events this instance (with its features) emits — a function of the class and its features only
        (EventList is derived once per pair)."""
        return self.events

    def add_event_listener(self, listener: EventListener) -> Callable[[], None]:
        """Be told of every event this server emits; returns a function that stops it."""
        hooks = self._own_hooks()
        if hooks.event_listeners is _NO_EVENT_LISTENERS:
            hooks.event_listeners = []
        listeners = hooks.event_listeners
        listeners.append(listener)

        def remove() -> None:
            if listener in listeners:
                listeners.remove(listener)

        return remove

    def emit_event(self, name: str, fields: Mapping[str, Any], priority: EventPriority = EventPriority.INFO) -> None:
        """Record an occurrence of one of ``events`` (fields by chip label); listeners log it."""
        if name not in self.supported_events():
            raise AssertionError(f"{self.cluster_name} emits {name!r} but does not declare it")
        for listener in list(self._hooks.event_listeners):
            listener(self, name, dict(fields), priority)

    # ----------------------------------------------------------------------------- commands
    def validate_invoke(self, name: str, args: Mapping[str, Any] | None) -> dict[str, Any]:
        """Static checks of a command (existence, argument names, types, ranges): no state needed."""
        return self.command_spec(name).normalise(args, f"{self.cluster_name}.{name}")

    def invoke(self, name: str, args: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        """Run a command; returns the response fields (or a small result dict), raises HomeError."""
        return self.invoke_validated(name, self.validate_invoke(name, args))

    def invoke_validated(self, name: str, normalised: dict[str, Any]) -> dict[str, Any] | None:
        """Run a command with the arguments ``validate_invoke`` returned."""
        response: dict[str, Any] | None = getattr(self, self._command_specs[name].method)(**normalised)
        return response

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.cluster_name}>"
