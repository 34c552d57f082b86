"""Optional LLM paraphrase of template queries, kept only when it still names the same targets.

The check is deterministic and strict: every room, device reference (same number, any of the type's
labels), number, clock time and program word of the template query must appear in the paraphrase, and the
paraphrase must be one line of reasonable length. Otherwise the template query stays and the reason is
recorded in the episode's ``homefabric.paraphrase`` block.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.generation.grammar import DEVICE_LABELS
from benchmark.llm.client import LLMClient, LLMError

SYSTEM_PROMPT = (
    "You rewrite requests that a person says to a smart-home assistant. Reword the user's sentence so it "
    "sounds natural and spoken, keeping its meaning exactly. Keep every room name, every device name with "
    "its number (for example 'fan 2'), every number and every clock time exactly as written. Do not add "
    "requests, devices, reasons or times. Answer with the rewritten sentence only, on one line."
)
MAX_LENGTH_FACTOR = 3.0


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip()


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"-?\d+(?:\.\d+)?", text))


def _device_forms(reference: str) -> list[str]:
    """'dimmer 2' → every label of that device type with number 2."""
    label, _, number = reference.rpartition(" ")
    for labels in DEVICE_LABELS.values():
        if label.lower() in (item.lower() for item in labels):
            return [f"{item} {number}".lower() for item in labels]
    return [reference.lower()]


def check_paraphrase(template: str, paraphrase: str, mentions: Mapping[str, Sequence[str]]) -> tuple[bool, str]:
    """(ok, reason): does ``paraphrase`` still name everything ``mentions`` lists?"""
    text = _norm(paraphrase)
    if not text:
        return False, "empty paraphrase"
    if "\n" in paraphrase.strip():
        return False, "more than one line"
    if len(text) > MAX_LENGTH_FACTOR * max(len(template), 20):
        return False, "paraphrase far longer than the query"
    for room in mentions.get("rooms", ()):
        if _norm(room) not in text:
            return False, f"room {room!r} missing"
    for device in mentions.get("devices", ()):
        forms = _device_forms(device)
        if not any(re.search(rf"\b{re.escape(form)}\b", text) for form in forms):
            return False, f"device {device!r} missing"
    found = _numbers(text)
    for value in mentions.get("numbers", ()):
        if value not in found and value.lstrip("-") not in found:
            return False, f"number {value} missing"
    for clock in mentions.get("times", ()):
        if _norm(clock) not in text and _norm(clock).replace(" ", "") not in text.replace(" ", ""):
            return False, f"time {clock!r} missing"
    for word in mentions.get("words", ()):
        if _norm(word) not in text:
            return False, f"{word!r} missing"
    extra = _numbers(text) - _numbers(template) - {n.lstrip("-") for n in _numbers(template)}
    if extra:
        return False, f"new numbers {sorted(extra)}"
    return True, "names every target"


def paraphrase_messages(query: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": query}]


async def paraphrase_episodes(
    episodes: list[dict[str, Any]], *, base_url: str, model: str, api_key: str | None, client: Any = None
) -> dict[str, int]:
    """Paraphrase each episode's query in place (accepted only if the check passes); counts by outcome:
    ``accepted``, ``rejected`` (kept as templates) and, among the rejected, ``failed`` (the request itself
    failed; the error is in the episode's ``homefabric.paraphrase.error``)."""
    own = client is None
    client = client or LLMClient(base_url, api_key, model, temperature=0.7)
    stats = {"accepted": 0, "rejected": 0, "failed": 0}
    try:
        for episode in episodes:
            block = episode.setdefault("homefabric", {})
            template = block.get("template_query", episode["query"])
            seed = episode.get("meta", {}).get("seed")
            record: dict[str, Any] = {"model": model, "seed": seed}
            try:
                response = await client.complete(paraphrase_messages(template))
                candidate = (response.content or "").strip()
            except LLMError as error:
                candidate, record["error"] = "", str(error)
                stats["failed"] += 1
            ok, reason = check_paraphrase(template, candidate, block.get("mentions", {}))
            record.update(status="accepted" if ok else "rejected", reason=reason, candidate=candidate)
            if ok:
                episode["query"] = candidate
            stats[record["status"]] += 1
            block["paraphrase"] = record
    finally:
        if own:
            await client.aclose()
    return stats
