"""`dataset build --executor ray` on a real multi-process Ray cluster started here (a head and one more worker
node, each `ray start --block` in its own process group on ports of its own): the dataset is byte-identical to the
local executor's, also after the driver is killed mid-build and the build resumed."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmark.training.spec import DatasetSpec
from tests.requirements import VENV_BIN

pytestmark = pytest.mark.requires("ray", "datasets", "homefabric")

SPEC = DatasetSpec(kinds="qt1,qt3", per_type=3, seed=4, unit_size=1)
SPEC_ARGS = ["--kinds", "qt1,qt3", "--per-type", "3", "--seed", "4", "--unit-size", "1"]
PORTS_PER_NODE = 50
# Token auth off on both sides: with it unset, a token file left in ~/.ray by an earlier local Ray turns it on for
# the nodes only.
ENV = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


def tree_bytes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _free_block(size: int) -> int:
    """A base port with ``size`` free ports after it (a random one, so parallel runs do not meet)."""
    for _ in range(200):
        base = random.randrange(20000, 60000 - size)
        try:
            sockets = []
            for port in range(base, base + size):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
        return base
    raise RuntimeError("no block of free ports")


def _node_args(base: int) -> list[str]:
    return [
        "--num-cpus",
        "1",
        "--object-store-memory",
        "100000000",
        "--object-manager-port",
        str(base + 1),
        "--node-manager-port",
        str(base + 2),
        "--dashboard-agent-listen-port",
        str(base + 3),
        "--dashboard-agent-grpc-port",
        str(base + 4),
        "--runtime-env-agent-port",
        str(base + 5),
        "--metrics-export-port",
        str(base + 6),
        "--min-worker-port",
        str(base + 10),
        "--max-worker-port",
        str(base + PORTS_PER_NODE - 1),
        "--disable-usage-stats",
        "--block",
    ]


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the node's process group (the processes this test started, by their group id)."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                process.wait()
                return
            time.sleep(0.5)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    base = _free_block(2 * PORTS_PER_NODE)
    address = f"127.0.0.1:{base}"
    temp = tempfile.mkdtemp(prefix="hfray", dir="/tmp")  # short: Ray's socket paths live under it
    ray = [sys.executable, "-m", "ray.scripts.scripts", "start"]
    log = Path(temp) / "nodes.log"
    nodes: list[subprocess.Popen[bytes]] = []
    with log.open("ab") as sink:
        try:
            nodes.append(
                subprocess.Popen(
                    [
                        *ray,
                        "--head",
                        "--port",
                        str(base),
                        "--include-dashboard=false",
                        "--dashboard-port",
                        str(base + 7),
                        "--temp-dir",
                        temp,
                        *_node_args(base),
                    ],
                    stdout=sink,
                    stderr=sink,
                    env=ENV,
                    start_new_session=True,
                )
            )
            _wait_for_nodes(address, 1, log)
            nodes.append(
                subprocess.Popen(
                    [*ray, "--address", address, *_node_args(base + PORTS_PER_NODE)],
                    stdout=sink,
                    stderr=sink,
                    env=ENV,
                    start_new_session=True,
                )
            )
            _wait_for_nodes(address, 2, log)
            yield address
        finally:
            for node in reversed(nodes):
                _stop(node)
            shutil.rmtree(temp, ignore_errors=True)


def _wait_for_nodes(address: str, count: int, log: Path, timeout: float = 120) -> None:
    code = (
        "import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR', log_to_driver=False); "
        "print(sum(1 for n in ray.nodes() if n['Alive']), int(ray.cluster_resources().get('CPU', 0)))"
    )
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        result = subprocess.run(
            [sys.executable, "-c", code, address], capture_output=True, text=True, env=ENV, timeout=60
        )
        last = result.stdout.strip() or result.stderr.strip()[-300:]
        if result.returncode == 0 and last == f"{count} {count}":
            return
        time.sleep(1)
    nodes = log.read_text(errors="replace")[-1500:]
    raise AssertionError(f"the Ray cluster at {address} did not reach {count} nodes: {last}\nnodes' log: {nodes}")


@pytest.fixture(scope="module")
def local_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # A fresh process, as the Ray driver is: built inside the test process after the whole suite had run there,
    # the examples came out different (state some earlier test leaves behind in this process).
    out = tmp_path_factory.mktemp("local") / "out"
    command = [str(VENV_BIN / "homefabric"), "dataset", "build", *SPEC_ARGS, "--out", str(out)]
    built = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=600)
    assert built.returncode == 0, built.stderr
    return out


def _build(address: str, out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            str(VENV_BIN / "homefabric"),
            "dataset",
            "build",
            *SPEC_ARGS,
            "--out",
            str(out),
            "--executor",
            "ray",
            "--address",
            address,
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )


def _kill_after_two(process: subprocess.Popen[str], directory: Path, pattern: str) -> int:
    """SIGKILL ``process`` (a driver) once two of its units are written; how many files it had written."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and len(list(directory.glob(pattern))) < 2:
        assert process.poll() is None, process.communicate()[1]
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    return len(list(directory.glob(pattern)))


def test_the_cluster_build_is_byte_identical_to_the_local_one(cluster: str, local_build: Path, tmp_path: Path) -> None:
    build = _build(cluster, tmp_path / "ray")
    _stdout, stderr = build.communicate(timeout=600)
    assert build.returncode == 0, stderr
    assert "ray, 2 workers" in stderr and f"{len(SPEC.units())}/{len(SPEC.units())}" in stderr  # the progress bar
    assert tree_bytes(tmp_path / "ray") == tree_bytes(local_build)


