"""Matter cluster servers: attributes, commands, validation and Matter status codes.

This package knows nothing of rooms, time sources or the network. Ids and types come from
``chip.clusters.Objects``, read through the generated official model (``clusters.chip_model``, spelt as chip
does by ``clusters.official``); behaviour follows the Matter specification.
"""

from clusters.base import ClusterServer, command
from clusters.endpoint import Endpoint
from clusters.registry import SERVER_CLASSES, server_class
from clusters.runtime import Runtime
from clusters.status import HomeError, Status

__all__ = [
    "SERVER_CLASSES",
    "ClusterServer",
    "Endpoint",
    "HomeError",
    "Runtime",
    "Status",
    "command",
    "server_class",
]
