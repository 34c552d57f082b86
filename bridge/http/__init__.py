"""The home over HTTP: a typed API (OpenAPI at /openapi.json), a WebSocket of fabric events, and a dashboard."""

from bridge.http.app import create_app
from bridge.http.server import HttpApi

__all__ = ["HttpApi", "create_app"]
