// The floor view: floors → rooms (a room with a parent is drawn inside it) → device tiles with live state
// and controls. Tiles re-render from the device's state map, which WebSocket events keep current.

import { api, el, toast } from "./api.js";
import { applianceButtons, colourControls, fanModeControl, setpointControl, temperatureControl, thermostatMode,
  waterAndEnergyControls } from "./controls.js";

const OPERATIONAL = { 0: "Stopped", 1: "Running", 2: "Paused", 3: "Error", 64: "Seeking charger", 65: "Charging", 66: "Docked" };
const LOCK = { 0: "Not fully locked", 1: "Locked", 2: "Unlocked", 3: "Unlatched" };
const SYSTEM_MODE = { 0: "Off", 1: "Auto", 3: "Cool", 4: "Heat", 5: "Emergency heat", 6: "Precooling", 7: "Fan only", 8: "Dry", 9: "Sleep" };
const MEDIA = { 0: "Playing", 1: "Paused", 2: "Not playing", 3: "Buffering" };
const AIR = { 0: "Unknown", 1: "Good", 2: "Fair", 3: "Moderate", 4: "Poor", 5: "Very poor", 6: "Extremely poor" };
const FLOOR_NAMES = { 0: "Ground floor", 1: "First floor", 2: "Second floor", "-1": "Basement" };

export class FloorView {
  constructor(root, clock) {
    this.root = root;
    this.clock = clock; // () => current virtual tick
    this.devices = new Map(); // device_id → {info, state, tick}
    this.rooms = new Map();
    this.tiles = new Map();
  }

  render(home) {
    this.devices.clear();
    this.tiles.clear();
    for (const device of home.devices) this.devices.set(device.device_id, { ...device, tick: home.tick });
    for (const room of home.rooms) this.rooms.set(room.room_id, room);
    const children = new Map();
    for (const room of home.rooms) {
      if (room.parent && this.rooms.has(room.parent)) {
        if (!children.has(room.parent)) children.set(room.parent, []);
        children.get(room.parent).push(room);
      }
    }
    const floors = el("div", { class: "floors" });
    for (const floor of home.floors) {
      const top = home.rooms.filter((r) => r.floor === floor && !(r.parent && this.rooms.has(r.parent)));
      floors.append(el("section", { class: "floor", dataset: { floor } },
        el("h3", {}, FLOOR_NAMES[floor] ?? `Floor ${floor}`),
        el("div", { class: "rooms" }, top.map((room) => this.roomCard(room, children)))));
    }
    this.root.replaceChildren(this.filterBar(home), floors);
    this.applyFilters();
  }

  // HA-style filters over the floor view: a search box (device name, type, id or room), a room (with the rooms
  // nested in it) and a device type. What does not match is hidden, and so is a room or floor left empty.
  filterBar(home) {
    const previous = this.filters ?? { text: "", room: "", type: "" };
    const byName = (a, b) => a.localeCompare(b);
    const types = [...new Set(home.devices.map((d) => d.label))].sort(byName);
    const rooms = [...home.rooms].sort((a, b) => byName(a.name, b.name));
    const refilter = () => {
      this.filters = { text: search.value, room: room.value, type: type.value };
      this.applyFilters();
    };
    const search = el("input", { type: "search", id: "floor-search", placeholder: "Search devices",
      "aria-label": "Search devices by name, type, id or room", value: previous.text, oninput: refilter });
    const room = el("select", { id: "floor-room", "aria-label": "Room", onchange: refilter },
      el("option", { value: "" }, "All rooms"),
      rooms.map((r) => el("option", { value: r.room_id, selected: r.room_id === previous.room }, r.name)));
    const type = el("select", { id: "floor-type", "aria-label": "Device type", onchange: refilter },
      el("option", { value: "" }, "All types"),
      types.map((t) => el("option", { value: t, selected: t === previous.type }, t)));
    this.filters = { text: search.value, room: room.value, type: type.value };
    this.filterCount = el("span", { class: "filter-count muted", id: "floor-count" });
    return el("div", { class: "floor-filters", role: "search" }, search, room, type, this.filterCount);
  }

