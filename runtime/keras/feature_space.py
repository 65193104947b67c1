"""`keras.utils.FeatureSpace`: Keras's one-stop preprocessing of structured data.

    feature_space = keras.utils.FeatureSpace(
        features={"age": "float_normalized", "city": "string_categorical",
                  "rooms": "integer_categorical"},
        crosses=[("city", "rooms")], output_mode="concat")
    feature_space.adapt(dataset)            # a Dataset of dicts, or a dict of arrays
    vectors = dataset.map(feature_space)    # one float32 vector per example

Each feature is preprocessed by one of the runtime's preprocessing layers (Normalization,
Rescaling, Discretization, IntegerLookup, StringLookup, Hashing), crosses by HashedCrossing
over the preprocessed values, and "one_hot" features are encoded by CategoryEncoding
(multi_hot over a trailing axis of 1), as Keras does. The features come in the order of
their sorted names, then the crosses in the order of theirs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from .. import nest
from .. import tensor as _tensor
from ..data import Dataset
from ..layers.base import Layer, _unique_name
from ..layers.core import Rescaling
from ..layers.functional import Input, KerasTensor
from ..layers.merging import Concatenate
from ..layers.normalization import Normalization
from ..layers.preprocessing import (
    CategoryEncoding,
    Discretization,
    Hashing,
    IntegerLookup,
    StringLookup,
    TextVectorization,
)
from ..layers.preprocessing._common import as_numpy
from ..layers.preprocessing.hashed_crossing import HashedCrossing
from ..ops import array_math
from ..ops.core import convert_to_tensor


class Cross:
    """A feature cross: the features `feature_names` hashed together into `crossing_dim`
    bins; `output_mode` "one_hot" (default) or "int". Its name joins the names with
    "_X_"."""

    def __init__(self, feature_names, crossing_dim, output_mode: str = "one_hot") -> None:
        if output_mode not in {"int", "one_hot"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{{'int', 'one_hot'}}. Received: output_mode={output_mode}")
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self) -> str:
        return "_X_".join(self.feature_names)

    def get_config(self) -> dict:
        return {"feature_names": self.feature_names, "crossing_dim": self.crossing_dim,
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config: dict) -> "Cross":
        return cls(**config)

    def __repr__(self) -> str:
        return f"<Cross {self.name} crossing_dim={self.crossing_dim} {self.output_mode}>"


class Feature:
    """A feature: its input `dtype`, the `preprocessor` layer applied to it, and its
    `output_mode` ("int", "one_hot" or "float")."""

    def __init__(self, dtype, preprocessor, output_mode: str) -> None:
        if output_mode not in {"int", "one_hot", "float"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{{'int', 'one_hot', 'float'}}. Received: output_mode={output_mode}")
        if not callable(preprocessor):
            raise TypeError(f"FeatureSpace.feature: `preprocessor` must be a layer (a callable), "
                            f"got {preprocessor!r}.")
        self.dtype = dtype
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self) -> dict:
        return {"dtype": self.dtype, "preprocessor": self.preprocessor,
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config: dict) -> "Feature":
        return cls(**config)

    def __repr__(self) -> str:
        return (f"<Feature dtype={self.dtype} preprocessor={type(self.preprocessor).__name__} "
                f"{self.output_mode}>")


class _Identity(Layer):
    """The "float" feature's preprocessor: the values cast to float32."""

    def call(self, inputs):
        return array_math.cast(convert_to_tensor(inputs), self.dtype)


_FEATURE_TYPES = ("float", "float_normalized", "float_rescaled", "float_discretized",
                  "integer_categorical", "string_categorical", "integer_hashed", "string_hashed")


def _is_int(dtype) -> bool:
    return _dtypes.as_dtype(dtype).is_integer


