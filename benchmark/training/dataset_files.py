"""The files of a built dataset, from its examples and their splits.

    OUT/hf/                     datasets.DatasetDict.save_to_disk (train, validation, test): load_from_disk
    OUT/parquet/<split>.parquet the same rows as Parquet: load_dataset("parquet", data_files=...)
    OUT/chat/<split>.jsonl      OpenAI fine-tuning format: {"messages": [...tool_calls, tool results], "tools": [...]}
    OUT/README.md               the dataset card

Columns that hold free-form JSON (the home, tool arguments and results, the checks, the chat messages) are
canonical JSON strings, so every row has one Arrow schema whatever the home looks like.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmark.training.canonical import canonical_json
from benchmark.training.examples import TrainingExample
from benchmark.training.spec import SPLITS, DatasetSpec
from emulator.files import write_atomically


def features(suite: str) -> Any:
    import datasets

    text = datasets.Value("string")
    turn: dict[str, Any] = {"role": text, "text": text}
    if suite == "voice":  # every user turn's audio (the library's Audio feature: WAV bytes), condition and voice
        turn.update(
            {"condition": text, "voice": text, "audio": datasets.Audio(), "duration_s": datasets.Value("float64")}
        )
    return datasets.Features(
        {
            "id": text,
            "split": text,
            "suite": text,
            "kind": text,
            "episode_seed": datasets.Value("int64"),
            "home": text,
            "home_sha256": text,
            "user_location": text,
            "current_time": text,
            "turns": datasets.List(turn),
            "gold_tool_calls": datasets.List(
                {
                    "index": datasets.Value("int64"),
                    "turn": datasets.Value("int64"),
                    "tool": text,
                    "arguments": text,
                    "result": text,
                    "thought": text,
                }
            ),
            "final_state_checks": text,
            "oracle_passed": datasets.Value("bool"),
            "templates": datasets.List(text),
            "template_sha256": text,
            "messages": text,
            "tools": text,
            "provenance": {
                "dataset_seed": datasets.Value("int64"),
                "spec_sha256": text,
                "homefabric_version": text,
                "generator": text,
            },
        }
    )


def row(example: TrainingExample, split: str, provenance: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": example.example_id,
        "split": split,
        "suite": example.suite,
        "kind": example.kind,
        "episode_seed": example.episode_seed,
        "home": canonical_json(example.home),
        "home_sha256": example.home_sha256,
        "user_location": example.user_location,
        "current_time": example.current_time,
        "turns": [_turn(turn) for turn in example.turns],
        "gold_tool_calls": [
            {
                "index": c.index,
                "turn": c.turn,
                "tool": c.tool,
                "arguments": canonical_json(c.arguments),
                "result": canonical_json(c.result),
                "thought": c.thought,
            }
            for c in example.gold_tool_calls
        ],
        "final_state_checks": canonical_json(example.final_state_checks),
        "oracle_passed": example.oracle_passed,
        "templates": example.templates,
        "template_sha256": example.template_key,
        "messages": canonical_json(example.messages),
        "tools": canonical_json(example.tools),
        "provenance": provenance,
    }


def _turn(turn: dict[str, Any]) -> dict[str, Any]:
    audio = turn.get("audio")
    if audio is None:
        return turn
    return {**turn, "audio": {"bytes": base64.b64decode(audio["base64"]), "path": audio["path"]}}


def chat_line(example: TrainingExample) -> str:
    return (
        json.dumps(
            {"messages": example.messages, "tools": example.tools},
            ensure_ascii=False,
            separators=(",", ":"),
            allow_nan=False,
        )
        + "\n"
    )


def write_dataset(
    out: Path,
    spec: DatasetSpec,
    examples: Sequence[TrainingExample],
    split_of: dict[str, str],
    provenance: dict[str, Any],
) -> dict[str, int]:
    """Write the hf/, parquet/ and chat/ forms and the card; returns the number of examples per split."""
    import datasets
    import pyarrow
    import pyarrow.parquet as parquet

    datasets.disable_progress_bars()
    by_split = {split: [e for e in examples if split_of[e.example_id] == split] for split in SPLITS}
    schema = features(spec.suite)
    tables = {}
    for split, chosen in by_split.items():  # an empty split is left out: datasets cannot read one back
        if not chosen:
            continue
        rows = [row(e, split, provenance) for e in chosen]
        # Built as Arrow directly: datasets' own encoder wants torch + torchcodec even for ready WAV bytes.
        table = pyarrow.Table.from_pylist(rows, schema=schema.arrow_schema)
        tables[split] = datasets.Dataset(table, info=datasets.DatasetInfo(features=schema))
    datasets.DatasetDict(tables).save_to_disk(str(out / "hf"))
    (out / "parquet").mkdir(exist_ok=True)
    (out / "chat").mkdir(exist_ok=True)
    for split, table in tables.items():
        parquet.write_table(table.data.table, str(out / "parquet" / f"{split}.parquet"))
    for split in tables:
        write_atomically(out / "chat" / f"{split}.jsonl", "".join(chat_line(e) for e in by_split[split]))
    sizes = {split: len(chosen) for split, chosen in by_split.items()}
    write_atomically(out / "README.md", dataset_card(spec, by_split, provenance))
    return sizes


def _conditions(by_split: dict[str, list[TrainingExample]]) -> str:
    spoken = [t for chosen in by_split.values() for e in chosen for t in e.turns if t.get("audio")]
    if not spoken:
        return "Conditions: text only (no spoken turns)."
    conditions = sorted({t["condition"] for t in spoken})
    voices = {split: sorted({v for e in chosen for v in e.voices}) for split, chosen in by_split.items()}
    seconds = sum(float(t["duration_s"]) for t in spoken)
    return (
        f"Spoken: {len(spoken)} user turns, {seconds:.0f} s of 16 kHz mono WAV audio (the `Audio` feature), "
        f"rendered in the conditions {', '.join(conditions)} (one example per episode and condition). Voices by "
        f"split (never shared): " + "; ".join(f"{s}: {', '.join(v) or 'none'}" for s, v in voices.items()) + "."
    )


def dataset_card(spec: DatasetSpec, by_split: dict[str, list[TrainingExample]], provenance: dict[str, Any]) -> str:
    kinds = sorted({e.kind for chosen in by_split.values() for e in chosen})
    counts = {split: Counter(e.kind for e in chosen) for split, chosen in by_split.items()}
    table = ["| kind | " + " | ".join(SPLITS) + " |", "|---|" + "---:|" * len(SPLITS)]
    table += [f"| {kind} | " + " | ".join(str(counts[s][kind]) for s in SPLITS) + " |" for kind in kinds]
    table.append("| **all** | " + " | ".join(str(len(by_split[s])) for s in SPLITS) + " |")
    calls = [len(e.gold_tool_calls) for chosen in by_split.values() for e in chosen]
    passed = sum(e.oracle_passed for chosen in by_split.values() for e in chosen)
    front = [
        "---",
        "license: other",
        "license_name: homefabric-generated",
        "task_categories:",
        "- text-generation",
        "tags:",
        "- tool-use",
        "- smart-home",
        "- matter",
        "configs:",
        "- config_name: default",
        "  data_files:",
        *(f"  - split: {s}\n    path: parquet/{s}.parquet" for s in SPLITS if by_split[s]),
        "---",
        "",
    ]
    body = f"""# homefabric {spec.suite} training set (seed {spec.seed})

