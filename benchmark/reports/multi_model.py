"""Several models in one run: a spec with ``agent.models`` runs the same episodes once per model, each in an
ordinary run directory ``OUT/<label>/`` (so resume, evaluate and every per-run check work unchanged), with
``OUT/models.json`` naming them. ``bench report OUT`` prints one section per model after a side-by-side table;
``bench compare OUT …`` takes each model's run as a run of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmark.reports.compare import compare_runs, render_comparison
from benchmark.reports.report import write_report
from emulator.files import write_atomically

MODELS_FILE = "models.json"
MODELS_SCHEMA = "homefabric-multi-model-run/1"


def is_multi_model(run_dir: Path) -> bool:
    return (run_dir / MODELS_FILE).is_file()


def write_models_file(out: Path, spec: Any, labels: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    body = {
        "schema": MODELS_SCHEMA,
        "spec": spec.model_dump(mode="json", by_alias=True),
        "spec_sha256": spec.sha256(),
        "models": [{"label": label, "run_dir": label} for label in labels],
    }
    write_atomically(out / MODELS_FILE, json.dumps(body, indent=2, ensure_ascii=False) + "\n")


def read_models_file(run_dir: Path) -> dict[str, Any]:
    """The multi-model index; a ValueError naming the file when it cannot be used."""
    path = run_dir / MODELS_FILE
    try:
        body: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: cannot read the multi-model index ({error})") from None
    models = body.get("models") if isinstance(body, dict) else None
    if (
        body.get("schema") != MODELS_SCHEMA
        or not isinstance(models, list)
        or not all(
            isinstance(m, dict) and isinstance(m.get("run_dir"), str) and "/" not in m["run_dir"] for m in models
        )
    ):
        raise ValueError(f"{path}: not a {MODELS_SCHEMA} index")
    return body


def model_run_dirs(run_dir: Path) -> list[Path]:
    return [run_dir / m["run_dir"] for m in read_models_file(run_dir)["models"]]


def expand_run_dirs(run_dirs: list[Path]) -> list[Path]:
    """Run directories with each multi-model run replaced by its per-model runs, in order."""
    expanded: list[Path] = []
    for run_dir in run_dirs:
        expanded.extend(model_run_dirs(run_dir) if is_multi_model(run_dir) else [run_dir])
    return expanded


def write_multi_report(run_dir: Path, *, plots: bool = True, force: bool = False) -> tuple[dict[str, Any], str]:
    """Each model's report in its own directory, and in ``OUT/report.json`` / ``report.txt``: the models side by
    side, then one section per model."""
    index = read_models_file(run_dir)
    sections, reports = [], []
    for entry in index["models"]:
        report, text = write_report(run_dir / entry["run_dir"], plots=plots, force=force)
        reports.append(
            {"label": entry["label"], "run_dir": entry["run_dir"], "model": report.get("model"), "report": report}
        )
        sections.append(f"=== model {entry['label']} ({report.get('model')}) ===\n{text}")
    comparison = compare_runs([run_dir / entry["run_dir"] for entry in index["models"]])
    combined = {
        "schema": "homefabric-multi-model-report/1",
        "run_dir": str(run_dir),
        "spec_sha256": index.get("spec_sha256"),
        "comparison": comparison,
        "models": reports,
    }
    text = render_comparison(comparison) + "\n" + "\n".join(sections)
    write_atomically(run_dir / "report.json", json.dumps(combined, indent=2, ensure_ascii=False) + "\n")
    write_atomically(run_dir / "report.txt", text)
    return combined, text
