"""``homefabric serve --log-level``: refused values, and the line format of the Matter events."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from homefabric_cli.main import app
from homefabric_cli.serve_logging import configure_logging


def test_an_unknown_log_level_is_refused_before_anything_starts(tmp_path: Path) -> None:
    state = tmp_path / "state"
    result = CliRunner().invoke(
        app, ["serve", str(tmp_path / "home.json"), "--state-dir", str(state), "--log-level", "loud"]
    )
    assert result.exit_code == 2
    assert "--log-level must be one of debug, info, warning, error, got 'loud'" in result.output
    assert "Traceback" not in result.output and not state.exists()


def test_events_are_one_line_each_with_level_logger_and_key_values(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    try:
        configure_logging("info")
        logging.getLogger("bridge.matter.session.handshake").info("event=session_resumed kind=case session=%d", 7)
        logging.getLogger("bridge.matter.im.interaction").debug("hidden at info")
        logging.getLogger("zeroconf").info("third-party chatter stays out")
    finally:
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert lines[0].endswith(" INFO bridge.matter.session.handshake: event=session_resumed kind=case session=7")
    with pytest.raises(ValueError, match="not one of debug, info, warning, error"):
        configure_logging("verbose")
