"""The ``--validate-protocol`` validators of a system's message schemas (conformance/protocol/*/v1/)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any


@functools.cache
def _validators(schema_dir: Path) -> dict[tuple[str, str], Any]:
    """Draft 2020-12 validators of every command's request and reply, resolving ``common.json``."""
    import jsonschema  # noqa: PLC0415 - only with --validate-protocol
    from referencing import Registry, Resource  # noqa: PLC0415

    documents = {path.name: json.loads(path.read_text(encoding="utf-8")) for path in schema_dir.glob("*.json")}
    registry = Registry().with_resources(
        (document["$id"], Resource.from_contents(document)) for document in documents.values()
    )
    validators = {}
    for name, document in documents.items():
        if name == "common.json":
            continue
        for side in ("request", "reply"):
            schema = {"$schema": document["$schema"], "$id": document["$id"], "$ref": f"#/$defs/{side}", **document}
            validators[name.removesuffix(".json"), side] = jsonschema.Draft202012Validator(schema, registry=registry)
    return validators
