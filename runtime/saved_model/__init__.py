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

from .load import load, loads
from .loaded import LoadedObject
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

__all__ = ["CLASSIFY_INPUTS", "CLASSIFY_METHOD_NAME", "CLASSIFY_OUTPUT_CLASSES",
           "CLASSIFY_OUTPUT_SCORES", "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "FORMAT", "GPU",
           "LoadOptions", "LoadedObject", "PREDICT_INPUTS", "PREDICT_METHOD_NAME",
           "PREDICT_OUTPUTS", "REGRESS_INPUTS", "REGRESS_METHOD_NAME", "REGRESS_OUTPUTS",
           "SERVING", "SaveOptions", "TPU", "TRAINING", "VERSION", "dumps", "load", "loads",
           "save"]
