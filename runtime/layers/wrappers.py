"""Wrapper, the base of layers that wrap another; TimeDistributed, a layer applied to every
step of a sequence; and Pipeline, layers applied one after the other."""

from __future__ import annotations

import inspect
from typing import Any

from ..ops import array_math
from ..ops.core import convert_to_tensor
from .base import Layer
from .serialization import deserialize_layer, serialize_layer


class Wrapper(Layer):
    """Keras's base class of layers that wrap another `layer`: it builds the inner layer
    with the wrapper and keeps it in its config (`{"layer": <the layer's config>}`);
    subclasses define `call`."""

    def __init__(self, layer: Layer, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {layer} supplied to Wrapper isn't a supported layer "
                             "type. Please ensure wrapped layer is a valid Keras layer.")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None) -> None:
        if not self.layer.built:
            self.layer.build(input_shape)
        self.built = True

    def call(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} wraps {self.layer.name}: a Wrapper "
                                  "subclass defines call(), calling self.layer as it needs.")


def _takes(layer: Layer, parameter: str) -> bool:
    params = inspect.signature(layer.call).parameters
    return parameter in params or any(p.kind is inspect.Parameter.VAR_KEYWORD
                                      for p in params.values())


def _dims(x, first: int) -> list:
    """The sizes of x's axes from `first` on: ints where known, scalar tensors elsewhere."""
    known = x.shape.as_list()
    if all(d is not None for d in known[first:]):
        return known[first:]
    dynamic = array_math.shape(x)
    return [d if d is not None else dynamic[i] for i, d in enumerate(known)][first:]


class TimeDistributed(Layer):
    """Applies `layer` to every step of `[batch, steps, ...]` inputs (the steps are folded
    into the batch, so one set of weights serves every step): `[batch, steps, ...out]`.

    The output keeps the input's mask; a `layer` whose `call` takes `mask` gets each
    step's mask.
    """

    _passes_masks = True

    def __init__(self, layer: Layer, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(f"TimeDistributed needs a keras layer instance, got {layer!r}.")
        super().__init__(**kwargs)
        self.layer = layer

    def call(self, inputs, training=None, mask=None):
        x = convert_to_tensor(inputs)
        if x.shape.rank is not None and x.shape.rank < 3:
            raise ValueError(f"{self.name} needs inputs of rank 3 or more ([batch, steps, "
                             f"...]), got shape {x.shape}.")
        outer = _dims(x, 0)[:2]
        folded = array_math.reshape(x, [-1, *_dims(x, 2)])
        kwargs: dict = {}
        if training is not None and _takes(self.layer, "training"):
            kwargs["training"] = training
        if mask is not None and _takes(self.layer, "mask"):
            kwargs["mask"] = self._folded_mask(x, mask)
        y = convert_to_tensor(self.layer(folded, **kwargs))
        batch, steps = outer
        if isinstance(batch, int) and isinstance(steps, int):
            return array_math.reshape(y, [batch, steps, *_dims(y, 1)])
        lead = [-1, steps] if isinstance(steps, int) else [batch, -1] \
            if isinstance(batch, int) else [batch, steps]
        return array_math.reshape(y, [*lead, *_dims(y, 1)])

    def _folded_mask(self, x, mask):
        mask = convert_to_tensor(mask)
        given, expected = mask.shape.as_list(), x.shape.as_list()[:2]
        if mask.shape.rank is not None and (len(given) < 2 or any(
                a is not None and b is not None and a != b
                for a, b in zip(given[:2], expected))):
            raise ValueError(f"{self.name}: the mask's shape {mask.shape} does not start with "
                             f"the inputs' batch and steps {expected}.")
        return array_math.reshape(mask, [-1, *_dims(mask, 2)])


class Pipeline(Layer):
    """Applies `layers` one after the other, as a plain layer (not a Model): a preprocessing
    or augmentation pipeline to map over a dataset. `call(inputs, training=True, mask=None)`
    gives `training` (True by default, so augmentations act) and the mask each layer's
    output carries to the layers whose `call` takes them. Its config holds the layers'."""

    _convert_input_args = False  # inputs reach the first layer as given

    def __init__(self, layers, name: str | None = None) -> None:
        super().__init__(name=name)
        layers = list(layers)
        for layer in layers:
            if not isinstance(layer, Layer):
                raise TypeError(f"Pipeline takes a list of layers, got {layer!r:.80}.")
        self._pipeline_layers = layers

    @property
    def layers(self) -> list:
        return list(self._pipeline_layers)

    def call(self, inputs, training=True, mask=None):
        outputs = inputs
        for layer in self._pipeline_layers:
            kwargs = {}
            if mask is not None and _takes(layer, "mask"):
                kwargs["mask"] = mask
            if training is not None and _takes(layer, "training"):
                kwargs["training"] = training
            outputs = layer(outputs, **kwargs)
            mask = getattr(outputs, "_keras_mask", None)
        return outputs

    def get_config(self) -> dict:
        return {"layers": [serialize_layer(layer) for layer in self._pipeline_layers],
                "name": self.name}

    @classmethod
    def from_config(cls, config: dict) -> "Pipeline":
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError("A Pipeline's config needs `layers`, a list of serialized "
                             f"layers; got layers={layers!r:.80}.")
        return cls([deserialize_layer(item) for item in layers],
                   **{k: v for k, v in config.items() if k != "layers"})
