// The dashboard: loads the home, keeps it live from /ws/events, and wires the clock controls.

import { api, socketUrl, toast } from "./api.js";
import { EnvironmentCharts } from "./charts.js";
import { EpisodeViewer } from "./episodes.js";
import { FloorView } from "./floor.js";
import { startViews } from "./views.js";

const clock = { tick: 0, time: "", running: false, paced: false, speed: null };
const floor = new FloorView(document.getElementById("floor"), () => clock.tick);
const charts = new EnvironmentCharts(document.getElementById("charts"));
const viewer = new EpisodeViewer(document.getElementById("episodes"));
const $ = (id) => document.getElementById(id);

function showClock(state) {
  Object.assign(clock, state);
  $("clock-time").textContent = state.time;
  $("clock-state").textContent = !state.paced ? "no pacer (fast-forward only)" : state.running ? `running ×${state.speed}` : "paused";
  $("clock-pause").disabled = !state.paced || !state.running;
  $("clock-resume").disabled = !state.paced || state.running;
  $("clock-speed").disabled = !state.paced;
  if (state.paced && document.activeElement !== $("clock-speed")) $("clock-speed").value = state.speed;
  document.body.dataset.clockRunning = String(state.running);
}

async function loadHome() {
  const home = await api("/api/home");
  $("home-name").textContent = home.name;
  floor.render(home);
  charts.setRooms(home.rooms);
  const history = await api("/api/history");
  charts.capacity = history.capacity;
  charts.load(history.samples);
  document.body.dataset.loaded = "true";
}

function connectEvents() {
  const socket = new WebSocket(socketUrl("/ws/events"));
  socket.onopen = () => { $("live").textContent = "live"; $("live").className = "badge ok"; };
  socket.onclose = () => {
    $("live").textContent = "reconnecting…";
    $("live").className = "badge warn";
    setTimeout(connectEvents, 2000);
  };
  socket.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type === "attribute") {
      floor.applyEvent(event);
      if (event.tick > clock.tick) clock.tick = event.tick;
    } else if (event.type === "room_state") {
      charts.add(event);
      for (const [room, state] of Object.entries(event.rooms)) floor.setRoomState(room, state);
    } else if (event.type === "clock") {
      showClock(event);
    } else if (event.type === "dropped") {
      $("drops").textContent = `${event.total} event(s) dropped`;
      api("/api/history").then((h) => charts.load(h.samples)).catch(() => {});
    }
  };
}

async function clockAction(path, body, method = "POST") {
  try {
    const result = await api(path, { method, body });
    showClock(result.clock ?? result);
    if (path.endsWith("fast-forward")) await loadHome();
  } catch (error) {
    toast(`clock: ${error.message}`);
  }
}

$("clock-pause").onclick = () => clockAction("/api/clock/pause");
$("clock-resume").onclick = () => clockAction("/api/clock/resume");
$("clock-speed").onchange = () => clockAction("/api/clock/speed", { speed: Number($("clock-speed").value) }, "PUT");
for (const button of document.querySelectorAll("[data-forward]")) {
  button.onclick = () => clockAction("/api/clock/fast-forward", { seconds: Number(button.dataset.forward) });
}

async function pollClock() {
  try {
    showClock(await api("/api/clock"));
    floor.tickCountdowns();
  } catch (error) {
    $("clock-state").textContent = `offline (${error.message})`;
  }
}

async function main() {
  startViews();
  try {
    await loadHome();
    await pollClock();
    connectEvents();
    setInterval(pollClock, 1000);
    await viewer.init();
    viewer.render();
  } catch (error) {
    toast(`cannot load the home: ${error.message}`);
  }
}

main();
