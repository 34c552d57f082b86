// Controls a tester drives on a device tile: thermostat/AC mode, appliance start/pause/stop and modes, colour
// and colour temperature, fridge/oven/washer setpoints. Each returns rows for FloorView.fill(); values are
// checked in the user's units before they are sent, and a refusal names the device once.

import { el } from "./api.js";

const SYSTEM_MODES = [[0, "Off"], [1, "Auto"], [3, "Cool"], [4, "Heat"], [7, "Fan only"], [8, "Dry"]];
const CYCLE_CLUSTERS = ["OperationalState", "OvenCavityOperationalState", "RvcOperationalState"];
// Each mode cluster's dropdown is labelled by what it sets: a water heater has both a Thermostat SystemMode
// ("Heating": off/heat) and a WaterHeaterMode ("Boost": off/manual/timed), and two rows both called "Mode"
// told a user nothing.
const MODE_LABELS = { LaundryWasherMode: "Wash cycle", DishwasherMode: "Program", OvenMode: "Oven mode",
  RvcRunMode: "Run mode", RvcCleanMode: "Cleaning", RefrigeratorAndTemperatureControlledCabinetMode: "Cabinet mode",
  MicrowaveOvenMode: "Cooking mode", WaterHeaterMode: "Water heater mode", ModeSelect: "Mode",
  EnergyEvseMode: "Charging mode" };
const MODE_CLUSTERS = Object.keys(MODE_LABELS);

function key(state, suffix) {
  return Object.keys(state).find((k) => k.endsWith(`.${suffix}`));
}

function celsius(centi) {
  return Number.isFinite(centi) ? (centi / 100).toFixed(1).replace(/\.0$/, "") : "–";
}

// A setpoint in °C checked against its limits (centi-°C) before it is sent: "Heat to 99 °C is outside 7–30 °C".
export function setpointControl(view, device, label, value, low, high, step, commit, name) {
  const input = el("input", { type: "number", step: String(step), value: celsius(value), class: "control setpoint",
    "aria-label": `${label} (°C)`, dataset: { attribute: name },
    onchange: () => {
      const wanted = Number(input.value);
      if (!Number.isFinite(wanted)) return view.refuse(device, `${label}: "${input.value}" is not a temperature`);
      if (Number.isFinite(low) && Number.isFinite(high) && (wanted * 100 < low || wanted * 100 > high)) {
        input.value = celsius(value);
        return view.refuse(device, `${label} ${wanted} °C is outside ${celsius(low)}–${celsius(high)} °C`);
      }
      commit(Math.round(wanted * 100));
    } });
  return el("label", { class: "setpoint-row" }, el("span", {}, label), input, el("span", {}, "°C"));
}

export function thermostatMode(view, deviceId, s) {
  const mode = key(s, "Thermostat.SystemMode");
  if (mode === undefined) return [];
  const ep = mode.split(".")[0];
  const heat = s[`${ep}.Thermostat.OccupiedHeatingSetpoint`] !== undefined;
  const cool = s[`${ep}.Thermostat.OccupiedCoolingSetpoint`] !== undefined;
  const allowed = SYSTEM_MODES.filter(([value]) => value === 0 || (value === 4 && heat) || (value === 3 && cool)
    || (value === 1 && heat && cool) || ((value === 7 || value === 8) && s[`${ep}.FanControl.FanMode`] !== undefined)
    || value === s[mode]);
  // A thermostat beside another mode cluster (a water heater's WaterHeaterMode) says which mode it is.
  const label = MODE_CLUSTERS.some((cluster) => key(s, `${cluster}.CurrentMode`) !== undefined) ? "Heating" : "Mode";
  const select = el("select", { class: "control system-mode", "aria-label": `${label} (Thermostat system mode)`,
    onchange: () => view.write(deviceId, ep, "Thermostat", "SystemMode", Number(select.value)) },
  allowed.map(([value, text]) => el("option", { value, selected: value === s[mode] }, text)));
  return [el("label", { class: "select-row" }, el("span", {}, label), select)];
}