  applyFilters() {
    const { text, room, type } = this.filters ?? { text: "", room: "", type: "" };
    const words = text.toLowerCase().split(/\s+/).filter(Boolean);
    const roomOf = new Map();
    for (const r of this.rooms.values()) for (const id of r.device_ids) roomOf.set(id, r);
    const within = (r) => !room || (r !== undefined && (r.room_id === room || within(this.rooms.get(r.parent))));
    let shown = 0;
    for (const [id, tile] of this.tiles) {
      const device = this.devices.get(id), where = roomOf.get(id);
      const haystack = `${device.name} ${device.label} ${id} ${where?.name ?? ""}`.toLowerCase();
      const match = within(where) && (!type || device.label === type) && words.every((w) => haystack.includes(w));
      tile.hidden = !match;
      if (match) shown += 1;
    }
    // innermost rooms first, so that a parent sees whether its nested rooms kept a tile
    for (const card of [...this.root.querySelectorAll("article.room")].reverse()) {
      card.hidden = !card.querySelector(".device:not([hidden])");
    }
    for (const floor of this.root.querySelectorAll("section.floor")) {
      floor.hidden = !floor.querySelector("article.room:not([hidden])");
    }
    if (this.filterCount) this.filterCount.textContent = `${shown} of ${this.tiles.size} devices`;
  }

  roomCard(room, children) {
    const tiles = room.device_ids.map((id) => this.tile(id));
    const nested = (children.get(room.room_id) || []).map((child) => this.roomCard(child, children));
    return el("article", { class: `room${room.parent ? " nested" : ""}`, id: `room-${room.room_id}`, dataset: { room: room.room_id } },
      el("header", {}, el("h4", {}, room.name), el("span", { class: "room-env", id: `env-${room.room_id}` }, envText(room.state))),
      el("div", { class: "devices" }, tiles),
      nested.length ? el("div", { class: "children" }, nested) : null);
  }

  setRoomState(roomId, state) {
    const node = document.getElementById(`env-${roomId}`);
    if (node) node.textContent = envText(state);
  }

  tile(deviceId) {
    const node = el("div", { class: "device", id: `device-${deviceId}`, dataset: { device: deviceId } });
    this.tiles.set(deviceId, node);
    this.fill(deviceId);
    return node;
  }

