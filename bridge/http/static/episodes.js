// The episode viewer: replay a benchmark trajectory step by step (tool call, observation, state diff),
// from a stored run's records.jsonl or from a live run streamed over /ws/runs/{run_id}.

import { api, el, socketUrl, toast } from "./api.js";

export class EpisodeViewer {
  constructor(root) {
    this.root = root;
    this.trajectory = null; // {title, query, steps:[...], final_answer, verdict, state_diff, status}
    this.position = 0;
    this.timer = null;
    this.socket = null;
    this.q = (id) => root.querySelector(`#${id}`);
    this.q("load-episodes").addEventListener("click", () => this.loadEpisodes());
    this.q("start-run").addEventListener("click", () => this.startRun());
    this.q("refresh-runs").addEventListener("click", () => this.refreshRuns());
    this.q("run-select").addEventListener("change", () => this.showRecords());
    this.q("agent-name").addEventListener("change", () => {
      this.q("react-options").hidden = this.q("agent-name").value !== "react";
    });
    this.q("step-prev").addEventListener("click", () => this.go(this.position - 1));
    this.q("step-next").addEventListener("click", () => this.go(this.position + 1));
    this.q("step-play").addEventListener("click", () => this.play());
  }

  async init() {
    await Promise.all([this.refreshEpisodes(), this.refreshRuns(), this.prefillRoot()]);
  }

  // The server's --episodes-root is where a load may read from: start the box there, not empty.
  async prefillRoot() {
    const { root } = await api("/api/episode-library");
    const box = this.q("episodes-path");
    if (root && !box.value) box.value = root;
    box.placeholder = root ? `${root} (or a folder under it)` : "off: start the server with --episodes-root DIR";
    box.dataset.root = root ?? "";
  }

  async refreshEpisodes() {
    const episodes = await api("/api/episodes");
    const select = this.q("episode-select");
    select.replaceChildren(...episodes.map((e) => el("option", { value: e.episode_id, title: e.query }, `${e.episode_id}`)));
    this.q("episode-count").textContent = `${episodes.length} episode(s)`;
  }

  async loadEpisodes() {
    const path = this.q("episodes-path").value.trim();
    if (!path) return toast("enter a directory of episodes on the server");
    try {
      const result = await api("/api/episodes/load", { method: "POST", body: { path } });
      if (result.problems.length) toast(`${result.problems.length} file(s) skipped: ${result.problems[0].message}`, "warn");
      await this.refreshEpisodes();
    } catch (error) {
      toast(`load: ${error.message}`);
    }
  }

  async refreshRuns(select) {
    const runs = await api("/api/runs");
    const box = this.q("run-select");
    const current = select ?? box.value;
    box.replaceChildren(el("option", { value: "" }, runs.length ? "— choose a run —" : "no runs yet"),
      ...runs.map((r) => el("option", { value: r.run_id }, `${r.run_id} · ${r.status} · ${r.records} record(s)`)));
    if (current && runs.some((r) => r.run_id === current)) box.value = current;
    // Setting the value in code fires no "change": refresh the record list so it never shows another run's records.
    if (box.value !== this.listedRun || select) await this.showRecords();
  }

  async startRun() {
    const ids = [...this.q("episode-select").selectedOptions].map((o) => o.value);
    if (!ids.length) return toast("choose one or more episodes");
    const agent = { name: this.q("agent-name").value };
    if (agent.name === "react") {
      agent.base_url = this.q("react-base-url").value.trim();
      agent.model = this.q("react-model").value.trim();
    }
    try {
      const run = await api("/api/runs", { method: "POST", body: { episode_ids: ids, agent } });
      this.watch(run.run_id);
      await this.refreshRuns(run.run_id);
    } catch (error) {
      toast(`run: ${error.message}`);
    }
  }

