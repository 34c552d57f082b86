"""Size limits on what a model sends and what a tool sends back, checked before anything is decoded or copied.

A model's output is untrusted text: a JSON argument nested 1,000 deep would exhaust the recursion limit of
``json.loads`` and ``copy.deepcopy``, a 100,000-element list would make a refusal detail of megabytes. Each
limit is checked with an iterative scan (no recursion), and a refusal names the limit it hit.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tools.json_text import nesting_exceeds

MAX_ARGUMENT_CHARS = 64 * 1024  # JSON text of one call's arguments
MAX_ARGUMENT_DEPTH = 32  # nesting of objects and arrays
MAX_ARGUMENT_NODES = 10_000  # values in one call's arguments (every dict, list and scalar)
MAX_DETAIL_CHARS = 2_000  # one refusal's detail text
MAX_DETAIL_PROBLEMS = 10  # argument problems listed one by one in a refusal
MAX_OBSERVATION_CHARS = 256 * 1024  # one successful observation's JSON text


class LimitExceeded(ValueError):
    """An argument over a limit; the message names the limit and the value found."""


def check_text(text: str) -> None:
    """Length and nesting of JSON text, without parsing it (brackets inside strings are not counted)."""
    if len(text) > MAX_ARGUMENT_CHARS:
        raise LimitExceeded(f"arguments are {len(text)} characters long; the limit is {MAX_ARGUMENT_CHARS}")
    if nesting_exceeds(text, MAX_ARGUMENT_DEPTH):
        raise LimitExceeded(
            f"arguments are nested more than {MAX_ARGUMENT_DEPTH} levels deep (the limit is {MAX_ARGUMENT_DEPTH})"
        )


def check_value(value: object) -> None:
    """Nesting depth and value count of already-decoded arguments (an iterative walk, cycles included)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    nodes = 0
    seen: set[int] = set()
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if nodes > MAX_ARGUMENT_NODES:
            raise LimitExceeded(
                f"arguments hold more than {MAX_ARGUMENT_NODES} values (the limit is {MAX_ARGUMENT_NODES})"
            )
        if isinstance(item, dict | list | tuple):
            if depth > MAX_ARGUMENT_DEPTH:
                raise LimitExceeded(
                    f"arguments are nested more than {MAX_ARGUMENT_DEPTH} levels deep "
                    f"(the limit is {MAX_ARGUMENT_DEPTH})"
                )
            if id(item) in seen:
                raise LimitExceeded("arguments refer to themselves (a cycle); send plain JSON data")
            seen.add(id(item))
            children = list(item.keys()) + list(item.values()) if isinstance(item, dict) else list(item)
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, str) and len(item) > MAX_ARGUMENT_CHARS:
            raise LimitExceeded(f"an argument string is {len(item)} characters long; the limit is {MAX_ARGUMENT_CHARS}")


def cap_text(text: str, limit: int = MAX_DETAIL_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f" … ({len(text) - limit} more characters left out)"


def cap_list(items: list[str], limit: int = MAX_DETAIL_PROBLEMS) -> list[str]:
    """The first ``limit`` items, and one more saying how many were left out."""
    if len(items) <= limit:
        return items
    return [*items[:limit], f"… and {len(items) - limit} more left out"]


def json_size(data: object) -> int:
    return len(json.dumps(data, ensure_ascii=False, default=str))


def cap_observation(data: object, limit: int | None = None) -> tuple[Any, int]:
    """``data`` cut to fit ``limit`` characters of JSON: a list keeps its first items, a dict its first keys.

    Returns the (possibly shortened) data and how many items or keys were left out (0: nothing was).
    Scalars and data that fit are returned as they are.
    """
    limit = MAX_OBSERVATION_CHARS if limit is None else limit
    if json_size(data) <= limit:
        return data, 0
    if isinstance(data, list):
        kept: list[Any] = []
        used = 2
        for item in data:
            size = json_size(item) + 2
            if used + size > limit:
                break
            kept.append(item)
            used += size
        return kept, len(data) - len(kept)
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        used = 2
        for key, value in data.items():
            size = json_size({key: value})
            if used + size > limit:
                break
            out[key] = value
            used += size
        return out, len(data) - len(out)
    if isinstance(data, str):
        return cap_text(data, limit), 1
    return data, 0
