"""Speech benchmark: render throughput, ASR real-time factor and WER per acoustic condition.

Generated SimuHome-style episodes (``benchmark.generation.generate``, all 12 kinds, seeded) give the user turns. For
the first ``--turns`` of them: render each turn clean (audio seconds per wall second, espeak-ng + resample),
then, per condition, apply the condition and transcribe with the recogniser (real-time factor = wall
seconds / audio seconds, on this machine's cores) and score the corpus WER (normalised, benchmark.suites.voice.wer).
The voice suite (MIST-style dialogues, ``benchmark.suites.voice.voice_generate``): generation rate (episodes per
wall second), oracle and null success with text input, and the oracle through the ASR cascade per condition
(mean per-turn WER over every turn and clarification reply heard).
Usage: python perf/speech.py [--turns 100] [--conditions grid] [--asr whisper-tiny.en] [--seed 0]
       [--part all|turns|voice] [--voice-per-type 10] [--voice-conditions clean-dry,10db-reverb,0db-reverb] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from benchmark.generation.generate import generate_episodes
from benchmark.suites.simuhome.episode import parse_episode
from benchmark.suites.voice.acoustics import apply_condition
from benchmark.suites.voice.asr import DEFAULT_ASR, recogniser
from benchmark.suites.voice.conditions import parse_conditions
from benchmark.suites.voice.render import numpy_rng, speech, surroundings_for, user_turns
from benchmark.suites.voice.voices import choose_speaker
from benchmark.suites.voice.wav import SAMPLE_RATE, decode_wav, encode_wav
from benchmark.suites.voice.wer import normalise, word_error_rate


def turns_of(count: int, seed: int) -> list[Any]:
    per_type = -(-count // 12)
    episodes = [parse_episode(data, check_home=False) for data in generate_episodes("all", per_type, seed)]
    for index, episode in enumerate(episodes):
        episode.episode_id = f"bench_{index:04d}"
    return episodes[:count]


def voice_suite(per_type: int, seed: int, conditions: str, asr: str) -> dict[str, Any]:
    import asyncio

    from benchmark.agents.null import NullAgent
    from benchmark.suites.voice.voice_generate import generate_voice_episodes
    from benchmark.suites.voice.voice_hearing import Hearing
    from benchmark.suites.voice.voice_oracle import VoiceOracleAgent
    from benchmark.suites.voice.voice_report import summarise
    from benchmark.suites.voice.voice_run import run_voice_episode

    started = time.perf_counter()
    episodes = generate_voice_episodes(per_type, seed)
    generation_wall = time.perf_counter() - started

    def run_all(agent: Any, hearing: Hearing) -> list[dict[str, Any]]:
        return [asyncio.run(run_voice_episode(e, agent, hearing)) for e in episodes]

    started = time.perf_counter()
    oracle = summarise(run_all(VoiceOracleAgent(), Hearing()))
    text_wall = time.perf_counter() - started
    null = summarise(run_all(NullAgent(), Hearing()))
    spoken: dict[str, Any] = {}
    for condition in parse_conditions(conditions):  # the oracle does not listen: only the WER is a figure here
        records = run_all(VoiceOracleAgent(), Hearing(input="asr", condition=condition, asr=asr, seed=seed))
        wers = [t["heard"]["asr"]["wer"] for r in records for t in r["turns"]]
        spoken[condition.id] = {"turns_heard": len(wers), "mean_turn_wer": round(sum(wers) / len(wers), 4)}
    return {
        "episodes": len(episodes),
        "generation_wall_s": round(generation_wall, 3),
        "episodes_per_wall_s": round(len(episodes) / generation_wall, 1),
        "oracle_text_success": oracle["overall"]["success"],
        "null_text_success": null["overall"]["success"],
        "null_act_accuracy": null["overall"]["act_accuracy"],
        "oracle_text_episodes_per_wall_s": round(len(episodes) / text_wall, 1),
        "asr_wer_per_condition": spoken,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--conditions", default="grid")
    parser.add_argument("--asr", default=DEFAULT_ASR)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--part", choices=("all", "turns", "voice"), default="all")
    parser.add_argument("--voice-per-type", type=int, default=10)
    parser.add_argument("--voice-conditions", default="clean-dry,10db-reverb,0db-reverb")
    args = parser.parse_args()
    if args.part == "voice":
        figures = voice_suite(args.voice_per_type, args.seed, args.voice_conditions, args.asr)
        print(json.dumps({"voice_suite": figures}, indent=2))
        return
    episodes = turns_of(args.turns, args.seed)
    conditions = parse_conditions(args.conditions)

    speakers = [choose_speaker(args.seed, e.episode_id) for e in episodes]
    started = time.perf_counter()
    clean = [
        np.asarray(speech(user_turns(e)[0], voice.id, rate))
        for e, (voice, rate) in zip(episodes, speakers, strict=True)
    ]
    render_wall = time.perf_counter() - started
    audio_s = sum(a.size for a in clean) / SAMPLE_RATE

    model = recogniser(args.asr)
    model.transcribe(clean[0])  # warm-up: the first call allocates
    per_condition: dict[str, Any] = {}
    for condition in conditions:
        errors = words = 0.0
        asr_wall = heard_s = 0.0
        for episode, (voice, _rate), audio in zip(episodes, speakers, clean, strict=True):
            text = user_turns(episode)[0]
            surroundings = surroundings_for(episode, args.seed, voice)
            mixed = apply_condition(
                audio,
                condition,
                "room",
                surroundings,
                numpy_rng("condition", args.seed, episode.episode_id, 0, condition.id),
                numpy_rng("room", args.seed, episode.episode_id, 0),
            )
            heard = decode_wav(encode_wav(mixed))
            t0 = time.perf_counter()
            hypothesis = model.transcribe(heard).text
            asr_wall += time.perf_counter() - t0
            heard_s += heard.size / SAMPLE_RATE
            n = len(normalise(text).split())
            errors += word_error_rate(text, hypothesis) * n
            words += n
        per_condition[condition.id] = {
            "wer": round(errors / words, 4),
            "asr_rtf": round(asr_wall / heard_s, 4),
            "audio_s": round(heard_s, 1),
        }
    result = {
        "turns": len(episodes),
        "asr": args.asr,
        "cpu_count": os.cpu_count(),
        "seed": args.seed,
        "render_audio_s": round(audio_s, 1),
        "render_wall_s": round(render_wall, 2),
        "render_audio_s_per_wall_s": round(audio_s / render_wall, 1),
        "asr_rtf": round(
            sum(c["asr_rtf"] * c["audio_s"] for c in per_condition.values())
            / sum(c["audio_s"] for c in per_condition.values()),
            4,
        ),
        "conditions": per_condition,
    }
    if args.part == "all":
        result["voice_suite"] = voice_suite(args.voice_per_type, args.seed, args.voice_conditions, args.asr)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{result['turns']} turns, {audio_s:.0f} s of audio rendered at {result['render_audio_s_per_wall_s']}x "
            f"real time; ASR ({args.asr}) real-time factor {result['asr_rtf']}"
        )
        for name, figures in per_condition.items():
            print(f"  {name:14} WER {figures['wer']:.3f}  RTF {figures['asr_rtf']:.3f}")
        if "voice_suite" in result:
            print("voice suite: " + json.dumps(result["voice_suite"]))


if __name__ == "__main__":
    main()
