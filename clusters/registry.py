"""Every cluster server class, by its official cluster name."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from clusters.base import ClusterServer

# Framework modules; every other module of the package holds cluster servers.
_FRAMEWORK = {
    "attribute_values",
    "base",
    "chip_model",
    "endpoint",
    "official",
    "registry",
    "runtime",
    "status",
    "values",
}
_MODULES = tuple(
    f"clusters.{info.name}"
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name)
    if info.name not in _FRAMEWORK and not info.name.startswith("_")
)


def _collect() -> dict[str, type[ClusterServer]]:
    found: dict[str, type[ClusterServer]] = {}
    for module_name in _MODULES:
        module = importlib.import_module(module_name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, ClusterServer)
                and value is not ClusterServer
                and value.__module__ == module_name
                and "cluster_name" in value.__dict__
            ):
                if value.cluster_name in found:
                    raise TypeError(f"two servers for {value.cluster_name}: {found[value.cluster_name]} and {value}")
                found[value.cluster_name] = value
    return found


SERVER_CLASSES: dict[str, type[ClusterServer]] = _collect()


def server_class(cluster_name: str) -> type[ClusterServer]:
    try:
        return SERVER_CLASSES[cluster_name]
    except KeyError:
        raise KeyError(f"no server for cluster {cluster_name!r}; known: {sorted(SERVER_CLASSES)}") from None
