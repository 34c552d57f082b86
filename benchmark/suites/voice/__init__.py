"""Spoken episodes: offline TTS of user turns, acoustic conditions, an ASR cascade and audio-native input.

Modules, each with one job: ``voices`` (the voice pool and the seeded choice), ``tts`` (espeak-ng → 16 kHz
mono PCM), ``wav`` (WAV bytes in and out, checksums), ``noise`` (seeded noise sources), ``room_acoustics``
(room sizes and image-source RIRs), ``conditions`` (the SNR × reverberation grid and mixing), ``render``
(episodes → WAV files + manifest), ``asr`` (offline recognisers and WER), ``audio_input`` (OpenAI
``input_audio`` content parts), ``episode_input`` (what the runner gives the agent for --input text|asr|audio).
"""
