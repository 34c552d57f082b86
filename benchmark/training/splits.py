"""The split rule: no home, template or voice is seen in more than one split.

Every example carries leak keys: its home (the sha256 of its canonical initial home config), its template (the
ordered list of grammar templates its query was expanded from, before slot values, ``(a|b)`` alternatives and
noise are filled in) and, for spoken examples, each voice. Examples that share any key are one group (the
connected components of "shares a key"); each group goes whole to one split, chosen by hashing the group's
smallest key with the dataset seed against the spec's shares. So the assignment depends only on the examples
(never on the order units finished in), and a group can never straddle two splits.

The template pools of the generator are small (2–5 templates per phrase), so keeping each single phrase in one
split would empty validation and test; the template is therefore the whole sequence a query was built from.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from benchmark.training.spec import SPLITS


class SplitLeak(ValueError):
    """A home, template or voice found in more than one split."""


@dataclass(frozen=True)
class LeakKeys:
    example_id: str
    keys: tuple[str, ...]  # "home:<sha>", "template:<sha>", "voice:<id>"


class _Groups:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, key: str) -> str:
        self.parent.setdefault(key, key)
        root = key
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[key] != root:
            self.parent[key], key = root, self.parent[key]
        return root

    def union(self, a: str, b: str) -> None:
        first, second = sorted((self.find(a), self.find(b)))
        self.parent[second] = first  # the smallest key stays the root


def _share_point(seed: int, key: str) -> float:
    digest = hashlib.sha256(f"homefabric-split/1:{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def assign_splits(
    examples: Sequence[LeakKeys], shares: Mapping[str, float], seed: int, pinned: Mapping[str, str] | None = None
) -> dict[str, str]:
    """example id → split, by the rule above. ``pinned``: keys whose split is fixed (the voices of a spoken set):
    a group holding one takes its split; a group holding two of different splits is a :class:`SplitLeak`."""
    groups = _Groups()
    for example in examples:
        for key in example.keys:
            groups.union(example.keys[0], key)
    fixed: dict[str, tuple[str, str]] = {}
    for key, split in (pinned or {}).items():
        if key not in groups.parent:
            continue
        root = groups.find(key)
        if root in fixed and fixed[root][1] != split:
            raise SplitLeak(f"{key} belongs to {split} but shares a group with {fixed[root][0]} of {fixed[root][1]}")
        fixed[root] = (key, split)
    result: dict[str, str] = {}
    for example in examples:
        root = groups.find(example.keys[0])
        if root in fixed:
            result[example.example_id] = fixed[root][1]
            continue
        point = _share_point(seed, root)
        cumulative = 0.0
        chosen = SPLITS[-1]
        for split in SPLITS:
            cumulative += shares[split]
            if point < cumulative:
                chosen = split
                break
        result[example.example_id] = chosen
    return result


def check_no_leakage(examples: Iterable[LeakKeys], split_of: Mapping[str, str]) -> None:
    """Raise :class:`SplitLeak` naming the first key seen in two splits (and the examples holding it)."""
    seen: dict[str, tuple[str, str]] = {}
    for example in examples:
        split = split_of[example.example_id]
        for key in example.keys:
            if key in seen and seen[key][0] != split:
                other_split, other_id = seen[key]
                raise SplitLeak(
                    f"{key} is in {other_split} ({other_id}) and in {split} ({example.example_id}); "
                    f"a home, template or voice belongs to one split only"
                )
            seen.setdefault(key, (split, example.example_id))
