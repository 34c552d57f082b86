"""Building an instance's H0: the home file (parsed once per run and cached) plus the setup actions."""

from __future__ import annotations

from pathlib import Path

from agent_tools.smh.home_env import HomeEnv
from benchmark.suites.smh.instance import Instance
from emulator.emulated_home import EmulatedHome
from emulator.home_config import HomeConfig, load_home


class SetupError(RuntimeError):
    pass


class Homes:
    """Home configs of one suite directory, each parsed once."""

    def __init__(self, suite_dir: Path) -> None:
        self.suite_dir = suite_dir
        self._configs: dict[str, HomeConfig] = {}

    def config(self, ref: str) -> HomeConfig:
        if ref not in self._configs:
            self._configs[ref] = load_home(str(self.suite_dir / ref))
        return self._configs[ref]

    def h0(self, instance: Instance) -> HomeEnv:
        """A fresh copy of the instance's initial home (both settings start from this same state)."""
        env = HomeEnv(EmulatedHome(self.config(instance.home)))
        for action in instance.setup:
            result = env.call(action.did, action.locator, action.arguments)
            if not result.ok:
                raise SetupError(f"{instance.id}: setup {action.locator} on {action.did} refused: {result.message}")
        return env
