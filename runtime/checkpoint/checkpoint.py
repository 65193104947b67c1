"""`rt.train.Checkpoint`: saves and restores an object graph of variables, modules, layers,
models and optimizers, TensorFlow 2's way.

    ckpt = rt.train.Checkpoint(model=model, optimizer=optimizer)
    path = ckpt.save("/tmp/run/ckpt")          # '/tmp/run/ckpt-1'
    ...
    ckpt = rt.train.Checkpoint(model=new_model, optimizer=new_optimizer)
    ckpt.restore(path).assert_consumed()       # after new_model's first call and first step

Values are matched by the names of the edges that reach them (attribute names, see
`runtime.checkpoint.tracking`), not by variable names. Values whose variables do not exist
yet are restored when they are made (deferred restoration): a layer's weights when it is
built, an optimizer's step counter, hyperparameters and slots on its first step.
"""

from __future__ import annotations

import difflib
import json
import os
from typing import Any

import numpy as np

from .. import context
from .. import deferred_restore as deferred
from ..arguments import strict_keywords
from ..errors import NotFoundError
from ..ops.variables import Variable
from . import format as _format
from . import state, tracking
from .state import fspath


def _require_eager(method: str) -> None:
    if not context.executing_eagerly():
        raise RuntimeError(f"Checkpoint.{method} reads and writes files, so it runs eagerly: "
                           "call it outside rt.function (a traced function would run it once, "
                           "while tracing).")


class _Restoration:
    """One `restore`: the saved object graph, its values, and which live objects matched."""

    def __init__(self, path: str, document: dict, arrays: dict) -> None:
        self.path = path
        self.nodes: list[dict] = document["nodes"]
        self.arrays = arrays
        self.matched: dict[int, Any] = {}    # saved node -> live object
        self.live: dict[int, int] = {}       # id(live object) -> saved node
        self.restored: set[int] = set()      # saved nodes whose value was assigned

    def value_nodes(self) -> list[int]:
        return [i for i, entry in enumerate(self.nodes) if "value" in entry]

    def key(self, node: int) -> str:
        return self.nodes[node]["value"]["key"]

    def match(self, node: int, obj: Any) -> None:
        """Matches saved `node` to live `obj` and, breadth first, their children; assigns the
        values of matched variables; defers what has no live counterpart yet."""
        queue = [(node, obj)]
        optimizers = []
        while queue:
            node, obj = queue.pop(0)
            if node in self.matched or id(obj) in self.live:
                continue
            self.matched[node] = obj
            self.live[id(obj)] = node
            entry = self.nodes[node]
            if isinstance(obj, Variable):
                if "value" in entry:
                    self.assign(node, obj)
                continue
            live_children = dict(tracking.children(obj))
            missing = []
            for name, child in entry.get("children", ()):
                if name in live_children:
                    queue.append((child, live_children[name]))
                elif child not in self.matched:
                    missing.append((name, child))
            if missing and (not isinstance(obj, (list, tuple, dict))
                            or isinstance(obj, (tracking.ListWrapper, tracking.DictWrapper))):
                deferred.defer(obj, self._children_callback(missing))
            if entry.get("slots"):
                optimizers.append((node, obj))
        for node, optimizer in optimizers:
            pending = self._restore_slots(optimizer, list(self.nodes[node]["slots"]))
            if pending:
                deferred.defer(optimizer, self._slots_callback(pending))

    def _children_callback(self, missing: list):
        def restore_new_children(owner: Any) -> bool:
            live_children = dict(tracking.children(owner))
            still = []
            for name, child in missing:
                if child in self.matched:
                    continue
                if name in live_children:
                    self.match(child, live_children[name])
                else:
                    still.append((name, child))
            missing[:] = still
            return not missing
        return restore_new_children

    def _slots_callback(self, pending: list):
        def restore_new_slots(optimizer: Any) -> bool:
            pending[:] = self._restore_slots(optimizer, pending)
            return not pending
        return restore_new_slots

    def _restore_slots(self, optimizer: Any, records: list) -> list:
        """Restores the slots whose variable is matched and whose slot exists; returns the
        others."""
        still = []
        for record in records:
            if record["node"] in self.restored:
                continue
            variable = self.matched.get(record["variable"])
            slot = None
            if isinstance(variable, Variable):
                slot = optimizer._slots.get(variable.ref(), {}).get(record["slot"])
            if slot is None:
                still.append(record)
                continue
            self.matched[record["node"]] = slot
            self.live[id(slot)] = record["node"]
            self.assign(record["node"], slot)
        return still

    def assign(self, node: int, variable: Variable) -> None:
        entry = self.nodes[node]["value"]
        key = entry["key"]
        if entry["dtype"] != variable.dtype.name:
            raise TypeError(f"Cannot restore {variable.name} from '{key}' in {self.path}: the "
                            f"checkpoint holds {entry['dtype']} values, the variable is "
                            f"{variable.dtype.name}.")
        value = _format.decode(entry, self.arrays, f"'{key}'")
        if not variable.shape.is_compatible_with(value.shape):
            raise ValueError(f"Cannot restore {variable.name} from '{key}' in {self.path}: the "
                             f"checkpoint holds shape {list(value.shape)}, the variable has "
                             f"shape {variable.shape}.")
        with context.init_scope():
            variable.assign(value)
        self.restored.add(node)


