"""Typed decoding: documents checked while they are decoded into msgspec Structs.

:mod:`atif_spec.validation.typed.structs` builds Structs from a JSON Schema (only ever narrowing
it); :mod:`atif_spec.validation.typed.atif` uses them to recognise ATIF documents on which
validation finds nothing, in one decode plus one pass over the steps (see docs/PERFORMANCE.md).
"""
