"""Logging for ``homefabric serve``: one line per record on stderr, ``time level logger: message``.

The Matter bridge writes its operational events as ``event=NAME key=value ...`` (commissioning:
``window_open``, ``session_established kind=pase``, ``fabric_added``, ``commissioning_complete``,
``fabric_removed``; sessions: ``session_established``/``session_resumed``/``session_closed``, ``case_failed``;
subscriptions: ``subscription_established``/``subscription_ended``; access: ``acl_denied``), so a log can be
filtered with grep or parsed as key=value pairs.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["LOG_LEVELS", "configure_logging"]

LOG_LEVELS = ("debug", "info", "warning", "error")
_CHATTY = ("zeroconf", "asyncio", "aiohttp.access", "httpx", "uvicorn.access")  # third parties: warnings only


def configure_logging(level: str) -> None:
    """Route every logger to stderr at ``level`` (one of :data:`LOG_LEVELS`)."""
    if level not in LOG_LEVELS:
        raise ValueError(f"log level {level!r} is not one of {', '.join(LOG_LEVELS)}")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter("%(asctime)s.%(msecs)03d %(levelname)s %(name)s: %(message)s", "%Y-%m-%dT%H:%M:%S")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in _CHATTY:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
