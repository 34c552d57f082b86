// A matter.js controller (the stack under the Open Home Foundation's matter.js Matter Server), driven by
// homefabric's tests: one JSON request per stdin line, one JSON answer per stdout line prefixed "@@hf ".
// Everything else on stdout/stderr is matter.js's own log.
//
// Requests: {"id", "op", ...}
//   discover {discriminator, seconds}                -> [{discriminator, addresses, CM, VP, DN}]
//   commission {passcode, discriminator, paa}          -> {node_id, attestation: [findings]}
//        strict attestation: the only trusted PAA is the DER file `paa` (what `homefabric serve` exports);
//        any error-level finding aborts commissioning.
//   read_all {node_id}                                 -> {attributes, endpoints, undecoded: [...], values}
//   read {node_id, endpoint, cluster, attribute}       -> {value}
//   invoke {node_id, endpoint, cluster, command, fields} -> {response}
//   write {node_id, endpoint, cluster, attribute, value} -> {}
//   subscribe {node_id}                               -> {interval_s}; then unsolicited {"event": "attribute", ...}
//   restrict_acl {node_id, endpoint}                   -> {entries}: our fabric's ACL entries keep their
//        subjects and privilege but reach only `endpoint` (the AccessControl cluster is fabric-scoped)
//   open_window {node_id}                              -> {manual_code, qr_code}
//   remove {node_id}                                   -> {}
//   quit
// Answers: {"id", "ok": true, "result"} or {"id", "ok": false, "error"}.
import { Environment, LogFormat, Logger, LogLevel, Seconds } from "@matter/main";
import * as Clusters from "@matter/main/clusters";
import { DclCertificateService } from "@matter/main/protocol";
import { NodeId } from "@matter/main/types";
import { CommissioningController } from "@project-chip/matter.js";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [storagePath, iface] = process.argv.slice(2);
if (!storagePath) {
    console.error("usage: node controller.mjs STORAGE_DIR [INTERFACE]");
    process.exit(2);
}

Logger.format = LogFormat.PLAIN;
Logger.level = process.env.HF_MATTER_JS_LOG === "debug" ? LogLevel.DEBUG : LogLevel.INFO;
const environment = Environment.default;
environment.vars.set("storage.path", storagePath);
if (iface) environment.vars.set("mdns.networkInterface", iface);

function emit(message) {
    process.stdout.write(`@@hf ${JSON.stringify(message, (_, v) => (typeof v === "bigint" ? Number(v) : v))}\n`);
}

function toJson(value) {
    // Bytes -> hex, bigint -> number (text when it would lose digits), so Python can compare values.
    if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
    if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
    if (Array.isArray(value)) return value.map(toJson);
    if (value !== null && typeof value === "object") {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
    }
    return value;
}

// Clusters by numeric id, from matter.js's own generated model (the test names them by Matter id).
const clusterById = new Map();
for (const namespace of Object.values(Clusters)) {
    const cluster = namespace?.Cluster ?? namespace?.Complete;
    if (cluster?.id !== undefined && !clusterById.has(cluster.id)) clusterById.set(cluster.id, cluster);
}
function clusterFor(id) {
    const cluster = clusterById.get(id);
    if (!cluster) throw new Error(`matter.js has no cluster 0x${id.toString(16)}`);
    return cluster;
}
function elementById(elements, id, what) {
    const entry = Object.entries(elements).find(([, e]) => (e.id ?? e.requestId) === id);
    if (!entry) throw new Error(`no ${what} 0x${id.toString(16)}`);
    return entry;
}

let controller;
const paired = new Map();

async function start() {
    controller = new CommissioningController({
        environment: { environment, id: "homefabric-test" },
        autoConnect: false,
        adminFabricLabel: "matter.js",
    });
    await controller.start();
}

async function nodeFor(nodeId) {
    let node = paired.get(nodeId);
    if (!node) {
        node = await controller.getNode(NodeId(BigInt(nodeId)));
        paired.set(nodeId, node);
    }
    return node;
}

