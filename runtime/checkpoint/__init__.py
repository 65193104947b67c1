"""Checkpoints of object graphs: `rt.train.Checkpoint`, `rt.train.CheckpointManager`,
`rt.train.latest_checkpoint`, `rt.train.list_variables`, `rt.train.load_variable`,
`rt.train.load_checkpoint`.

See `tracking` (which objects are saved, and their keys), `format` (the two files of a
checkpoint), `checkpoint` (saving, restoring and deferred restoration) and `manager`.
"""

from ..arguments import add_keyword_hints_to_classes as _add_keyword_hints_to_classes
from .checkpoint import (
    Checkpoint,
    CheckpointLoadStatus,
    InitializationOnlyStatus,
    list_variables,
    load_variable,
)
from .manager import CheckpointManager
from .reader import CheckpointReader, load_checkpoint
from .state import get_checkpoint_state, latest_checkpoint

__all__ = ["Checkpoint", "CheckpointLoadStatus", "CheckpointManager",
           "CheckpointReader", "InitializationOnlyStatus", "get_checkpoint_state",
           "latest_checkpoint", "list_variables", "load_checkpoint", "load_variable"]

_add_keyword_hints_to_classes(globals(), "runtime")  # a misspelt keyword: "did you mean"
