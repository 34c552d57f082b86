// The device zoo: Matter devices homefabric did not make, built with matter.js (ServerNode + the device types of
// @matter/main/devices) from zoo.json, all in this one Node process (one ServerNode each: own port, passcode,
// discriminator, storage). Optional attributes are left out where real devices leave them out (the thermostat
// serves no setpoint limits). Device attestation: matter.js's test DAC chain under the "Matter Test PAA" (the
// PAA homefabric's export_paa writes), so python-matter-server can commission with strict attestation.
//
// usage: node zoo.mjs ZOO_JSON STORAGE_DIR [INTERFACE] [KEY ...]   (KEYs: only those nodes; default all)
// stdout: "@@hf {json}" lines: {"event": "ready", "nodes": [{key, port, passcode, discriminator, manual_code}]}
// once every node is online; {"event": "commissioned"|"decommissioned", key} as fabrics come and go.
import { Environment, LogFormat, Logger, LogLevel, ServerNode, Endpoint } from "@matter/main";
import {
    BridgedDeviceBasicInformationServer,
    ColorControlServer,
    DescriptorServer,
    FanControlServer,
    FixedLabelServer,
    LevelControlServer,
    ThermostatServer,
    UserLabelServer,
} from "@matter/main/behaviors";
import {
    ContactSensorDevice,
    DimmableLightDevice,
    DoorLockDevice,
    ExtendedColorLightDevice,
    FanDevice,
    HumiditySensorDevice,
    OnOffLightDevice,
    OnOffPlugInUnitDevice,
    TemperatureSensorDevice,
    ThermostatDevice,
} from "@matter/main/devices";
import { AggregatorEndpoint } from "@matter/main/endpoints";
import { readFileSync } from "node:fs";

const [zooPath, storagePath, iface, ...only] = process.argv.slice(2);
if (!zooPath || !storagePath) {
    console.error("usage: node zoo.mjs ZOO_JSON STORAGE_DIR [INTERFACE] [KEY ...]");
    process.exit(2);
}
Logger.format = LogFormat.PLAIN;
Logger.level = process.env.HF_MATTER_JS_LOG === "debug" ? LogLevel.DEBUG : LogLevel.NOTICE;
const environment = Environment.default;
environment.vars.set("storage.path", storagePath);
if (iface) environment.vars.set("mdns.networkInterface", iface);

function emit(message) {
    process.stdout.write(`@@hf ${JSON.stringify(message)}\n`);
}

// A room given as a label (FixedLabel / UserLabel on the endpoint) or a Descriptor semantic tag
// (Common Area namespace 0x10): the behaviours to add and their state.
function roomParts(room) {
    if (!room) return { behaviors: [], state: {} };
    if (room.tag !== undefined) {
        return {
            behaviors: [DescriptorServer.with("TagList")],
            state: { descriptor: { tagList: [{ mfgCode: null, namespaceId: 0x10, tag: room.tag, label: null }] } },
        };
    }
    const labels = { labelList: [{ label: room.key, value: room.value }] };
    return room.cluster === "UserLabel"
        ? { behaviors: [UserLabelServer], state: { userLabel: labels } }
        : { behaviors: [FixedLabelServer], state: { fixedLabel: labels } };
}

const LEVEL = { currentLevel: 128, minLevel: 1, maxLevel: 254, onLevel: null, options: { executeIfOff: false } };