  watch(runId) {
    if (this.socket) this.socket.close();
    this.trajectory = { title: `live run ${runId}`, query: "", steps: [], final_answer: null, verdict: null,
      state_diff: null, status: "running", live: true };
    this.position = 0;
    this.render();
    const socket = new WebSocket(socketUrl(`/ws/runs/${encodeURIComponent(runId)}`));
    this.socket = socket;
    socket.onmessage = (message) => {
      const event = JSON.parse(message.data);
      const t = this.trajectory;
      if (event.type === "episode_started") {
        t.title = `live run ${runId} · ${event.episode_id}`;
        t.query = event.query;
        t.steps = [];
        t.verdict = null;
        t.final_answer = null;
        t.state_diff = null;
        this.position = 0;
      } else if (event.type === "step") {
        t.steps.push({ index: event.index, tool: event.tool, arguments: event.arguments, observation: event.observation,
          virtual_time: event.virtual_time, state_diff: event.state_diff, thought: null });
        this.position = t.steps.length - 1;
      } else if (event.type === "record") {
        t.verdict = event.verdict;
        t.final_answer = event.final_answer;
        t.state_diff = event.state_diff;
        t.status = event.status;
      } else if (event.type === "run_finished") {
        t.status = event.status === "finished" ? (t.status === "running" ? "finished" : t.status) : event.status;
        this.refreshRuns(runId).catch(() => {});
      } else if (event.type === "error") {
        toast(event.message);
      }
      this.render();
    };
  }

  async showRecords() {
    const runId = this.q("run-select").value;
    const list = this.q("record-list");
    this.listedRun = runId;
    list.dataset.run = runId;
    if (!runId) return list.replaceChildren();
    const records = await api(`/api/runs/${encodeURIComponent(runId)}/records`);
    if (this.q("run-select").value !== runId) return; // another run was chosen meanwhile: its list wins
    list.replaceChildren(...records.map((r) => el("li", {},
      el("button", { class: `record status-${r.status}`, dataset: { index: r.index },
        onclick: () => this.openRecord(runId, r.index) },
        `${r.episode_id} #${r.trial} · ${r.status} · ${r.steps} step(s)`))));
  }

  async openRecord(runId, index) {
    if (this.socket) { this.socket.close(); this.socket = null; }
    const record = await api(`/api/runs/${encodeURIComponent(runId)}/records/${index}`);
    const steps = (record.outcome?.steps || []).map((s) => ({ ...s, state_diff: null }));
    this.trajectory = { title: `${runId} · ${record.episode_id} (trial ${record.trial}, ${record.agent})`,
      query: record.query, steps, final_answer: record.final_answer, verdict: record.verdict,
      state_diff: record.state_diff, status: record.status, live: false,
      transcript: record.outcome?.transcript ?? null };
    this.position = 0;
    this.render();
  }

  go(position) {
    if (!this.trajectory) return;
    this.position = Math.max(0, Math.min(position, this.trajectory.steps.length - 1));
    this.render();
  }

  play() {
    if (this.timer) { clearInterval(this.timer); this.timer = null; this.q("step-play").textContent = "▶ Play"; return; }
    this.q("step-play").textContent = "⏸ Pause";
    this.timer = setInterval(() => {
      if (!this.trajectory || this.position >= this.trajectory.steps.length - 1) { this.play(); return; }
      this.go(this.position + 1);
    }, 900);
  }

