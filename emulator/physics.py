"""Room environment physics: which device terms act on which variable, and the segment bookkeeping.

Rates are SimuHome's (facts §4) evaluated every tick, i.e. without its frozen-effect bug: an AC
stops pushing at its setpoint, a purifier's effect scales with the pollution left. Illuminance is
algebraic (daylight × coverings + lights, lights counted once). Fridge/freezer/oven/tank
compartments approach their setpoints (SimuHome never ran its models).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from emulator.clock import Timer, VirtualClock
from emulator.compartments import Compartments
from emulator.daylight import KNOT_S, knot_start
from emulator.physics_model import Process, Segment
from emulator.physics_terms import PhysicsParams as PhysicsParams  # re-exported: where callers have found it
from emulator.physics_terms import room_process, shared_params
from emulator.reportable_change import AIR_QUALITY_EDGES, REPORTABLE_CHANGE, linear_crossing, segment_crossing
from emulator.room_frame import ENVIRONMENT_KEYS as ENVIRONMENT_KEYS  # re-exported: its callers' name
from emulator.room_frame import RoomPictures, illuminance
from emulator.sky import Sky

if TYPE_CHECKING:
    from emulator.device import Device

VARIABLES = ("temperature", "humidity", "pm10")
# Closer than this to its resting value, a variable's sensor readings (0.01 °C and 0.01 % integers, pm10 to
# 0.01 µg/m³) no longer move in practice.
SETTLED_WITHIN = {"temperature": 0.05, "humidity": 0.05, "pm10": 0.0005}
AT_REST_FRACTION = 1e-6
# Attribute changes of these clusters can change a room's rates (sensor readings cannot).
DRIVING_CLUSTERS = frozenset(
    {
        "OnOff",
        "LevelControl",
        "FanControl",
        "Thermostat",
        "WindowCovering",
        "TemperatureControl",
        "OperationalState",
        "OvenCavityOperationalState",
        "WaterHeaterManagement",
        "WaterHeaterMode",
    }
)
SENSOR_ATTRIBUTES = frozenset({"LocalTemperature", "MeasuredValue", "AirQuality"})
_NO_TIMERS: Mapping[str, Timer] = MappingProxyType({})


class SensorFeed:
    """One sensor attribute fed by room physics: the callable its server reads the attribute through, and the
    reading last reported for it (one slotted object per sensor: a home binds dozens, memory per home)."""

    __slots__ = ("attribute", "published", "server")
    compartment = False  # True for a reading of a device's own compartment (a fridge's inside)
    variable: str | None = None  # the room variable it reads (a room reading's own slot)

    def __init__(self, server: Any, attribute: str) -> None:
        self.server = server
        self.attribute = attribute
        self.published: Any = None  # the value last reported (None before the room began integrating)

    def __call__(self) -> Any:
        raise NotImplementedError


class RoomPhysics:
    """One room's physics state: its baselines, noon daylight, trajectories and their boundary timers."""

    # each variable's segment, the room's feeds and its reported basis in slots of its own: no dict of segments per
    # room, no engine dicts keyed by room (memory per home)
    __slots__ = (
        "_baselines",
        "_timers",
        "daylight",
        "feeds",
        "humidity",
        "initial",
        "pm10",
        "reported",
        "room_id",
        "temperature",
    )

    def __init__(self, room_id: str, environment: dict[str, float], baseline: dict[str, float]) -> None:
        self.room_id = room_id
        # in ENVIRONMENT_KEYS order, as given (a tuple, not a dict per room: memory per home)
        self._baselines = tuple(baseline[key] for key in ENVIRONMENT_KEYS)
        self.daylight = float(baseline["illuminance"])
        self.temperature: Segment | None = None
        self.humidity: Segment | None = None
        self.pm10: Segment | None = None
        self._timers: dict[str, Timer] | None = None  # made with the room's first boundary timer (most never have one)
        # its live sensor attributes, for change reports (a tuple, the shared () while it has none)
        self.feeds: tuple[SensorFeed, ...] = ()
        # its variables (and compartments) as last reported: the basis of the next reportable change
        self.reported: dict[Any, float] | None = None
        # the environment the room starts from, until ``PhysicsEngine.start`` begins integrating from it
        self.initial: dict[str, float] | None = dict(environment)

    def segment(self, variable: str) -> Segment:
        """The segment ``variable`` (one of VARIABLES) follows now."""
        segment: Segment | None = getattr(self, variable) if variable in VARIABLES else None
        if segment is None:
            raise KeyError(variable)
        return segment

    def sensed_variables(self) -> set[str]:
        """The room variables its sensors read."""
        return {feed.variable for feed in self.feeds if feed.variable is not None}

    def unbind(self, servers: set[int]) -> None:
        """Stop feeding the sensor attributes of these servers (by id)."""
        self.feeds = tuple(feed for feed in self.feeds if id(feed.server) not in servers)

    def began(self) -> bool:
        """Whether any variable follows a segment yet (the room is integrating)."""
        return self.temperature is not None or self.humidity is not None or self.pm10 is not None

    def current_segments(self) -> dict[str, Segment]:
        """Variable → the segment it follows now (none before the room began): a new dict, the room's own slots
        change only through ``PhysicsEngine``."""
        return {variable: segment for variable in VARIABLES if (segment := getattr(self, variable)) is not None}

    @property
    def segments(self) -> Mapping[str, tuple[int, Segment]]:
        """Variable → (the tick its segment began, the segment): the trajectories as a read-only snapshot, built
        when asked (a room keeps only its segments, each with its start)."""
        return MappingProxyType({variable: (s.start, s) for variable, s in self.current_segments().items()})

    @property
    def baseline(self) -> Mapping[str, float]:
        """Each variable's baseline, the value it drifts back to (a read-only view: ``set_baseline`` changes one)."""
        return MappingProxyType(dict(zip(ENVIRONMENT_KEYS, self._baselines, strict=True)))

    @property
    def timers(self) -> Mapping[str, Timer]:
        """Variable → its pending segment-boundary timer (only the variables with one)."""
        return self._timers if self._timers is not None else _NO_TIMERS

    def take_timer(self, variable: str) -> Timer | None:
        """The variable's pending boundary timer, no longer the room's (None: it had none)."""
        return self._timers.pop(variable, None) if self._timers else None

    def set_timer(self, variable: str, timer: Timer) -> None:
        if self._timers is None:
            self._timers = {}
        self._timers[variable] = timer

    def baseline_of(self, variable: str) -> float:
        return self._baselines[ENVIRONMENT_KEYS.index(variable)]

    def set_baseline(self, variable: str, value: float) -> None:
        at = ENVIRONMENT_KEYS.index(variable)
        self._baselines = (*self._baselines[:at], value, *self._baselines[at + 1 :])


