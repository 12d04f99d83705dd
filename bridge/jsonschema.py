"""JSON Schema export of the contract, for trainers and tools written in other languages.

``mgb schema`` writes one file per exported type to ``docs/schema/``; a test fails when the
checked-in files differ from what the models produce, so the published schema never drifts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter
from typing_extensions import TypeForm

from bridge import records, schema
from bridge.durable import write_atomic

__all__ = ["EXPORTED", "json_schemas", "write_json_schemas"]

EXPORTED: dict[str, TypeForm[Any]] = {
    "action": schema.Action,
    "observation": schema.Observation,
    "step_result": schema.StepResult,
    "policy_output": schema.PolicyOutput,
    "task_instance": records.TaskInstance,
    "verdict": schema.Verdict,
    "step_record": records.StepRecord,
    "episode_record": records.EpisodeRecord,
}
"""File stem -> exported type. Action is a union, so it goes through a TypeAdapter."""


def json_schemas() -> dict[str, str]:
    """File name -> JSON Schema text (stable key order, trailing newline)."""
    texts: dict[str, str] = {}
    for stem, model in EXPORTED.items():
        document = TypeAdapter(model).json_schema(mode="validation")
        document = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://mobilegym-bridge.dev/schema/{schema.SCHEMA_VERSION}/{stem}.json",
            "title": document.get("title", stem),
            **document,
        }
        texts[f"{stem}.schema.json"] = json.dumps(document, indent=2, sort_keys=True) + "\n"
    return texts


def write_json_schemas(directory: Path) -> list[Path]:
    """Write every schema file into ``directory`` (created if needed); return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in json_schemas().items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            write_atomic(path, text.encode("utf-8"))
        written.append(path)
    return written
