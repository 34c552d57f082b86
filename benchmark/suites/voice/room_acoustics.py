"""Room reverberation from the emulated room: its size and reverberation time → an image-source RIR.

SimuHome's homes carry room ids, not dimensions, so each room type has a typical size and RT60 (the one
table below); an unknown room gets the bedroom-sized default. Talker and microphone positions are seeded.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy.signal import fftconvolve

from benchmark.suites.voice.wav import SAMPLE_RATE


class RoomShape(BaseModel):
    model_config = ConfigDict(frozen=True)

    width_m: float
    depth_m: float
    height_m: float
    rt60_s: float  # hard surfaces (bathroom, kitchen) ring longer than furnished rooms


ROOM_SHAPES: dict[str, RoomShape] = {
    "living_room": RoomShape(width_m=6.0, depth_m=4.5, height_m=2.6, rt60_s=0.5),
    "kitchen": RoomShape(width_m=4.0, depth_m=3.5, height_m=2.5, rt60_s=0.6),
    "bathroom": RoomShape(width_m=2.6, depth_m=2.2, height_m=2.4, rt60_s=0.8),
    "bedroom": RoomShape(width_m=4.0, depth_m=3.5, height_m=2.5, rt60_s=0.35),
    "office": RoomShape(width_m=3.5, depth_m=3.0, height_m=2.5, rt60_s=0.4),
    "utility_room": RoomShape(width_m=3.0, depth_m=2.5, height_m=2.4, rt60_s=0.7),
    "hallway": RoomShape(width_m=5.0, depth_m=1.6, height_m=2.5, rt60_s=0.6),
    "dining_room": RoomShape(width_m=4.5, depth_m=3.5, height_m=2.6, rt60_s=0.5),
}
DEFAULT_SHAPE = ROOM_SHAPES["bedroom"]


def room_shape(room_id: str) -> RoomShape:
    """The shape of a room id: exact type, else a known type inside the id ("master_bedroom"), else default."""
    key = room_id.lower()
    if key in ROOM_SHAPES:
        return ROOM_SHAPES[key]
    for name, shape in ROOM_SHAPES.items():
        if name in key or name.split("_")[0] in key:
            return shape
    return DEFAULT_SHAPE


def room_impulse_response(shape: RoomShape, rng: np.random.Generator) -> np.ndarray:
    """Image-source RIR (pyroomacoustics ShoeBox) from a seeded talker position to a seeded microphone."""
    import pyroomacoustics as pra  # the [speech] extra, 0.85 s CPU to import (measured): only when rendering rooms

    dims = [shape.width_m, shape.depth_m, shape.height_m]
    absorption, max_order = pra.inverse_sabine(shape.rt60_s, dims)
    room = pra.ShoeBox(
        dims,
        fs=SAMPLE_RATE,
        materials=pra.Material(absorption),
        max_order=min(max_order, 17),
        air_absorption=False,
        use_rand_ism=False,
    )

    def inside(margin: float, z: float) -> list[float]:
        return [float(rng.uniform(margin, dims[0] - margin)), float(rng.uniform(margin, dims[1] - margin)), z]

    room.add_source(inside(0.5, 1.6))  # a standing talker's mouth
    room.add_microphone(inside(0.3, 1.0))  # the assistant on a shelf
    room.compute_rir()
    rir = np.asarray(room.rir[0][0], dtype=np.float64)
    return rir / (np.max(np.abs(rir)) or 1.0)


def reverberate(audio: np.ndarray, rir: np.ndarray) -> np.ndarray:
    """The talker heard in the room, at the dry signal's RMS level (the tail is cut to the dry length + 0.5 s)."""
    wet = fftconvolve(audio, rir)[: audio.size + SAMPLE_RATE // 2]
    dry_rms = float(np.sqrt(np.mean(audio**2))) if audio.size else 0.0
    wet_rms = float(np.sqrt(np.mean(wet**2))) if wet.size else 0.0
    scaled: np.ndarray = wet * (dry_rms / wet_rms) if wet_rms > 0 else wet
    return scaled
