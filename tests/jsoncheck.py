"""Validate a `--json` document against the JSON Schema its `schema` id names (shipped in the package)."""

from __future__ import annotations

from typing import Any

import jsonschema
from rocm_spirv.jsondoc import load_schema


def conforms(doc: Any) -> Any:
    """The document, after checking it against its own schema (fails the test otherwise)."""
    assert isinstance(doc, dict) and isinstance(doc.get("schema"), str), "a --json document starts with its schema id"
    jsonschema.Draft202012Validator(load_schema(doc["schema"])).validate(doc)
    return doc