def _live_variables(root: Any) -> list[tuple[str, Variable]]:
    """(path, variable) for the variables now reachable from `root`, slots included."""
    graph = tracking.ObjectGraph(root)
    found = [("/".join(graph.paths[i]), v) for i, v in graph.variables()]
    for opt_node, var_node, slot, variable in graph.slots():
        found.append((f"{'/'.join(graph.paths[var_node])} (slot {slot!r} of "
                      f"{'/'.join(graph.paths[opt_node])})", variable))
    return found


class CheckpointLoadStatus:
    """What `Checkpoint.restore` matched; its `assert_*` methods check it (and return self)."""

    def __init__(self, checkpoint: "Checkpoint", restoration: _Restoration) -> None:
        self._checkpoint = checkpoint
        self._restoration = restoration

    def _unmatched_live(self) -> list[str]:
        live = self._restoration.live
        counter = self._checkpoint._save_counter  # absent from checkpoints made by `write`
        return [path for path, variable in _live_variables(self._checkpoint)
                if id(variable) not in live and variable is not counter]

    def assert_consumed(self) -> "CheckpointLoadStatus":
        """AssertionError unless every saved value was restored (none waits for a variable
        not made yet) and every variable now reachable from the checkpoint got a value."""
        restoration = self._restoration
        unused = [restoration.key(n) for n in restoration.value_nodes()
                  if n not in restoration.restored]
        if unused:
            raise AssertionError(
                f"Unresolved values in the checkpoint {restoration.path} ({len(unused)}): "
                f"{', '.join(unused[:10])}{' ...' if len(unused) > 10 else ''}. They have no "
                "variable yet (build the model, take an optimizer step) or none in this "
                "object graph (use expect_partial() or assert_existing_objects_matched()).")
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self) -> "CheckpointLoadStatus":
        """AssertionError unless every variable now reachable from the checkpoint was given
        a saved value (saved values without a variable are allowed)."""
        unmatched = self._unmatched_live()
        if unmatched:
            raise AssertionError(
                f"Variables with no value in the checkpoint {self._restoration.path} "
                f"({len(unmatched)}): {', '.join(unmatched[:10])}"
                f"{' ...' if len(unmatched) > 10 else ''}.")
        return self

    def assert_nontrivial_match(self) -> "CheckpointLoadStatus":
        """AssertionError unless something besides the root object was matched."""
        if len(self._restoration.matched) <= 1:
            raise AssertionError(f"Nothing in the checkpoint {self._restoration.path} matched "
                                 "the objects of this Checkpoint besides the root.")
        return self

    def expect_partial(self) -> "CheckpointLoadStatus":
        """Declares that not every saved value will be used (no check is made here either)."""
        return self

    def run_restore_ops(self, session=None) -> None:
        """Nothing to do: values are assigned eagerly when restored."""

    def initialize_or_restore(self, session=None) -> None:
        """Nothing to do: values are assigned eagerly when restored."""


class InitializationOnlyStatus:
    """The status of `restore(None)`: nothing was restored, so every assertion fails (as in
    TensorFlow)."""

    def assert_consumed(self):
        raise AssertionError("No checkpoint was restored (restore(None)).")

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed

    def expect_partial(self) -> "InitializationOnlyStatus":
        return self

    def run_restore_ops(self, session=None) -> None:
        """Nothing to do."""

    def initialize_or_restore(self, session=None) -> None:
        """Nothing to do: variables are initialised when made."""