class FeatureSpace(Layer):
    """Keras's `FeatureSpace(features, output_mode="concat", crosses=None, crossing_dim=32,
    hashing_dim=32, num_discretization_bins=32, name=None)`.

    `features` maps each input name to a feature: a `FeatureSpace.float()`, ... spec, or the
    name of one ("float", "float_normalized", "float_rescaled", "float_discretized",
    "integer_categorical", "string_categorical", "integer_hashed", "string_hashed", with the
    default arguments). `crosses` lists tuples of feature names (hashed into `crossing_dim`
    bins) or `FeatureSpace.cross(...)` specs. `output_mode` "concat" gives one float32 vector
    per example; "dict" a dict of the encoded features and crosses.

    Call `adapt(dataset)` (an `rt.data.Dataset` of dicts or a dict of arrays) before use,
    then call the FeatureSpace on a dict of values (scalars, batches `(n,)` or `(n, 1)`),
    eagerly or in a dataset pipeline (`ds.map(feature_space)`). `get_inputs()` and
    `get_encoded_features()` give Keras inputs and tensors to build a functional model on.
    `preprocessors` and `crossers` hold the layers. Saving a FeatureSpace to a `.keras`
    file is not implemented here (`save` raises NotImplementedError).
    """

    # -- feature specs -------------------------------------------------------------------
    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode: str = "one_hot") -> Cross:
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode) -> Feature:
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None) -> Feature:  # noqa: A003 - Keras's name
        name = name or _unique_name("float")
        return Feature("float32", _Identity(dtype="float32", name=f"{name}_preprocessor"),
                       "float")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None) -> Feature:
        name = name or _unique_name("float_rescaled")
        return Feature("float32", Rescaling(scale=scale, offset=offset,
                                            name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_normalized(cls, name=None) -> Feature:
        name = name or _unique_name("float_normalized")
        return Feature("float32", Normalization(axis=-1, name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_discretized(cls, num_bins, bin_boundaries=None, output_mode: str = "one_hot",
                          name=None) -> Feature:
        name = name or _unique_name("float_discretized")
        return Feature("float32", Discretization(num_bins=num_bins, bin_boundaries=bin_boundaries,
                                                 name=f"{name}_preprocessor"), output_mode)

    @classmethod
    def integer_categorical(cls, max_tokens=None, num_oov_indices: int = 1,
                            output_mode: str = "one_hot", name=None) -> Feature:
        name = name or _unique_name("integer_categorical")
        return Feature("int32", IntegerLookup(name=f"{name}_preprocessor", max_tokens=max_tokens,
                                              num_oov_indices=num_oov_indices), output_mode)

    @classmethod
    def string_categorical(cls, max_tokens=None, num_oov_indices: int = 1,
                           output_mode: str = "one_hot", name=None) -> Feature:
        name = name or _unique_name("string_categorical")
        return Feature("string", StringLookup(name=f"{name}_preprocessor", max_tokens=max_tokens,
                                              num_oov_indices=num_oov_indices), output_mode)

    @classmethod
    def string_hashed(cls, num_bins, output_mode: str = "one_hot", name=None) -> Feature:
        name = name or _unique_name("string_hashed")
        return Feature("string", Hashing(name=f"{name}_preprocessor", num_bins=num_bins),
                       output_mode)

    @classmethod
    def integer_hashed(cls, num_bins, output_mode: str = "one_hot", name=None) -> Feature:
        name = name or _unique_name("integer_hashed")
        return Feature("int32", Hashing(name=f"{name}_preprocessor", num_bins=num_bins),
                       output_mode)

    # -- construction ----------------------------------------------------------------------
    def __init__(self, features, output_mode: str = "concat", crosses=None, crossing_dim=32,
                 hashing_dim=32, num_discretization_bins=32, name=None) -> None:
        super().__init__(name=name)
        if not features:
            raise ValueError("The `features` argument cannot be None or empty.")
        if not isinstance(features, dict):
            raise TypeError(f"FeatureSpace: `features` must be a dict of feature names to "
                            f"features, got {type(features).__name__}.")
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        specs = {key: self._standardize_feature(key, value) for key, value in features.items()}
        self._specs = specs
        crosses_list: list[Cross] = []
        for cross in crosses or ():
            if isinstance(cross, dict):
                cross = Cross.from_config(cross)
            if not isinstance(cross, Cross):
                if not crossing_dim:
                    raise ValueError("When specifying `crosses`, the argument `crossing_dim` "
                                     "(dimensionality of the crossing space) should be "
                                     "specified as well.")
                cross = Cross(cross, crossing_dim=crossing_dim)
            unknown = [key for key in cross.feature_names if key not in specs]
            if unknown:
                raise ValueError("All features referenced in the `crosses` argument should be "
                                 "present in the `features` dict. Received unknown features: "
                                 f"{cross.feature_names}")
            crosses_list.append(cross)
        self._cross_specs = crosses_list
        self.crosses_by_name = {cross.name: cross for cross in crosses_list}
        if output_mode not in {"dict", "concat"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{{'dict', 'concat'}}. Received: output_mode={output_mode}")
        self.output_mode = output_mode
        self.inputs = {key: Input(shape=(1,), dtype=spec.dtype, name=key)
                       for key, spec in specs.items()}
        self.preprocessors = {key: spec.preprocessor for key, spec in specs.items()}
        self.crossers = {cross.name: HashedCrossing(cross.crossing_dim, name=cross.name)
                         for cross in crosses_list}
        self._given_vocabularies = {key for key, layer in self.preprocessors.items()
                                    if isinstance(layer, TextVectorization)
                                    and layer.get_vocabulary(include_special_tokens=False)}
        self.one_hot_encoders: dict = {}
        self.encoded_features = None
        self.concat = None
        self._is_adapted = False
        self._sublayers_built = False

    @property
    def features(self) -> dict:
        """The feature specs by name."""
        return self._specs

    @property
    def crosses(self) -> list:
        """The cross specs."""
        return self._cross_specs

    def _standardize_feature(self, name: str, feature) -> Feature:
        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict):
            return Feature.from_config(feature)
        if feature in ("integer_hashed", "string_hashed"):
            return getattr(self, feature)(self.hashing_dim, name=name)
        if feature == "float_discretized":
            return self.float_discretized(name=name, num_bins=self.num_discretization_bins)
        if isinstance(feature, str) and feature in _FEATURE_TYPES:
            return getattr(self, feature)(name=name)
        raise ValueError(f"Invalid feature type: {feature}")

    # -- adapting --------------------------------------------------------------------------
    def _list_adaptable_preprocessors(self) -> list:
        names = []
        for key in self._specs:
            layer = self.preprocessors[key]
            if isinstance(layer, Normalization) and layer.input_mean is not None:
                continue  # given mean and variance
            if key in self._given_vocabularies:
                continue  # a TextVectorization given its vocabulary
            if isinstance(layer, Discretization) and layer.num_bins is None:
                continue  # given boundaries
            if hasattr(layer, "adapt"):
                names.append(key)
        return names

    def adapt(self, dataset) -> None:
        """Adapts each adaptable preprocessor (Normalization, the lookups, Discretization,
        ...) to its feature's values in `dataset` (an `rt.data.Dataset` of dicts, batched or
        not, or a dict of arrays or lists), then builds the encoders. The dataset is read
        once, and each preprocessor adapts to all of its feature's values at once (Keras
        adapts each on the batches of a mapped dataset: the same vocabularies, and the same
        statistics up to float rounding)."""
        if not isinstance(dataset, Dataset):
            if not isinstance(dataset, dict):
                raise ValueError("`adapt()` can only be called on a tf.data.Dataset or a dict "
                                 f"of arrays/lists. Received instead: {dataset} (of type "
                                 f"{type(dataset)})")
            dataset = Dataset.from_tensor_slices(dataset)
        names = self._list_adaptable_preprocessors()
        if names:
            batches: dict = {key: [] for key in names}
            for element in dataset:  # one pass over the data for every feature
                for key in names:
                    value = as_numpy(element[key])
                    # scalars and rank-1 batches get a trailing axis, to reduce over the batch
                    batches[key].append(value.reshape(1, 1) if value.ndim == 0 else
                                        value[:, None] if value.ndim == 1 else value)
            for key in names:
                if not batches[key]:
                    raise ValueError("FeatureSpace.adapt received no data (an empty "
                                     "dataset).")
                self.preprocessors[key].adapt(np.concatenate(batches[key], axis=0))
        self._is_adapted = True
        self.get_encoded_features()
        self.built = True
        self._sublayers_built = True

    def _check_if_adapted(self) -> None:
        if not self._is_adapted:
            if self._list_adaptable_preprocessors():
                raise ValueError("You need to call `.adapt(dataset)` on the FeatureSpace "
                                 "before you can start using it.")
            self._is_adapted = True

    def _check_if_built(self) -> None:
        if not self._sublayers_built:
            self._check_if_adapted()
            self.get_encoded_features()
            self._sublayers_built = True

    def get_inputs(self) -> dict:
        """The Keras `Input` of each feature (shape `(None, 1)`), by name."""
        self._check_if_built()
        return self.inputs

    def get_encoded_features(self):
        """The encoded Keras tensors of `get_inputs()` (one tensor in concat mode, a dict in
        dict mode), to build a functional model on."""
        self._check_if_adapted()
        if self.encoded_features is None:
            preprocessed = self._preprocess_features(self.inputs)
            crossed = self._cross_features(preprocessed)
            self.encoded_features = self._merge_features(preprocessed, crossed)
        return self.encoded_features

    # -- encoding ----------------------------------------------------------------------------
    def _preprocess_features(self, features: dict) -> dict:
        return {key: self.preprocessors[key](features[key]) for key in features}

    def _cross_features(self, features: dict) -> dict:
        return {cross.name: self.crossers[cross.name]([features[key]
                                                       for key in cross.feature_names])
                for cross in self._cross_specs}

    def _cardinality(self, name: str) -> int:
        layer = self.preprocessors.get(name) or self.crossers.get(name)
        if isinstance(layer, (IntegerLookup, StringLookup)):
            return layer.vocabulary_size()
        if isinstance(layer, CategoryEncoding):
            return layer.num_tokens
        if isinstance(layer, Discretization):
            return layer.num_bins if layer.num_bins is not None else len(layer.bin_boundaries) + 1
        if isinstance(layer, (HashedCrossing, Hashing)):
            return layer.num_bins
        raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. However it isn't a "
                         "standard feature and the dimensionality of its output space is not "
                         "known, thus it cannot be one-hot encoded. Try using "
                         "`output_mode='int'`.")

    def _merge_features(self, preprocessed: dict, crossed: dict):
        names = sorted(preprocessed) + sorted(crossed)
        values = {**preprocessed, **crossed}
        specs = {**self._specs, **self.crosses_by_name}
        outputs = {}
        for name in names:
            feature = values[name]
            if not self._sublayers_built and specs[name].output_mode == "one_hot":
                dtype = nest.flatten(feature)[0].dtype
                if not _is_int(dtype):
                    raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. Thus its "
                                     "preprocessor should return an integer dtype. Instead it "
                                     f"returns a {_dtypes.as_dtype(dtype).name} dtype.")
                self.one_hot_encoders[name] = CategoryEncoding(
                    num_tokens=self._cardinality(name), output_mode="multi_hot")
            encoder = self.one_hot_encoders.get(name)
            if encoder is not None:
                feature = encoder(feature)
            if self.output_mode == "concat" and not self._sublayers_built:
                dtype = _dtypes.as_dtype(feature.dtype)
                if dtype.is_integer or dtype == _dtypes.string:
                    raise ValueError(f"Cannot concatenate features because feature '{name}' "
                                     f"has not been encoded (it has dtype {dtype.name}). "
                                     "Consider using `output_mode='dict'`.")
            outputs[name] = feature
        if self.output_mode == "dict":
            return outputs
        if self.concat is None:
            self.concat = Concatenate(axis=-1)
        parts = [outputs[name] for name in names]
        if any(isinstance(part, KerasTensor) for part in parts):
            return self.concat(parts)
        return array_math.concat(parts, axis=-1)

    def __call__(self, data):
        self._check_if_built()
        if not isinstance(data, dict):
            raise ValueError("A FeatureSpace can only be called with a dict. Received: "
                             f"data={data} (of type {type(data)})")
        converted, rebatched = {}, False
        for key, value in data.items():
            if not _tensor.is_tensor(value):
                value = convert_to_tensor(np.asarray(value) if not isinstance(
                    value, (list, tuple, int, float, str, bytes)) else value)
            if value.shape.rank == 0:
                value = array_math.reshape(value, (1, 1))
                rebatched = True
            elif value.shape.rank == 1:
                value = array_math.expand_dims(value, -1)
            converted[key] = value
        missing = [key for key in self._specs if key not in converted]
        if missing:
            raise ValueError(f"FeatureSpace: the data has no value for the features {missing}; "
                             f"it has {sorted(converted)}.")
        preprocessed = self._preprocess_features({key: converted[key] for key in self._specs})
        crossed = self._cross_features(preprocessed)
        merged = self._merge_features(preprocessed, crossed)
        if rebatched:
            if self.output_mode == "concat":
                if merged.shape[0] not in (1, None):
                    raise ValueError("Expected rebatched data to have batch size 1. Received: "
                                     f"shape={merged.shape}")
                merged = array_math.squeeze(merged, axis=0)
            else:
                merged = {key: (array_math.squeeze(x, axis=0)
                                if x.shape.rank == 2 and x.shape[0] == 1 else x)
                          for key, x in merged.items()}
        return merged

    def get_config(self) -> dict:
        return {"features": dict(self._specs), "output_mode": self.output_mode,
                "crosses": list(self._cross_specs), "crossing_dim": self.crossing_dim,
                "hashing_dim": self.hashing_dim,
                "num_discretization_bins": self.num_discretization_bins}

    @classmethod
    def from_config(cls, config: dict) -> "FeatureSpace":
        return cls(**config)

    def save(self, filepath, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("FeatureSpace.save (a .keras file of the FeatureSpace) is not "
                                  "implemented here; keep the adapted FeatureSpace object, or "
                                  "save a functional model built on get_encoded_features().")


__all__ = ["FeatureSpace"]
