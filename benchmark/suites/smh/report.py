"""Instance-weighted pass rates of SMH runs: overall, by category, subcategory, tier, setting; the error
taxonomy; tokens. ``summarize(records)`` is the ``--json`` shape; ``tables(records)`` the printed ones
(category × setting as the paper's Table 2, tier × setting as its Table 19)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from benchmark.reports.report import pass_hat_k as one
from benchmark.suites.smh.taxonomy import CATEGORIES, SETTINGS, SUBCATEGORIES, TIERS


def _rate(passed: int, total: int) -> dict[str, Any]:
    return {"passed": passed, "total": total, "success_rate": round(100 * passed / total, 2) if total else None}


def _group(records: list[dict[str, Any]], key: str, order: Iterable[str]) -> dict[str, Any]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        cell = counts[record[key]]
        cell[0] += record["verdict"]["overall_pass"]
        cell[1] += 1
    return {k: _rate(*counts[k]) for k in order if k in counts}


def pass_hat_k(records: list[dict[str, Any]]) -> dict[str, float | None]:
    """tau-bench's pass^k over instances (all k of k trials pass), k = 1 … the fewest trials of an instance."""
    per_instance: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        cell = per_instance[record["instance_id"]]
        cell[0] += record["verdict"]["overall_pass"]
        cell[1] += 1
    trials = min((n for _, n in per_instance.values()), default=0)
    return {
        str(k): round(sum(one(c, n, k) or 0 for c, n in per_instance.values()) / len(per_instance), 4)
        for k in range(1, trials + 1)
    }


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    passed = sum(r["verdict"]["overall_pass"] for r in records)
    errors = Counter(r["verdict"]["error_class"] for r in records if not r["verdict"]["overall_pass"])
    subtypes = Counter(
        f"{r['verdict']['error_class']}:{r['verdict']['error_subtype']}"
        for r in records
        if not r["verdict"]["overall_pass"]
    )
    tokens = sum(r["prediction"]["tokens"].get("total_tokens", 0) for r in records)
    by_setting = {}
    for setting in SETTINGS:
        chosen = [r for r in records if r["setting"] == setting]
        if chosen:
            by_setting[setting] = {
                **_rate(sum(r["verdict"]["overall_pass"] for r in chosen), len(chosen)),
                "by_category": _group(chosen, "category", CATEGORIES),
                "by_tier": _group(chosen, "tier", TIERS),
                "pass_hat_k": pass_hat_k(chosen),
            }
    return {
        "overall": _rate(passed, len(records)),
        "by_category": _group(records, "category", CATEGORIES),
        "by_subcategory": _group(records, "subcategory", SUBCATEGORIES),
        "by_tier": _group(records, "tier", TIERS),
        "by_setting": by_setting,
        "errors": dict(sorted(errors.items())),
        "error_subtypes": dict(sorted(subtypes.items())),
        "tokens": {"total": tokens, "per_instance": round(tokens / len(records), 1) if records else 0},
    }


def _cell(summary: dict[str, Any], setting: str, group: str, key: str) -> str:
    rate = summary["by_setting"].get(setting, {}).get(group, {}).get(key, {}).get("success_rate")
    return "—" if rate is None else f"{rate:.1f}"


def tables(records: list[dict[str, Any]]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of: category × setting, tier × setting, subcategory, error taxonomy."""
    summary = summarize(records)
    settings = [s for s in SETTINGS if s in summary["by_setting"]]
    both = len(settings) == len(SETTINGS)

    def rows(group: str, keys: Iterable[str]) -> list[list[str]]:
        out = []
        for key in [*keys, "overall"]:
            cells = [
                _cell(summary, s, group, key) if key != "overall" else f"{summary['by_setting'][s]['success_rate']:.1f}"
                for s in settings
            ]
            if both:  # the paper's Δ(EIA − DR)
                cells.append("—" if "—" in cells else f"{float(cells[1]) - float(cells[0]):+.1f}")
            out.append([key, *cells])
        return out

    header = [s.upper() for s in settings] + (["Δ EIA−DR"] if both else [])
    out = [
        ("Success rate by category (Table 2 shape)", ["category", *header], rows("by_category", CATEGORIES)),
        ("Success rate by home tier (Table 19 shape)", ["tier", *header], rows("by_tier", TIERS)),
    ]
    out.append(
        (
            "By subcategory",
            ["subcategory", "passed", "total", "rate"],
            [
                [k, str(v["passed"]), str(v["total"]), f"{v['success_rate']:.1f}"]
                for k, v in summary["by_subcategory"].items()
            ],
        )
    )
    out.append(
        (
            "Error taxonomy (failures)",
            ["class:subtype", "count"],
            [[k, str(v)] for k, v in summary["error_subtypes"].items()],
        )
    )
    if any(len(summary["by_setting"][s]["pass_hat_k"]) > 1 for s in settings):  # trials > 1
        out.append(
            (
                "pass^k (all k trials pass)",
                ["setting", "k", "pass^k"],
                [
                    [s.upper(), k, f"{100 * v:.1f}"]
                    for s in settings
                    for k, v in summary["by_setting"][s]["pass_hat_k"].items()
                ],
            )
        )
    out.append(
        (
            "Tokens",
            ["total", "per instance"],
            [[str(summary["tokens"]["total"]), str(summary["tokens"]["per_instance"])]],
        )
    )
    return out