def test_a_killed_driver_resumes_to_the_same_bytes(cluster: str, local_build: Path, tmp_path: Path) -> None:
    out = tmp_path / "ray"
    written = _kill_after_two(_build(cluster, out, "--no-progress"), out / "units", "unit-*.jsonl")
    assert 2 <= written < len(SPEC.units()) and not (out / "README.md").exists()
    resumed = _build(cluster, out, "--resume", "--no-progress")
    stdout, stderr = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, stderr
    assert f"{len(SPEC.units()) - written} units run, {written} kept" in stdout
    assert tree_bytes(out) == tree_bytes(local_build)


def test_episodes_generate_on_the_cluster_writes_the_local_files(cluster: str, tmp_path: Path) -> None:
    args = ["episodes", "generate", "--qt", "qt2,qt4-1", "--per-type", "9", "--seed", "3", "--no-progress"]
    local = subprocess.run(
        [str(VENV_BIN / "homefabric"), *args, "--out", str(tmp_path / "local")],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=600,
    )
    assert local.returncode == 0, local.stderr
    on_ray = [
        str(VENV_BIN / "homefabric"),
        *args,
        "--out",
        str(tmp_path / "ray"),
        "--executor",
        "ray",
        "--address",
        cluster,
    ]
    first = subprocess.run(on_ray, capture_output=True, text=True, env=ENV, timeout=600)
    assert first.returncode == 0, first.stderr
    assert tree_bytes(tmp_path / "ray") == tree_bytes(tmp_path / "local")
    (tmp_path / "ray" / "qt4-1_feasible_seed_3009.json").unlink()  # the last unit of a kind, as a kill leaves it
    resumed = subprocess.run([*on_ray, "--resume"], capture_output=True, text=True, env=ENV, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert "wrote 1 episodes" in resumed.stdout and "(7 units kept)" in resumed.stdout  # 4 kinds × 2 units, one missing
    assert tree_bytes(tmp_path / "ray") == tree_bytes(tmp_path / "local")


def _homefabric(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VENV_BIN / "homefabric"), *args], capture_output=True, text=True, env=ENV, timeout=timeout
    )


@pytest.fixture(scope="module")
def episodes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("episodes") / "episodes"
    made = _homefabric("episodes", "generate", "--qt", "qt1,qt4-1", "--per-type", "2", "--seed", "6", "--out", str(out))
    assert made.returncode == 0, made.stderr
    return out


def _locally_then_on_ray(command: list[str], cluster: str, tmp_path: Path) -> tuple[list[str], str]:
    """``command`` into tmp_path/local (quiet), then on the cluster into tmp_path/ray: the cluster's arguments
    and its stderr (the progress)."""
    local = _homefabric(*command, "--out", str(tmp_path / "local"), "--quiet")
    assert local.returncode == 0, local.stderr
    on_ray = [*command, "--out", str(tmp_path / "ray"), "--executor", "ray", "--address", cluster]
    whole = _homefabric(*on_ray)
    assert whole.returncode == 0, whole.stderr
    return on_ray, whole.stderr


def test_bench_run_on_the_cluster_writes_the_local_records(cluster: str, episodes: Path, tmp_path: Path) -> None:
    run = ["bench", "run", "--agent", "oracle", "--episodes", str(episodes), "--trials", "2"]
    on_ray, progress = _locally_then_on_ray(run, cluster, tmp_path)
    out = tmp_path / "ray"
    assert "16/16 ray, 2 workers: passed 16" in progress  # the progress: runs done, the cluster's workers
    records = (tmp_path / "local" / "records.jsonl").read_bytes()
    assert (out / "records.jsonl").read_bytes() == records and records.count(b"\n") == 16  # 8 episodes × 2 trials
    # As a kill leaves it: records appended in the order they finished, the last one torn.
    lines = records.splitlines(keepends=True)
    (out / "records.jsonl").write_bytes(b"".join(reversed(lines[5:11])) + lines[11][:40])
    resumed = _homefabric(*on_ray, "--resume", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert "ran 10 episode run(s), kept 6 from before" in resumed.stdout
    assert (out / "records.jsonl").read_bytes() == records


@pytest.mark.requires("espeak-ng")
def test_speech_render_on_the_cluster_writes_the_local_files_also_after_a_kill(
    cluster: str, episodes: Path, tmp_path: Path
) -> None:
    render = ["speech", "render", str(episodes), "--conditions", "clean-dry,10db-reverb", "--seed", "2"]
    on_ray, progress = _locally_then_on_ray(render, cluster, tmp_path)
    out = tmp_path / "ray"
    assert "rendering 8/8 ray, 2 workers: " in progress  # the progress: episodes done, the cluster's workers
    assert tree_bytes(out) == tree_bytes(tmp_path / "local")
    shutil.rmtree(out)
    command = [str(VENV_BIN / "homefabric"), *on_ray, "--quiet"]
    killed = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    written = _kill_after_two(killed, out / ".render", "unit-*.jsonl")
    assert 2 <= written < 8 and not (out / "manifest.json").exists()
    resumed = _homefabric(*on_ray, "--quiet", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert tree_bytes(out) == tree_bytes(tmp_path / "local")
