"""`rt.lite`: TensorFlow Lite's Python API (`tf.lite`) over saved functions.

    converter = rt.lite.TFLiteConverter.from_keras_model(model)
    data = converter.convert()                       # bytes: write them to model.tflite
    interpreter = rt.lite.Interpreter(model_content=data)   # or model_path="model.tflite"
    runner = interpreter.get_signature_runner("serving_default")
    runner(keras_tensor=x)["output_0"]               # the model's predictions, as NumPy

`convert()` returns the model's serving signatures in the saved-function format of
`rt.saved_model` (`dumps`: the graph as data and the variables' values, a zip), not a TFLite
flatbuffer: the interpreter loads it with `rt.saved_model.loads`, which checks it against the
op registry and runs, imports or unpickles nothing from it, and runs it on the NumPy tier.
The float model computes what the Keras model's `predict` computes (within float32
rounding). The interpreter's tensors are the signatures' inputs and outputs (TFLite's
intermediate tensors do not exist here), numbered from 0 in signature order; their details
are TFLite's dicts (`name`, `index`, `shape`, `shape_signature`, `dtype`, `quantization`,
...). Quantization (`optimizations`, a `representative_dataset`, int8 or float16 targets)
is not implemented and raises at `convert()`, naming the option.
"""

from __future__ import annotations

import difflib
import enum
import os
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from . import nest
from .arguments import strict_keywords
from .ops.core import convert_to_tensor
from .saved_model import dumps as _dumps
from .saved_model import keras_export as _keras_export
from .saved_model import load as _load
from .saved_model import loads as _loads

__all__ = ["Interpreter", "OpsSet", "Optimize", "RepresentativeDataset", "TFLiteConverter",
           "TargetSpec"]

DEFAULT_SIGNATURE = "serving_default"


class Optimize(enum.Enum):
    """TFLite's optimization goals (`converter.optimizations`); all of them quantize."""

    DEFAULT = "DEFAULT"
    OPTIMIZE_FOR_SIZE = "OPTIMIZE_FOR_SIZE"
    OPTIMIZE_FOR_LATENCY = "OPTIMIZE_FOR_LATENCY"
    EXPERIMENTAL_SPARSITY = "EXPERIMENTAL_SPARSITY"

    def __str__(self) -> str:
        return self.value


class OpsSet(enum.Enum):
    """The op sets a converted model may use (`target_spec.supported_ops`)."""

    TFLITE_BUILTINS = "TFLITE_BUILTINS"
    SELECT_TF_OPS = "SELECT_TF_OPS"
    TFLITE_BUILTINS_INT8 = "TFLITE_BUILTINS_INT8"
    EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 = \
        "EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8"
    EXPERIMENTAL_STABLEHLO_OPS = "EXPERIMENTAL_STABLEHLO_OPS"

    def __str__(self) -> str:
        return self.value


_FLOAT_OPS = {OpsSet.TFLITE_BUILTINS, OpsSet.SELECT_TF_OPS}


class TargetSpec:
    """The target of a conversion: `supported_ops` (a set of `OpsSet`) and
    `supported_types` (a set of dtypes; float16 or int8 would quantize)."""

    @strict_keywords("rt.lite.TargetSpec")
    def __init__(self, supported_ops=None, supported_types=None,
                 experimental_select_user_tf_ops=None, supported_backends=None) -> None:
        self.supported_ops = set(supported_ops) if supported_ops else {OpsSet.TFLITE_BUILTINS}
        self.supported_types = set(supported_types) if supported_types else set()
        self.experimental_select_user_tf_ops = list(experimental_select_user_tf_ops or [])
        self.supported_backends = supported_backends


class RepresentativeDataset:
    """A generator of sample inputs for full-integer quantization (`input_gen`)."""

    def __init__(self, input_gen) -> None:
        self.input_gen = input_gen