Generated by `homefabric dataset build` from the homefabric emulator's {spec.suite} suite: each example is a
generated home, a user request, the oracle's tool calls through the agent tools (`{spec.profile}` profile) with
what each returned, its final answer, and the checks the benchmark's verifier applies to the home's final state.

## Sizes

{chr(10).join(table)}

{sum(len(c) for c in by_split.values())} examples, {sum(calls)} gold tool calls
({min(calls, default=0)}–{max(calls, default=0)} per example); the oracle passed the verifier on {passed} of them.
{_conditions(by_split)}
A split with no examples has no files (`datasets` cannot read an empty one back).

## Splits

No home, template or voice appears in more than one split. Each example's leak keys are its home (sha256 of the
canonical home config), its template (the ordered grammar templates its request was expanded from, before slot
values, alternatives and noise) and its voices; examples sharing any key form one group, and each group goes whole
to one split, chosen by hashing its smallest key with the seed against the shares
{", ".join(f"{split} {spec.splits[split]:g}" for split in SPLITS)}.

## Files

- `hf/`: `datasets.load_from_disk("hf")` (a DatasetDict of the three splits).
- `parquet/<split>.parquet`: `datasets.load_dataset("parquet", data_files={{"train": "parquet/train.parquet"}})`.
- `chat/<split>.jsonl`: OpenAI fine-tuning format, one conversation a line: `messages` (system, user, one
  assistant message per tool call with `tool_calls`, each `tool` result, the closing `finish` call) and `tools`.
- `units/`: the raw examples per unit of work (the state `--resume` continues from).

Columns `home`, `gold_tool_calls[].arguments`/`result`, `final_state_checks`, `messages` and `tools` are JSON text.

## How it was made

Spec (sha256 `{provenance["spec_sha256"]}`):

```json
{json.dumps(spec.to_dict(), indent=2, sort_keys=True)}
```

homefabric {provenance["homefabric_version"]}; episode n of a kind has seed {spec.seed}·1000 + n. The same spec gives
byte-identical files with the local executor or any number of Ray workers.

## Licence

Synthetic data generated by homefabric's own generator, grammar and oracle (no SimuHome code, prompts or data);
it may be used under the same terms as the homefabric source it was generated with.
"""
    return "\n".join(front) + body
