"""docker-compose.ray.yml: compose validates it, its image is the project's Dockerfile with the extras `--executor
ray` needs, and its workers join the head on the port the head listens on; checked without a Docker engine (building
the image installs Ray, datasets and the speech stack from PyPI: minutes, and a registry this machine may lack)."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
RAY_COMPOSE = ROOT / "docker-compose.ray.yml"


def _flag(command: list[str], name: str) -> str:
    values = [part.split("=", 1)[1] for part in command if part.startswith(f"{name}=")]
    assert len(values) == 1, (name, command)
    return values[0]


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    services: dict[str, Any] = yaml.safe_load(RAY_COMPOSE.read_text())["services"]
    return services


@pytest.mark.requires("docker-compose")
def test_docker_compose_validates_the_ray_file() -> None:
    result = subprocess.run(
        ["docker-compose", "-f", str(RAY_COMPOSE), "config"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    resolved = yaml.safe_load(result.stdout)["services"]
    assert set(resolved) == {"ray-head", "ray-worker"}
    assert resolved["ray-worker"]["scale"] == 2 and "--num-cpus=1" in resolved["ray-head"]["command"]


def test_the_image_is_the_project_dockerfile_with_the_ray_extras(services: dict[str, Any]) -> None:
    head, worker = services["ray-head"], services["ray-worker"]
    assert head["build"]["context"] == "." and worker["image"] == head["image"] and "build" not in worker
    extras = head["build"]["args"]["EXTRAS"].split()
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert "ray" in extras and set(extras) <= set(optional)
    assert any(requirement.startswith("ray") for requirement in optional["ray"])
    assert head["build"]["args"]["APT_PACKAGES"] == "espeak-ng"  # the speech extra's engine (voice datasets)
    dockerfile = (ROOT / "Dockerfile").read_text()
    for argument in ("EXTRAS", "APT_PACKAGES"):  # declared, and used by the install steps
        assert f'ARG {argument}=""' in dockerfile and (
            f"${{{argument}}}" in dockerfile or f'"{argument}"' in dockerfile
        )


def test_the_workers_join_the_head_on_its_port(services: dict[str, Any]) -> None:
    head, worker = services["ray-head"], services["ray-worker"]
    assert head["entrypoint"] == worker["entrypoint"] == ["ray"]
    assert head["command"][:2] == ["start", "--head"] and worker["command"][0] == "start"
    port = _flag(head["command"], "--port")
    assert _flag(worker["command"], "--address") == f"ray-head:{port}"
    assert head["healthcheck"]["test"][-1] == f"127.0.0.1:{port}"
    assert worker["depends_on"]["ray-head"]["condition"] == "service_healthy"
    assert "--block" in head["command"] and "--block" in worker["command"]  # the container lives as long as the node
    # The README's command reaches the head by the service name the workers use.
    readme = (ROOT / "README.md").read_text()
    assert "docker-compose.ray.yml" in readme and f"--address ray-head:{port}" in readme


def test_every_volume_the_nodes_mount_is_made_and_owned_by_the_image_user(services: dict[str, Any]) -> None:
    """A fresh named volume takes the ownership of the image's directory: one the image does not create is root's,
    and the non-root nodes could not write a dataset there (the README's command failed so, run on a real engine)."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    made = next(line for line in dockerfile.splitlines() if "mkdir -p" in line).split("mkdir -p", 1)[1].split("\\")[0]
    assert "chown -R homefabric:homefabric /var/lib/homefabric" in dockerfile and "USER homefabric" in dockerfile
    for service in services.values():
        for volume in service.get("volumes", []):
            path = volume.split(":", 1)[1]
            assert path.startswith("/var/lib/homefabric/") and path in made.split(), (path, made)
