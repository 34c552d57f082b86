// The automations panel: every rule with its trigger, enabled switch, last and next firing, refreshed
// every 2 s (and at once after a change made here).

import { api, el, toast } from "./api.js";

const REFRESH_MS = 2000;

function triggerText(rule) {
  const t = rule.trigger;
  if (t.kind === "time") return `cron ${t.cron}`;
  const c = t.condition;
  const source = c.device_id ? `${c.device_id} ${c.path}` : `${c.room_id} ${c.variable}`;
  return `when ${source} ${c.op} ${c.value}${c.for_s ? ` for ${c.for_s} s` : ""}`;
}

function row(rule, refresh) {
  const toggle = el("button", { type: "button", class: "automation-toggle", "aria-pressed": String(rule.enabled) },
    rule.enabled ? "Enabled" : "Disabled");
  toggle.addEventListener("click", async () => {
    try {
      await api(`/api/automations/${encodeURIComponent(rule.id)}/${rule.enabled ? "disable" : "enable"}`, { method: "POST" });
      await refresh();
    } catch (error) {
      toast(`automation: ${error.message}`);
    }
  });
  const conditions = rule.conditions.length ? ` if ${rule.conditions.length} condition(s)` : "";
  return el("tr", { id: `automation-${rule.id}`, class: rule.enabled ? "enabled" : "disabled" },
    el("td", { class: "name" }, rule.name),
    el("td", { class: "kind" }, rule.kind),
    el("td", { class: "trigger" }, triggerText(rule) + conditions),
    el("td", {}, toggle),
    el("td", { class: "last-fired" }, rule.last_fired ?? "never"),
    el("td", { class: "next-firing" }, rule.next_firing ?? "–"),
    el("td", { class: "fire-count" }, String(rule.fire_count)));
}

async function start() {
  const box = document.getElementById("automation-list");
  if (!box) return;
  const refresh = async () => {
    const rules = await api("/api/automations");
    if (!rules.length) {
      box.replaceChildren(el("p", { class: "muted" }, "No automations yet (create them with POST /api/automations or the create_automation tool)."));
    } else {
      const head = el("tr", {}, ...["Name", "Kind", "Trigger", "", "Last fired", "Next firing", "Fired"].map((h) => el("th", {}, h)));
      box.replaceChildren(el("div", { class: "table-fit" }, el("table", { class: "automations" }, el("thead", {}, head),
        el("tbody", {}, ...rules.map((rule) => row(rule, refresh))))));
    }
    box.dataset.loaded = "true";
  };
  const loop = async () => {
    try {
      await refresh();
    } catch (error) {
      // a transient failure (server restarting) is retried on the next round
    }
    setTimeout(loop, REFRESH_MS);
  };
  loop();
}

start();
