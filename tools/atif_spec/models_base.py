"""Base class of every generated Pydantic model (``atif_spec.models``).

Two things the generator cannot express through options live here:

* strict validation (``ConfigDict(strict=True)``): ``"1"`` is not an integer, ``1.0`` is not an
  integer and ``true`` is not a number; number fields are typed ``int | float`` by the generator
  so ``1`` and ``1.0`` both survive a round trip unchanged;
* JSON Schema integers: ``1.0`` is an integer in JSON Schema, so integer fields are
  ``int | float`` with ``multiple_of=1`` (:data:`JsonInteger` inside arrays): ``1.0`` is accepted
  and written back as ``1.0``, ``1.5`` is rejected;
* open objects: a schema object without ``additionalProperties: false`` keeps unknown keys
  (``extra="allow"``; closed objects override it with ``extra="forbid"``);
* key order: the keys of the input object are remembered and serialization writes them back in
  that order (keys set afterwards follow in field order), so ``load`` → ``dump`` reproduces a
  document key for key.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

JsonInteger = Annotated[int | float, Field(multiple_of=1)]
"""A JSON Schema integer as written: ``1``, or an integral float such as ``1.0``."""


class StrictModel(BaseModel):
    """Strict Pydantic model that serializes its keys in the order they were read."""

    # Fields whose JSON name is not an identifier (``$schema``) have an alias: read and written
    # under the JSON name, also accepted under the Python name.
    model_config = ConfigDict(
        strict=True, extra="allow", serialize_by_alias=True, validate_by_name=True
    )

    _key_order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember_key_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        model = handler(data)
        if isinstance(data, dict) and isinstance(model, StrictModel):
            model._key_order = tuple(k for k in data if isinstance(k, str))
        return model

    @model_serializer(mode="wrap")
    def _write_in_key_order(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if not isinstance(out, dict) or not self._key_order:
            return out
        ordered = {k: out[k] for k in self._key_order if k in out}
        ordered.update((k, v) for k, v in out.items() if k not in ordered)
        return ordered
