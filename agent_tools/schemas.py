"""Function-calling definitions (OpenAI chat ``tools=[…]`` and MCP tool listings) from the argument models.

pydantic's JSON schema is cleaned for models: ``$defs`` inlined, titles dropped, ``X | None`` optional
fields shown as plain ``X`` (leaving them out means "none"), ``additionalProperties: false`` on every
object whose keys we define.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import BaseModel


def _inline(node: object, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            merged = {**copy.deepcopy(defs[name]), **{k: v for k, v in node.items() if k != "$ref"}}
            return _inline(merged, defs)
        return {k: _inline(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def _clean(node: object) -> Any:
    if isinstance(node, list):
        return [_clean(v) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: _clean(v) for k, v in node.items() if k != "title"}
    variants = node.get("anyOf")
    if isinstance(variants, list) and any(v == {"type": "null"} for v in variants):
        rest = [v for v in variants if v != {"type": "null"}]
        if len(rest) == 1:  # an optional field: say what a given value must be
            node.pop("anyOf")
            node = {**rest[0], **node}
            if node.get("default") is None:
                node.pop("default", None)
    if node.get("type") == "object" and "properties" in node:
        node.setdefault("additionalProperties", False)
        node.setdefault("required", [])
    return node


def parameters_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A self-contained JSON schema (draft 2020-12 compatible) of a tool's arguments (the caller's own copy)."""
    return copy.deepcopy(_parameters_schema(model))


@functools.cache  # an argument model is a class fixed at import: its schema is made once per process
def _parameters_schema(model: type[BaseModel]) -> dict[str, Any]:
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    schema: dict[str, Any] = _clean(_inline(raw, defs))
    schema.setdefault("properties", {})
    schema["type"] = "object"
    schema["additionalProperties"] = False
    schema.setdefault("required", [])
    return schema


def openai_tool(name: str, description: str, model: type[BaseModel]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters_schema(model)},
    }


def mcp_tool(name: str, description: str, model: type[BaseModel], *, read_only: bool | None = None) -> dict[str, Any]:
    """An MCP tool listing; ``read_only`` (the tool's ``mutates_state``, negated) becomes the MCP
    ``readOnlyHint`` annotation clients use to decide which calls need the user's confirmation."""
    out: dict[str, Any] = {"name": name, "description": description, "inputSchema": parameters_schema(model)}
    if read_only is not None:
        out["annotations"] = {"readOnlyHint": read_only}
    return out
