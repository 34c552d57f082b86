"""Agent tools declared by a decorator and checked when their class is made.

The pattern of ``clusters.base.command`` for cluster servers (and of tau2-bench's
``@is_tool(..., mutates_state=...)``): each tool method carries ``@tool(name, arguments model, description,
mutates_state=...)``; a :class:`ToolSet` subclass collects them into ``tools`` (name → :class:`ToolSpec`)
and refuses, at class creation, a tool without an argument model or description, a name used twice, a
tool that does not say whether it changes the home, and an offered name no method implements. Whether a
tool mutates state is stated here once; everything that needs the fact reads ``tools[name].mutates_state``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel

from agent_tools.schemas import mcp_tool, openai_tool

Method = TypeVar("Method", bound=Callable[..., Any])
_MARK = "__agent_tool__"
# What OpenAI function calling and MCP accept as a tool name.
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


@dataclass(frozen=True)
class ToolSpec:
    """One agent tool: its name, argument model (the schema offered to models), description, whether a
    successful call can change the home (devices, workflows, rules), and the method that runs it."""

    name: str
    model: type[BaseModel]
    description: str
    mutates_state: bool
    method: str
    route: str = ""  # SimuHome's HTTP path template, for compat_transport error URLs

    def schema(self, style: Literal["openai", "mcp"] = "openai") -> dict[str, Any]:
        if style == "openai":
            return openai_tool(self.name, self.description, self.model)
        return mcp_tool(self.name, self.description, self.model, read_only=not self.mutates_state)

    def route_for(self, arguments: dict[str, Any]) -> str:
        return self.route.format_map(_Blank(arguments))


def tool(
    name: str, model: type[BaseModel], description: str, *, mutates_state: bool | None = None, route: str = ""
) -> Callable[[Method], Method]:
    """Declare the decorated method as the agent tool ``name`` (checked by :class:`ToolSet`)."""

    def mark(method: Method) -> Method:
        # mutates_state=None is refused when the ToolSet class is created (_problems): the ignore.
        setattr(
            method,
            _MARK,
            ToolSpec(
                name,
                model,
                description,
                mutates_state,  # type: ignore[arg-type]
                method.__name__,
                route,
            ),
        )
        return method

    return mark


def _problems(spec: ToolSpec) -> list[str]:
    out = []
    if not isinstance(spec.name, str) or not _NAME.fullmatch(spec.name):
        out.append(f"name {spec.name!r} is not 1-64 letters, digits, '_' or '-'")
    if not (isinstance(spec.model, type) and issubclass(spec.model, BaseModel)):
        out.append(f"its arguments {spec.model!r} are not a pydantic model (the schema offered to models)")
    if not isinstance(spec.description, str) or not spec.description.strip():
        out.append("it has no description")
    if not isinstance(spec.mutates_state, bool):
        out.append("it does not declare mutates_state=True or False (whether a call can change the home)")
    return out


class ToolSet:
    """A class of agent tools: its ``@tool`` methods (its own and inherited) become ``tools`` when the class
    is made. ``class X(ToolSet, offered=names)`` also checks that every offered name is a tool of X."""

    tools: ClassVar[MappingProxyType[str, ToolSpec]] = MappingProxyType({})

    def __init_subclass__(cls, offered: Iterable[str] = (), **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found = dict(cls.tools)  # the base class's tools
        mine: dict[str, str] = {}
        for attribute, value in vars(cls).items():
            spec = getattr(value, _MARK, None)
            if not isinstance(spec, ToolSpec):
                continue
            problems = _problems(spec)
            if problems:
                raise TypeError(f"{cls.__name__}.{attribute}: tool {spec.name!r}: {'; '.join(problems)}")
            if spec.name in mine:
                raise TypeError(
                    f"{cls.__name__}: tool {spec.name!r} is declared twice ({mine[spec.name]} and "
                    f"{attribute}); each tool name belongs to one method"
                )
            mine[spec.name] = attribute
            found[spec.name] = replace(spec, method=attribute)
        unknown = sorted(set(offered) - set(found))
        if unknown:
            raise TypeError(f"{cls.__name__}: offered tool(s) {unknown} have no @tool method; tools: {sorted(found)}")
        cls.tools = MappingProxyType(found)
