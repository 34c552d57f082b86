"""What marks an SMH-Bench run — its run directory's marker file, a spec file saying ``suite: smh`` — read without
loading the suite: ``bench run`` and ``bench report`` ask first, and a run of the main suite never needs the rest."""

from __future__ import annotations

from pathlib import Path

RUN_MARKER = "smh-run.json"


def is_smh_run(run_dir: Path) -> bool:
    return (run_dir / RUN_MARKER).is_file()


def wants_smh(spec_file: Path | None, resume_out: Path | None) -> bool:
    """A spec file that says ``suite: smh``, or ``--resume --out DIR`` of an SMH run."""
    if resume_out is not None and is_smh_run(resume_out):
        return True
    if spec_file is None or not spec_file.is_file():
        return False
    import yaml  # only a spec file is YAML: a run from flags does not load it

    try:
        data = yaml.safe_load(spec_file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return False  # the ordinary spec loader names the problem
    return isinstance(data, dict) and data.get("suite") == "smh"
