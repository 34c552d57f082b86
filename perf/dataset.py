"""Training-data and RL throughput: `dataset build` per executor, the Gymnasium environment's steps per second.

- Dataset build (SimuHome, all 12 kinds, ``--per-type`` each, one example per unit; and the voice suite, three task
  types, ``--voice-per-type`` dialogues each in two conditions): examples and rendered audio seconds per wall second
  with the local executor and with a local Ray cluster of 1, 2 and 4 workers (CPUs), each output checked
  byte-identical to the local one; bytes per example of each written form.
- RL: the oracle policy rolled out on ``homefabric/SmartHome-v0`` for ``--episodes`` seeds; environment steps per
  wall second counting only ``env.step`` (reset, which generates an episode and builds its home, apart), on one core.
Usage: python perf/dataset.py [--per-type 2] [--voice-per-type 2] [--workers 1,2,4] [--episodes 24] [--seed 1]
       [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmark.execution.executor_choice import make_executor
from benchmark.execution.executors import Executor, LocalExecutor
from benchmark.training.dataset_build import build_dataset
from benchmark.training.spec import DatasetSpec


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def form_bytes(root: Path, examples: int) -> dict[str, float]:
    forms = {"hf_arrow": "hf", "parquet": "parquet", "chat_jsonl": "chat", "units_jsonl": "units"}
    return {
        name: round(sum(p.stat().st_size for p in (root / folder).rglob("*") if p.is_file()) / examples, 1)
        for name, folder in forms.items()
    }


def timed_build(spec: DatasetSpec, executor: Executor, scratch: Path, label: str) -> tuple[float, Path]:
    out = scratch / label
    started = time.perf_counter()
    try:
        build_dataset(spec, out, executor)
    finally:
        executor.close()
    return time.perf_counter() - started, out


def audio_seconds(root: Path) -> float:
    """Seconds of rendered user audio in a built dataset (from its unit files)."""
    total = 0.0
    for unit in sorted((root / "units").glob("unit-*.jsonl")):
        for line in unit.read_text(encoding="utf-8").splitlines():
            total += sum(float(t["duration_s"] or 0) for t in json.loads(line)["turns"] if t.get("audio"))
    return total


def dataset_figures(spec: DatasetSpec, workers: list[int]) -> dict[str, Any]:
    examples = len(spec.kind_list()) * spec.per_type
    with tempfile.TemporaryDirectory(prefix="bench-dataset-") as temp:
        scratch = Path(temp)
        wall, local_out = timed_build(spec, LocalExecutor(), scratch, "local")
        examples = sum(len(p.read_text().splitlines()) for p in (local_out / "units").glob("unit-*.jsonl"))
        audio = audio_seconds(local_out)
        reference = tree_digest(local_out)
        result: dict[str, Any] = {
            "suite": spec.suite,
            "examples": examples,
            "units": len(spec.units()),
            "audio_s": round(audio, 1),
            "local": {
                "wall_s": round(wall, 2),
                "examples_per_s": round(examples / wall, 2),
                "audio_s_per_s": round(audio / wall, 2) if audio else None,
            },
            "bytes_per_example": form_bytes(local_out, examples),
            "ray": [],
        }
        for count in workers:
            started = time.perf_counter()
            executor = make_executor("ray", workers=count)
            startup = time.perf_counter() - started
            wall, out = timed_build(spec, executor, scratch, f"ray{count}")
            result["ray"].append(
                {
                    "workers": count,
                    "cluster_start_s": round(startup, 2),
                    "wall_s": round(wall, 2),
                    "examples_per_s": round(examples / wall, 2),
                    "audio_s_per_s": round(audio / wall, 2) if audio else None,
                    "byte_identical_to_local": tree_digest(out) == reference,
                }
            )
    return result


def rl_figures(episodes: int, seed: int) -> dict[str, Any]:
    from benchmark.training.environment import SmartHomeEnv
    from benchmark.training.policies import OraclePolicy

    env = SmartHomeEnv(base_seed=seed)
    policy = OraclePolicy(env)
    steps = 0
    step_s = reset_s = 0.0
    rewards = 0.0
    for episode in range(episodes):
        started = time.perf_counter()
        observation, _info = env.reset(seed=seed * 10_000 + episode)
        reset_s += time.perf_counter() - started
        done = False
        while not done:
            action = policy(observation)
            started = time.perf_counter()
            observation, reward, terminated, truncated, _info = env.step(action)
            step_s += time.perf_counter() - started
            steps += 1
            rewards += float(reward)
            done = terminated or truncated
    return {
        "episodes": episodes,
        "steps": steps,
        "steps_per_s": round(steps / step_s, 1),
        "resets_per_s": round(episodes / reset_s, 2),
        "mean_reward": round(rewards / episodes, 3),
        "steps_per_episode": round(steps / episodes, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-type", type=int, default=2)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--voice-per-type", type=int, default=2, help="voice dialogues per task type (0: none)")
    parser.add_argument("--episodes", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # throwaway local clusters: no token written to ~/.ray
    workers = [int(part) for part in args.workers.split(",") if part.strip()]
    data = dataset_figures(DatasetSpec(per_type=args.per_type, seed=args.seed, unit_size=1), workers)
    voice = (
        dataset_figures(
            DatasetSpec(
                suite="voice",
                per_type=args.voice_per_type,
                seed=args.seed,
                unit_size=1,
                conditions="clean-dry,10db-reverb",
            ),
            workers,
        )
        if args.voice_per_type
        else None
    )
    rl = rl_figures(args.episodes, args.seed)
    if args.json:
        print(json.dumps({"machine_cpus": os.cpu_count(), "dataset": data, "voice_dataset": voice, "rl": rl}, indent=2))
        return
    print(f"dataset: {data['examples']} examples; local {data['local']['examples_per_s']} ex/s")
    for row in data["ray"]:
        print(
            f"  ray {row['workers']} workers: {row['examples_per_s']} ex/s (identical: "
            f"{row['byte_identical_to_local']})"
        )
    print(f"  bytes per example: {data['bytes_per_example']}")
    print(f"rl: {rl['steps_per_s']} steps/s, {rl['resets_per_s']} resets/s, mean reward {rl['mean_reward']}")


if __name__ == "__main__":
    main()