const ops = {
    async discover({ discriminator, seconds = 5 }) {
        const found = await controller.discoverCommissionableDevices(
            { longDiscriminator: discriminator },
            { onIpNetwork: true },
            undefined,
            Seconds(seconds),
        );
        return found.map(d => ({
            discriminator: d.D, CM: d.CM, VP: d.VP, DN: d.DN,
            addresses: (d.addresses ?? []).map(a => `${a.ip ?? a.peripheralAddress}:${a.port ?? ""}`),
        }));
    },

    async commission({ passcode, discriminator, paa }) {
        // Strict: our own trust store holds exactly the exported PAA; no DCL, no GitHub test roots.
        const dcl = new DclCertificateService(environment, {
            fetchTestCertificates: false, acceptTestCertificates: true, updateInterval: null, timeout: 1000,
        });
        await dcl.construction;
        await dcl.addCertificate(new Uint8Array(readFileSync(paa)), "PAA");
        const findings = [];
        const nodeId = await controller.commissionNode({
            commissioning: {
                regulatoryLocation: Clusters.GeneralCommissioning.RegulatoryLocationType.IndoorOutdoor,
                regulatoryCountryCode: "XX",
                onAttestationFailure: list => {
                    findings.push(...list.map(f => ({ level: f.level, type: f.type, message: f.message })));
                    return !list.some(f => f.level === "error");
                },
            },
            discovery: { identifierData: { longDiscriminator: discriminator }, discoveryCapabilities: { onIpNetwork: true } },
            passcode,
            autoSubscribe: false,
        });
        return { node_id: Number(nodeId), attestation: findings };
    },

    async read_all({ node_id }) {
        const node = await nodeFor(node_id);
        if (!node.initialized) {
            const initialized = new Promise(resolve => node.events.initialized.once(resolve));
            node.connect({ autoSubscribe: false });
            await initialized;
        }
        const reports = await node.getInteractionClient().getAllAttributes({ isFabricFiltered: false });
        const endpoints = new Set();
        const undecoded = [];
        const values = {};
        for (const { path, value } of reports) {
            endpoints.add(path.endpointId);
            const key = `${path.endpointId}/${path.clusterId}/${path.attributeId}`;
            if (!clusterById.has(path.clusterId) || path.attributeName === undefined
                || /^unknown/i.test(String(path.attributeName))) {
                undecoded.push(key);
            }
            values[key] = toJson(value);
        }
        return { attributes: reports.length, endpoints: endpoints.size, undecoded, values };
    },

    async read({ node_id, endpoint, cluster, attribute }) {
        const node = await nodeFor(node_id);
        const spec = clusterFor(cluster);
        const [, element] = elementById(spec.attributes, attribute, "attribute");
        const value = await node.getInteractionClient().getAttribute({
            endpointId: endpoint, clusterId: spec.id, attribute: element, requestFromRemote: true,
            isFabricFiltered: false,
        });
        return { value: toJson(value) };
    },

    async invoke({ node_id, endpoint, cluster, command, fields }) {
        const node = await nodeFor(node_id);
        const spec = clusterFor(cluster);
        const [, element] = elementById(spec.commands, command, "command");
        const response = await node.getInteractionClient().invoke({
            endpointId: endpoint, clusterId: spec.id, command: element,
            request: fields && Object.keys(fields).length ? fields : undefined,
        });
        return { response: toJson(response ?? null) };
    },

    async write({ node_id, endpoint, cluster, attribute, value }) {
        const node = await nodeFor(node_id);
        const spec = clusterFor(cluster);
        const [, element] = elementById(spec.attributes, attribute, "attribute");
        await node.getInteractionClient().setAttribute({
            attributeData: { endpointId: endpoint, clusterId: spec.id, attribute: element, value },
        });
        return {};
    },

    async subscribe({ node_id, min_s = 0, max_s = 60 }) {
        const node = await nodeFor(node_id);
        const client = node.getInteractionClient();
        await client.subscribeAllAttributesAndEvents({
            minIntervalFloorSeconds: min_s,
            maxIntervalCeilingSeconds: max_s,
            isFabricFiltered: true,
            keepSubscriptions: true,
            attributeListener: ({ path, value }) => emit({
                event: "attribute",
                path: `${path.endpointId}/${path.clusterId}/${path.attributeId}`,
                value: toJson(value),
            }),
            eventListener: ({ path, events }) => emit({
                event: "event", path: `${path.endpointId}/${path.clusterId}/${path.eventId}`, count: events.length,
            }),
            updateTimeoutHandler: () => emit({ event: "subscription_timeout" }),
        });
        return {};
    },

    async restrict_acl({ node_id, endpoint }) {
        const node = await nodeFor(node_id);
        const client = node.getInteractionClient();
        const attribute = Clusters.AccessControl.Cluster.attributes.acl;
        const entries = await client.getAttribute({ endpointId: 0, clusterId: 0x1f, attribute, requestFromRemote: true });
        const restricted = entries.map(e => ({ ...e, targets: [{ endpoint, cluster: null, deviceType: null }] }));
        await client.setAttribute({ attributeData: { endpointId: 0, clusterId: 0x1f, attribute, value: restricted } });
        return { entries: toJson(restricted).map(e => ({ ...e, subjects: e.subjects?.length })) };
    },

    async open_window({ node_id }) {
        const node = await nodeFor(node_id);
        const { manualPairingCode, qrPairingCode } = await node.openEnhancedCommissioningWindow(300);
        return { manual_code: manualPairingCode, qr_code: qrPairingCode };
    },

    async remove({ node_id }) {
        await controller.removeNode(NodeId(BigInt(node_id)), true);
        paired.delete(node_id);
        return {};
    },
};

await start();
emit({ event: "ready" });
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    if (request.op === "quit") break;
    const op = ops[request.op];
    if (!op) {
        emit({ id: request.id, ok: false, error: `unknown op ${request.op}` });
        continue;
    }
    // One request at a time keeps the transcript readable; matter.js itself is concurrent.
    try {
        emit({ id: request.id, ok: true, result: await op(request) });
    } catch (error) {
        emit({ id: request.id, ok: false, error: `${error?.constructor?.name}: ${error?.message ?? error}` });
    }
}
await controller.close();
process.exit(0);
