"""The episodes the API holds, by id: loaded from episode files under the operator's episodes root (parsed in a
worker thread, every problem named) or uploaded one by one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from benchmark.http.confined_files import MAX_EPISODE_BYTES, Root, read_json, regular_files
from benchmark.suites.simuhome.episode import Episode, EpisodeError, EpisodeProblem, parse_episode
from bridge.http.errors import ApiError

MAX_EPISODES = 5000


def episode_summary(episode: Episode) -> dict[str, Any]:
    return {
        "episode_id": episode.episode_id,
        "kind": episode.kind,
        "query": episode.query,
        "user_location": episode.user_location,
        "source": episode.source,
    }


class EpisodeLibrary:
    """Episodes the API knows, by id (loaded from directories under the episodes root, or uploaded one by one)."""

    def __init__(self, root: Path | None = None) -> None:
        self.episodes: dict[str, Episode] = {}
        self.root = Root(root, "--episodes-root", "episode files")

    async def load(self, path: str) -> tuple[list[str], list[dict[str, str]]]:
        """Every episode file of ``path`` (under the root), read in a worker thread; the loop keeps serving."""
        episodes, problems = await asyncio.to_thread(self.read, path)
        self._room_for(len(episodes))
        for episode in episodes:
            self.episodes[episode.episode_id] = episode
        return [e.episode_id for e in episodes], [p.to_dict() for p in problems]

    def read(self, path: str) -> tuple[list[Episode], list[EpisodeProblem]]:
        """Parse the episode files of ``path`` (no shared state touched: safe in a worker thread)."""
        target = self.root.confine(path)
        episodes: list[Episode] = []
        problems: list[EpisodeProblem] = []
        seen: dict[str, str] = {}
        for file in regular_files(self.root, target, suffix=".json"):
            shown = self.root.relative(file)
            try:
                episode = parse_episode(read_json(file, MAX_EPISODE_BYTES), shown, episode_id=file.stem)
            except (OSError, ValueError) as error:  # JSON and UTF-8 errors are ValueErrors
                problems.append(EpisodeProblem(shown, "", f"cannot read the episode: {str(error)[:200]}"))
                continue
            except EpisodeError as error:
                problems.extend(error.problems)
                continue
            if episode.episode_id in seen:
                problems.append(
                    EpisodeProblem(
                        shown,
                        "",
                        f"duplicate episode id {episode.episode_id!r} (also {seen[episode.episode_id]}); skipped",
                    )
                )
                continue
            seen[episode.episode_id] = shown
            episodes.append(episode)
        return episodes, problems

    def add(self, data: Any, episode_id: str | None = None) -> Episode:
        try:
            episode = parse_episode(data, "<upload>", episode_id=episode_id)
        except EpisodeError as error:
            raise ApiError("INVALID_EPISODE", str(error), allowed=[p.to_dict() for p in error.problems]) from None
        self._room_for(1)
        self.episodes[episode.episode_id] = episode
        return episode

    def _room_for(self, count: int) -> None:
        if len(self.episodes) + count > MAX_EPISODES:
            raise ApiError("TOO_MANY_EPISODES", f"the API holds at most {MAX_EPISODES} episodes")

    def get(self, episode_id: str) -> Episode:
        episode = self.episodes.get(episode_id)
        if episode is None:
            raise ApiError("EPISODE_NOT_FOUND", f"no episode {episode_id!r}", allowed=sorted(self.episodes)[:50])
        return episode
