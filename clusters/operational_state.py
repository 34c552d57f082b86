"""Operational State (0x0060), RVC Operational State (0x0061), Oven Cavity Operational State (0x0048).

All three share one engine that runs a declarative :class:`~clusters.cycle_programs.CycleProgram`.
CountdownTime is computed lazily from the cycle's time line (Matter gives it "Q" quality); timers fire
only at phase boundaries and at the end.

Refused transitions are, on the wire, successful invokes whose OperationalCommandResponse carries
``errorStateID`` 1 (UnableToStartOrResume) or 3 (CommandInvalidInState): they raise
``HomeError.refused(INVALID_IN_STATE, response=...)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar, NoReturn

import clusters.official as Objects
from clusters.base import ClusterServer, EventPriority, command
from clusters.cycle_programs import (
    CHARGING,
    DOCKED,
    EPSILON_S,
    ERROR,
    GENERIC_PROGRAM,
    PAUSED,
    RUNNING,
    RVC_PROGRAM,
    SEEKING_CHARGER,
    STATE_NAMES,
    STOPPED,
    CycleProgram,
)
from clusters.runtime import TimerHandle
from clusters.status import HomeError, Status
from clusters.values import coerce

_Error = Objects.OperationalState.Enums.ErrorStateEnum

NO_ERROR = int(_Error.kNoError)
UNABLE_TO_START_OR_RESUME = int(_Error.kUnableToStartOrResume)
COMMAND_INVALID_IN_STATE = int(_Error.kCommandInvalidInState)


def command_response(error_state_id: int = NO_ERROR) -> dict[str, Any]:
    return {"commandResponseState": {"errorStateID": error_state_id}}


# --------------------------------------------------------------------------------- the engine
class CycleServer(ClusterServer):
    """Shared engine of the operational-state clusters (no cluster of its own)."""

    __slots__ = (
        "_active",
        "_anchor",
        "_elapsed",
        "_ends",
        "_idle_countdown",
        "_reported",
        "_restored_phase",
        "_timer",
        "program",
    )

    base_states: ClassVar[tuple[int, ...]] = (STOPPED, RUNNING, PAUSED, ERROR)
    # OperationalError when an error state is entered; OperationCompletion when a cycle ends (§1.14.7).
    events = ("OperationalError", "OperationCompletion")
    defaults = {
        "PhaseList": None,
        "CurrentPhase": None,
        "CountdownTime": None,
        "OperationalStateList": [],
        "OperationalState": STOPPED,
        "OperationalError": {"errorStateID": NO_ERROR},
    }

    def __init__(
        self,
        program: CycleProgram | None = None,
        *,
        features: int | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        self.program = program or self.default_program()
        self._active: CycleProgram | None = None  # the program of the cycle under way
        self._ends: list[float] = []
        self._elapsed = 0.0  # cycle seconds done when _anchor was taken
        self._anchor: float | None = None  # runtime time the cycle last (re)started moving; None: frozen
        self._timer: TimerHandle | None = None
        self._idle_countdown: int | None = None  # a stored CountdownTime with no cycle behind it
        self._restored_phase: int | None = None  # a CurrentPhase read from a home file, honoured once
        self._reported: int | None = None
        super().__init__(features=features, values=values)
        self.bind_source("CountdownTime", self._countdown)
        self._reported = self._countdown()

    def default_program(self) -> CycleProgram:
        return GENERIC_PROGRAM

    def initial_values(self) -> dict[str, Any]:
        values = dict(self.defaults)
        values["PhaseList"] = self.program.phase_list()
        values["OperationalStateList"] = [{"operationalStateID": s} for s in self.base_states]
        return values

    # ----------------------------------------------------------------------- state and time
    @property
    def state(self) -> int:
        return int(self.read("OperationalState"))

    def _elapsed_now(self) -> float:
        if self._anchor is None:
            return self._elapsed
        return round(self._elapsed + self.now() - self._anchor, 6)

    def _countdown(self) -> int | None:
        if self._active is None:
            return self._idle_countdown
        return max(0, math.ceil(self._ends[-1] - self._elapsed_now() - EPSILON_S))

    def _report_countdown(self) -> None:
        new = self._countdown()
        old, self._reported = self._reported, new
        self.notify("CountdownTime", old, new)

    def _phase_at(self, elapsed: float) -> int:
        return next((i for i, end in enumerate(self._ends) if elapsed < end - EPSILON_S), len(self._ends))

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _schedule(self) -> None:
        self._cancel_timer()
        if self._active is None or self._anchor is None or self.runtime is None:
            return
        index = self._phase_at(self._elapsed_now())
        end = self._ends[min(index, len(self._ends) - 1)]
        self._timer = self.runtime.call_later(max(0.0, end - self._elapsed_now()), self._on_boundary)

    def _on_boundary(self) -> None:
        self._timer = None
        index = self._phase_at(self._elapsed_now())
        if index >= len(self._ends):
            self._complete()
            return
        self._enter_phase(index)
        self._schedule()

    def _enter_phase(self, index: int) -> None:
        assert self._active is not None
        self.set("CurrentPhase", index)
        self.set("OperationalState", self._active.phases[index].state)
        self._report_countdown()

    # ----------------------------------------------------------------------- cycle control
    @property
    def in_cycle(self) -> bool:
        return self._active is not None

    def start_cycle(self, program: CycleProgram | None = None, *, from_phase: int = 0) -> None:
        """Begin ``program`` (default: this server's) at phase ``from_phase``; the caller validated."""
        program = program or self.program
        share_total = program.share_total(self.endpoint)
        if share_total is None:
            self._refuse(UNABLE_TO_START_OR_RESUME, "the cycle duration is unknown", code="NO_DURATION")
        self._begin(program, program.phase_ends(share_total), from_phase)

    def _begin(
        self,
        program: CycleProgram,
        ends: list[float],
        from_phase: int,
        *,
        elapsed: float | None = None,
        running: bool = True,
    ) -> None:
        self._cancel_timer()
        self._idle_countdown = None
        self._active, self._ends = program, ends
        self._elapsed = elapsed if elapsed is not None else (ends[from_phase - 1] if from_phase > 0 else 0.0)
        self._anchor = self.now() if running else None
        if self.read("PhaseList") != program.phase_list():
            self.set("PhaseList", program.phase_list())
        self.set("OperationalError", {"errorStateID": NO_ERROR})
        index = self._phase_at(self._elapsed)
        self.set("CurrentPhase", index)
        self.set("OperationalState", program.phases[index].state if running else PAUSED)
        self._report_countdown()
        self._schedule()

    def pause_cycle(self) -> None:
        self._elapsed = self._elapsed_now()
        self._anchor = None
        self._cancel_timer()
        self.set("OperationalState", PAUSED)
        self._report_countdown()

    def resume_cycle(self) -> None:
        assert self._active is not None
        self._anchor = self.now()
        index = self._phase_at(self._elapsed)
        self.set("OperationalState", self._active.phases[index].state)
        self._schedule()

    def jump_to_phase(self, index: int) -> None:
        """Continue the running cycle from the start of phase ``index`` (RVC GoHome)."""
        assert self._active is not None
        self._elapsed = self._ends[index - 1] if index > 0 else 0.0
        self._anchor = self.now()
        self._enter_phase(index)
        self._schedule()

    def extend_cycle(self, seconds: float) -> None:
        """Lengthen the cycle under way by ``seconds`` (added to its last phase)."""
        if self._active is None:
            return
        self._ends[-1] += seconds
        self._report_countdown()
        self._schedule()

    def set(self, name: str, value: Any) -> None:
        before = self._values.get(name)
        super().set(name, value)
        if name == "OperationalError" and value != before and int((value or {}).get("errorStateID", 0)) != NO_ERROR:
            self.emit_event("OperationalError", {"errorState": value}, EventPriority.CRITICAL)

    def _report_completion(self) -> None:
        self.emit_event(
            "OperationCompletion", {"completionErrorCode": NO_ERROR, "totalOperationalTime": int(self._elapsed_now())}
        )

    def stop_cycle(self) -> None:
        if self.in_cycle:
            self._report_completion()  # an operation ended early is still an ended operation
        self._cancel_timer()
        self._active, self._anchor, self._idle_countdown = None, None, None
        self.set("OperationalState", STOPPED)
        self.set("CurrentPhase", None)
        self._report_countdown()

    def _complete(self) -> None:
        program = self._active
        assert program is not None
        self._report_completion()
        self._cancel_timer()
        self._active, self._anchor = None, None
        self.set("CurrentPhase", len(program.phases) if program.completion_phase else None)
        self.set("OperationalState", STOPPED)
        self._report_countdown()
        self.on_cycle_complete()

    def on_cycle_complete(self) -> None:
        """Hook: the cycle ran to its end."""

    # ----------------------------------------------------------------------- refusals
    def commands_valid_now(self) -> list[str]:
        """Commands that would change something in the current state (for error hints)."""
        return []

    def _refuse(self, error_state_id: int, reason: str, *, code: str | None = None) -> NoReturn:
        state = STATE_NAMES.get(self.state, str(self.state))
        raise HomeError.refused(
            Status.INVALID_IN_STATE,
            f"{self.cluster_name}: {reason} (OperationalState is {state})",
            allowed={"operational_state": state, "commands_valid_now": self.commands_valid_now()},
            reason=code
            or (
                "UNABLE_TO_START_OR_RESUME"
                if error_state_id == UNABLE_TO_START_OR_RESUME
                else "COMMAND_INVALID_IN_STATE"
            ),
            response=command_response(error_state_id),
        )

    def _require_power(self, what: str) -> None:
        on_off = self.endpoint.find("OnOff") if self.endpoint is not None else None
        if on_off is not None and not on_off.read("OnOff"):
            raise HomeError.refused(
                Status.INVALID_IN_STATE,
                f"{self.cluster_name}.{what} refused: the appliance is off (dead front)",
                allowed={"first": "OnOff.On"},
                reason="POWER_OFF",
                response=command_response(UNABLE_TO_START_OR_RESUME),
            )

    # ----------------------------------------------------------------------- binding and restore
    def on_attach(self) -> None:
        assert self.endpoint is not None
        if self.endpoint.find("OnOff") is not None:
            self.endpoint.watch("OnOff", "OnOff", self._on_power_change)
        self._resync()

    def _on_power_change(self, old: object, new: object) -> None:
        # Dead front: switching the appliance off ends the cycle.
        if not new and self.in_cycle:
            self.stop_cycle()

    def restore(self, name: str, value: object) -> None:
        watched = name in ("OperationalState", "CountdownTime", "CurrentPhase")
        if watched and self.in_cycle:
            # A stored value overrides the cycle under way: keep its remaining time, drop its timers.
            self._idle_countdown = self._countdown()
            self._cancel_timer()
            self._active, self._anchor = None, None
        if name == "CountdownTime":
            self._idle_countdown = coerce(value, self._model.attributes[name].type, f"{self.cluster_name}.{name}")
        else:
            super().restore(name, value)
        if name == "CurrentPhase":
            self._restored_phase = self.read("CurrentPhase")
        if watched and self.runtime is not None:
            self._resync()
            self._report_countdown()

    def _resync(self) -> None:
        """Rebuild a cycle from stored values (a home file may hold an appliance mid-cycle)."""
        if self.runtime is None or self.in_cycle:
            return
        state, phase, remaining = self.state, self.read("CurrentPhase"), self._idle_countdown
        if state not in (RUNNING, PAUSED, SEEKING_CHARGER, DOCKED) or (phase is None and remaining is None):
            return  # nothing says a cycle is under way: keep the stored values as they are
        program = self.program
        share_total = program.share_total(self.endpoint)
        if share_total is None:
            return
        ends = program.phase_ends(share_total)
        if remaining is not None:
            elapsed = max(0.0, ends[-1] - remaining)
        else:
            elapsed = ends[phase - 1] if 0 < phase <= len(ends) else 0.0
        if elapsed >= ends[-1]:
            return
        self._begin(program, ends, 0, elapsed=elapsed, running=state != PAUSED)
        stored_phase, self._restored_phase = self._restored_phase, None
        if stored_phase is not None and remaining is not None and 0 <= stored_phase < len(program.phase_list()):
            # A stored phase wins over the one implied by the countdown until the next boundary, so a
            # home file (or a SimuHome episode) comes back exactly as it was written.
            self._values["CurrentPhase"] = stored_phase


# --------------------------------------------------------------------------------- the clusters
class OperationalStateServer(CycleServer):
    __slots__ = ()
    cluster_name = "OperationalState"
    revision = 3

    def commands_valid_now(self) -> list[str]:
        state = self.state
        valid = {STOPPED: ["Start"], RUNNING: ["Pause", "Stop"], PAUSED: ["Resume", "Stop"], ERROR: ["Stop"]}
        return [c for c in valid.get(state, []) if c in self.command_names()]

    @command("Start")
    def start(self) -> dict[str, Any]:
        self._require_power("Start")
        state = self.state
        if state == RUNNING:
            return command_response()  # Matter: Start while running is not an error
        if state == PAUSED:
            self._refuse(COMMAND_INVALID_IN_STATE, "Start is invalid while paused; use Resume")
        if state == ERROR:
            self._refuse(UNABLE_TO_START_OR_RESUME, "cannot start while in error")
        self.start_cycle()
        return command_response()

    @command("Stop")
    def stop(self) -> dict[str, Any]:
        self.stop_cycle()
        return command_response()

    @command("Pause")
    def pause(self) -> dict[str, Any]:
        state = self.state
        if state == PAUSED:
            return command_response()
        if state != RUNNING or not self.in_cycle:
            self._refuse(COMMAND_INVALID_IN_STATE, "Pause needs a running cycle")
        self.pause_cycle()
        return command_response()

    @command("Resume")
    def resume(self) -> dict[str, Any]:
        self._require_power("Resume")
        state = self.state
        if state == RUNNING:
            return command_response()
        if state != PAUSED or not self.in_cycle:
            self._refuse(COMMAND_INVALID_IN_STATE, "Resume needs a paused cycle")
        self.resume_cycle()
        return command_response()


class OvenCavityOperationalStateServer(OperationalStateServer):
    """Oven cavity: Start and Stop only (Pause and Resume are disallowed by the spec)."""

    __slots__ = ()

    cluster_name = "OvenCavityOperationalState"
    revision = 1

    def accepts(self, command_name: str) -> bool:
        return command_name in ("Start", "Stop")


class RvcOperationalStateServer(CycleServer):
    """Robot vacuum: the cycle is started by RvcRunMode (:meth:`start_activity`); Pause, Resume, GoHome."""

    __slots__ = ()

    cluster_name = "RvcOperationalState"
    revision = 2
    base_states = (STOPPED, RUNNING, PAUSED, ERROR, SEEKING_CHARGER, CHARGING, DOCKED)

    def default_program(self) -> CycleProgram:
        return RVC_PROGRAM

    def initial_values(self) -> dict[str, Any]:
        values = super().initial_values()
        values["PhaseList"] = None  # no phases until a run starts (as SimuHome shows it)
        return values

    def commands_valid_now(self) -> list[str]:
        state = self.state
        valid = {
            RUNNING: ["Pause", "GoHome"],
            SEEKING_CHARGER: ["Pause"],
            PAUSED: ["Resume", "GoHome"],
            STOPPED: ["GoHome"],
        }
        return valid.get(state, [])

    def start_activity(self, activity: str | None = None) -> None:
        """Start a run (RvcRunMode switched to a non-idle mode); ``activity`` names the first phase."""
        program = self.program
        if activity is not None:
            program = program.renamed({program.phases[0].name: activity})
        self.start_cycle(program)

    def _seek_phase(self) -> int | None:
        program = self._active or self.program
        return next((i for i, p in enumerate(program.phases) if p.state == SEEKING_CHARGER), None)

    def go_home(self) -> None:
        """Abandon the run (if any) and seek the charger; the caller validated the state."""
        index = self._seek_phase()
        if index is None:
            self.stop_cycle()
        elif self.in_cycle:
            self.jump_to_phase(index)
        else:
            self.start_cycle(from_phase=index)

    def on_cycle_complete(self) -> None:
        run_mode = self.endpoint.find("RvcRunMode") if self.endpoint is not None else None
        if run_mode is not None and hasattr(run_mode, "return_to_idle"):
            run_mode.return_to_idle()

    def _run_mode_is_idle(self) -> bool:
        run_mode = self.endpoint.find("RvcRunMode") if self.endpoint is not None else None
        return run_mode is None or not hasattr(run_mode, "is_idle") or run_mode.is_idle()

    @command("Pause")
    def pause(self) -> dict[str, Any]:
        state = self.state
        if state == PAUSED:
            return command_response()
        if state not in (RUNNING, SEEKING_CHARGER) or not self.in_cycle:
            self._refuse(COMMAND_INVALID_IN_STATE, "Pause needs a running or charger-seeking robot")
        self.pause_cycle()
        return command_response()

    @command("Resume")
    def resume(self) -> dict[str, Any]:
        state = self.state
        if state in (RUNNING, SEEKING_CHARGER):
            return command_response()
        if state != PAUSED or not self.in_cycle:
            self._refuse(COMMAND_INVALID_IN_STATE, "Resume needs a paused robot")
        self.resume_cycle()
        return command_response()

    @command("GoHome")
    def go_home_command(self) -> dict[str, Any]:
        state = self.state
        if state in (SEEKING_CHARGER, DOCKED, CHARGING):
            return command_response()  # already on its way home or there
        if state == ERROR or (state == STOPPED and not self._run_mode_is_idle()):
            self._refuse(COMMAND_INVALID_IN_STATE, "GoHome is not possible now")
        if state in (RUNNING, PAUSED) and not self.in_cycle:
            self._refuse(COMMAND_INVALID_IN_STATE, "no run is under way")
        self.go_home()
        return command_response()
