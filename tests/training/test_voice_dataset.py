"""`dataset build --suite voice`: every user turn's audio is stored as the library's Audio feature and holds exactly
the WAV the speech layer renders for it; no voice is heard in two splits; the oracle solves every dialogue."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.execution.executors import LocalExecutor
from benchmark.training.dataset_build import build_dataset
from benchmark.training.spec import DatasetSpec

pytestmark = pytest.mark.requires("espeak-ng", "datasets")


def test_voice_audio_is_the_rendered_wav_and_voices_stay_in_one_split(tmp_path: Path) -> None:
    import datasets

    from benchmark.suites.voice.conditions import parse_conditions
    from benchmark.suites.voice.voice_generate import generate_voice_episode
    from benchmark.suites.voice.voice_hearing import render_voice_episode
    from benchmark.suites.voice.voices import VOICES
    from benchmark.suites.voice.wav import decode_wav
    from benchmark.training.voice_examples import voice_split

    spec = DatasetSpec(suite="voice", per_type=2, seed=2, unit_size=1, conditions="clean-dry,10db-reverb")
    build_dataset(spec, tmp_path / "voice", LocalExecutor())
    splits = datasets.load_from_disk(str(tmp_path / "voice" / "hf"))
    assert isinstance(splits["train"].features["turns"].feature["audio"], datasets.Audio)
    rows = {name: split.data.to_pylist() for name, split in splits.items()}  # raw: decoding wants torchcodec
    assert sum(len(r) for r in rows.values()) == 12 and all(row["oracle_passed"] for r in rows.values() for row in r)
    owner: dict[str, str] = {}
    for name, split_rows in rows.items():
        for row in split_rows:
            voices = {t["voice"] for t in row["turns"] if t["voice"]}
            assert all(owner.setdefault(voice, name) == name for voice in voices)
            assert all(voice_split(spec.seed)[voice] == name for voice in voices)
    row = next(row for r in rows.values() for row in r if row["kind"] == "clarify")
    episode = generate_voice_episode("clarify", row["episode_seed"])
    condition = row["turns"][0]["condition"]
    pool = tuple(VOICES[v] for v in sorted(VOICES) if voice_split(spec.seed)[v] == row["split"])
    rendered = render_voice_episode(episode, seed=spec.seed, conditions=parse_conditions(condition), pool=pool)
    stored = [t["audio"]["bytes"] for t in row["turns"] if t["role"] == "user"]
    assert stored == [wav for _meta, wav in rendered] and len(stored) == 2  # request and clarification reply
    assert decode_wav(stored[0]).size > 0
    train = str(tmp_path / "voice" / "parquet" / "train.parquet")
    parquet = datasets.load_dataset("parquet", data_files={"train": train})
    assert parquet["train"].data.to_pylist() == rows["train"]
