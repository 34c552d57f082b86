// A minimal offline API reference rendered from /openapi.json (FastAPI's own docs pages need a CDN).

import { api, el } from "./api.js";

function schemaText(schema, components, depth = 0) {
  if (!schema) return "";
  if (schema.$ref) {
    const name = schema.$ref.split("/").pop();
    return depth > 1 ? name : `${name} ${schemaText(components[name], components, depth + 1)}`;
  }
  if (schema.anyOf) return schema.anyOf.map((s) => schemaText(s, components, depth + 1)).join(" | ");
  if (schema.type === "array") return `[${schemaText(schema.items, components, depth + 1)}]`;
  if (schema.type === "object" && schema.properties) {
    const required = new Set(schema.required || []);
    return `{${Object.entries(schema.properties).map(([k, v]) => `${k}${required.has(k) ? "" : "?"}: ${schemaText(v, components, depth + 1)}`).join(", ")}}`;
  }
  return schema.type || (schema.oneOf ? "one of" : "any");
}

async function main() {
  const doc = await api("/openapi.json");
  const components = doc.components?.schemas || {};
  const root = document.getElementById("api-docs");
  const items = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters || []).map((p) => `${p.in} ${p.name}${p.required ? "" : "?"}: ${schemaText(p.schema, components)}`);
      const body = op.requestBody?.content?.["application/json"]?.schema;
      items.push(el("article", { class: "endpoint" },
        el("h3", {}, el("code", { class: `method ${method}` }, method.toUpperCase()), " ", el("code", {}, path)),
        el("p", {}, op.summary || ""),
        params.length ? el("p", { class: "muted" }, "parameters: ", params.join("; ")) : null,
        body ? el("p", { class: "muted" }, "body: ", schemaText(body, components)) : null,
        el("p", { class: "muted" }, "responses: ", Object.keys(op.responses || {}).join(", "))));
    }
  }
  root.replaceChildren(el("h2", {}, `${doc.info.title} v${doc.info.version}`), el("p", {}, doc.info.description || ""),
    el("p", { class: "muted" }, "WebSockets: /ws/events (fabric events, room-state samples, drops), /ws/runs/{run_id} (a live run's steps). Errors: {code, message, allowed?, errors?[{field, message}]}; 404 not found, 400 refused, 409 state conflict, 422 invalid request, 401 token."),
    ...items);
}

main();