export function applianceButtons(view, deviceId, s, commands) {
  const rows = [];
  for (const cluster of CYCLE_CLUSTERS) {
    const state = key(s, `${cluster}.OperationalState`);
    if (state === undefined) continue;
    const ep = state.split(".")[0];
    const accepted = commands[`${ep}.${cluster}`] || ["Start", "Pause", "Resume", "Stop"];
    const running = s[state] === 1, paused = s[state] === 2;
    const buttons = [["Start", !running && !paused], ["Pause", running], ["Resume", paused], ["Stop", running || paused],
      ["GoHome", true]]
      .filter(([command]) => accepted.includes(command))
      .map(([command, enabled]) => el("button", { type: "button", class: `cycle ${command.toLowerCase()}`,
        disabled: !enabled, onclick: () => view.command(deviceId, ep, cluster, command) },
      command === "GoHome" ? "Go home" : command));
    rows.push(el("div", { class: "cycle-buttons" }, buttons));
  }
  for (const cluster of MODE_CLUSTERS) {
    const current = key(s, `${cluster}.CurrentMode`);
    const supported = current && s[current.replace("CurrentMode", "SupportedModes")];
    if (!current || !Array.isArray(supported) || supported.length < 2) continue;
    const ep = current.split(".")[0];
    const select = el("select", { class: `control mode ${cluster}`, "aria-label": `${MODE_LABELS[cluster]} (${cluster})`,
      onchange: () => view.command(deviceId, ep, cluster, "ChangeToMode", { NewMode: Number(select.value) }) },
    supported.map((m) => el("option", { value: m.mode, selected: m.mode === s[current] }, m.label)));
    rows.push(el("label", { class: "select-row" }, el("span", {}, MODE_LABELS[cluster]), select));
  }
  return rows;
}

export function colourControls(view, deviceId, s) {
  const rows = [];
  const mireds = key(s, "ColorControl.ColorTemperatureMireds");
  if (mireds !== undefined) {
    const ep = mireds.split(".")[0];
    const coolest = s[`${ep}.ColorControl.ColorTempPhysicalMinMireds`] ?? 153;
    const warmest = s[`${ep}.ColorControl.ColorTempPhysicalMaxMireds`] ?? 500;
    const kelvin = (m) => Math.round(1e6 / m);
    const output = el("output", {}, `${kelvin(s[mireds] || warmest)} K`);
    const input = el("input", { type: "range", class: "control colour-temperature", "aria-label": "Colour temperature (K)",
      min: kelvin(warmest), max: kelvin(coolest), step: 50, value: kelvin(s[mireds] || warmest),
      oninput: () => { output.textContent = `${input.value} K`; },
      onchange: () => view.command(deviceId, ep, "ColorControl", "MoveToColorTemperature",
        { ColorTemperatureMireds: Math.round(1e6 / Number(input.value)), TransitionTime: 0, OptionsMask: 1, OptionsOverride: 1 }) });
    rows.push(el("label", { class: "slider" }, el("span", {}, "White"), input, output));
  }
  const hue = key(s, "ColorControl.CurrentHue");
  if (hue !== undefined) {
    const ep = hue.split(".")[0];
    const input = el("input", { type: "color", class: "control colour", "aria-label": "Colour",
      value: hsvToHex((s[hue] ?? 0) * 360 / 254, (s[`${ep}.ColorControl.CurrentSaturation`] ?? 254) / 254),
      onchange: () => {
        const [h, sat] = hexToHs(input.value);
        view.command(deviceId, ep, "ColorControl", "MoveToHueAndSaturation",
          { Hue: Math.min(254, Math.round(h * 254 / 360)), Saturation: Math.round(sat * 254), TransitionTime: 0,
            OptionsMask: 1, OptionsOverride: 1 });
      } });
    rows.push(el("label", { class: "slider" }, el("span", {}, "Colour"), input));
  }
  return rows;
}

export function temperatureControl(view, device, s) {
  const setpoint = key(s, "TemperatureControl.TemperatureSetpoint");
  if (setpoint === undefined) return [];
  const ep = setpoint.split(".")[0];
  const low = s[`${ep}.TemperatureControl.MinTemperature`], high = s[`${ep}.TemperatureControl.MaxTemperature`];
  const step = (s[`${ep}.TemperatureControl.Step`] ?? 50) / 100;
  return [setpointControl(view, device, "Set to", s[setpoint], low, high, step,
    (value) => view.command(device.device_id, ep, "TemperatureControl", "SetTemperature", { TargetTemperature: value }),
    "TemperatureSetpoint")];
}

function hsvToHex(h, sat) {
  const f = (n) => { const k = (n + h / 60) % 6; return 1 - sat * Math.max(0, Math.min(k, 4 - k, 1)); };
  return `#${[f(5), f(3), f(1)].map((v) => Math.round(v * 255).toString(16).padStart(2, "0")).join("")}`;
}