  fill(deviceId) {
    const node = this.tiles.get(deviceId);
    const device = this.devices.get(deviceId);
    if (!node || !device) return;
    const s = device.state;
    const on = firstKey(s, "OnOff.OnOff");
    node.classList.toggle("is-on", on !== undefined && s[on] === true);
    node.classList.toggle("is-off", on !== undefined && s[on] === false);
    const rows = [];
    // one toggle per switchable endpoint (a cooktop's own switch and each cook surface), named by endpoint if several
    const switches = Object.keys(s).filter((k) => k.endsWith(".OnOff.OnOff"));
    for (const onKey of switches) {
      const ep = onKey.split(".")[0];
      const text = s[onKey] ? "On" : "Off";
      const accepted = s[`${ep}.OnOff.AcceptedCommandList`];
      const offOnly = Array.isArray(accepted) && !accepted.includes(2);  // no Toggle (2): it can only be switched off
      rows.push(el("button", { class: "toggle", dataset: { device: deviceId, endpoint: ep }, "aria-pressed": String(s[onKey]),
        disabled: offOnly && !s[onKey], title: offOnly ? "switched on at the device; can only be switched off" : null,
        onclick: () => this.command(deviceId, ep, "OnOff", offOnly ? "Off" : "Toggle") },
      switches.length > 1 ? `${ep}: ${text}` : text));
    }
    const level = firstKey(s, "LevelControl.CurrentLevel");
    if (level !== undefined) {
      const ep = level.split(".")[0];
      const min = s[`${ep}.LevelControl.MinLevel`] ?? 0, max = s[`${ep}.LevelControl.MaxLevel`] ?? 254;
      rows.push(slider("Level", s[level] ?? 0, min, max, 1, (v) => `${Math.round((100 * v) / max)} %`,
        (v) => this.command(deviceId, ep, "LevelControl", "MoveToLevel", { Level: v }), "level"));
    }
    rows.push(...colourControls(this, deviceId, s));
    const fan = firstKey(s, "FanControl.PercentSetting");
    if (fan !== undefined) {
      const ep = fan.split(".")[0];
      rows.push(slider("Fan", s[fan] ?? 0, 0, 100, 5, (v) => `${v} %`,
        (v) => this.write(deviceId, ep, "FanControl", "PercentSetting", v), "fan"));
    }
    rows.push(...fanModeControl(this, deviceId, s));
    const cover = firstKey(s, "WindowCovering.CurrentPositionLiftPercent100ths");
    if (cover !== undefined) {
      const ep = cover.split(".")[0];
      rows.push(slider("Closed", Math.round((s[cover] ?? 0) / 100), 0, 100, 5, (v) => `${v} %`,
        (v) => this.command(deviceId, ep, "WindowCovering", "GoToLiftPercentage", { LiftPercent100thsValue: v * 100 }), "cover"));
    }
    const thermostat = firstKey(s, "Thermostat.LocalTemperature");
    if (thermostat !== undefined) {
      const ep = thermostat.split(".")[0];
      rows.push(el("div", { class: "reading" }, `${centi(s[thermostat])} °C · ${SYSTEM_MODE[s[`${ep}.Thermostat.SystemMode`]] ?? "?"}`));
      rows.push(...thermostatMode(this, deviceId, s));
      for (const [name, label, limit] of [["OccupiedHeatingSetpoint", "Heat to", "Heat"], ["OccupiedCoolingSetpoint", "Cool to", "Cool"]]) {
        const key = `${ep}.Thermostat.${name}`;
        if (s[key] === undefined) continue;
        rows.push(setpointControl(this, device, label, s[key], s[`${ep}.Thermostat.Min${limit}SetpointLimit`],
          s[`${ep}.Thermostat.Max${limit}SetpointLimit`], 0.5, (v) => this.write(deviceId, ep, "Thermostat", name, v), name));
      }
    }
    const tempControl = firstKey(s, "TemperatureControl.TemperatureSetpoint");
    if (tempControl !== undefined) {
      const ep = tempControl.split(".")[0];
      rows.push(el("div", { class: "reading" }, `set ${centi(s[tempControl])} °C`));
      const measured = s[`${ep}.TemperatureMeasurement.MeasuredValue`];
      if (measured !== undefined && measured !== null) rows.push(el("div", { class: "reading" }, `inside ${centi(measured)} °C`));
      rows.push(...temperatureControl(this, device, s));
    }
    for (const cluster of ["OperationalState", "OvenCavityOperationalState", "RvcOperationalState"]) {
      const key = firstKey(s, `${cluster}.OperationalState`);
      if (key === undefined) continue;
      const ep = key.split(".")[0];
      const state = OPERATIONAL[s[key]] ?? s[key];
      const countdown = this.countdown(device, `${ep}.${cluster}.CountdownTime`, s[key] === 1);
      rows.push(el("div", { class: `appliance state-${String(state).toLowerCase()}` }, state,
        countdown !== null ? el("span", { class: "countdown", dataset: { device: deviceId } }, ` · ${countdown}`) : null));
    }
    rows.push(...applianceButtons(this, deviceId, s, acceptedCycleCommands(s)));
    const lock = firstKey(s, "DoorLock.LockState");
    if (lock !== undefined) {
      const ep = lock.split(".")[0];
      const locked = s[lock] === 1;
      rows.push(el("button", { class: "toggle lock", dataset: { device: deviceId },
        onclick: () => this.command(deviceId, ep, "DoorLock", locked ? "UnlockDoor" : "LockDoor") }, LOCK[s[lock]] ?? "?"));
    }
    if (!thermostat && !tempControl) {
      const t = firstKey(s, "TemperatureMeasurement.MeasuredValue");
      if (t !== undefined && s[t] !== null) rows.push(el("div", { class: "reading" }, `${centi(s[t])} °C`));
    }
    const h = firstKey(s, "RelativeHumidityMeasurement.MeasuredValue");
    if (h !== undefined && s[h] !== null) rows.push(el("div", { class: "reading" }, `${centi(s[h])} % RH`));
    const lux = firstKey(s, "IlluminanceMeasurement.MeasuredValue");
    if (lux !== undefined && s[lux] !== null) rows.push(el("div", { class: "reading" }, `${luxOf(s[lux])} lx`));
    const pm = firstKey(s, "Pm10ConcentrationMeasurement.MeasuredValue");
    if (pm !== undefined && s[pm] !== null) rows.push(el("div", { class: "reading" }, `PM10 ${Number(s[pm]).toFixed(0)} µg/m³`));
    const air = firstKey(s, "AirQuality.AirQuality");
    if (air !== undefined) rows.push(el("div", { class: "reading" }, `Air ${AIR[s[air]] ?? s[air]}`));
    const occupancy = firstKey(s, "OccupancySensing.Occupancy");
    if (occupancy !== undefined) rows.push(el("div", { class: "reading" }, (s[occupancy] & 1) ? "Occupied" : "Unoccupied"));
    const bool = firstKey(s, "BooleanState.StateValue");
    if (bool !== undefined) rows.push(el("div", { class: "reading" }, s[bool] ? "Contact/leak: yes" : "Contact/leak: no"));
    const smoke = firstKey(s, "SmokeCoAlarm.ExpressedState");
    if (smoke !== undefined) rows.push(el("div", { class: "reading" }, s[smoke] === 0 ? "Normal" : `Alarm (${s[smoke]})`));
    const media = firstKey(s, "MediaPlayback.CurrentState");
    if (media !== undefined) rows.push(el("div", { class: "reading" }, MEDIA[s[media]] ?? s[media]));
    rows.push(...waterAndEnergyControls(this, deviceId, s));
    const pressure = firstKey(s, "PressureMeasurement.MeasuredValue");
    if (pressure !== undefined && s[pressure] !== null) rows.push(el("div", { class: "reading" }, `${s[pressure]} kPa`));
    const flow = firstKey(s, "FlowMeasurement.MeasuredValue");
    if (flow !== undefined && s[flow] !== null) rows.push(el("div", { class: "reading" }, `${(s[flow] / 10).toFixed(1)} m³/h`));
    const charge = firstKey(s, "PowerSource.BatPercentRemaining");
    if (charge !== undefined && s[charge] !== null) rows.push(el("div", { class: "reading" }, `Battery ${Math.round(s[charge] / 2)} %`));
    const power = firstKey(s, "ElectricalPowerMeasurement.ActivePower");
    if (power !== undefined && s[power] !== null) rows.push(el("div", { class: "reading" }, `${(s[power] / 1000).toFixed(1)} W`));
    node.replaceChildren(
      el("div", { class: "device-head" }, el("span", { class: "device-name", title: deviceId }, device.name),
        el("span", { class: "device-type" }, device.label)),
      ...rows);
  }

