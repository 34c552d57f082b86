"""The agent contract: every agent declares at class creation whether it is privileged (handed the episode
with its ground truth), and the runner hands the episode to exactly those agents."""

from __future__ import annotations

import asyncio

import pytest

from benchmark.agents.base import AgentBase, AgentOutcome, AgentTask, ToolCaller
from benchmark.agents.null import NullAgent
from benchmark.agents.oracle import OracleAgent
from benchmark.agents.react import ReactAgent
from benchmark.agents.replay import ReplayAgent
from benchmark.runs.runner import run_episode
from benchmark.runs.spec import parse_spec
from benchmark.scoring.judges.rules import RulesJudge
from benchmark.suites.simuhome.episode import load_episodes
from tests.benchmark.fixture_episodes import EPISODE_DIR


def test_an_agent_that_does_not_declare_its_privilege_is_refused_at_class_creation():
    with pytest.raises(TypeError, match=r"Quiet: an agent declares needs_episode = True .* or False"):

        class Quiet(AgentBase):
            name = "quiet"

    with pytest.raises(TypeError, match=r"Vague: an agent declares needs_episode .* \(got 'yes'\)"):

        class Vague(AgentBase):
            name = "vague"
            needs_episode = "yes"  # type: ignore[assignment]  # the wrong type is what the class check must refuse

    with pytest.raises(TypeError, match="Nameless: an agent declares its name"):

        class Nameless(AgentBase):
            needs_episode = False


def test_only_the_oracle_is_privileged():
    assert [a.name for a in (OracleAgent, NullAgent, ReplayAgent, ReactAgent) if a.needs_episode] == ["oracle"]


class _Witness(AgentBase):
    """Records what the runner handed it."""

    name = "witness"
    needs_episode = False

    def __init__(self) -> None:
        self.extras: dict = {}

    async def run(self, task: AgentTask, tools: ToolCaller) -> AgentOutcome:
        self.extras = dict(task.extras)
        tools.call("finish", {"answer": "OK."})
        return AgentOutcome("OK.", [], "finished")


class _PrivilegedWitness(_Witness):
    name = "privileged_witness"
    needs_episode = True


@pytest.mark.parametrize(("agent_class", "sees_episode"), [(_Witness, False), (_PrivilegedWitness, True)])
def test_the_runner_hands_the_episode_only_to_a_privileged_agent(agent_class, sees_episode):
    episodes, _ = load_episodes(EPISODE_DIR)
    episode = episodes[0]
    spec = parse_spec({"episodes": {"path": str(EPISODE_DIR)}, "agent": {"name": "null"}})
    agent = agent_class()
    record = asyncio.run(run_episode(episode, 0, agent, RulesJudge(), spec))
    assert record.agent == agent.name and record.status in ("passed", "failed")
    assert ("episode" in agent.extras) is sees_episode
    if sees_episode:
        assert agent.extras["episode"] is episode