# the converter attributes TensorFlow's TFLiteConverter has; those that would change the
# converted model are checked by convert()
_CONVERTER_OPTIONS = {
    "optimizations": list, "representative_dataset": lambda: None,
    "target_spec": TargetSpec, "inference_input_type": lambda: _dtypes.float32,
    "inference_output_type": lambda: _dtypes.float32, "allow_custom_ops": lambda: False,
    "experimental_new_converter": lambda: True, "experimental_new_quantizer": lambda: True,
    "experimental_new_dynamic_range_quantizer": lambda: True,
    "experimental_enable_resource_variables": lambda: True,
    "exclude_conversion_metadata": lambda: False, "unfold_batchmatmul": lambda: False,
    "legalize_custom_tensor_list_ops": lambda: False, "serialize_debug_metadata": lambda: False,
    "experimental_lower_to_saved_model": lambda: True, "enable_timing": lambda: False,
    "experimental_use_stablehlo_quantizer": lambda: False,
    "experimental_stablehlo_quantizer_config": lambda: None,
    "canonicalizing_inf_as_min_max_float": lambda: True,
    "elide_elementsattrs_if_larger": lambda: None, "ir_dump_dir": lambda: None,
    "ir_dump_func_regex": lambda: None, "ir_dump_pass_regex": lambda: None,
    "print_ir_after": lambda: None, "print_ir_before": lambda: None,
    "print_ir_module_scope": lambda: None, "model_origin_framework": lambda: "UNSET",
    "saved_model_dir": lambda: None,
}


