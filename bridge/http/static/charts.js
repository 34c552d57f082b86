// Environment charts over virtual time: one SVG line chart per variable, one line per room.
// Fed by /api/history at start and by room_state samples from the WebSocket afterwards.

const SVG = "http://www.w3.org/2000/svg";
const VARIABLES = [
  { key: "temperature", label: "Temperature", unit: "°C", scale: 0.01 },
  { key: "humidity", label: "Humidity", unit: "%", scale: 0.01 },
  { key: "illuminance", label: "Illuminance", unit: "lx", scale: 1 },
  { key: "pm10", label: "PM10", unit: "µg/m³", scale: 1 },
];
const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
  "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"];
const DEFAULT_ROOMS = 4;
const WIDTH = 420, HEIGHT = 170, PAD = { left: 46, right: 8, top: 8, bottom: 22 };

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

export class EnvironmentCharts {
  constructor(root, capacity = 2880) {
    this.root = root;
    this.capacity = capacity;
    this.samples = []; // {tick, time, rooms:{room:{temperature,...}}}
    this.hidden = new Set();
    this.pending = false;
  }

  setRooms(rooms) {
    const first = !this.rooms;
    this.rooms = rooms.map((r) => r.room_id);
    this.names = Object.fromEntries(rooms.map((r) => [r.room_id, r.name]));
    // A 31-room home drawn at once is a tangle: start with a few rooms; the legend picks the others.
    if (first) this.hidden = new Set(this.rooms.slice(DEFAULT_ROOMS));
  }

  load(samples) {
    this.samples = samples.slice(-this.capacity);
    this.draw();
  }

  add(sample) {
    const last = this.samples[this.samples.length - 1];
    if (last && last.tick >= sample.tick) return;
    this.samples.push(sample);
    if (this.samples.length > this.capacity) this.samples.splice(0, this.samples.length - this.capacity);
    if (!this.pending) { // draw at most once per frame however fast samples arrive
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.draw(); });
    }
  }

  draw() {
    if (!this.rooms) return;
    const legend = document.createElement("div");
    legend.className = "legend";
    this.rooms.forEach((room, i) => {
      const item = document.createElement("button");
      item.className = `legend-item${this.hidden.has(room) ? " hidden" : ""}`;
      item.innerHTML = `<span class="swatch" style="background:${COLOURS[i % COLOURS.length]}"></span>`;
      item.append(this.names[room] || room);
      item.onclick = () => { this.hidden.has(room) ? this.hidden.delete(room) : this.hidden.add(room); this.draw(); };
      legend.append(item);
    });
    const all = document.createElement("button");
    all.className = "legend-all";
    all.textContent = this.hidden.size ? "all rooms" : `first ${DEFAULT_ROOMS} rooms`;
    all.onclick = () => {
      this.hidden = this.hidden.size ? new Set() : new Set(this.rooms.slice(DEFAULT_ROOMS));
      this.draw();
    };
    legend.append(all);
    const charts = VARIABLES.map((variable) => this.chart(variable));
    this.root.replaceChildren(legend, ...charts);
  }

  chart(variable) {
    const figure = document.createElement("figure");
    figure.className = "chart";
    figure.dataset.variable = variable.key;
    const caption = document.createElement("figcaption");
    caption.textContent = `${variable.label} (${variable.unit})`;
    const plot = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": `${variable.label} by room` });
    figure.append(caption, plot);
    const samples = this.samples;
    if (samples.length === 0) {
      plot.append(svg("text", { x: WIDTH / 2, y: HEIGHT / 2, "text-anchor": "middle", class: "empty" }, "waiting for samples"));
      return figure;
    }
    const visible = this.rooms.filter((r) => !this.hidden.has(r));
    let lo = Infinity, hi = -Infinity;
    for (const sample of samples) for (const room of visible) {
      const v = sample.rooms[room]?.[variable.key];
      if (typeof v === "number") { lo = Math.min(lo, v * variable.scale); hi = Math.max(hi, v * variable.scale); }
    }
    if (!Number.isFinite(lo)) { lo = 0; hi = 1; }
    if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
    const t0 = samples[0].tick, t1 = Math.max(samples[samples.length - 1].tick, t0 + 1);
    const x = (tick) => PAD.left + ((tick - t0) / (t1 - t0)) * (WIDTH - PAD.left - PAD.right);
    const y = (v) => PAD.top + (1 - (v - lo) / (hi - lo)) * (HEIGHT - PAD.top - PAD.bottom);
    plot.append(svg("rect", { x: PAD.left, y: PAD.top, width: WIDTH - PAD.left - PAD.right,
      height: HEIGHT - PAD.top - PAD.bottom, class: "plot-area" }));
    for (const frac of [0, 0.5, 1]) {
      const v = lo + frac * (hi - lo);
      plot.append(svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v), class: "grid" }));
      plot.append(svg("text", { x: PAD.left - 4, y: y(v) + 4, "text-anchor": "end", class: "tick" }, v.toFixed(variable.scale < 1 ? 1 : 0)));
    }
    plot.append(svg("text", { x: PAD.left, y: HEIGHT - 4, class: "tick" }, samples[0].time.slice(5, 16)));
    plot.append(svg("text", { x: WIDTH - PAD.right, y: HEIGHT - 4, "text-anchor": "end", class: "tick" },
      samples[samples.length - 1].time.slice(5, 16)));
    this.rooms.forEach((room, i) => {
      if (this.hidden.has(room)) return;
      const points = [];
      for (const sample of samples) {
        const v = sample.rooms[room]?.[variable.key];
        if (typeof v === "number") points.push(`${x(sample.tick).toFixed(1)},${y(v * variable.scale).toFixed(1)}`);
      }
      if (points.length === 1) points.push(points[0].replace(/^[^,]+/, (WIDTH - PAD.right).toFixed(1)));
      plot.append(svg("polyline", { points: points.join(" "), fill: "none", stroke: COLOURS[i % COLOURS.length],
        "stroke-width": 1.6, class: "series", "data-room": room }));
    });
    return figure;
  }
}
