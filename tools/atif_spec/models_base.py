"""Base class of every generated Pydantic model (``atif_spec.models``).

Two things the generator cannot express through options live here:

* strict validation (``ConfigDict(strict=True)``): ``"1"`` is not an integer and ``true`` is not
  a number; number fields are typed ``int | float`` by the generator so ``1`` and ``1.0`` both
  survive a round trip unchanged;
* JSON Schema integers: ``1.0`` is an integer in JSON Schema, so integer fields are
  :data:`JsonInteger`, an ``int`` to type checkers (``mypy --strict`` user code sees ``int``)
  that also accepts an integral float: ``1.0`` is held as an :class:`IntegralFloat` (an ``int``
  that remembers its spelling) and written back as ``1.0``; ``1.5`` and ``true`` are rejected;
* absent, not null: an optional field is typed ``X | None`` (``None`` stands for an absent key);
  where the schema refuses ``null`` the generator marks the field (``x-never-null`` in
  ``json_schema_extra``) and an explicit ``null`` is refused;
* open objects: a schema object without ``additionalProperties: false`` keeps unknown keys
  (``extra="allow"``; closed objects override it with ``extra="forbid"``);
* key order: the keys of the input object are remembered and serialization writes them back in
  that order (keys set afterwards follow in field order), so ``load`` → ``dump`` reproduces a
  document key for key.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    WrapSerializer,
    WrapValidator,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

NEVER_NULL = "x-never-null"
"""``json_schema_extra`` key of a field that may be absent but never ``null``."""


class IntegralFloat(int):
    """An integer that a document wrote as an integral float (``1.0``); serialized as a float."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(float(self))


def _read_integer(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    if type(value) is float and value.is_integer():
        return IntegralFloat(handler(int(value)))
    return handler(value)


def _write_integer(value: Any, handler: SerializerFunctionWrapHandler) -> Any:
    return float(value) if isinstance(value, IntegralFloat) else handler(value)


JsonInteger = Annotated[int, WrapValidator(_read_integer), WrapSerializer(_write_integer)]
"""A JSON Schema integer as written: ``1``, or an integral float such as ``1.0`` (kept as
:class:`IntegralFloat`, written back as ``1.0``). Typed ``int``; bounds apply as to any ``int``."""


class StrictModel(BaseModel):
    """Strict Pydantic model that serializes its keys in the order they were read."""

    # Fields whose JSON name is not an identifier (``$schema``) have an alias: read and written
    # under the JSON name, also accepted under the Python name.
    model_config = ConfigDict(
        strict=True, extra="allow", serialize_by_alias=True, validate_by_name=True
    )

    _key_order: tuple[str, ...] = PrivateAttr(default=())
    _never_null_keys: ClassVar[dict[type[BaseModel], frozenset[str]]] = {}

    @classmethod
    def _never_null(cls) -> frozenset[str]:
        """JSON names of the fields that may be absent but never ``null``."""
        keys = StrictModel._never_null_keys.get(cls)
        if keys is None:
            keys = frozenset(
                info.alias or name
                for name, info in cls.model_fields.items()
                if isinstance(info.json_schema_extra, dict)
                and info.json_schema_extra.get(NEVER_NULL) is True
            )
            StrictModel._never_null_keys[cls] = keys
        return keys

    @model_validator(mode="wrap")
    @classmethod
    def _remember_key_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if isinstance(data, dict):
            for key in cls._never_null():
                if key in data and data[key] is None:
                    raise PydanticCustomError(
                        "never_null", "{key} may be left out but not null", {"key": key}
                    )
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
