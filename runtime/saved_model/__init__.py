"""Saved functions: concrete functions and their variables in files that load without code.

    rt.saved_model.save(obj, "path/")       # a Function with an input_signature, a concrete
    loaded = rt.saved_model.load("path/")   # function, a dict of them, a Model, or an rt.Module
    loaded(x); loaded.signatures["serving_default"](x); loaded.trainable_variables

The directory holds `saved_model.json` (format "autograph-rt-saved-model", versioned: the
ops, attributes, subgraphs, signatures and op locations) and `variables.npz` (variable values
and constants). Loading checks everything against the runtime's op registry and the attribute
schema and never runs, imports or unpickles anything from the files; a bad file raises
ValueError naming what is wrong. See docs/saved-and-distributed.md.
"""

import enum as _enum
import os as _os
import types as _types

from .files import GRAPH_FILE as _GRAPH_FILE
from .load import load, loads
from .loaded import LoadedObject
from .more import Asset, Fingerprint, TrackableResource, read_fingerprint
from .options import LoadOptions, SaveOptions
from .save import DEFAULT as DEFAULT_SERVING_SIGNATURE_DEF_KEY
from .save import FORMAT, VERSION, dumps, save

#: TensorFlow's tag and signature constants (the same strings)
SERVING, TRAINING, GPU, TPU = "serve", "train", "gpu", "tpu"
PREDICT_INPUTS, PREDICT_OUTPUTS = "inputs", "outputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
CLASSIFY_INPUTS, CLASSIFY_OUTPUT_CLASSES, CLASSIFY_OUTPUT_SCORES = "inputs", "classes", "scores"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
REGRESS_INPUTS, REGRESS_OUTPUTS = "inputs", "outputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"

#: TensorFlow's names of the files and directories of its SavedModel format (the same
#: strings); this package's saved objects are `saved_model.json` and `variables.npz`
SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT = "saved_model.pb", "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY, VARIABLES_FILENAME = "variables", "variables"
ASSETS_DIRECTORY, ASSETS_KEY = "assets", "saved_model_assets"
DEBUG_DIRECTORY, DEBUG_INFO_FILENAME_PB = "debug", "saved_model_debug_info.pb"


def contains_saved_model(export_dir) -> bool:
    """Whether `export_dir` holds a saved object (`rt.saved_model.save`'s saved_model.json;
    TensorFlow's check looks for its saved_model.pb)."""
    return _os.path.isfile(_os.path.join(_os.fspath(export_dir), _GRAPH_FILE))


class VariablePolicy(_enum.Enum):
    """TensorFlow's policies for saving variables' devices and distributed variables
    (`SaveOptions(experimental_variable_policy=...)`); the saved format has no devices, so
    each saves the same files."""

    NONE = None
    SAVE_VARIABLE_DEVICES = "save_variable_devices"
    EXPAND_DISTRIBUTED_VARIABLES = "expand_distributed_variables"

    def _save_variable_devices(self) -> bool:
        return self != VariablePolicy.NONE

    def _expand_distributed_variables(self) -> bool:
        return self == VariablePolicy.EXPAND_DISTRIBUTED_VARIABLES

    @staticmethod
    def from_obj(obj) -> "VariablePolicy":
        """The policy a SaveOptions value names: None, a policy or its value as a string."""
        if obj is None:
            return VariablePolicy.NONE
        if isinstance(obj, VariablePolicy):
            return obj
        key = str(obj).lower()
        for policy in VariablePolicy:
            if key == policy.value:
                return policy
        raise ValueError(f"invalid VariablePolicy value {obj!r}; use one of "
                         f"{[p.value for p in VariablePolicy if p.value]} or None.")


experimental = _types.SimpleNamespace(VariablePolicy=VariablePolicy, Fingerprint=Fingerprint,
                                      TrackableResource=TrackableResource,
                                      read_fingerprint=read_fingerprint)

__all__ = ["Asset", "ASSETS_DIRECTORY", "ASSETS_KEY", "DEBUG_DIRECTORY", "DEBUG_INFO_FILENAME_PB",
           "SAVED_MODEL_FILENAME_PB", "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION",
           "VARIABLES_DIRECTORY", "VARIABLES_FILENAME", "contains_saved_model", "experimental",
           "CLASSIFY_INPUTS", "CLASSIFY_METHOD_NAME", "CLASSIFY_OUTPUT_CLASSES",
           "CLASSIFY_OUTPUT_SCORES", "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "FORMAT", "GPU",
           "LoadOptions", "LoadedObject", "PREDICT_INPUTS", "PREDICT_METHOD_NAME",
           "PREDICT_OUTPUTS", "REGRESS_INPUTS", "REGRESS_METHOD_NAME", "REGRESS_OUTPUTS",
           "SERVING", "SaveOptions", "TPU", "TRAINING", "VERSION", "dumps", "load", "loads",
           "save"]
