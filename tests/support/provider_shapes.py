"""The providers' documented response shapes (tests/data/provider_shapes/*.json), as plain
JSON and as the providers' own SDK objects (``model_validate`` of the same JSON).

Each file holds ``arguments`` (the call's keyword arguments: the request's ``messages``,
``documents``...), ``output`` (the documented response), ``sdk`` (the SDK type it validates
as; ``null`` for APIs whose SDK returns plain dicts: boto3, Mistral, Perplexity) and
``expect`` (each citation's outcome under a judge that always answers ``supports``).
Where the examples come from: tests/data/provider_shapes/SOURCES.md.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from support.paths import ROOT

SHAPES = ROOT / "tests" / "data" / "provider_shapes"


class CitedAnswer(BaseModel):
    """LangChain's citation how-to ("Cite documents"): the structured output it defines."""

    answer: str = Field(..., description="The answer to the user question, based only on "
                                         "the given sources.")
    citations: list[int] = Field(..., description="The integer IDs of the SPECIFIC sources "
                                                  "which justify the answer.")


def names() -> list[str]:
    """Every shape's name (its file's stem), sorted."""
    return sorted(p.stem for p in SHAPES.glob("*.json"))


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SHAPES / f"{name}.json").read_text())
    return data


def _sdk_type(path: str) -> Any:
    module, _, attr = path.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def sdk_object(shape: dict[str, Any]) -> Any:
    """The documented output as the SDK (or framework) returns it."""
    kind, output = shape["sdk"], shape["output"]
    if kind is None:
        return output
    if kind == "CitedAnswer":
        return CitedAnswer.model_validate(output)
    if kind == "include_raw":
        from langchain_core.messages import AIMessage

        return {"raw": AIMessage.model_validate(output["raw"]),
                "parsed": CitedAnswer.model_validate(output["parsed"]),
                "parsing_error": output["parsing_error"]}
    if kind == "Response":
        from llama_index.core.base.response.schema import Response
        from llama_index.core.schema import NodeWithScore, TextNode

        nodes = [NodeWithScore(node=TextNode.model_validate(n["node"]), score=n["score"])
                 for n in output["source_nodes"]]
        return Response(response=output["response"], source_nodes=nodes,
                        metadata=output["metadata"])
    return _sdk_type(kind).model_validate(output)


def record(name: str, shape: dict[str, Any]) -> dict[str, Any]:
    """The shape as a logged call for ``vcg-otel audit``: ``{id, arguments, output}``."""
    return {"id": name, "arguments": shape["arguments"], "output": shape["output"]}


def write_records(path: Path) -> Path:
    """Every shape as one JSONL of logged calls."""
    path.write_text("".join(json.dumps(record(n, load(n))) + "\n" for n in names()))
    return path
