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
  document key for key;
* the rest of the schema: field types cannot say everything a schema says (``if``/``then``/
  ``else`` conditionals, ``not``, rules across fields), so each generated module binds its
  classes to their schema definitions (:meth:`StrictModel.bind_schema_locations`) and the
  outermost model of a validation also checks its input against its definition with the
  packaged schemas (jsonschema-rs, offline). A model accepts exactly what its definition
  accepts; a failure is a ``pydantic.ValidationError`` located at the offending value.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
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
from pydantic_core import InitErrorDetails, PydanticCustomError, ValidationError

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


_INSIDE_CHECKED: ContextVar[bool] = ContextVar("atif_spec_inside_checked", default=False)
"""True while an enclosing model validates: its schema check covers the nested models."""


def _location(instance: Any, ptr: str) -> tuple[tuple[str | int, ...], Any]:
    """The Pydantic ``loc`` of a JSON pointer into ``instance``, and the value found there."""
    loc: list[str | int] = []
    node = instance
    for raw in ptr.split("/")[1:] if ptr else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and token.isdigit():
            loc.append(int(token))
            node = node[int(token)] if int(token) < len(node) else None
        else:
            loc.append(token)
            node = node.get(token) if isinstance(node, dict) else None
    return tuple(loc), node


def _schema_errors(location: str, instance: Any) -> list[InitErrorDetails]:
    """The failures of ``instance`` against the schema node at ``location``, as line errors."""
    from atif_spec.schemas.compiled import rs_validator_at  # noqa: PLC0415 - start-up: importing a model compiles no schema
    from atif_spec.validation.schema_findings import findings_of  # noqa: PLC0415 - start-up: importing a model compiles no schema

    found = findings_of(rs_validator_at(location), instance)
    errors: list[InitErrorDetails] = []
    for finding in found:
        loc, value = _location(instance, finding.pointer)
        error = PydanticCustomError(
            "json_schema", "{message}", {"message": finding.message, "code": finding.code}
        )
        errors.append(InitErrorDetails(type=error, loc=loc, input=value))
    return errors


def _fits(location: str, instance: Any) -> bool | None:
    """Whether ``instance`` fits the schema node; ``None`` when it is not plain JSON data."""
    from atif_spec.schemas.compiled import rs_validator_at  # noqa: PLC0415 - start-up: importing a model compiles no schema

    try:
        return bool(rs_validator_at(location).is_valid(instance))
    except ValueError:  # model instances, non-string keys, ...: not a JSON value
        return None


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
    json_schema_location: ClassVar[str | None] = None
    """Absolute location (``<$id>#<JSON pointer>``) of the schema definition this model stands
    for; validation checks the input against it too (set by the generated module; a subclass
    that adds fields of its own sets it to ``None``, as its input no longer fits the schema)."""

    @staticmethod
    def bind_schema_locations(schema_id: str, locations: Mapping[type[StrictModel], str]) -> None:
        """Bind each generated class to its definition (``#/$defs/X``, ``#`` for the root)."""
        for model, fragment in locations.items():
            model.json_schema_location = schema_id + fragment

    @classmethod
    def _check_schema(cls, data: Any, model: BaseModel) -> None:
        """Refuse what the field types let through but the schema definition does not."""
        location = cls.json_schema_location
        if location is None or (isinstance(data, dict) and _fits(location, data)):
            return
        # The input is not plain JSON (nested model instances) or it names fields by their
        # Python names: the document the model holds decides.
        document = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if _fits(location, document):
            return
        raise ValidationError.from_exception_data(cls.__name__, _schema_errors(location, document))

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
        outermost = not _INSIDE_CHECKED.get()
        if outermost:
            token = _INSIDE_CHECKED.set(True)
            try:
                model = handler(data)
            finally:
                _INSIDE_CHECKED.reset(token)
        else:
            model = handler(data)
        if isinstance(data, dict) and isinstance(model, StrictModel):
            model._key_order = tuple(k for k in data if isinstance(k, str))
        if outermost and isinstance(model, StrictModel) and model is not data:
            cls._check_schema(data, model)  # an instance passed through was checked when built
        return model

    @model_serializer(mode="wrap")
    def _write_in_key_order(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if not isinstance(out, dict) or not self._key_order:
            return out
        ordered = {k: out[k] for k in self._key_order if k in out}
        ordered.update((k, v) for k, v in out.items() if k not in ordered)
        return ordered
