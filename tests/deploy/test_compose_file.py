"""docker-compose.yml, the Dockerfile and scripts/up agree, checked without a Docker engine.

Debian's ``docker-compose`` (1.29) validates the file with ``config -q`` without talking to an engine;
the rest reads the YAML and asks ``scripts/up --print SERVICE`` (which starts nothing) for the command
line it would run with the containers' settings, so the compose wiring and the native wiring cannot drift.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
LOCAL = ROOT / "docker-compose.local.yml"
UP = ROOT / "scripts" / "up"
VENV_BIN = Path(sys.executable).parent
MUTABLE_TAGS = {"latest", "stable", "beta", "dev", "edge", "main"}


def _interpolate(value: Any) -> Any:
    """Compose's ``${VAR:-default}`` with the variables unset (what `docker compose up` does on a clean host)."""
    if isinstance(value, str):
        return re.sub(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}", r"\1", value)
    if isinstance(value, list):
        return [_interpolate(v) for v in value]
    if isinstance(value, dict):
        return {k: _interpolate(v) for k, v in value.items()}
    return value


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    return _interpolate(yaml.safe_load(COMPOSE.read_text()))["services"]


def _volumes(service: dict[str, Any]) -> dict[str, str]:
    """Container path → source (named volume or host path) of a service's short-syntax volumes."""
    mounts = {}
    for entry in service.get("volumes", []):
        source, target, *_ = entry.split(":")
        mounts[target] = source
    return mounts


def _up_print(service: str, env: dict[str, str]) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HOMEFABRIC_", "MATTER_", "MQTT_"))}
    result = subprocess.run(
        [str(UP), "--print", service],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, "PATH": f"{VENV_BIN}:{clean.get('PATH', '')}", **env},
    )
    assert result.returncode == 0, result.stderr
    return shlex.split(result.stdout)


def _flag(argv: list[str], name: str) -> str:
    assert name in argv, (name, argv)
    return argv[argv.index(name) + 1]


