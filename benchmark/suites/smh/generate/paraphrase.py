"""Optional LLM paraphrase of SMH user queries, kept only when it still names the same targets.

The SimuHome generator's check is reused: every device name, room name and number of the template query
must appear in the paraphrase (no new numbers, one line, reasonable length); otherwise the template stays.
Each instance records the outcome in ``paraphrase`` (status, reason, candidate) and keeps ``template_query``.
"""

from __future__ import annotations

import re
from typing import Any

from benchmark.generation.paraphrase import check_paraphrase, paraphrase_messages
from benchmark.llm.client import LLMError
from benchmark.suites.smh.instance import Instance
from emulator.home_config import HomeConfig


def mentions(query: str, home: HomeConfig) -> dict[str, list[str]]:
    text = query.lower()
    devices = sorted({d.name for d in home.devices if d.name and d.name.lower() in text}, key=len, reverse=True)
    rooms = [r.name for r in home.rooms if r.name.lower() in text]
    return {"words": devices, "rooms": rooms, "numbers": re.findall(r"-?\d+(?:\.\d+)?", query)}


async def paraphrase_instances(
    instances: list[Instance], homes: dict[str, HomeConfig], client: Any, model: str
) -> dict[str, int]:
    """Rewrite each query in place when the check passes; counts by outcome."""
    stats = {"accepted": 0, "rejected": 0}
    for instance in instances:
        home = homes[instance.home.removeprefix("homes/").removesuffix(".json")]
        template = instance.user_query
        record: dict[str, Any] = {"model": model}
        try:
            response = await client.complete(paraphrase_messages(template))
            candidate = (response.content or "").strip()
        except LLMError as error:
            candidate, record["error"] = "", str(error)
        ok, reason = check_paraphrase(template, candidate, mentions(template, home))
        record.update(status="accepted" if ok else "rejected", reason=reason, candidate=candidate)
        stats[record["status"]] += 1
        instance.template_query = template
        instance.paraphrase = record
        if ok:
            instance.user_query = candidate
    return stats
