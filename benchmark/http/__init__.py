"""The benchmark's face on the home's HTTP app: the episode library, agent runs and their routes, mounted by the
composition layer (``homefabric_cli``) so that ``bridge.http`` serves the home only."""

from benchmark.http.routes import EpisodeApi

__all__ = ["EpisodeApi"]
