"""homefabric/SmartHome-v0: Gymnasium's checker passes, the oracle earns the full reward on every kind and the null
policy none, the same seed gives the same episode, the vector API runs it, and building a dataset locally or using
the environment never imports Ray."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from benchmark.suites.simuhome.episode import KINDS
from benchmark.training.environment import ENV_ID, PROGRESS_WEIGHT, SmartHomeEnv
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


def _shaped_rewards(policy_for: Any, kind: str, seed: int) -> list[float]:
    env = gymnasium.make(ENV_ID, reward_shaping="progress").unwrapped
    observation, _info = env.reset(seed=seed, options={"kind": kind})
    policy, rewards, done = policy_for(env), [], False
    while not done:
        observation, reward, terminated, truncated, _info = env.step(policy(observation))
        rewards.append(float(reward))
        done = terminated or truncated
    return rewards


@pytest.mark.parametrize("kind", KINDS)
def test_shaped_rewards_sum_to_the_sparse_reward_and_repeat(kind: str) -> None:
    oracle = _shaped_rewards(OraclePolicy, kind, 5)
    assert sum(oracle) == pytest.approx(1.0, abs=1e-9) and oracle == _shaped_rewards(OraclePolicy, kind, 5)
    earned = oracle[:-1]  # before the last step: the required actions and final-state checks newly satisfied
    assert all(r >= 0 for r in earned) and sum(earned) <= PROGRESS_WEIGHT + 1e-9, oracle
    if kind == "qt3_feasible":  # the required action's call, then the target's final state, each earn a share
        assert len([r for r in earned if r > 0]) >= 2, oracle
    assert _shaped_rewards(lambda _env: null_action, kind, 5) == [0.0]


def test_shaping_is_off_by_default_and_checked() -> None:
    assert SmartHomeEnv().reward_shaping == "none"
    with pytest.raises(ValueError, match="reward_shaping 'dense' is not known; allowed: none, progress"):
        SmartHomeEnv(reward_shaping="dense")


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


def _ray_modules_after(*commands: list[str]) -> str:
    """The Ray modules loaded in a fresh process after ``homefabric`` ran each command (each must succeed)."""
    code = (
        "import sys; from typer.testing import CliRunner; from homefabric_cli.main import app; "
        "import benchmark.training.environment, benchmark.training.policies\n"
        f"for args in {commands!r}:\n"
        "    r = CliRunner().invoke(app, args); assert r.exit_code == 0, (args, r.output)\n"
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_nothing_imports_ray_without_the_ray_executor(tmp_path: object) -> None:
    episodes = f"{tmp_path}/episodes"
    build = [
        "dataset",
        "build",
        "--kinds",
        "qt3_feasible",
        "--per-type",
        "1",
        "--out",
        f"{tmp_path}/o",
        "--no-progress",
    ]
    generate = ["episodes", "generate", "--qt", "qt1", "--per-type", "1", "--out", episodes, "--no-progress"]
    run = ["bench", "run", "--agent", "oracle", "--episodes", episodes, "--out", f"{tmp_path}/run", "--quiet"]
    assert _ray_modules_after(build, generate, run) == "[]"


@pytest.mark.requires("espeak-ng")
def test_speech_render_does_not_import_ray_without_the_ray_executor(tmp_path: object) -> None:
    episodes = f"{tmp_path}/episodes"
    generate = ["episodes", "generate", "--qt", "qt1", "--per-type", "1", "--out", episodes, "--no-progress"]
    assert _ray_modules_after(generate, ["speech", "render", episodes, "--out", f"{tmp_path}/r", "--quiet"]) == "[]"


def test_a_fresh_process_makes_the_env_by_its_module_prefixed_id() -> None:
    """Gymnasium 1.x loads no ``gymnasium.envs`` entry points (its registration module has no plugin loader); its
    supported way is the ``"module:env id"`` form, which imports the module that registers the env."""
    code = (
        "import sys, gymnasium, importlib.metadata as md\n"
        "assert 'benchmark.training.environment' not in sys.modules\n"
        "env = gymnasium.make('benchmark.training.environment:homefabric/SmartHome-v0', reward_shaping='progress')\n"
        "print(env.reset(seed=0)[1]['kind'], env.unwrapped.reward_shaping)\n"
        "print([(e.name, e.value) for e in md.entry_points(group='gymnasium.envs')])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    made, declared = result.stdout.splitlines()
    assert made.endswith(" progress") and made.split()[0] in KINDS
    # Declared for the Gymnasium versions that load the group (0.26-0.29).
    assert declared == "[('homefabric', 'benchmark.training.environment:register_environments')]"
