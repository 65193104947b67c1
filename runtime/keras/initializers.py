"""`keras.initializers`: weight initializers (`runtime.layers.initializers`) by class and name."""

from __future__ import annotations

from ..layers import serialization as _serialization
from ..layers.initializers import (
    STFT,
    Constant,
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    Identity,
    Initializer,
    LecunNormal,
    LecunUniform,
    Ones,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
    Zeros,
    get,
)

zeros = Zeros
ones = Ones
constant = Constant
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
he_uniform = HeUniform
he_normal = HeNormal
random_uniform = RandomUniform
random_normal = RandomNormal
lecun_uniform, lecun_normal = LecunUniform, LecunNormal
truncated_normal, variance_scaling = TruncatedNormal, VarianceScaling
identity = IdentityInitializer = Identity
orthogonal = OrthogonalInitializer = Orthogonal
stft = STFTInitializer = STFT


def serialize(initializer) -> dict | str:
    """`{"class_name", "config"}` of an initializer (a name stays a name)."""
    return _serialization.serialize_value(initializer)


def deserialize(config, custom_objects: dict | None = None):
    """The initializer described by `serialize`'s result."""
    if isinstance(config, str):
        return get(config)
    with _serialization.custom_object_scope(custom_objects or {}):
        return _serialization.deserialize_value(config)


__all__ = ["Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Initializer",
           "Ones", "RandomNormal", "RandomUniform", "VarianceScaling", "Zeros", "get",
           "serialize", "deserialize", "zeros", "ones", "constant", "glorot_uniform",
           "glorot_normal", "he_uniform", "he_normal", "random_uniform", "random_normal",
           "Identity", "IdentityInitializer", "LecunNormal", "LecunUniform", "Orthogonal",
           "OrthogonalInitializer", "TruncatedNormal", "identity", "lecun_normal",
           "lecun_uniform", "orthogonal", "truncated_normal", "variance_scaling", "STFT",
           "STFTInitializer", "stft"]