  render() {
    const t = this.trajectory;
    const view = this.q("trajectory");
    if (!t) return view.replaceChildren(el("p", { class: "muted" }, "Choose a run and a record, or start a live run."));
    const step = t.steps[this.position];
    const list = el("ol", { class: "step-list" }, t.steps.map((s, i) => el("li", {},
      el("button", { class: `step-link${i === this.position ? " current" : ""}${s.observation?.error ? " failed" : ""}`,
        onclick: () => this.go(i) }, `${s.tool ?? "(answer)"}`))));
    const detail = step ? el("div", { class: "step-detail", id: "step-detail" },
      el("h4", {}, `Step ${this.position + 1} of ${t.steps.length}: `, el("code", { class: "step-tool" }, step.tool ?? "(no tool)"),
        step.virtual_time ? el("span", { class: "muted" }, ` at ${step.virtual_time}`) : null),
      step.thought ? el("p", { class: "thought" }, step.thought) : null,
      el("h5", {}, "Arguments"), el("pre", { class: "json" }, pretty(step.arguments)),
      el("h5", {}, "Observation"), el("pre", { class: "json observation" }, pretty(step.observation, 4000)),
      el("h5", {}, "State diff of this step"),
      step.state_diff ? diffTable(step.state_diff) : el("p", { class: "muted" }, "not recorded per step (see the episode's diff below)"))
      : el("p", { class: "muted" }, t.status === "running" ? "waiting for the agent's first step…" : "no steps");
    const verdict = t.verdict ? el("div", { class: `verdict ${t.verdict.passed ? "passed" : "failed"}`, id: "verdict" },
      t.verdict.passed ? "✔ passed" : "✘ failed", ` · score ${t.verdict.score ?? "–"} · ${t.verdict.method ?? ""}`)
      : el("div", { class: "verdict pending", id: "verdict" }, t.status === "running" ? "running…" : (t.status ?? ""));
    // replaceChildren() writes a null child as the text "null": the absent parts are left out first.
    view.replaceChildren(...[
      el("h4", { class: "trajectory-title" }, t.title),
      t.query ? el("p", { class: "query" }, "“", t.query, "”") : null,
      verdict,
      el("div", { class: "trajectory-body" }, list, detail),
      t.final_answer ? el("p", { class: "answer" }, el("strong", {}, "Final answer: "), t.final_answer) : null,
      t.state_diff ? el("details", { open: true }, el("summary", {}, `Episode state diff (${t.state_diff.length} change(s))`), diffTable(t.state_diff)) : null,
      t.live ? null : transcriptView(t.transcript)].filter((part) => part !== null));
  }
}

// The conversation as the model saw it (records of LLM agents: outcome.transcript, homefabric-transcript/1):
// the system prompt, then every user / assistant / tool turn in order, and the tools offered.
function transcriptView(transcript) {
  if (!transcript) {
    return el("p", { class: "muted", id: "transcript" }, "No transcript: this agent has no model conversation.");
  }
  const messages = transcript.messages ?? [];
  const tools = transcript.tool_names ?? [];
  return el("details", { class: "transcript", id: "transcript", open: true },
    el("summary", {}, `Transcript (${messages.length} message(s) after the system prompt)`),
    el("p", { class: "muted tools-offered" }, `${tools.length} tool(s) offered: ${tools.join(", ")}`,
      transcript.tool_schema_sha256 ? ` · schema ${transcript.tool_schema_sha256.slice(0, 12)}` : ""),
    transcript.system_prompt ? turnView({ role: "system", content: transcript.system_prompt }) : null,
    messages.map(turnView));
}

function turnView(message) {
  const role = message.role ?? "unknown";
  const label = role === "tool" && message.name ? `tool · ${message.name}` : role;
  const content = typeof message.content === "string" ? message.content
    : message.content == null ? "" : JSON.stringify(message.content, null, 1);
  const calls = (message.tool_calls ?? []).map((call) => el("li", { class: "tool-call" },
    el("code", {}, call.function?.name ?? "?"), " ", el("span", { class: "call-args" }, call.function?.arguments ?? "")));
  return el("div", { class: `turn role-${role}`, dataset: { role } },
    el("div", { class: "turn-role" }, label, message.tool_call_id ? el("span", { class: "muted" }, ` (${message.tool_call_id})`) : null),
    content ? el("pre", { class: "turn-content" }, content.length > 6000 ? `${content.slice(0, 6000)}\n… (${content.length - 6000} more characters)` : content) : null,
    calls.length ? el("ul", { class: "tool-calls" }, calls) : null);
}

function pretty(value, limit = 2000) {
  const text = JSON.stringify(value, null, 1) ?? "null";
  return text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text;
}

function diffTable(diff) {
  if (!diff.length) return el("p", { class: "muted" }, "no change");
  return el("table", { class: "diff" },
    el("thead", {}, el("tr", {}, el("th", {}, "what"), el("th", {}, "old"), el("th", {}, "new"))),
    el("tbody", {}, diff.map((d) => el("tr", {},
      el("td", {}, d.kind === "room" ? `${d.room_id} ${d.variable}` : `${d.device_id} ${d.path ?? d.kind}`),
      el("td", { class: "old" }, JSON.stringify(d.old)), el("td", { class: "new" }, JSON.stringify(d.new))))));
}
