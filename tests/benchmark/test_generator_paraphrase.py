"""The paraphrase check keeps a rewording only if it still names every target (no network)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from benchmark.generation.generate import generate_episode
from benchmark.generation.grammar import expand, finish
from benchmark.generation.paraphrase import check_paraphrase, paraphrase_episodes

TEMPLATE = (
    "In 12 minutes turn on dimmer 2 in the living room at level 120, and start washer 1 on Quick Normal at 3:07 PM"
)
MENTIONS = {
    "rooms": ["living room"],
    "devices": ["dimmer 2", "washer 1"],
    "numbers": ["12", "120"],
    "times": ["3:07 PM"],
    "words": ["Quick Normal"],
}


def test_accepts_a_faithful_rewording_with_another_label_for_the_same_device():
    ok, reason = check_paraphrase(
        TEMPLATE,
        "At 3:07 pm kick off washer 1 on quick normal, and 12 minutes from "
        "now put the dimmable light 2 in the living room on at level 120",
        MENTIONS,
    )
    assert ok, reason


def test_rejects_a_missing_room_device_number_time_or_word():
    cases = {
        "room": "In 12 minutes turn on dimmer 2 at level 120 and start washer 1 on Quick Normal at 3:07 PM",
        "device": "In 12 minutes turn on dimmer 3 in the living room at level 120, start washer 1 on Quick Normal "
        "at 3:07 PM",
        "number": "Soon turn on dimmer 2 in the living room at level 120, start washer 1 on Quick Normal at 3:07 PM",
        "time": "In 12 minutes turn on dimmer 2 in the living room at level 120, start washer 1 on Quick Normal later",
        "Quick Normal": "In 12 minutes turn on dimmer 2 in the living room at level 120, start washer 1 at 3:07 PM",
    }
    for what, text in cases.items():
        ok, reason = check_paraphrase(TEMPLATE, text, MENTIONS)
        assert not ok and what in reason, (what, reason)


def test_rejects_empty_multiline_and_invented_numbers():
    assert not check_paraphrase(TEMPLATE, "", MENTIONS)[0]
    assert not check_paraphrase(TEMPLATE, TEMPLATE + "\nSure!", MENTIONS)[0]
    ok, reason = check_paraphrase(TEMPLATE, TEMPLATE + " and set it to 40", MENTIONS)
    assert not ok and "new numbers" in reason


def test_template_queries_pass_their_own_check():
    for qt in ("qt1", "qt2", "qt3", "qt4-1", "qt4-2", "qt4-3"):
        for case in ("feasible", "infeasible"):
            episode = generate_episode(qt, case, 77001, base_seed=77)
            ok, reason = check_paraphrase(episode["query"], episode["query"], episode["homefabric"]["mentions"])
            assert ok, (qt, case, episode["query"], reason)


class ScriptedClient:
    """Answers with queued texts, like an OpenAI-compatible model would."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.seen: list[Any] = []

    async def complete(self, messages: list[dict[str, str]], **_: Any) -> Any:
        self.seen.append(messages)
        return SimpleNamespace(content=self.replies.pop(0))


def test_paraphrase_step_keeps_only_checked_rewordings():
    good = generate_episode("qt3", "feasible", 78001, base_seed=78)
    bad = generate_episode("qt3", "feasible", 78002, base_seed=78)
    original_bad = bad["query"]
    client = ScriptedClient([good["query"].upper() + "!", "do the thing please"])
    stats = asyncio.run(
        paraphrase_episodes([good, bad], base_url="http://unused", model="m", api_key=None, client=client)
    )
    assert stats == {"accepted": 1, "rejected": 1, "failed": 0}
    assert good["homefabric"]["paraphrase"]["status"] == "accepted"
    assert bad["query"] == original_bad
    assert bad["homefabric"]["paraphrase"]["status"] == "rejected"
    assert "missing" in bad["homefabric"]["paraphrase"]["reason"]
    assert client.seen[0][1]["content"] == good["homefabric"]["template_query"]


def test_noise_never_alters_slot_values():
    import random

    for seed in range(200):
        rng = random.Random(seed)
        text = finish(
            expand(
                "(please|kindly) switch on {dev} in the {room} at {n} percent",
                rng,
                {"dev": "dehumidifier 2", "room": "utility room", "n": 60},
            ),
            rng,
            noise=3,
            typo_rate=0.5,
        )
        assert "dehumidifier 2" in text.lower() and "utility room" in text.lower() and "60" in text
