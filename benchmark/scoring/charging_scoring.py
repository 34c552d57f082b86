"""Charging goals ("charge the car to 80 % by 7 am using solar first"), scored on the home the agent left,
fast-forwarded to the deadline.

The emulator's charger counts a session's energy (EnergyEvse.SessionEnergyCharged) but models no vehicle battery
(clusters/energy_evse.py: no SoC reporting). The episode states the car's battery and its state of charge when it
plugged in (``homefabric.charging``); the state of charge at the deadline is start + charged / capacity, worked
out here, in the check, not in the emulator.

A copy of the home as the agent left it — its rules included — runs to the deadline a minute at a time, on the
minute (the panels' output changes only on the minute: every quarter hour, emulator/role_behaviour.py), reading the
panels' power and the session's energy through HomeAPI. Passed when

1. **enough**: the energy charged by the deadline is at least what the target needs (the car is at ≥ 80 %);
2. **no grid while the sun can charge**: in every minute where the panels make at least the charger's minimum
   (its minimum current × the supply voltage, 1.38 kW), the charger takes no more than they make (1 % + 0.1 Wh
   of slack);
3. **solar first**: in those minutes it charged at least :data:`SOLAR_SHARE` of what it could have taken from the
   panels there (their output rounded down to the charger's whole mA), capped by the energy needed.

Outside those minutes (night, dusk, dawn) the grid may charge freely.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from benchmark.suites.simuhome.episode import ChargingGoal, Episode
from emulator.automations.model import AutomationSpec
from emulator.clock import TIME_FORMAT
from emulator.emulated_home import EmulatedHome
from emulator.home_api import HomeAPI

SOLAR_SHARE = 0.9  # of the panels' possible contribution: an agent may lose part of the quarter hour it acts in
SLACK = 0.01  # relative, per minute, on "no more than the panels make"
SLACK_MWH = 100  # absolute, per minute
STEP_S = 60
SESSION_ENERGY = "1.EnergyEvse.SessionEnergyCharged"
PANEL_POWER = "1.ElectricalPowerMeasurement.ActivePower"
SUPPLY_VOLTAGE = "1.ElectricalPowerMeasurement.Voltage"


@dataclass(frozen=True)
class Step:
    """One minute (the first: up to the next whole minute) of constant panel output."""

    start: datetime
    seconds: float
    panels_mW: int  # the panels' output, positive
    charged_mWh: int

    @property
    def panels_mWh(self) -> float:
        return self.panels_mW * self.seconds / 3600

    def usable_current_mA(self, goal: ChargingGoal) -> int:
        """The largest current the panels can drive the charger at (0 below its minimum)."""
        current = self.panels_mW * 1000 // goal.voltage_mV
        return current if current >= goal.min_charge_current_mA else 0

    def usable_mWh(self, goal: ChargingGoal) -> float:
        return self.usable_current_mA(goal) * goal.voltage_mV / 1000 * self.seconds / 3600


def needed_mWh(goal: ChargingGoal) -> int:
    return round(goal.battery_kWh * 1_000_000 * (goal.target_percent - goal.start_percent) / 100)


def charge_steps(home: HomeAPI, goal: ChargingGoal) -> list[Step]:
    """Run ``home`` (advanced in place) to the deadline, minute by minute."""
    deadline = datetime.strptime(goal.deadline, TIME_FORMAT)
    steps = []
    while home.now() < deadline:
        start = home.now()
        end = min(start.replace(second=0, microsecond=0) + timedelta(seconds=STEP_S), deadline)
        panels, before = -int(home.read_path(goal.solar_device_id, PANEL_POWER) or 0), _charged(home, goal)
        home.advance((end - start).total_seconds())
        steps.append(Step(start, (end - start).total_seconds(), max(panels, 0), _charged(home, goal) - before))
    return steps


def _charged(home: HomeAPI, goal: ChargingGoal) -> int:
    value = home.read_path(goal.evse_device_id, SESSION_ENERGY)
    return value if isinstance(value, int) else 0


def charging_checks(episode: Episode, fabric: EmulatedHome) -> tuple[bool, list[dict[str, Any]]]:
    """The episode's charging goal on a copy of ``fabric`` run to its deadline (``fabric`` is left as it is)."""
    goal = episode.homefabric.charging if episode.homefabric is not None else None
    if goal is None:
        return False, [{"check": "charging_goal", "ok": False, "error": "the episode has no charging goal"}]
    steps = charge_steps(EmulatedHome(fabric.to_config()), goal)
    charged = sum(i.charged_mWh for i in steps)
    need = needed_mWh(goal)
    sunny = [i for i in steps if i.usable_current_mA(goal)]
    over = [i.start.strftime(TIME_FORMAT) for i in sunny if i.charged_mWh > i.panels_mWh * (1 + SLACK) + SLACK_MWH]
    from_solar = sum(i.charged_mWh for i in sunny)
    solar_due = SOLAR_SHARE * min(need, sum(i.usable_mWh(goal) for i in sunny))
    percent = goal.start_percent + 100 * charged / (goal.battery_kWh * 1_000_000)
    checks = [
        {
            "check": "enough_by_deadline",
            "charged_mWh": charged,
            "needed_mWh": need,
            "percent": round(percent, 1),
            "ok": charged >= need,
        },
        {"check": "no_grid_while_sunny", "over_panels_at": over[:5], "ok": not over},
        {
            "check": "solar_first",
            "from_solar_mWh": from_solar,
            "due_mWh": round(solar_due),
            "ok": from_solar >= solar_due,
        },
    ]
    return all(c["ok"] for c in checks), [{**c, "deadline": goal.deadline} for c in checks]


def charging_plan(episode: Episode) -> list[AutomationSpec]:
    """The schedule the episode carries for its charging goal (the oracle creates it), or none."""
    goal = episode.homefabric.charging if episode.homefabric is not None else None
    return list(goal.plan) if goal is not None else []