function hexToHs(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const max = Math.max(r, g, b), min = Math.min(r, g, b), d = max - min;
  let h = 0;
  if (d) h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return [(h * 60 + 360) % 360, max ? d / max : 0];
}

// FanModeSequence → the FanMode values it allows; only sequences with Auto get a dropdown (the speed slider covers the
// rest): an extractor hood's Auto follows its cooktop.
const FAN_MODES = { 0: "Off", 1: "Low", 2: "Medium", 3: "High", 5: "Auto" };
const FAN_SEQUENCES_WITH_AUTO = { 2: [0, 1, 2, 3, 5], 3: [0, 1, 3, 5], 4: [0, 3, 5] };

export function fanModeControl(view, deviceId, s) {
  const mode = key(s, "FanControl.FanMode");
  const ep = mode?.split(".")[0];
  const allowed = mode && FAN_SEQUENCES_WITH_AUTO[s[`${ep}.FanControl.FanModeSequence`]];
  if (!allowed) return [];
  const select = el("select", { class: "control fan-mode", "aria-label": "Fan mode (FanMode)",
    onchange: () => view.write(deviceId, ep, "FanControl", "FanMode", Number(select.value)) },
  allowed.map((value) => el("option", { value, selected: value === s[mode] }, FAN_MODES[value])));
  return [el("label", { class: "select-row" }, el("span", {}, "Fan mode"), select)];
}

const VALVE = { 0: "Closed", 1: "Open", 2: "Moving" };
const PUMP_MODES = [[0, "Normal"], [1, "Minimum"], [2, "Maximum"]];
const EVSE_STATE = { 0: "Not plugged in", 1: "Plugged in", 2: "Plugged in, waiting", 3: "Charging", 4: "Discharging",
  5: "Session ending", 6: "Fault" };
const EVSE_SUPPLY = { 0: "Disabled", 1: "Charging enabled", 2: "Discharging enabled", 3: "Disabled (error)",
  4: "Disabled (diagnostics)", 5: "Enabled" };

// Water and energy: a valve's Open/Close, a pump's operation mode, an EV charger's enable/disable. The car's
// charging current is the charger's own limit (its circuit); plugging a car in is a scenario's act, not a control.
export function waterAndEnergyControls(view, deviceId, s) {
  const rows = [];
  const valve = key(s, "ValveConfigurationAndControl.CurrentState");
  if (valve !== undefined) {
    const ep = valve.split(".")[0];
    const target = s[`${ep}.ValveConfigurationAndControl.TargetState`];
    const opening = (target ?? s[valve]) === 1;
    rows.push(el("div", { class: "reading valve-state" }, VALVE[s[valve]] ?? "Unknown"));
    rows.push(el("button", { type: "button", class: "toggle valve", dataset: { device: deviceId },
      onclick: () => view.command(deviceId, ep, "ValveConfigurationAndControl", opening ? "Close" : "Open") },
    opening ? "Close valve" : "Open valve"));
  }
  const pump = key(s, "PumpConfigurationAndControl.OperationMode");
  if (pump !== undefined) {
    const ep = pump.split(".")[0];
    const select = el("select", { class: "control pump-mode", "aria-label": "Pump mode (OperationMode)",
      onchange: () => view.write(deviceId, ep, "PumpConfigurationAndControl", "OperationMode", Number(select.value)) },
    PUMP_MODES.map(([value, text]) => el("option", { value, selected: value === s[pump] }, text)));
    rows.push(el("label", { class: "select-row" }, el("span", {}, "Pump mode"), select));
  }
  const evse = key(s, "EnergyEvse.SupplyState");
  if (evse !== undefined) {
    const ep = evse.split(".")[0];
    const enabled = s[evse] === 1 || s[evse] === 5;
    rows.push(el("div", { class: "reading evse-state" },
      `${EVSE_STATE[s[`${ep}.EnergyEvse.State`]] ?? "Unknown"} · ${EVSE_SUPPLY[s[evse]] ?? "Unknown"}`));
    rows.push(el("button", { type: "button", class: "toggle evse", dataset: { device: deviceId },
      onclick: () => enabled ? view.command(deviceId, ep, "EnergyEvse", "Disable")
        : view.command(deviceId, ep, "EnergyEvse", "EnableCharging",
          { chargingEnabledUntil: null, minimumChargeCurrent: 6000, maximumChargeCurrent: 32000 }) },
    enabled ? "Stop charging" : "Enable charging"));
  }
  return rows;
}
