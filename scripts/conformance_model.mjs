// Reads {"device_types": [id, …], "clusters": [[cluster id, feature map], …]} on stdin and prints,
// from matter.js's @matter/model (the Matter specification as data), what each device type and each
// (cluster, feature map) must have. Run through scripts/generate_conformance.py, which installs the
// model and writes the committed table; this file holds no knowledge of its own.
import { Conformance, Matter } from "@matter/model";

const MANDATORY = Conformance.Applicability.Mandatory;
const GLOBAL_MIN = 0xfff8;

const input = JSON.parse(await new Promise((resolve) => {
    let text = "";
    process.stdin.on("data", (chunk) => (text += chunk));
    process.stdin.on("end", () => resolve(text));
}));

const clusterById = new Map(Matter.clusters.map((c) => [c.id, c]));
const hex = (n) => "0x" + n.toString(16).padStart(4, "0");

function featureBit(cluster, name) {
    const norm = (s) => (s ?? "").toUpperCase().replace(/[^A-Z0-9]/g, "");
    const f = cluster.features.find((x) => x.name === name || norm(x.title) === norm(name));
    if (!f) throw new Error(`${cluster.name} has no feature ${name}`);
    return { name: f.name, title: f.title, bit: Number(f.constraint.value ?? f.constraint.toString()) };
}

function deviceType(id) {
    const dt = Matter.deviceTypes.find((d) => d.id === id);
    if (!dt) throw new Error(`the model has no device type ${hex(id)}`);
    const servers = [];
    for (const req of dt.requirements) {
        if (req.element !== "serverCluster") continue;
        // Descriptor carries no conformance in the device-type tables: it is required on every endpoint.
        const text = req.conformance.toString();
        if (text !== "" && !req.conformance.isMandatory) continue;
        const cluster = clusterById.get(req.id);
        const entry = { id: req.id, name: req.name, features: [], attributes: [], commands: [] };
        for (const el of req.children) {
            if (el.tag !== "requirement" || !el.conformance?.isMandatory) continue;
            if (el.element === "feature") entry.features.push(featureBit(cluster, el.name));
            else if (el.element === "attribute" || el.element === "command") {
                const kind = el.element === "attribute" ? cluster.attributes : cluster.commands;
                const found = kind.find((x) => x.name === el.name && (el.element === "attribute" || x.direction === "request"));
                if (!found) throw new Error(`${cluster.name} has no ${el.element} ${el.name}`);
                entry[el.element + "s"].push({ id: found.id, name: found.name });
            }
        }
        servers.push(entry);
    }
    servers.sort((a, b) => a.id - b.id);
    return { id, name: dt.name, revision: dt.revision, mandatory_server_clusters: servers };
}

function clusterConformance(id, featureMap) {
    const cluster = clusterById.get(id);
    if (!cluster) throw new Error(`the model has no cluster ${hex(id)}`);
    const defined = new Set(cluster.features.map((f) => f.name));
    const supported = new Set(
        cluster.features.filter((f) => featureMap & (1 << Number(f.constraint.value ?? f.constraint.toString()))).map((f) => f.name),
    );
    const ctx = { definedFeatures: defined, supportedFeatures: supported };
    const pick = (elements) =>
        elements
            .filter((e) => e.id < GLOBAL_MIN && e.conformance.applicabilityFor(ctx) === MANDATORY)
            .map((e) => ({ id: e.id, name: e.name }))
            .sort((a, b) => a.id - b.id);
    return {
        id, name: cluster.name, revision: cluster.revision, feature_map: featureMap,
        features: [...supported].sort(),
        attributes: pick(cluster.attributes),
        commands: pick(cluster.commands.filter((c) => c.direction === "request")),
        events: pick(cluster.events),
    };
}

const out = {
    source: "@matter/model",
    device_types: input.device_types.map(deviceType),
    clusters: input.clusters.map(([id, fm]) => clusterConformance(id, fm)),
};
process.stdout.write(JSON.stringify(out));
