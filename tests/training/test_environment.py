"""homefabric/SmartHome-v0: Gymnasium's checker passes, the oracle earns the full reward on every kind and the null
policy none, the same seed gives the same episode, the vector API runs it, and building a dataset locally or using
the environment never imports Ray."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from benchmark.suites.simuhome.episode import KINDS
from benchmark.training.environment import ENV_ID, SmartHomeEnv
from benchmark.training.policies import OraclePolicy, null_action, rollout, text_policy

pytestmark = pytest.mark.requires("datasets")


def test_the_checker_passes() -> None:
    check_env(gymnasium.make(ENV_ID, kinds="qt3,qt1").unwrapped, skip_render_check=True)


@pytest.mark.parametrize("kind", KINDS)
def test_the_oracle_earns_the_full_reward_and_the_null_policy_none(kind: str) -> None:
    env = SmartHomeEnv()
    for seed in (1, 2):
        reward, steps = rollout(env, OraclePolicy(env), seed=seed, options={"kind": kind})
        assert reward == 1.0 and steps <= env.max_steps, (kind, seed)
        assert rollout(env, null_action, seed=seed, options={"kind": kind})[0] == 0.0


def test_the_same_seed_gives_the_same_episode_and_observations() -> None:
    first, second = SmartHomeEnv(), SmartHomeEnv()
    observations = [env.reset(seed=11)[0] for env in (first, second)]
    assert observations[0] == observations[1]
    action = json.dumps(
        {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_rooms", "arguments": "{}"}}]}
    )
    steps = [env.step(action) for env in (first, second)]
    assert steps[0][0] == steps[1][0] and steps[0][1:4] == (0.0, False, False)
    assert json.loads(steps[0][0])["messages"][-1]["role"] == "tool"
    assert first.reset(seed=12)[0] != observations[0]


def test_the_step_budget_truncates_with_no_reward() -> None:
    env = SmartHomeEnv(max_steps=2)
    env.reset(seed=3)
    action = json.dumps(
        {"tool_calls": [{"id": "c", "type": "function", "function": {"name": "get_rooms", "arguments": "{}"}}]}
    )
    assert env.step(action)[2:4] == (False, False)
    _obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (0.0, False, True) and info["verdict"]["passed"] is False
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(action)


def test_the_vector_api_and_the_text_adapter() -> None:
    envs = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", kinds="qt1")
    observations, _infos = envs.reset(seed=5)
    assert len(observations) == 2 and observations[0] != observations[1]
    seen: list[int] = []

    def model(messages: list[dict[str, object]], tools: list[dict[str, object]]) -> str:
        seen.append(len(tools))
        return "I do not know."

    act = text_policy(model)
    _obs, rewards, terminated, _truncated, _infos = envs.step(tuple(act(o) for o in observations))
    assert list(terminated) == [True, True] and list(rewards) == [0.0, 0.0] and seen == [16, 16]
    envs.close()


def test_nothing_imports_ray_without_the_ray_executor(tmp_path: object) -> None:
    code = (
        "import sys; from pathlib import Path; from typer.testing import CliRunner; "
        "from homefabric_cli.main import app; import benchmark.training.environment, benchmark.training.policies; "
        f"r = CliRunner().invoke(app, ['dataset', 'build', '--kinds', 'qt3_feasible', '--per-type', '1', "
        f"'--out', '{tmp_path}/o', '--no-progress']); assert r.exit_code == 0, r.output; "
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
