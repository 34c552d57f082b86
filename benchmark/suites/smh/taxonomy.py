"""SMH-Bench's task taxonomy (7 categories, 22 subcategories), home tiers, and error classes — each fact once."""

from __future__ import annotations

CATEGORIES: dict[str, tuple[str, ...]] = {
    "TC1_atomic": ("clear_command", "colloquial_request", "noisy_utterance"),
    "TC2_compositional": (
        "explicit_multi_device",
        "batch_operation",
        "state_dependent",
        "room_dependent",
        "top_n_selection",
    ),
    "TC3_ambiguous": ("state_ambiguity", "scene_ambiguity", "slot_missing"),
    "TC4_automation": ("time_specific", "state_driven", "time_and_state"),
    "TC5_multi_turn": ("context_continuation", "topic_shift", "coreference", "user_correction"),
    "TC6_memory": ("short_term_memory", "long_term_memory"),
    "TC7_query": ("status_inquiry", "quantity_query"),
}
SUBCATEGORIES: tuple[str, ...] = tuple(s for subs in CATEGORIES.values() for s in subs)
CATEGORY_OF: dict[str, str] = {s: c for c, subs in CATEGORIES.items() for s in subs}
TIERS: tuple[str, ...] = ("simple", "medium", "complex")
DEFAULT_PER_SUBCATEGORY: dict[str, int] = {"simple": 25, "medium": 15, "complex": 10}
SETTINGS: tuple[str, ...] = ("dr", "eia")

# Error classes (SMH-Bench Table 3) with the subtypes we record; WRONG_* are plain wrong results (no class there).
ERROR_CLASSES: dict[str, str] = {
    "SO": "structured output: labels, automation conditions or response missing, or an empty output",
    "MS": "mode selection: executed when a clarification was required, or the reverse",
    "AJ": "automation judging: rule missing or not equivalent (trigger, conditions or actions)",
    "AV": "action validity (DR): a replayed action refused (missing/None/unknown argument, wrong type, range…)",
    "TV": "tool validity (EIA): a tool call refused for its arguments",
    "IE": "interaction efficiency: the tool-call budget ran out",
    "FRF": "format/runtime failure: request failed or the output is not parseable JSON",
    "WRONG_STATE": "valid output, but the final state breaks the critic or changed an irrelevant attribute",
    "WRONG_ANSWER": "the answer misses an expected fact",
}
if len(set(SUBCATEGORIES)) != 22:  # checked at import: the paper has exactly 22 template families
    raise TypeError(f"SMH taxonomy must have 22 distinct subcategories, has {len(set(SUBCATEGORIES))}")