class TFLiteConverter:
    """Converts a Keras model, a saved model directory or concrete functions (use the
    `from_*` class methods); `convert()` returns the bytes an `Interpreter` runs."""

    def __init__(self, signatures: dict) -> None:
        object.__setattr__(self, "_signatures", dict(signatures))
        for name, default in _CONVERTER_OPTIONS.items():
            object.__setattr__(self, name, default())

    def __setattr__(self, name: str, value) -> None:
        if name not in _CONVERTER_OPTIONS:
            close = difflib.get_close_matches(name, _CONVERTER_OPTIONS, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise AttributeError(f"TFLiteConverter has no option {name!r}.{hint}")
        object.__setattr__(self, name, value)

    @classmethod
    def from_keras_model(cls, model) -> "TFLiteConverter":
        """The model's `serving_default` signature, its inputs named as its input Keras
        tensors (`keras_tensor_15`) and its outputs `output_0`, ... (as Keras 3's export)."""
        if not hasattr(model, "layers") or not callable(model):
            raise TypeError(f"from_keras_model needs a Keras model, got {type(model).__name__}.")
        signature = _keras_export.export_signatures(model)[DEFAULT_SIGNATURE]
        return cls({DEFAULT_SIGNATURE: signature})

    @classmethod
    @strict_keywords("TFLiteConverter.from_saved_model")
    def from_saved_model(cls, saved_model_dir, signature_keys=None,
                         tags=None) -> "TFLiteConverter":
        """The signatures `signature_keys` (default: all) of a directory written by
        `rt.saved_model.save` or `Model.export`; `tags` is accepted (one graph is saved)."""
        loaded = _load(os.fspath(saved_model_dir))
        keys = list(loaded.signatures) if signature_keys is None else list(signature_keys)
        if not keys:
            raise ValueError(f"The saved model in {os.fspath(saved_model_dir)!r} has no "
                             "signatures; save it with signatures= or from a Keras model.")
        for key in keys:
            if key not in loaded.signatures:
                raise ValueError(f"Invalid signature key {key!r}: the saved model has "
                                 f"{sorted(loaded.signatures)}.")
        converter = cls({key: loaded.signatures[key] for key in keys})
        object.__setattr__(converter, "saved_model_dir", os.fspath(saved_model_dir))
        return converter

    @classmethod
    def from_concrete_functions(cls, funcs, trackable_obj=None) -> "TFLiteConverter":
        """Concrete functions (`fn.get_concrete_function(...)`); one is `serving_default`,
        several are named by their functions' names. `trackable_obj` (what owns their
        variables, for TensorFlow) is not needed: the variables they read are saved."""
        funcs = list(funcs)
        if not funcs or not all(hasattr(f, "structured_input_signature") for f in funcs):
            raise ValueError("from_concrete_functions needs a list of concrete functions "
                             "(fn.get_concrete_function(...)).")
        if len(funcs) == 1:
            return cls({DEFAULT_SIGNATURE: funcs[0]})
        names = [getattr(f, "name", f"function_{i}") for i, f in enumerate(funcs)]
        if len(set(names)) != len(names):
            raise ValueError(f"from_concrete_functions: the functions' names {names} must be "
                             "different; they name the signatures.")
        return cls(dict(zip(names, funcs)))

    def convert(self) -> bytes:
        """The converted model: its signatures and variable values as saved-function bytes
        (see the module doc). Raises NotImplementedError for a quantizing option."""
        self._check_options()
        # the functions alone (with the variables they read), whatever they came from
        return _dumps(None, signatures=self._signatures)

    def _check_options(self) -> None:
        if self.optimizations:
            names = ", ".join(f"tf.lite.Optimize.{getattr(o, 'name', o)}"
                              for o in self.optimizations)
            raise NotImplementedError(
                f"TFLiteConverter: optimizations=[{names}] is not implemented: TFLite's "
                "dynamic-range quantization (int8 weights, activations quantized per batch "
                "row at run time) is not reproduced here. Leave optimizations empty for the "
                "float model (the Keras model's own results).")
        if self.representative_dataset is not None:
            raise NotImplementedError("TFLiteConverter: representative_dataset (full-integer "
                                      "quantization) is not implemented.")
        spec = self.target_spec
        if not isinstance(spec, TargetSpec):
            raise TypeError(f"TFLiteConverter.target_spec must be a TargetSpec, got "
                            f"{type(spec).__name__}.")
        unknown = set(spec.supported_ops) - _FLOAT_OPS
        if unknown:
            raise NotImplementedError(
                f"TFLiteConverter: target_spec.supported_ops {sorted(map(str, unknown))} "
                "quantize (int8/int16 kernels), which is not implemented; use "
                "TFLITE_BUILTINS or SELECT_TF_OPS.")
        if spec.supported_types:
            raise NotImplementedError(
                f"TFLiteConverter: target_spec.supported_types="
                f"{sorted(_dtypes.as_dtype(t).name for t in spec.supported_types)} "
                "(float16 or int8 quantization) is not implemented.")
        for option in ("inference_input_type", "inference_output_type"):
            value = getattr(self, option)
            if _dtypes.as_dtype(value) != _dtypes.float32:
                raise NotImplementedError(
                    f"TFLiteConverter: {option}={_dtypes.as_dtype(value).name} (a quantized "
                    "interface) is not implemented; the converted model takes and returns "
                    "float32.")


# -- the interpreter --------------------------------------------------------------------------

def _numpy_type(dtype):
    return _dtypes.as_dtype(dtype).as_numpy_dtype


def _details(name: str, index: int, shape: list, signature: list, dtype) -> dict:
    """TFLite's tensor details (a float tensor: no quantization, no sparsity)."""
    return {"name": name, "index": index, "shape": np.array(shape, dtype=np.int32),
            "shape_signature": np.array(signature, dtype=np.int32),
            "dtype": _numpy_type(dtype), "quantization": (0.0, 0),
            "quantization_parameters": {"scales": np.array([], dtype=np.float32),
                                        "zero_points": np.array([], dtype=np.int32),
                                        "quantized_dimension": 0, "block_size": 0},
            "sparsity_parameters": {}}


class _Tensor:
    """One input or output tensor of the interpreter."""

    def __init__(self, name: str, index: int, key: str, spec) -> None:
        self.name, self.index, self.key = name, index, key
        dims = spec.shape.as_list() if spec.shape.rank is not None else []
        self.signature = [-1 if d is None else int(d) for d in dims]
        self.shape = [1 if d is None else int(d) for d in dims]
        self.dtype = spec.dtype
        self.value: np.ndarray | None = None

    def details(self) -> dict:
        return _details(self.name, self.index, self.shape, self.signature, self.dtype)


class _Signature:
    """A signature's function and its input and output tensors, by key."""

    def __init__(self, key: str, function, first_index: int) -> None:
        self.key = key
        self.function = function
        args, kwargs = function.structured_input_signature
        specs = list(nest.flatten(args)) + [kwargs[k] for k in sorted(kwargs)]
        known = list(function.arg_names)
        names = [known[i] if i < len(known) and known[i] else (s.name or f"args_{i}")
                 for i, s in enumerate(specs[:len(nest.flatten(args))])] + sorted(kwargs)
        self.inputs = [_Tensor(f"{key}_{n}:0", first_index + i, n, s)
                       for i, (n, s) in enumerate(zip(names, specs))]
        outputs = function.structured_outputs
        if not isinstance(outputs, dict):
            outputs = {f"output_{i}": o for i, o in enumerate(nest.flatten(outputs))}
        start = first_index + len(self.inputs)
        self.outputs = [_Tensor(f"StatefulPartitionedCall:{i}", start + i, k, outputs[k])
                        for i, k in enumerate(outputs)]

    def run(self, values: dict) -> dict:
        result = self.function(**{k: convert_to_tensor(v) for k, v in values.items()})
        if not isinstance(result, dict):
            result = {f"output_{i}": o for i, o in enumerate(nest.flatten(result))}
        return {k: np.asarray(v.numpy() if hasattr(v, "numpy") else v) for k, v in result.items()}


def _read_model(model_path, model_content) -> bytes:
    if (model_path is None) == (model_content is None):
        raise ValueError("Interpreter needs either model_path or model_content (one of them).")
    if model_path is not None:
        with open(os.fspath(model_path), "rb") as f:
            return f.read()
    if not isinstance(model_content, (bytes, bytearray, memoryview)):
        raise TypeError(f"Interpreter(model_content=...) takes bytes, got "
                        f"{type(model_content).__name__}.")
    return bytes(model_content)


class Interpreter:
    """Runs a model `TFLiteConverter.convert()` wrote (see the module doc): by signature
    (`get_signature_runner`), or through its tensors (`allocate_tensors`, `set_tensor`,
    `invoke`, `get_tensor`) for the first signature."""

    @strict_keywords("rt.lite.Interpreter")
    def __init__(self, model_path=None, model_content=None, experimental_delegates=None,
                 num_threads=None, experimental_op_resolver_type=None,
                 experimental_preserve_all_tensors: bool = False,
                 experimental_disable_delegate_clustering: bool = False,
                 experimental_default_delegate_latest_features: bool = False) -> None:
        data = _read_model(model_path, model_content)
        if data[4:8] == b"TFL3":
            raise ValueError("This is a TFLite flatbuffer (from TensorFlow's converter); the "
                             "interpreter here runs the models rt.lite.TFLiteConverter writes.")
        if experimental_delegates:
            raise NotImplementedError("Interpreter(experimental_delegates=...) is not "
                                      "implemented: the model runs on the NumPy tier.")
        if num_threads is not None and (not isinstance(num_threads, int) or num_threads < -1):
            raise ValueError(f"num_threads should be an integer >= -1, got {num_threads!r}.")
        try:
            loaded = _loads(data)
        except ValueError as e:
            raise ValueError(f"Could not read the model: {e}") from None
        self._signatures: dict[str, _Signature] = {}
        index = 0
        for key, function in loaded.signatures.items():
            signature = _Signature(key, function, index)
            self._signatures[key] = signature
            index += len(signature.inputs) + len(signature.outputs)
        if not self._signatures:
            raise ValueError("The model has no signatures to run.")
        self._tensors = {t.index: t for s in self._signatures.values()
                         for t in s.inputs + s.outputs}
        self._main = next(iter(self._signatures.values()))
        self._allocated = False

    # -- tensors ---------------------------------------------------------------------------
    def get_input_details(self) -> list[dict]:
        return [t.details() for t in self._main.inputs]

    def get_output_details(self) -> list[dict]:
        return [t.details() for t in self._main.outputs]

    def get_tensor_details(self) -> list[dict]:
        return [self._tensors[i].details() for i in sorted(self._tensors)]

    def _tensor(self, index) -> _Tensor:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or \
                int(index) not in self._tensors:
            raise ValueError(f"Tensor index {index!r} out of range (the tensors are "
                             f"0..{len(self._tensors) - 1}).")
        return self._tensors[int(index)]

    def allocate_tensors(self) -> None:
        for tensor in self._main.inputs:
            if tensor.value is None or list(tensor.value.shape) != tensor.shape:
                tensor.value = np.zeros(tensor.shape, _numpy_type(tensor.dtype))
        self._allocated = True

    def resize_tensor_input(self, input_index, tensor_size, strict: bool = False) -> None:
        tensor = self._tensor(input_index)
        if tensor not in self._main.inputs:
            raise ValueError(f"Tensor {input_index} is not an input.")
        size = [int(d) for d in np.asarray(tensor_size).reshape(-1)]
        _check_resize(tensor, size, strict)
        tensor.shape = size
        self._allocated = False

    def set_tensor(self, tensor_index, value) -> None:
        tensor = self._tensor(tensor_index)
        if tensor not in self._main.inputs:
            raise ValueError(f"Cannot set tensor: tensor {tensor_index} is not an input.")
        array = np.asarray(value)
        expected = _numpy_type(tensor.dtype)
        if array.dtype != expected:
            raise ValueError(f"Cannot set tensor: Got value of type {array.dtype.name.upper()} "
                             f"but expected type {np.dtype(expected).name.upper()} for input "
                             f"{tensor.index}, name: {tensor.name} ")
        if array.ndim != len(tensor.shape):
            raise ValueError(f"Cannot set tensor: Dimension count mismatch: got {array.ndim} "
                             f"but expected {len(tensor.shape)} for input {tensor.index}.")
        for axis, (got, want) in enumerate(zip(array.shape, tensor.shape)):
            if got != want:
                raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {got} but "
                                 f"expected {want} for dimension {axis} of input "
                                 f"{tensor.index}.")
        tensor.value = array.copy()

    def get_tensor(self, tensor_index, subgraph_index: int = 0) -> np.ndarray:
        tensor = self._tensor(tensor_index)
        if tensor.value is None:
            raise ValueError(f"Tensor {tensor_index} ({tensor.name}) has no value yet: "
                             "allocate_tensors() and invoke() first.")
        return tensor.value.copy()

    def tensor(self, tensor_index):
        """A function returning the tensor's current array (TFLite's view accessor)."""
        tensor = self._tensor(tensor_index)
        return lambda: tensor.value

    def invoke(self) -> None:
        if not self._allocated:
            raise RuntimeError("Invoke called on model that is not ready.")
        outputs = self._main.run({t.key: t.value for t in self._main.inputs})
        for tensor in self._main.outputs:
            tensor.value = outputs[tensor.key]
            tensor.shape = list(tensor.value.shape)

    def reset_all_variables(self) -> None:
        """The converted model holds no variables it changes: nothing to reset."""

    def num_subgraphs(self) -> int:
        return len(self._signatures)

    # -- signatures ------------------------------------------------------------------------
    def get_signature_list(self) -> dict:
        return {key: {"inputs": sorted(t.key for t in s.inputs),
                      "outputs": sorted(t.key for t in s.outputs)}
                for key, s in self._signatures.items()}

    def get_signature_runner(self, signature_key: str | None = None) -> "SignatureRunner":
        if signature_key is None:
            if len(self._signatures) != 1:
                raise ValueError(f"SignatureDef signature_key is None and model has "
                                 f"{len(self._signatures)} Signatures. None is only allowed "
                                 "when the model has 1 SignatureDef")
            signature_key = next(iter(self._signatures))
        if signature_key not in self._signatures:
            raise ValueError(f'Invalid signature_key provided: "{signature_key}".')
        return SignatureRunner(self._signatures[signature_key])