// kind → [[device type, its state], ...] (the endpoints of the device, in order).
const KINDS = {
    on_off_light: () => [[OnOffLightDevice, { onOff: { onOff: false } }]],
    dimmable_light: () => [[DimmableLightDevice, { onOff: { onOff: true }, levelControl: LEVEL }]],
    on_off_plug: () => [[OnOffPlugInUnitDevice, { onOff: { onOff: false } }]],
    extended_color_light: () => [[
        ExtendedColorLightDevice.with(
            LevelControlServer.with("Lighting"),
            ColorControlServer.with("HueSaturation", "Xy", "ColorTemperature"),
        ),
        {
            onOff: { onOff: false },
            levelControl: LEVEL,
            colorControl: {
                colorMode: 2, enhancedColorMode: 2, currentHue: 0, currentSaturation: 0, currentX: 24939,
                currentY: 24701, colorTemperatureMireds: 370, colorTempPhysicalMinMireds: 153,
                colorTempPhysicalMaxMireds: 454, coupleColorTempToLevelMinMireds: 153, startUpColorTemperatureMireds: null,
            },
        },
    ]],
    // Heating + cooling, none of the optional Abs/Min/Max setpoint-limit attributes.
    thermostat: () => [[
        ThermostatDevice.with(ThermostatServer.with("Heating", "Cooling")),
        {
            thermostat: {
                localTemperature: 2150, occupiedHeatingSetpoint: 2000, occupiedCoolingSetpoint: 2600,
                controlSequenceOfOperation: 4, systemMode: 4,
            },
        },
    ]],
    fan: () => [[
        FanDevice.with(FanControlServer.with("MultiSpeed")),
        { fanControl: { fanMode: 0, fanModeSequence: 0, percentSetting: 0, percentCurrent: 0, speedMax: 10, speedSetting: 0, speedCurrent: 0 } },
    ]],
    contact_sensor: () => [[ContactSensorDevice, { booleanState: { stateValue: true } }]],
    temperature_humidity_sensor: () => [
        [TemperatureSensorDevice, { temperatureMeasurement: { measuredValue: 2150, minMeasuredValue: -2000, maxMeasuredValue: 5000 } }],
        [HumiditySensorDevice, { relativeHumidityMeasurement: { measuredValue: 4500, minMeasuredValue: 0, maxMeasuredValue: 10000 } }],
    ],
    door_lock: () => [[
        DoorLockDevice,
        { doorLock: { lockState: 1, lockType: 0, actuatorEnabled: true, operatingMode: 0, wrongCodeEntryLimit: 3, userCodeTemporaryDisableTime: 10 } },
    ]],
};

function endpointsOf(kind, room, extraBehaviors = [], extraState = {}) {
    const build = KINDS[kind];
    if (!build) throw new Error(`zoo.json: unknown kind ${kind}; allowed: ${Object.keys(KINDS).join(", ")}`);
    const roomEndpoint = room?.endpoint ?? 1;
    return build().map(([type, state], index) => {
        const extra = index === 0 ? extraBehaviors : [];
        const own = index + 1 === roomEndpoint ? roomParts(room) : { behaviors: [], state: {} };
        const behaviors = [...extra, ...own.behaviors];
        const withAll = behaviors.length ? type.with(...behaviors) : type;
        return [withAll, { ...state, ...(index === 0 ? extraState : {}), ...own.state }];
    });
}

async function makeNode(zoo, spec) {
    const basic = { vendorName: "homefabric zoo", vendorId: zoo.vendor_id, hardwareVersion: 1, softwareVersion: 1, ...spec.basic };
    const node = await ServerNode.create({
        id: spec.key,
        network: { port: spec.port },
        commissioning: { passcode: spec.passcode, discriminator: spec.discriminator },
        productDescription: { name: spec.basic.productName, deviceType: 0x0100 },
        basicInformation: basic,
    });
    if (spec.kind === "bridge") {
        const aggregator = new Endpoint(AggregatorEndpoint, { id: "aggregator" });
        await node.add(aggregator);
        for (const bridged of spec.bridged) {
            const info = { reachable: true, ...bridged.info };
            const [[type, state], ...rest] = endpointsOf(bridged.kind, bridged.room, [BridgedDeviceBasicInformationServer],
                { bridgedDeviceBasicInformation: info });
            if (rest.length) throw new Error("zoo.json: bridged devices are one endpoint each");
            await aggregator.add(new Endpoint(type, { id: bridged.key, ...state }));
        }
    } else {
        for (const [index, [type, state]] of endpointsOf(spec.kind, spec.room).entries()) {
            await node.add(new Endpoint(type, { id: `${spec.key}-${index + 1}`, ...state }));
        }
    }
    node.lifecycle.commissioned.on(() => emit({ event: "commissioned", key: spec.key }));
    node.lifecycle.decommissioned.on(() => emit({ event: "decommissioned", key: spec.key }));
    return node;
}

const zoo = JSON.parse(readFileSync(zooPath, "utf8"));
const nodes = [];
for (const spec of zoo.nodes.filter(n => only.length === 0 || only.includes(n.key))) {
    const node = await makeNode(zoo, spec);
    await node.start();
    const pairing = node.state.commissioning.pairingCodes;
    nodes.push({ key: spec.key, node, info: { key: spec.key, port: spec.port, passcode: spec.passcode,
        discriminator: spec.discriminator, manual_code: pairing.manualPairingCode, qr_code: pairing.qrPairingCode } });
}
emit({ event: "ready", nodes: nodes.map(n => n.info) });

async function shutdown() {
    for (const { node } of nodes) await node.close().catch(() => {});
    process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
