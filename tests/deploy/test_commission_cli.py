"""`homefabric commission` without a controller: where the pairing code comes from, how a node's attributes
become the device list, and the error a user gets when matter-server is not there. (The commissioning itself is
tested against the real python-matter-server in test_up_native.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from homefabric_cli.commission import (
    EXIT_BAD_INPUT,
    EXIT_UNREACHABLE,
    CommissionError,
    bridged_devices,
    fabrics_in_state,
    normalise_code,
    resolve_code,
)
from tests.matter_bridge.live_env import free_port, manual_code

ROOT = Path(__file__).resolve().parents[2]


def test_codes_are_normalised_and_bad_ones_refused() -> None:
    assert normalise_code(" 3497-011-2332 ") == "34970112332"
    assert normalise_code("mt:Y.K9042C00KA0648G00") == "MT:Y.K9042C00KA0648G00"
    with pytest.raises(ValueError, match="neither an 11- or 21-digit"):
        normalise_code("12345")


def test_the_code_comes_from_the_option_then_the_state_dir_then_the_defaults(tmp_path: Path) -> None:
    computed = resolve_code(None, tmp_path, 20202021, 3840)
    assert computed.code == manual_code() and "computed" in computed.source  # what serve prints by default
    (tmp_path / "pairing.json").write_text(json.dumps({"manual_code": "1111-111-1111", "qr_code": "MT:X"}))
    assert resolve_code(None, tmp_path, 20202021, 3840).code == "11111111111"
    assert resolve_code("2222-222-2222", tmp_path, 20202021, 3840).source == "--code"
    (tmp_path / "pairing.json").write_text(json.dumps({"qr_code": "MT:X"}))
    with pytest.raises(CommissionError, match="manual_code") as error:
        resolve_code(None, tmp_path, 20202021, 3840)
    assert error.value.exit_code == EXIT_BAD_INPUT
    with pytest.raises(CommissionError, match=r"--discriminator must be 0\.\.4095"):
        resolve_code(None, None, 20202021, 5000)


def test_a_fresh_state_dir_has_no_fabrics(tmp_path: Path) -> None:
    assert fabrics_in_state(tmp_path) == {} and fabrics_in_state(None) == {}


def test_bridged_endpoints_become_the_device_list() -> None:
    node = {
        "node_id": 1,
        "attributes": {
            "0/29/0": [{"0": 22, "1": 1}],
            "1/29/0": [{"0": 14, "1": 1}],
            "2/29/0": [{"0": 0x13, "1": 1}, {"0": 0x0100, "1": 3}],
            "2/29/3": [],
            "2/57/5": "lamp",
            "2/64/0": [{"0": "room", "1": "kitchen"}],
            "3/29/0": [{"0": 0x13, "1": 1}, {"0": 0x0302, "1": 2}],
            "3/29/3": [4],
            "3/57/5": "sensor",
            "4/29/0": [{"0": 0x0307, "1": 2}],
        },
    }
    devices = bridged_devices(node)
    assert [(d.endpoint, d.label, d.room, d.device_types, d.parts) for d in devices] == [
        (2, "lamp", "kitchen", [0x0100], []),
        (3, "sensor", None, [0x0302], [4]),
    ]
    assert devices[0].device_type_names == ["OnOffLight"]


def test_an_unreachable_server_is_a_clear_error() -> None:
    url = f"ws://127.0.0.1:{free_port()}/ws"
    result = subprocess.run(
        [sys.executable, "-m", "homefabric_cli.commission", "--matter-server", url, "--connect-timeout", "0.5"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == EXIT_UNREACHABLE
    assert f"cannot reach matter-server at {url}" in result.stderr
