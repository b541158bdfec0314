"""Bindings generated from the schemas: Pydantic v2 models and TypeScript declarations.

``python -m atif_spec.codegen generate`` writes ``generated/python/<format>/<version>.py``
(importable as ``atif_spec.models.<format>.<version>``) and
``generated/typescript/<format>/<version>/<name>.d.ts`` for every catalog schema of kind
``document``; ``python -m atif_spec.codegen check`` exits 1 and lists the files that differ when
``generated/`` is stale. Generator options live in pyproject.toml (``[tool.datamodel-codegen]``
and ``[tool.atif-spec.json-schema-to-typescript]``, with ``options.toml`` here as the fallback).

What the models check: types, required and unknown keys (closed objects forbid extras), enums,
constants and simple bounds, strictly (no ``"1"`` → ``1``). What they do not check: conditionals
and cross-field rules, which :mod:`atif_spec.codegen.prepare` relaxes before generation; such
classes say so in their docstring. Use ``atif_spec.validate`` for full validation.

References to another catalog document (v1.8's ``EmbeddedSubagent`` → the v1.7 schema) are bound
offline: the referring module imports the target module under a private name and names its class
through it (``_atif_v1_7.Trajectory``); the TypeScript file uses an
``import("../v1.7/trajectory.js").Trajectory`` type.

Tag switches become discriminated unions with members named ``<Definition><Value>``
(:mod:`atif_spec.codegen.unions`): v1.8's ``EmbeddedSubagent`` on ``schema_version`` in both
languages, ``ContentPart`` on ``type`` in TypeScript. Integer fields are ``int`` in Python
(``atif_spec.bindings.models_base.JsonInteger``). ``generated/typescript`` is also an npm package
(``package.json``, ``index.d.ts``, README; :mod:`atif_spec.codegen.npm_package`).
"""

from __future__ import annotations

from atif_spec.codegen.driver import check, documents, generate, generate_into

__all__ = ["check", "documents", "generate", "generate_into"]
