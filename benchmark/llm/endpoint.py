"""How a run spec names an OpenAI-compatible model endpoint (:class:`LLMEndpointSpec`).

Apart from :mod:`benchmark.llm.client` so that reading a run spec does not load the client (an oracle run
never calls a model).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


def check_base_url(value: str) -> str:
    """An OpenAI-compatible base URL (``http(s)://host[:port]/…``), or a one-line ValueError saying why not."""
    import httpx

    text = str(value).strip()
    try:
        url = httpx.URL(text)
    except (httpx.InvalidURL, TypeError) as exc:
        raise ValueError(f"base URL {text!r} is not a URL ({exc}); expected e.g. http://127.0.0.1:8000/v1") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"base URL {text!r} is not an http(s) URL with a host; expected e.g. http://127.0.0.1:8000/v1")
    if text.rstrip("/").endswith("/chat/completions"):
        raise ValueError(f"base URL {text!r} should stop before /chat/completions (e.g. http://127.0.0.1:8000/v1)")
    return text.rstrip("/")


class LLMEndpointSpec(BaseModel):
    """How a run spec names a model endpoint. The key itself never goes into a spec file, only the
    name of the environment variable holding it (local servers usually need none)."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(description="e.g. http://127.0.0.1:8000/v1 (the part before /chat/completions)")
    model: str
    api_key_env: str | None = Field(default=None, description="environment variable holding the API key")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    seed: int | None = None
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=5, ge=0, le=20)
    max_tokens: int | None = Field(default=None, gt=0)
    headers: dict[str, str] = Field(default_factory=dict, description="extra HTTP headers (e.g. OpenRouter's)")
    extra_body: dict[str, Any] = Field(default_factory=dict, description="extra request fields, sent as given")

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        return check_base_url(value)