@pytest.mark.requires("docker-compose")
def test_docker_compose_validates_the_file() -> None:
    result = subprocess.run(
        ["docker-compose", "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    both = subprocess.run(
        ["docker-compose", "-f", str(COMPOSE), "-f", str(LOCAL), "config", "-q"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert both.returncode == 0, both.stderr
    resolved = yaml.safe_load(
        subprocess.run(
            ["docker-compose", "-f", str(COMPOSE), "config"],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
            check=True,
        ).stdout
    )
    assert set(resolved["services"]) == {"emulator", "matter-server", "mqtt"}


def test_images_are_pinned_and_match_the_tested_controller(services: dict[str, Any]) -> None:
    tested = importlib.metadata.version("python-matter-server")
    assert services["matter-server"]["image"] == f"ghcr.io/home-assistant-libs/python-matter-server:{tested}"
    repository, _, tag = services["mqtt"]["image"].rpartition(":")
    assert repository == "eclipse-mosquitto" and re.fullmatch(r"\d+\.\d+\.\d+", tag), services["mqtt"]["image"]
    for name, service in services.items():
        if "image" in service and "build" not in service:
            assert service["image"].rpartition(":")[2] not in MUTABLE_TAGS, name
    assert services["emulator"]["build"]["context"] == "."
    # The base is a build argument, official by default, so that hosts without Docker Hub can pass their own.
    assert services["emulator"]["build"]["args"]["BASE"] == "debian:bookworm-slim"


def test_the_local_override_builds_the_same_programs_from_packages(services: dict[str, Any]) -> None:
    """docker-compose.local.yml (where the registries' images cannot be pulled) changes images, nothing else."""
    local = _interpolate(yaml.safe_load(LOCAL.read_text()))["services"]
    assert set(local) <= set(services)
    for name, service in local.items():
        assert set(service) <= {"image", "build"}, f"{name}: the override may only say how the image is built"
        assert service["build"]["network"] == "host"  # builds reach the package registries as the host does
    tested = importlib.metadata.version("python-matter-server")
    server = local["matter-server"]
    assert server["build"]["args"]["MATTER_SERVER_VERSION"] == tested and server["image"].endswith(f":{tested}")
    dockerfile = (ROOT / server["build"]["context"] / "Dockerfile").read_text()
    assert 'pip install "python-matter-server[server]==${MATTER_SERVER_VERSION}"' in dockerfile
    assert 'ENTRYPOINT ["matter-server"]' in dockerfile  # compose sets the same entrypoint and command anyway
    mqtt = (ROOT / local["mqtt"]["build"]["context"] / "Dockerfile").read_text()
    assert "mosquitto-clients" in mqtt  # the broker's health check runs mosquitto_pub
    for name in ("mqtt", "matter-server"):
        assert local[name]["build"]["args"]["BASE"] == services["emulator"]["build"]["args"]["BASE"], name


def test_host_networking_health_checks_and_restart_policies(services: dict[str, Any]) -> None:
    for name, service in services.items():
        # mDNS and Matter's UDP need the host network; the broker follows so that 127.0.0.1 reaches it.
        assert service.get("network_mode") == "host", name
        assert "ports" not in service, f"{name}: published ports mean nothing with host networking"
        assert service.get("restart") == "unless-stopped", name
        test = service["healthcheck"]["test"]
        assert test[0] in ("CMD", "CMD-SHELL") and len(test) > 1, name
    assert services["matter-server"]["depends_on"]["emulator"]["condition"] == "service_healthy"
    assert services["emulator"]["depends_on"]["mqtt"]["condition"] == "service_healthy"
    assert services["emulator"]["healthcheck"]["test"] == ["CMD", "/opt/homefabric/scripts/up", "health", "emulator"]


def test_matter_server_runs_what_scripts_up_runs_and_shares_the_emulators_paa(services: dict[str, Any]) -> None:
    server, emulator = services["matter-server"], services["emulator"]
    data = emulator["environment"]["HOMEFABRIC_DATA"]
    storage = _flag(server["command"], "--storage-path")
    native = _up_print("matter-server", {"HOMEFABRIC_DATA": data, "MATTER_SERVER_DATA": storage})
    assert server["entrypoint"] == ["matter-server"] and native[0] == "matter-server"
    assert server["command"] == native[1:]
    # The PAA directory: one named volume, at the path the emulator exports to and matter-server reads.
    paa = _flag(server["command"], "--paa-root-cert-dir")
    assert paa == f"{data}/state/paa"
    server_mounts, emulator_mounts = _volumes(server), _volumes(emulator)
    assert server_mounts[paa] == emulator_mounts[paa]
    top_volumes = yaml.safe_load(COMPOSE.read_text())["volumes"]
    assert server_mounts[paa] in top_volumes  # named, so it outlives the containers
    assert server_mounts[storage] in top_volumes and emulator_mounts[data] in top_volumes
    port = _flag(server["command"], "--port")
    assert f"'127.0.0.1', {port}" in server["healthcheck"]["test"][-1]
    assert _flag(server["command"], "--listen-address") == "127.0.0.1"


def test_emulator_runs_scripts_up_with_the_native_flags(services: dict[str, Any]) -> None:
    emulator = services["emulator"]
    assert emulator["command"] == ["emulator"]  # the image's entrypoint is scripts/up
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["/opt/homefabric/scripts/up"]' in dockerfile
    env = {k: str(v) for k, v in emulator["environment"].items()}
    argv = _up_print("emulator", env)
    assert argv[:3] == ["homefabric", "serve", f"{env['HOMEFABRIC_DATA']}/home.json"]
    assert _flag(argv, "--state-dir") == f"{env['HOMEFABRIC_DATA']}/state"
    assert _flag(argv, "--port") == env["MATTER_PORT"] == "5540"
    serve_help = subprocess.run(
        [str(VENV_BIN / "homefabric"), "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    ).stdout
    if "--mqtt" in serve_help:  # wired once the MQTT bridge is part of serve
        assert _flag(argv, "--mqtt") == env["HOMEFABRIC_MQTT"] == f"127.0.0.1:{env['MQTT_PORT']}"
    if "--http" in serve_help:
        assert _flag(argv, "--http") == env["HOMEFABRIC_HTTP"]


def test_mosquitto_uses_the_repo_config_on_the_port_the_emulator_uses(services: dict[str, Any]) -> None:
    mqtt, emulator = services["mqtt"], services["emulator"]
    config_path = _flag(mqtt["command"], "-c")
    source = _volumes(mqtt)[config_path]
    assert (ROOT / source).resolve() == ROOT / "deploy" / "mosquitto" / "mosquitto.conf"
    lines = [line.split() for line in (ROOT / source).read_text().splitlines() if line and not line.startswith("#")]
    listeners = [words for words in lines if words[0] == "listener"]
    assert listeners == [["listener", emulator["environment"]["MQTT_PORT"], "127.0.0.1"]]
    persistence_dir = next(words[1] for words in lines if words[0] == "persistence_location")
    assert _volumes(mqtt)[persistence_dir.rstrip("/")] in yaml.safe_load(COMPOSE.read_text())["volumes"]
    assert _flag(mqtt["healthcheck"]["test"], "-p") == emulator["environment"]["MQTT_PORT"]
    native = _up_print("mqtt", {"HOMEFABRIC_DATA": "/tmp/hf-data"})
    assert native[1:] == ["-c", "/tmp/hf-data/mosquitto/mosquitto.conf"]


def test_dockerfile_builds_the_emulator_image() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    instructions = [line.split(None, 1) for line in dockerfile.splitlines() if line and not line.startswith(("#", " "))]
    assert instructions[:2] == [["ARG", "BASE=debian:bookworm-slim"], ["FROM", "${BASE}"]]
    users = [rest for keyword, rest in instructions if keyword == "USER"]
    assert users and users[-1] not in ("root", "0")
    copied = {rest.split()[0] for keyword, rest in instructions if keyword == "COPY"}
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    allowed = {line[1:] for line in (ROOT / ".dockerignore").read_text().splitlines() if line.startswith("!")}
    for pattern in packages:
        assert pattern.rstrip("*") in copied, f"the Dockerfile does not copy package {pattern}"
        assert pattern.rstrip("*") in allowed, f".dockerignore leaves package {pattern} out of the build context"
    assert "scripts/up" in allowed and {"pyproject.toml", "README.md"} <= allowed
    code = [line for line in dockerfile.splitlines() if not line.lstrip().startswith("#")]
    assert not [line for line in code if "libnl" in line or "chip-core" in line]  # only the controller needs them
    assert 'CMD ["emulator"]' in dockerfile


def test_scripts_up_refuses_unknown_services() -> None:
    result = subprocess.run([str(UP), "--print", "kettle"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "unknown service 'kettle'" in result.stderr
    result = subprocess.run([str(UP)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "scripts/up all" in result.stderr


def test_the_docker_scripts_refuse_bad_arguments_in_one_line() -> None:
    result = subprocess.run(
        [str(ROOT / "scripts" / "docker-base"), "--tag"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2
    assert result.stderr == "docker-base: error: unknown option --tag (the only argument is an image tag)\n"
    result = subprocess.run(
        [str(ROOT / "scripts" / "docker-sandbox"), "restart"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2 and "scripts/docker-sandbox start" in result.stderr
    result = subprocess.run(
        [str(ROOT / "scripts" / "docker-sandbox"), "exec"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2 and result.stderr == "docker-sandbox: error: exec needs a command\n"
