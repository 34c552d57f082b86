"""``episodes generate --paraphrase`` as a whole: the endpoint is checked once before any episode, and a
failed paraphrase request fails the command (nothing written) unless ``--allow-template-fallback`` says
template queries are an acceptable stand-in. Rejections by the check are normal and never fail it."""

from __future__ import annotations

from typing import Any

from benchmark.generation.paraphrase import paraphrase_episodes
from benchmark.llm.client import LLMClient
from benchmark.llm.preflight import PreflightError, check_endpoint


class ParaphraseFailed(Exception):
    """One line for the user; ``exit_code`` 2 for a bad argument, 1 for an endpoint that failed."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


async def paraphrase_or_fail(
    episodes: list[dict[str, Any]],
    *,
    base_url: str,
    model: str,
    api_key: str | None,
    allow_template_fallback: bool,
    client: Any = None,
) -> str:
    """Paraphrase in place; the summary line, or :class:`ParaphraseFailed`."""
    fallback = " (rerun with --allow-template-fallback to keep template queries instead)"
    if client is None:
        try:
            client = LLMClient(base_url, api_key, model, temperature=0.7)
        except ValueError as error:
            raise ParaphraseFailed(f"--base-url: {error}", 2) from None
    try:
        await check_endpoint(client, role="paraphrase")
    except PreflightError as error:
        if not allow_template_fallback:
            raise ParaphraseFailed(f"{error}{fallback}", 1) from None
        return f"paraphrasing skipped: {error}; all {len(episodes)} queries kept as templates"
    finally:
        await client.aclose()
    stats = await paraphrase_episodes(episodes, base_url=base_url, model=model, api_key=api_key, client=client)
    line = (
        f"paraphrased: {stats['accepted']} accepted, {stats['rejected']} kept as templates "
        f"({stats['failed']} of them because the request failed)"
    )
    if stats["failed"] and not allow_template_fallback:
        first = next(
            e["homefabric"]["paraphrase"]["error"]
            for e in episodes
            if "error" in e.get("homefabric", {}).get("paraphrase", {})
        )
        raise ParaphraseFailed(
            f"{stats['failed']} of {len(episodes)} paraphrase requests failed (first: "
            f"{' '.join(first.split())}); nothing written{fallback}",
            1,
        )
    return line
