"""`homefabric dataset build`: leak-free splits, the files load with `datasets`, the chat JSONL is OpenAI's
fine-tuning format with valid tool calls, a killed build resumes to the same bytes, bad input is refused."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from benchmark.execution.executors import LocalExecutor
from benchmark.training.dataset_build import build_dataset
from benchmark.training.spec import DatasetSpec
from benchmark.training.splits import LeakKeys, SplitLeak, assign_splits, check_no_leakage

pytestmark = pytest.mark.requires("datasets")

SPEC = DatasetSpec(
    kinds="qt1,qt3", per_type=3, seed=7, unit_size=2, splits={"train": 0.5, "validation": 0.25, "test": 0.25}
)


def tree_bytes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dataset") / "out"
    build_dataset(SPEC, out, LocalExecutor())
    return out


def test_splits_keep_every_home_and_template_in_one_split(built: Path) -> None:
    import datasets

    splits = datasets.load_from_disk(str(built / "hf"))
    assert sum(len(splits[s]) for s in ("train", "validation", "test")) == 12
    owner: dict[str, str] = {}
    for split in ("train", "validation", "test"):
        for row in splits[split]:
            assert row["split"] == split
            for key in (f"home:{row['home_sha256']}", f"template:{row['template_sha256']}"):
                assert owner.setdefault(key, split) == split, key
    assert all(row["oracle_passed"] for s in splits.values() for row in s)


def test_a_leak_is_refused_and_shared_keys_are_grouped() -> None:
    examples = [
        LeakKeys("a", ("home:1", "template:x")),
        LeakKeys("b", ("home:2", "template:x")),
        LeakKeys("c", ("home:3", "template:y")),
        LeakKeys("d", ("home:3", "template:z")),
    ]
    split_of = assign_splits(examples, {"train": 0.34, "validation": 0.33, "test": 0.33}, seed=5)
    assert split_of["a"] == split_of["b"] and split_of["c"] == split_of["d"]
    check_no_leakage(examples, split_of)
    other = next(s for s in ("train", "validation", "test") if s != split_of["a"])
    with pytest.raises(SplitLeak, match=r"template:x is in .* and in"):
        check_no_leakage(examples, {**split_of, "b": other})


def test_parquet_and_disk_forms_load_with_datasets(built: Path) -> None:
    import datasets

    files = {s: str(built / "parquet" / f"{s}.parquet") for s in ("train", "validation", "test")}
    from_parquet = datasets.load_dataset("parquet", data_files=files)
    from_disk = datasets.load_from_disk(str(built / "hf"))
    for split in files:
        assert from_parquet[split].to_list() == from_disk[split].to_list()
    row = from_disk["train"][0]
    assert json.loads(row["home"])["rooms"] and row["turns"][0]["role"] == "user"
    assert row["gold_tool_calls"][-1]["tool"] == "finish"
    assert row["provenance"]["spec_sha256"] == SPEC.sha256()
    card = (built / "README.md").read_text()
    assert "## Splits" in card and "parquet/train.parquet" in card and SPEC.sha256() in card


# OpenAI's chat fine-tuning line (messages with tool calls and tool results, tools as function schemas).
CHAT_LINE = {
    "type": "object",
    "required": ["messages", "tools"],
    "additionalProperties": False,
    "properties": {
        "tools": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["type", "function"],
                "properties": {
                    "type": {"const": "function"},
                    "function": {
                        "type": "object",
                        "required": ["name", "parameters"],
                        "properties": {
                            "name": {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"},
                            "description": {"type": "string"},
                            "parameters": {"type": "object"},
                        },
                    },
                },
            },
        },
        "messages": {
            "type": "array",
            "minItems": 3,
            "items": {
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["role", "content"],
                        "additionalProperties": False,
                        "properties": {"role": {"enum": ["system", "user"]}, "content": {"type": "string"}},
                    },
                    {
                        "type": "object",
                        "required": ["role", "tool_calls"],
                        "additionalProperties": False,
                        "properties": {
                            "role": {"const": "assistant"},
                            "content": {"type": ["string", "null"]},
                            "tool_calls": {
                                "type": "array",
                                "minItems": 1,
                                "items": {
                                    "type": "object",
                                    "required": ["id", "type", "function"],
                                    "additionalProperties": False,
                                    "properties": {
                                        "id": {"type": "string"},
                                        "type": {"const": "function"},
                                        "function": {
                                            "type": "object",
                                            "required": ["name", "arguments"],
                                            "additionalProperties": False,
                                            "properties": {"name": {"type": "string"}, "arguments": {"type": "string"}},
                                        },
                                    },
                                },
                            },
                        },
                    },
                    {
                        "type": "object",
                        "required": ["role", "content"],
                        "additionalProperties": False,
                        "properties": {"role": {"const": "assistant"}, "content": {"type": "string"}},
                    },
                    {
                        "type": "object",
                        "required": ["role", "tool_call_id", "content"],
                        "additionalProperties": False,
                        "properties": {
                            "role": {"const": "tool"},
                            "tool_call_id": {"type": "string"},
                            "content": {"type": "string"},
                        },
                    },
                ]
            },
        },
    },
}


def chat_lines(root: Path) -> list[dict[str, Any]]:
    """Every line of the chat JSONL, checked against the fine-tuning format, each call against its tool's schema,
    each result against its call."""
    lines = [
        json.loads(line)
        for s in ("train", "validation", "test")
        if (root / "chat" / f"{s}.jsonl").exists()
        for line in (root / "chat" / f"{s}.jsonl").read_text().splitlines()
    ]
    for line in lines:
        jsonschema.validate(line, CHAT_LINE)
        messages, tools = line["messages"], {t["function"]["name"]: t["function"] for t in line["tools"]}
        assert [m["role"] for m in messages[:2]] == ["system", "user"] and messages[-1]["role"] == "assistant"
        pending: list[str] = []
        for message in messages[2:]:
            if message["role"] == "assistant":
                assert not pending, "a tool call without its result"
                for call in message.get("tool_calls", []):
                    function = tools[call["function"]["name"]]
                    jsonschema.validate(json.loads(call["function"]["arguments"]), function["parameters"])
                    pending.append(call["id"])
            else:
                assert message["role"] == "tool" and message["tool_call_id"] == pending.pop(0)
    return lines


def test_chat_jsonl_is_the_fine_tuning_format_with_valid_tool_calls(built: Path) -> None:
    lines = chat_lines(built)
    assert len(lines) == 12
    assert all(line["messages"][-1]["tool_calls"][0]["function"]["name"] == "finish" for line in lines)


def test_an_smh_build_solves_every_instance_and_keeps_the_shared_home_in_one_split(tmp_path: Path) -> None:
    import datasets

    spec = DatasetSpec(suite="smh", kinds="clear_command,state_ambiguity", per_type=2, seed=3, unit_size=1)
    build_dataset(spec, tmp_path / "smh", LocalExecutor())
    rows = [row for split in datasets.load_from_disk(str(tmp_path / "smh" / "hf")).values() for row in split]
    assert len(rows) == 12 and all(row["oracle_passed"] for row in rows)
    assert len({row["split"] for row in rows if row["kind"].endswith("/complex")}) == 1  # one home, one split
    assert any(row["templates"] for row in rows if row["kind"].startswith("state_ambiguity"))
    lines = chat_lines(tmp_path / "smh")
    assert len(lines) == 12 and {t["function"]["name"] for t in lines[0]["tools"]} >= {"control_device", "ask_user"}


def test_a_killed_build_resumes_to_the_same_bytes(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(built, out)
    for name in ("hf", "parquet", "chat"):
        shutil.rmtree(out / name)
    (out / "README.md").unlink()
    for unit in SPEC.units()[2:]:  # killed after two units were written
        (out / "units" / unit.file_name).unlink()
    summary = build_dataset(SPEC, out, LocalExecutor(), resume=True)
    assert (summary.units_kept, summary.units_run) == (2, len(SPEC.units()) - 2)
    assert tree_bytes(out) == tree_bytes(built)


def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    from homefabric_cli.main import app

    runner = CliRunner()
    suite = "--suite 'nope' cannot be built; allowed: simuhome, smh, voice"
    for args, words in (
        (["--suite", "nope", "--per-type", "1"], suite),
        (["--per-type", "0"], "per_type"),
        (["--kinds", "qt9"], "unknown query type"),
        (["--executor", "spark"], "unknown executor 'spark'; allowed: local, ray"),
    ):
        result = runner.invoke(app, ["dataset", "build", *args, "--out", str(tmp_path / "o"), "--no-progress"])
        assert result.exit_code == 2, result.output
        assert words in result.output and "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1
        assert not (tmp_path / "o").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    result = runner.invoke(app, ["dataset", "build", "--per-type", "1", "--out", str(tmp_path / "full")])
    assert result.exit_code == 2 and "is not empty" in result.output


def test_a_spec_file_builds_the_same_dataset_as_the_options(built: Path, tmp_path: Path) -> None:
    import yaml

    from homefabric_cli.main import app

    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text(yaml.safe_dump(SPEC.to_dict()))
    result = CliRunner().invoke(
        app, ["dataset", "build", str(spec_file), "--out", str(tmp_path / "o"), "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    assert tree_bytes(tmp_path / "o") == tree_bytes(built)
    spec_file.write_text("schema: homefabric-dataset-spec/1\nper_type: 0\nsplits: {train: 1}\n")
    result = CliRunner().invoke(app, ["dataset", "build", str(spec_file), "--out", str(tmp_path / "p")])
    assert result.exit_code == 2 and "per_type" in result.output and not (tmp_path / "p").exists()


@pytest.mark.requires("ray")
def test_no_cluster_at_the_address_is_one_line_at_once(tmp_path: Path) -> None:
    from homefabric_cli.main import app

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = CliRunner().invoke(
        app,
        [
            "dataset",
            "build",
            "--per-type",
            "1",
            "--out",
            str(tmp_path / "o"),
            "--executor",
            "ray",
            "--address",
            f"127.0.0.1:{port}",
        ],
    )
    assert result.exit_code == 2 and f"no Ray cluster answers at 127.0.0.1:{port}" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "o").exists()
