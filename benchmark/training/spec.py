"""The dataset spec (YAML or JSON, ``schema: homefabric-dataset-spec/1``) and its deterministic work units.

    schema: homefabric-dataset-spec/1
    suite: simuhome          # the suite the episodes come from: simuhome, smh or voice
    kinds: all               # simuhome: all, query types (qt1,qt4-2) or kinds (qt3_feasible); smh: all or
                             # subcategories (clear_command,coreference), each in its three tiers; voice: all or
                             # task types (spatial,temporal,clarify)
    conditions: clean-dry    # voice: the acoustic conditions each user turn is rendered in (one example each)
    per_type: 20             # examples per kind (smh: per subcategory and tier), before the split
    seed: 1                  # episode n of a kind has seed seed·1000 + n
    profile: simuhome        # the tool profile whose schemas the examples carry (SMH examples: the smh profile)
    splits: {train: 0.8, validation: 0.1, test: 0.1}
    unit_size: 4             # examples per unit of work (one Ray task)

A unit is (kind, first index, count) (SimuHome indices from 1, SMH's from 0), numbered in the canonical kind order;
the same spec always gives the same
units, so any executor, any number of workers and any resume produce the same output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from benchmark.execution.executors import WorkUnit

DATASET_SPEC_SCHEMA: Final = "homefabric-dataset-spec/1"
SUITES = ("simuhome", "smh", "voice")
SPLITS = ("train", "validation", "test")
MAX_PER_TYPE = 999


class DatasetSpecError(ValueError):
    """A spec that cannot be built: names the field, what it was and what is allowed."""


class DatasetSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: Literal["homefabric-dataset-spec/1"] = Field(default=DATASET_SPEC_SCHEMA, alias="schema")
    suite: Literal["simuhome", "smh", "voice"] = "simuhome"
    kinds: str = "all"
    per_type: int = Field(default=20, ge=1, le=MAX_PER_TYPE)
    seed: int = Field(default=1, ge=0)
    profile: Literal["simuhome", "paper13", "simuhome_ext"] = "simuhome"
    splits: dict[str, float] = Field(default_factory=lambda: {"train": 0.8, "validation": 0.1, "test": 0.1})
    unit_size: int = Field(default=4, ge=1, le=1000)
    conditions: str = "clean-dry"

    @model_validator(mode="after")
    def _known_kinds(self) -> DatasetSpec:
        self.kind_list()  # raises ValueError naming the unknown kind and the known ones
        if self.suite == "voice":
            from benchmark.suites.voice.conditions import ConditionError, parse_conditions

            try:
                parse_conditions(self.conditions)
            except ConditionError as error:
                raise ValueError(str(error)) from None
        return self

    @model_validator(mode="after")
    def _split_shares(self) -> DatasetSpec:
        if set(self.splits) != set(SPLITS):
            raise ValueError(f"splits must name exactly {', '.join(SPLITS)}, got {', '.join(self.splits) or 'none'}")
        if any(share < 0 for share in self.splits.values()) or abs(sum(self.splits.values()) - 1) > 1e-9:
            raise ValueError(f"split shares must be >= 0 and add up to 1, got {self.splits}")
        return self

    def kind_list(self) -> list[str]:
        """SimuHome: kinds (qt3_feasible); SMH: subcategory/tier (clear_command/simple); voice: task types; in
        canonical order."""
        from benchmark.generation.generate import GeneratorInputError, parse_kinds

        if self.suite == "smh":
            from benchmark.suites.smh.taxonomy import SUBCATEGORIES, TIERS

            names = [part.strip() for part in self.kinds.split(",") if part.strip()]
            unknown = [name for name in names if name != "all" and name not in SUBCATEGORIES]
            if unknown or not names:
                raise ValueError(
                    f"unknown SMH subcategory {', '.join(unknown) or '(none)'}; use all or some of "
                    f"{', '.join(SUBCATEGORIES)}"
                )
            chosen = SUBCATEGORIES if "all" in names else tuple(s for s in SUBCATEGORIES if s in names)
            return [f"{sub}/{tier}" for sub in chosen for tier in TIERS]
        if self.suite == "voice":
            from benchmark.suites.voice.voice_generate import VoiceGenerationError, parse_task_types

            try:
                return parse_task_types(self.kinds)
            except VoiceGenerationError as error:
                raise ValueError(str(error)) from None
        try:
            return [f"{qt}_{case}" for qt, case in parse_kinds(self.kinds)]
        except GeneratorInputError as error:
            raise ValueError(str(error)) from None

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def sha256(self) -> str:
        from benchmark.training.canonical import sha256_of

        return sha256_of(self.to_dict())

    def units(self) -> list[WorkUnit]:
        units: list[WorkUnit] = []
        for kind in self.kind_list():
            start = 0 if self.suite == "smh" else 1
            for first in range(start, start + self.per_type, self.unit_size):
                units.append(WorkUnit(len(units), kind, first, min(self.unit_size, start + self.per_type - first)))
        return units


def load_spec(path: Path) -> DatasetSpec:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise DatasetSpecError(f"{path}: cannot read the spec ({error})") from None
    except yaml.YAMLError as error:
        raise DatasetSpecError(f"{path}: not YAML ({str(error).splitlines()[0]})") from None
    return parse_spec(data, str(path))


def parse_spec(data: Any, source: str = "<spec>") -> DatasetSpec:
    if not isinstance(data, dict):
        raise DatasetSpecError(f"{source}: a dataset spec is a mapping (schema, suite, kinds, per_type, seed, ...)")
    try:
        return DatasetSpec.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'spec'}: {e['msg']}" for e in error.errors())
        raise DatasetSpecError(f"{source}: {problems}") from None
