"""More of `tf.io`: `match_filenames_once` (a variable holding the files a pattern matches)
and `write_graph` (a graph's GraphDef written as text). Local paths only, as rt.io.gfile.
"""

from __future__ import annotations

import os

import numpy as np

from .. import dtypes as _dtypes
from ..exports import export
from ..graph_def import GraphDef
from . import io_gfile
from .variables import Variable


@export("io.match_filenames_once")
def match_filenames_once(pattern, name=None) -> Variable:
    """A non-trainable string Variable holding the sorted paths matching `pattern` (a glob
    pattern, or a list of them), found once, when it is created."""
    patterns = pattern.numpy() if hasattr(pattern, "numpy") else pattern
    patterns = [p for p in np.ravel(np.asarray(patterns, dtype=object)).tolist()]
    found = io_gfile.glob([os.fsdecode(p) for p in patterns])
    value = np.array([p.encode() for p in found] + [b""], dtype=object)[:-1]
    return Variable(value, trainable=False, name=name,
                    dtype=_dtypes.string, shape=[len(found)])


@export("io.write_graph")
def write_graph(graph_or_graph_def, logdir, name, as_text=True) -> str:
    """Writes the GraphDef of a graph (a Graph, or `graph.as_graph_def()`) to
    `logdir/name` (making `logdir`), as text; returns the path. `as_text=False` (a binary
    protocol buffer) is not offered: graphs here have no protocol-buffer form."""
    if not as_text:
        raise NotImplementedError("io.write_graph(as_text=False): graphs here have no binary "
                                  "protocol-buffer form; write them as text (as_text=True).")
    graph_def = graph_or_graph_def
    if not isinstance(graph_def, GraphDef):
        if not hasattr(graph_def, "as_graph_def"):
            raise TypeError("io.write_graph: `graph_or_graph_def` must be a Graph or a "
                            f"GraphDef, got {type(graph_def).__name__}.")
        graph_def = graph_def.as_graph_def()
    directory = os.fsdecode(logdir)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, os.fsdecode(name))
    with open(path, "w", encoding="utf-8") as f:
        f.write(str(graph_def) + "\n")
    return path