class Checkpoint:
    """Groups trackable objects (variables, modules, layers, models, optimizers, other
    checkpoints, and lists or dicts of them) to save and restore them together.

    `Checkpoint(model=model, optimizer=opt)`; `root` (optional) is an object whose own
    children are saved at the top level. Attributes assigned later (`ckpt.step = v`) are
    tracked too. `save` numbers its files (`prefix-1`, `prefix-2`, ... counted by the
    `save_counter` variable, which is saved and restored) and records the newest in the
    directory's `checkpoint` file; `write` writes exactly `prefix`.
    """

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        object.__setattr__(self, "_tracked", {})
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_root", None)
        if root is not None:
            self._check_trackable("root", root)
            object.__setattr__(self, "_root", root)
        for name, value in kwargs.items():
            self._check_trackable(name, value)
            setattr(self, name, value)

    @staticmethod
    def _check_trackable(name: str, value: Any) -> None:
        if not tracking._holds_trackable(value) and not isinstance(value, (Checkpoint, list,
                                                                           dict)):
            raise ValueError(f"Checkpoint was expecting a trackable object for {name!r} (an "
                             "rt.Variable, rt.Module, layer, model, optimizer or Checkpoint, or "
                             f"a list or dict of them), got {value!r}.")

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        if name == "save_counter":
            raise ValueError("'save_counter' is the Checkpoint's own counter; give the object "
                             "another name.")
        if name in type(self).__dict__ or any(name in vars(c) for c in type(self).__mro__):
            raise ValueError(f"{name!r} is a Checkpoint method or property; give the object "
                             "another name.")
        if type(value) is list:      # wrapped, as TensorFlow does: appends are tracked
            value = tracking.ListWrapper(value)
        elif type(value) is dict:
            value = tracking.DictWrapper(value)
        if isinstance(value, (list, dict)) or tracking._holds_trackable(value) \
                or isinstance(value, Checkpoint):
            self._tracked[name] = value
        else:                        # another value: a plain attribute, not saved (as in TF)
            self._tracked.pop(name, None)
        object.__setattr__(self, name, value)
        if name in self._tracked:
            deferred.created(self)   # a restore may be waiting for this child

    def __delattr__(self, name: str) -> None:
        self._tracked.pop(name, None)
        object.__delattr__(self, name)

    def _checkpoint_children(self) -> list[tuple[str, Any]]:
        found = list(tracking.children(self._root)) if self._root is not None else []
        found += list(self._tracked.items())
        if self._save_counter is not None:
            found.append(("save_counter", self._save_counter))
        return found

    @property
    def save_counter(self) -> Variable:
        """The number of `save` calls (an int64 variable, saved with the checkpoint)."""
        if self._save_counter is None:
            with context.init_scope():
                object.__setattr__(self, "_save_counter",
                                   Variable(np.int64(0), trainable=False, name="save_counter"))
            deferred.created(self)
        return self._save_counter

    # -- saving ---------------------------------------------------------------------------
    @strict_keywords("Checkpoint.save")
    def save(self, file_prefix: str | os.PathLike, options: Any = None) -> str:
        """Writes `file_prefix-N` (N: `save_counter` after adding 1), records it as the
        latest checkpoint of its directory, and returns that path."""
        _require_eager("save")
        prefix = fspath(file_prefix, "file_prefix")
        counter = self.save_counter
        with context.init_scope():
            counter.assign_add(np.int64(1))
        path = self._write(f"{prefix}-{int(counter.numpy())}")
        state.record_latest(path)
        return path

    @strict_keywords("Checkpoint.write")
    def write(self, file_prefix: str | os.PathLike, options: Any = None) -> str:
        """Writes the checkpoint to exactly `file_prefix` (no number, no `checkpoint` file
        update) and returns it."""
        _require_eager("write")
        return self._write(fspath(file_prefix, "file_prefix"))

    def _write(self, prefix: str) -> str:
        graph = tracking.ObjectGraph(self)
        nodes: list[dict] = []
        arrays: dict[str, np.ndarray] = {}

        def value_entry(variable: Variable, key: str) -> dict:
            value = np.asarray(variable.numpy())
            entry = {"key": key, "dtype": variable.dtype.name, "shape": list(value.shape)}
            entry.update(_format.encode(value, f"v{len(arrays)}", arrays))
            return entry

        for i, obj in enumerate(graph.nodes):
            entry: dict[str, Any] = {"kind": tracking.kind(obj), "class": type(obj).__name__,
                                     "children": [[name, child] for name, child in graph.edges[i]]}
            if isinstance(obj, Variable):
                entry["value"] = value_entry(obj, tracking.value_key(graph.paths[i]))
            nodes.append(entry)
        for opt_node, var_node, slot, variable in graph.slots():
            key = tracking.slot_key(graph.paths[var_node], graph.paths[opt_node], slot)
            nodes[opt_node].setdefault("slots", []).append(
                {"variable": var_node, "slot": slot, "node": len(nodes)})
            nodes.append({"kind": "variable", "class": type(variable).__name__, "children": [],
                          "value": value_entry(variable, key)})
        _format.write(prefix, {"nodes": nodes}, arrays)
        return prefix

    # -- restoring --------------------------------------------------------------------------
    @strict_keywords("Checkpoint.restore")
    def restore(self, save_path: str | os.PathLike | None, options: Any = None):
        """Restores the values saved at `save_path` (a prefix returned by `save`/`write`) into
        the objects of this checkpoint, and returns a status to check with `assert_consumed()`,
        `assert_existing_objects_matched()`, `assert_nontrivial_match()` or `expect_partial()`.

        Variables that exist get their values now; the others get theirs when they are made.
        `restore(None)` restores nothing. Missing files raise `rt.errors.NotFoundError`; a
        saved value of another shape than its variable's, `ValueError` naming both.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        _require_eager("restore")
        prefix = fspath(save_path, "save_path")
        document = _format.read_index(prefix)
        restoration = _Restoration(prefix, document, _format.read_arrays(prefix, document))
        self.save_counter  # noqa: B018 - made now, so that the saved count is restored into it
        restoration.match(0, self)
        for obj in list(restoration.matched.values()):
            if callable(getattr(type(obj), "_checkpoint_restored", None)):
                obj._checkpoint_restored()  # a dataset iterator moves to its restored position
        return CheckpointLoadStatus(self, restoration)

    @strict_keywords("Checkpoint.read")
    def read(self, save_path: str | os.PathLike, options: Any = None):
        """`restore` for checkpoints made by `write` (the same here); returns the status."""
        if save_path is None:
            raise ValueError("Checkpoint.read needs a save_path.")
        return self.restore(save_path)

    def __repr__(self) -> str:
        names = ", ".join(self._tracked)
        return f"<Checkpoint {names}>"


def _resolve(ckpt_dir_or_file: str | os.PathLike) -> str:
    path = fspath(ckpt_dir_or_file, "ckpt_dir_or_file")
    if os.path.isdir(path) and not _format.exists(path):
        latest = state.latest_checkpoint(path)
        if latest is None:
            raise NotFoundError(f"No checkpoint in the directory '{path}' (its 'checkpoint' "
                                "file is missing or names no existing checkpoint).")
        return latest
    return path


#: the entry `list_variables` lists first: the checkpoint's object graph (as in TensorFlow)
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


@strict_keywords("list_variables")
def list_variables(ckpt_dir_or_file: str | os.PathLike) -> list[tuple[str, list[int]]]:
    """(key, shape) of every value in a checkpoint (a prefix, or a directory: its latest),
    sorted by key, after `OBJECT_GRAPH_KEY` (the object graph, shape []). Keys are paths such as
    `model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`; optimizer slots are
    `VARIABLE_PATH/.OPTIMIZER_SLOT/OPTIMIZER_PATH/SLOT/.ATTRIBUTES/VARIABLE_VALUE`."""
    prefix = _resolve(ckpt_dir_or_file)
    document = _format.read_index(prefix)
    return [(OBJECT_GRAPH_KEY, [])] + sorted(
        (entry["value"]["key"], list(entry["value"]["shape"]))
        for entry in document["nodes"] if "value" in entry)


@strict_keywords("load_variable")
def load_variable(ckpt_dir_or_file: str | os.PathLike, name: str) -> np.ndarray:
    """The value saved under key `name` (see `list_variables`) as a NumPy array."""
    prefix = _resolve(ckpt_dir_or_file)
    if not isinstance(name, str):
        raise TypeError(f"load_variable: name must be a str key, got {type(name).__name__}.")
    document = _format.read_index(prefix)
    if name == OBJECT_GRAPH_KEY:     # the object graph itself, as TensorFlow lists it
        return np.array(json.dumps(document["nodes"], sort_keys=True).encode(), dtype=object)
    entries = {e["value"]["key"]: e["value"] for e in document["nodes"] if "value" in e}
    entry = entries.get(name[:-2] if name.endswith(":0") else name)
    if entry is None:
        close = difflib.get_close_matches(name, list(entries), n=3)
        raise NotFoundError(f"Key {name!r} not found in the checkpoint '{prefix}'"
                            + (f"; did you mean {', '.join(map(repr, close))}?" if close else
                               "; see rt.train.list_variables for its keys."))
    arrays = _format.read_arrays(prefix, document)
    return np.array(_format.decode(entry, arrays, repr(name)))
