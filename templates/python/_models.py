"""The base of every result model, and reading a JSON value into a type, on pydantic 1.10 and 2.x alike.

Models accept fields this package does not know (a newer server may add some) and are filled by their wire
names (camelCase) or their Python names (snake_case). Nothing here imports httpx: the models stand alone.
"""
from typing import Any, Dict, Type, TypeVar, cast

import pydantic

T = TypeVar("T")

#: True under pydantic 2, whose API for configuration and validation differs from 1.10's.
PYDANTIC_V2 = pydantic.VERSION.startswith("2.")


class BaseModel(pydantic.BaseModel):
    """A result of the API. `to_dict()` gives it back as the wire sent it, with camelCase keys."""

    if PYDANTIC_V2:
        # Looked up by name so that a type checker run against pydantic 1.10 does not stop at it.
        model_config = getattr(pydantic, "ConfigDict")(extra="allow", populate_by_name=True, protected_namespaces=())
    else:

        class Config:
            extra = "allow"
            allow_population_by_field_name = True

    def to_dict(self) -> Dict[str, Any]:
        """The model as a plain dict with the wire's keys, leaving out fields the server did not send."""
        if PYDANTIC_V2:
            return cast(Dict[str, Any], getattr(self, "model_dump")(by_alias=True, exclude_unset=True, mode="json"))
        return cast(Dict[str, Any], self.dict(by_alias=True, exclude_unset=True))


def validate(type_: Any, value: Any) -> Any:
    """`value` (parsed JSON) read as `type_`: a model, a union, a list or a plain type, with nested models built."""
    if PYDANTIC_V2:
        return getattr(pydantic, "TypeAdapter")(type_).validate_python(value)
    return pydantic.parse_obj_as(type_, value)


def validate_as(type_: Type[T], value: Any) -> T:
    """`validate` for a class, typed as its instance."""
    return cast(T, validate(type_, value))