  countdown(device, key, running) {
    const value = device.state[key];
    if (value === undefined || value === null) return null;
    const elapsed = running ? Math.max(0, (this.clock() - device.tick) / 10) : 0;
    const left = Math.max(0, Math.round(value - elapsed));
    const m = Math.floor(left / 60), sec = left % 60;
    return `${m}:${String(sec).padStart(2, "0")} left`;
  }

  tickCountdowns() {
    for (const [id, device] of this.devices) {
      if (Object.keys(device.state).some((k) => k.endsWith("OperationalState.OperationalState") && device.state[k] === 1)) this.fill(id);
    }
  }

  applyEvent(event) {
    const device = this.devices.get(event.device_id);
    if (!device) return;
    const key = `${event.endpoint}.${event.cluster}.${event.attribute}`;
    if (!(key in device.state)) return;
    device.state[key] = event.new;
    if (event.attribute === "CountdownTime" || event.attribute === "OperationalState") device.tick = event.tick;
    this.fill(event.device_id);
  }

  async refreshDevice(deviceId) {
    const device = await api(`/api/devices/${encodeURIComponent(deviceId)}`);
    const clock = await api("/api/clock");
    this.devices.set(deviceId, { ...device, tick: clock.tick });
    this.fill(deviceId);
  }

  async command(deviceId, ep, cluster, command, args = {}) {
    try {
      await api(`/api/devices/${deviceId}/commands/${ep}/${cluster}/${command}`, { method: "POST", body: { args } });
      await this.refreshDevice(deviceId);
    } catch (error) {
      this.refuse(this.devices.get(deviceId), errorText(error, deviceId));
      await this.refreshDevice(deviceId).catch(() => {});
    }
  }

