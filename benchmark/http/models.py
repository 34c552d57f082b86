"""Pydantic models of the episode and run requests and responses (strict bodies: unknown fields refused)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from bridge.http.models import ID_PATTERN


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LoadEpisodesBody(_Body):
    path: StrictStr = Field(
        min_length=1,
        max_length=1024,
        description="a directory (or one file) of episode JSON "
        "under the server's --episodes-root (relative to it, or absolute inside it)",
    )


class EpisodeSummary(BaseModel):
    episode_id: str
    kind: str
    query: str
    user_location: str
    source: str | None


class EpisodeLibraryOut(BaseModel):
    root: str | None = Field(description="the --episodes-root directory episodes may be loaded from (null: off)")
    episodes: int = Field(description="how many episodes the API holds")


class LoadEpisodesOut(BaseModel):
    loaded: list[str]
    problems: list[dict[str, str]]


class RunAgentBody(_Body):
    name: Literal["oracle", "null", "replay", "react"]
    base_url: StrictStr | None = Field(
        default=None,
        max_length=2048,
        description="react: OpenAI-compatible base URL (…/v1), one the operator allowed with --allow-model-endpoint",
    )
    model: StrictStr | None = Field(default=None, max_length=200, description="react: the model name")
    api_key_env: StrictStr | None = Field(
        default=None,
        max_length=200,
        description="react: environment variable holding the key, one the operator allowed with --model-key-env",
    )
    max_steps: int = Field(default=20, ge=1, le=200)
    replay_from: StrictStr | None = Field(
        default=None, max_length=1024, description="replay: a run directory or records.jsonl under the runs dir"
    )


class StartRunBody(_Body):
    episode_ids: list[Annotated[StrictStr, Field(pattern=ID_PATTERN)]] = Field(min_length=1, max_length=1000)
    agent: RunAgentBody
    trials: int = Field(default=1, ge=1, le=20)
    concurrency: int = Field(default=1, ge=1, le=32)
    episode_timeout_s: float | None = Field(default=None, gt=0, le=3600)


class RunOut(BaseModel):
    run_id: str
    live: bool = Field(description="started by this server (its events can be streamed)")
    status: Literal["running", "finished", "failed", "stored"]
    records: int
    statuses: dict[str, int]
    error: str | None = None
    events: int = Field(default=0, description="events so far (live runs)")