class PhysicsEngine:
    """A home's room physics: its rooms' trajectories, the sky over them and the sensors they feed."""

    __slots__ = (  # one per home: no instance dict (memory per home)
        "_sky_timer",
        "clock",
        "compartments",
        "devices_in",
        "params",
        "pictures",
        "rooms",
        "segment_count",
        "segment_listener",
        "sun",
        "weather",
    )

    def __init__(
        self, clock: VirtualClock, params: PhysicsParams, devices_in: Callable[[str], Iterable[Device]]
    ) -> None:
        self.clock = clock
        self.params = params = shared_params(params)
        self.devices_in = devices_in
        self.rooms: dict[str, RoomPhysics] = {}
        self.segment_count = 0
        self.compartments = Compartments(clock, params)
        self.weather = Sky(clock, params)
        self.sun = self.weather.sun
        self._sky_timer: Timer | None = None
        self.pictures = RoomPictures(params, devices_in)  # light terms and frames' pictures while a room stays as it is
        # Told (room, variable) whenever a trajectory restarts (automations re-plan their crossings).
        self.segment_listener: Callable[[str, str], None] | None = None

    # ------------------------------------------------------------------------------ rooms
    def add_room(self, room_id: str, environment: dict[str, float], baseline: dict[str, float]) -> None:
        self.rooms[room_id] = RoomPhysics(room_id, environment, baseline)

    def remove_room(self, room_id: str) -> None:
        room = self.rooms.pop(room_id)
        self.pictures.devices_changed(room_id)
        for timer in room.timers.values():
            timer.cancel()

    def start(self, room_id: str, *, calibrate_illuminance: bool = True) -> None:
        """Begin integrating a room from its initial state (after its devices are placed)."""
        room = self.rooms[room_id]
        initial, room.initial = room.initial, None  # integrating from here on: the trajectories hold the state
        if initial is None:
            raise RuntimeError(f"room {room_id!r} has already started")
        self.pictures.devices_changed(room_id)  # read the devices as they are now
        if calibrate_illuminance:
            # The stored illuminance already includes the lights that are on and the coverings as
            # they are: solve for daylight so lights are not counted twice (SimuHome bug §4.4).
            factor, lights = self.pictures.terms(room_id)
            observed = initial["illuminance"]
            if factor > 0:
                room.daylight = self._noon_daylight(max(0.0, observed - lights) / factor, room)
        for variable in VARIABLES:
            self._begin(room, variable, float(initial[variable]))
        for feed in room.feeds:
            feed.published = feed()
        room.reported = self._report_basis(room_id)
        if (self.sun is not None or self.params.outdoor == "daily") and self._sky_timer is None:
            self._schedule_sky()

    # ------------------------------------------------------------------------------ the sky
    def sky(self) -> float:
        """Daylight now relative to a room's noon daylight (always 1 with constant daylight)."""
        return self.weather.relative_daylight()

    def _noon_daylight(self, daylight_now: float, room: RoomPhysics) -> float:
        """A room's noon daylight from its daylight now; at night or dusk (too little sky to scale by), the
        room's baseline illuminance stands for its noon light."""
        sky = self.sky()
        if self.sun is None:
            return daylight_now
        return daylight_now / sky if sky >= 0.2 else max(daylight_now, float(room.baseline_of("illuminance")))

    def _schedule_sky(self) -> None:
        from datetime import timedelta

        next_knot = knot_start(self.clock.now_datetime) + timedelta(seconds=KNOT_S)
        self._sky_timer = self.clock.call_at_tick(self.clock.tick_of(next_knot), self._sky_knot, "physics sky")

    def next_knot_tick(self) -> int | None:
        """The tick of the next sky knot (every room reports there), or None with a constant sky."""
        return None if self._sky_timer is None else self._sky_timer.due

    def _sky_knot(self) -> None:
        for room_id in self.rooms:
            if self.params.outdoor == "daily":  # a new outdoor temperature: a new closed-form stretch
                room = self.rooms[room_id]
                self._begin(room, "temperature", self.value(room_id, "temperature"))
            self.publish_sensors(room_id)  # and the sky's slope changed: light sensors report where it is now
            if self.sun is not None and self.segment_listener is not None:
                self.segment_listener(room_id, "illuminance")  # rules on light re-plan against the new slope
        self._schedule_sky()

    # ------------------------------------------------------------------------------ values
    def value(self, room_id: str, variable: str) -> float:
        room = self.rooms[room_id]
        if variable == "illuminance":
            return illuminance(room.daylight, self.sky(), self.pictures.terms(room_id))
        return room.segment(variable).value_at(self.clock.tick)

    def _trajectories(self, room_id: str) -> list[tuple[str, int, Segment]]:
        """(variable, the tick it began, segment) of the room's variables and its devices' compartments."""
        trajectories = [(v, segment.start, segment) for v, segment in self.rooms[room_id].current_segments().items()]
        for device in self.devices_in(room_id):
            for (device_id, _ep), (start, segment) in self.compartments.trajectories.items():
                if device_id == device.device_id:
                    trajectories.append(("temperature", start, segment))
        return trajectories

    def settled(self, room_id: str) -> bool:
        """True when no sensor reading of the room moves noticeably before its next segment boundary: every
        variable (and compartment) is within SETTLED_WITHIN of where its segment comes to rest."""
        tick = self.clock.tick
        for variable, start, segment in self._trajectories(room_id):
            if segment.stepwise or segment.exit_after is not None:
                return False  # still heading for a boundary event
            rest = segment.process.clamp(segment.fixed)
            if abs(segment.value_after(tick - start) - rest) > SETTLED_WITHIN[variable]:
                return False
        return True

    def at_rest_after(self, room_id: str) -> int:
        """Ticks from now until every trajectory of a settled room has closed all but a millionth of its
        remaining distance to rest (when a reading that sits on a unit boundary has flipped for good)."""
        tick = self.clock.tick
        longest = 0
        for _variable, start, segment in self._trajectories(room_id):
            if segment.stepwise:
                continue
            if segment.value_after(tick - start) != segment.process.clamp(segment.fixed):
                longest = max(longest, math.ceil(math.log(AT_REST_FRACTION) / math.log(segment.alpha)))
        return longest

    def state(self, room_id: str) -> dict[str, float]:
        return {key: self.value(room_id, key) for key in ENVIRONMENT_KEYS}

    def set_value(self, room_id: str, variable: str, value: float) -> None:
        """Put a variable at a value now (a scenario injection: a window opened, smoke)."""
        room = self.rooms[room_id]
        if variable == "illuminance":
            factor, lights = self.pictures.terms(room_id)
            if factor > 0:
                room.daylight = self._noon_daylight(max(0.0, value - lights) / factor, room)
                self.pictures.moved(room_id)
            if self.segment_listener is not None:
                self.segment_listener(room_id, variable)
        else:
            self._begin(room, variable, float(value))
        self.publish_sensors(room_id)

    def set_baseline(self, room_id: str, variable: str, value: float) -> None:
        room = self.rooms[room_id]
        current = {v: self.value(room_id, v) for v in VARIABLES}
        room.set_baseline(variable, float(value))
        for v in VARIABLES:
            self._begin(room, v, current[v])

    # ------------------------------------------------------------------------------ events
    def device_changed(self, device: Device, cluster: str, attribute: str) -> None:
        if cluster not in DRIVING_CLUSTERS or attribute in SENSOR_ATTRIBUTES or device.room_id not in self.rooms:
            return
        self.resegment(device.room_id)
        self.compartments.restart(device)

    def resegment(self, room_id: str) -> None:
        self.pictures.devices_changed(room_id)  # a light or covering may have changed, come or gone
        room = self.rooms[room_id]
        now_values = {v: self.value(room_id, v) for v in VARIABLES}
        for variable in VARIABLES:
            self._begin(room, variable, now_values[variable])
        self.publish_sensors(room_id)

    def _begin(self, room: RoomPhysics, variable: str, x0: float) -> None:
        timer = room.take_timer(variable)
        if timer is not None:
            timer.cancel()
        start = self.clock.tick
        segment = Segment(self._process(room, variable), x0, start)
        self.segment_count += 1
        setattr(room, variable, segment)
        self.pictures.moved(room.room_id)
        if segment.exit_after is not None:
            room.set_timer(
                variable,
                self.clock.call_at_tick(
                    start + segment.exit_after, lambda: self._piece_exit(room, variable), f"physics {room.room_id}"
                ),
            )
        if self.segment_listener is not None:
            self.segment_listener(room.room_id, variable)

    def _piece_exit(self, room: RoomPhysics, variable: str) -> None:
        if self.rooms.get(room.room_id) is not room:
            return
        self._begin(room, variable, self.value(room.room_id, variable))
        self.publish_sensors(room.room_id)

    # ------------------------------------------------------------------------------ the rules
    def process(self, room_id: str, variable: str) -> Process:
        """A room variable's dynamics now, as a rule a stepper can follow (bench and tests compare with it)."""
        return self._process(self.rooms[room_id], variable)

    def _process(self, room: RoomPhysics, variable: str) -> Process:
        return room_process(
            self.params,
            self.devices_in(room.room_id),
            room.baseline_of(variable),
            variable,
            self.weather.outdoor_temperature() if variable == "temperature" else None,
        )

    # ------------------------------------------------------------------------------ sensors
    def bind_sensor(self, room_id: str, feed: SensorFeed) -> None:
        """Feed ``feed.attribute`` of ``feed.server`` from the room (only what a sensor reads of a room variable,
        ``feed.variable``, can be worth a report: reportable change)."""
        feed.server.bind_source(feed.attribute, feed)
        room = self.rooms[room_id]
        room.feeds = (*room.feeds, feed)
        if room.began():  # the room is already integrating (a device added later)
            feed.published = feed()

    def is_compartment_sensor(self, server: Any, attribute: str) -> bool:
        """Whether ``attribute`` of ``server`` reads a device's own compartment (a fridge's inside)."""
        return any(
            feed.compartment and feed.server is server and feed.attribute == attribute
            for room in self.rooms.values()
            for feed in room.feeds
        )

    def sensor_keys(self) -> set[tuple[int, str]]:
        """(id(server), attribute) of every reading this engine derives from a room's state."""
        return {
            (id(feed.server), feed.attribute)
            for room in self.rooms.values()
            for feed in room.feeds
            if not feed.compartment
        }

    def unbind_sensors(self, room_id: str, servers: set[int]) -> None:
        self.rooms[room_id].unbind(servers)

    def publish_sensors(self, room_id: str) -> None:
        """Report sensor values that changed since the last report (segment boundaries, samples)."""
        room = self.rooms.get(room_id)
        if room is None:
            return  # a room removed since (no sensor left to report)
        for feed in room.feeds:
            new = feed()
            old = feed.published
            if new != old:
                feed.published = new
                feed.server.notify(feed.attribute, old, new)
        room.reported = self._report_basis(room_id)

    def _report_basis(self, room_id: str) -> dict[Any, float]:
        sensed = self.rooms[room_id].sensed_variables()
        basis: dict[Any, float] = {variable: self.value(room_id, variable) for variable in sensed}
        for key, (start, segment) in self.compartments.of_devices(self.devices_in(room_id)):
            basis[key] = segment.value_after(self.clock.tick - start)
        return basis

    def next_report_tick(self, room_id: str) -> int | None:
        """The first tick (≥ now) at which a reading of the room moves by more than its reportable change from
        what was last reported (emulator/reportable_change.py), computed from the trajectories; None when
        nothing does before the room's next segment boundary or sky knot (those report anyway)."""
        now = self.clock.tick
        room = self.rooms[room_id]
        reported = room.reported
        if reported is None:
            reported = room.reported = self._report_basis(room_id)
        due: list[int] = []
        sensed = room.sensed_variables()
        for variable, segment in room.current_segments().items():
            if variable not in sensed:
                continue
            edges = AIR_QUALITY_EDGES if variable == "pm10" else ()
            basis = reported.setdefault(variable, segment.value_at(now))  # a sensor added since
            crossing = segment_crossing(segment, segment.start, now, basis, REPORTABLE_CHANGE[variable], edges)
            if crossing is not None:
                due.append(crossing)
        for key, (start, segment) in self.compartments.of_devices(self.devices_in(room_id)):
            reported.setdefault(key, segment.value_after(now - start))  # began since the last report
            crossing = segment_crossing(segment, start, now, reported[key], REPORTABLE_CHANGE["temperature"])
            if crossing is not None:
                due.append(crossing)
        end = self.next_knot_tick()
        if self.sun is not None and end is not None and "illuminance" in sensed:
            factor, lights = self.pictures.terms(room_id)
            scale = room.daylight * factor
            at_end = scale * self.sun.relative(self.clock.datetime_at(end)) + lights
            lux = self.value(room_id, "illuminance")
            crossing = linear_crossing(lux, at_end, now, end, reported.setdefault("illuminance", lux))
            if crossing is not None:
                due.append(crossing)
        return min(due, default=None)