  async write(deviceId, ep, cluster, attribute, value) {
    try {
      await api(`/api/devices/${deviceId}/attributes/${ep}/${cluster}/${attribute}`, { method: "PUT", body: { value } });
      await this.refreshDevice(deviceId);
    } catch (error) {
      this.refuse(this.devices.get(deviceId), errorText(error, deviceId));
      await this.refreshDevice(deviceId).catch(() => {});
    }
  }

  // One message per refusal, naming the device once, by the name a person knows it by.
  refuse(device, message) {
    toast(`${device?.name ?? "device"}: ${message}`);
  }
}

const CYCLE_COMMAND_IDS = { 0: "Pause", 1: "Stop", 2: "Start", 3: "Resume", 128: "GoHome" };

function acceptedCycleCommands(state) {
  const out = {};
  for (const [key, value] of Object.entries(state)) {
    if (!key.endsWith("OperationalState.AcceptedCommandList") || !Array.isArray(value)) continue;
    out[key.split(".").slice(0, 2).join(".")] = value.map((id) => CYCLE_COMMAND_IDS[id]).filter(Boolean);
  }
  return out;
}

// The API's refusal without the device's id or type in it (the toast names the device already).
function errorText(error, deviceId) {
  const body = error.body || {};
  if (body.code === "DEPENDENCY_VIOLATION") return "it is off: turn it on first";
  return String(error.message).replace(new RegExp(`[a-z_]+ '${deviceId}'\\s*`, "g"), "")
    .replace(new RegExp(`\\b${deviceId}\\b\\s*`, "g"), "").trim();
}

function firstKey(state, suffix) {
  return Object.keys(state).find((k) => k.endsWith(`.${suffix}`));
}

function centi(value) {
  return value === null || value === undefined ? "–" : (value / 100).toFixed(1);
}

function luxOf(measured) {
  // Matter: MeasuredValue = 10000·log10(lux) + 1
  return measured > 0 ? Math.round(10 ** ((measured - 1) / 10000)) : 0;
}

export function envText(state) {
  if (!state) return "";
  return `${(state.temperature / 100).toFixed(1)} °C · ${(state.humidity / 100).toFixed(0)} % · ${Math.round(state.illuminance)} lx · PM10 ${Math.round(state.pm10)}`;
}

function slider(label, value, min, max, step, show, commit, kind) {
  const output = el("output", {}, show(value));
  const input = el("input", { type: "range", min, max, step, value, class: `control ${kind}`, "aria-label": label,
    oninput: () => { output.textContent = show(Number(input.value)); },
    onchange: () => commit(Number(input.value)) });
  return el("label", { class: "slider" }, el("span", {}, label), input, output);
}
