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
from .save import FORMAT, VERSION, dumps, save

__all__ = ["FORMAT", "VERSION", "LoadOptions", "LoadedObject", "SaveOptions", "dumps", "load", "loads",
           "save"]