def _check_resize(tensor: _Tensor, size: list, strict: bool) -> None:
    if len(size) != len(tensor.signature):
        raise ValueError(f"resize_tensor_input: input {tensor.index} has rank "
                         f"{len(tensor.signature)}, got the shape {size}.")
    for axis, (want, got) in enumerate(zip(tensor.signature, size)):
        if want != -1 and want != got:
            raise ValueError(f"resize_tensor_input: dimension {axis} of input {tensor.index} "
                             f"is {want} in the model's signature; only the dimensions that "
                             f"are -1 in shape_signature ({tensor.signature}) can change"
                             f"{' (strict)' if strict else ''}.")


class SignatureRunner:
    """Calls one signature with keyword arguments (its inputs' names) and returns its
    outputs as a dict of NumPy arrays."""

    def __init__(self, signature: _Signature) -> None:
        self._signature = signature

    def __call__(self, **kwargs: Any) -> dict:
        keys = {t.key for t in self._signature.inputs}
        for name in kwargs:
            if name not in keys:
                raise ValueError(f"Invalid Input name ({name}) for SignatureDef")
        missing = sorted(keys - set(kwargs))
        if missing:
            raise ValueError(f"SignatureRunner: no value for the inputs {missing}.")
        values = {}
        for tensor in self._signature.inputs:
            array = np.asarray(kwargs[tensor.key])
            expected = _numpy_type(tensor.dtype)
            if array.dtype != expected:
                raise ValueError(f"Got value of type {array.dtype.name.upper()} but expected "
                                 f"type {np.dtype(expected).name.upper()} for input "
                                 f"{tensor.key!r}.")
            _check_resize(tensor, list(array.shape), False)
            values[tensor.key] = array
        for tensor in self._signature.inputs:   # the inputs are resized to what was given
            tensor.value = values[tensor.key]
            tensor.shape = list(tensor.value.shape)
        outputs = self._signature.run(values)
        for tensor in self._signature.outputs:
            tensor.value = outputs[tensor.key]
            tensor.shape = list(tensor.value.shape)
        return {t.key: outputs[t.key] for t in self._signature.outputs}

    def get_input_details(self) -> dict:
        return {t.key: t.details() for t in self._signature.inputs}

    def get_output_details(self) -> dict:
        return {t.key: t.details() for t in self._signature.outputs}
