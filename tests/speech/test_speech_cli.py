"""``homefabric speech render|say|voices`` through the console script: files written, bad input refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark.suites.voice.wav import decode_wav, sha256
from tests.benchmark.fixture_episodes import EPISODE_DIR

pytestmark = pytest.mark.requires("espeak-ng")

HOMEFABRIC = str(Path(sys.executable).with_name("homefabric"))


def homefabric(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HOMEFABRIC, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env={**os.environ, "COLUMNS": "200"}
    )


def test_render_writes_every_turn_and_a_manifest(tmp_path: Path) -> None:
    result = homefabric(
        "speech",
        "render",
        str(EPISODE_DIR / "qt3_feasible_seed_7.json"),
        "--voices",
        "gb-f1,us-m2",
        "--conditions",
        "clean-dry,0db-reverb",
        "--noise",
        "hum",
        "--seed",
        "3",
        "--out",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    assert "rendered 2 turn(s) of 1 episode(s)" in result.stdout
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["seed"] == 3 and manifest["noise"] == "hum"
    assert [t["condition"] for t in manifest["turns"]] == ["clean-dry", "0db-reverb"]
    for turn in manifest["turns"]:
        data = (tmp_path / turn["file"]).read_bytes()
        assert sha256(data) == turn["sha256"] and turn["voice"] in ("gb-f1", "us-m2")
        assert decode_wav(data).size > 16000
    assert manifest["turns"][1]["noise"] == "hum"


def test_render_refuses_bad_input_without_writing(tmp_path: Path) -> None:
    for args, message in (
        (["--conditions", "loud"], "unknown condition 'loud'"),
        (["--voices", "robot"], "unknown voice(s) ['robot']"),
        (["--noise", "rain"], "unknown noise 'rain'; allowed: room, white"),
    ):
        result = homefabric("speech", "render", str(EPISODE_DIR), *args, "--out", str(tmp_path / "out"))
        assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    missing = homefabric("speech", "render", str(tmp_path / "nothing"), "--out", str(tmp_path / "out"))
    assert missing.returncode == 2 and "no such file or directory" in missing.stderr
    assert not (tmp_path / "out").exists()


def test_say_writes_a_wav_in_the_voice_asked(tmp_path: Path) -> None:
    out = tmp_path / "hello.wav"
    result = homefabric(
        "speech",
        "say",
        "turn on the kitchen light",
        "--voice",
        "carib-f1",
        "--rate",
        "140",
        "--condition",
        "10db-reverb",
        "--room",
        "bathroom",
        "--out",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    assert "voice carib-f1 (Caribbean), 140 wpm, 10db-reverb" in result.stdout
    assert decode_wav(out.read_bytes()).size > 16000
    bad = homefabric("speech", "say", "hi", "--rate", "900", "--out", str(tmp_path / "x.wav"))
    assert bad.returncode == 2 and "allowed: 80 to 300" in bad.stderr and not (tmp_path / "x.wav").exists()


def test_voices_lists_the_pool() -> None:
    result = homefabric("speech", "voices")
    assert result.returncode == 0 and "scot-m1" in result.stdout and "Scottish" in result.stdout
