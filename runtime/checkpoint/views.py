"""Looking at object graphs, and `rt.train.experimental`: `TrackableView` (a live object
graph), `CheckpointView` (the object graph a checkpoint saved, matched against live objects),
`PythonState` (Python state saved in a checkpoint) and the sharding policies of
`CheckpointOptions(experimental_sharding_callback=...)`.

    view = rt.train.CheckpointView(ckpt.save(prefix))
    view.children(0)            # {'model': 1, 'save_counter': 2}
    view.diff(live_checkpoint)  # (matched nodes, unmatched saved nodes, unmatched live objects)

A checkpoint here is one file pair written by one process, so the only sharding this runtime
honours is `ShardByTaskPolicy` (every tensor is on this task: one shard); another policy
given to `CheckpointOptions` raises NotImplementedError naming it.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Any

import numpy as np

from .. import context
from ..ops.variables import Variable
from . import format as _format
from . import tracking
from .checkpoint import _resolve


def _save_type(save_type: Any) -> None:
    name = getattr(save_type, "value", save_type)
    if name not in (None, "checkpoint"):
        raise NotImplementedError(f"TrackableView.children(save_type={save_type!r}): only "
                                  "the checkpoint's children are known here (save_type="
                                  "'checkpoint'); a SavedModel lists its own attributes.")


class TrackableView:
    """The object graph of live objects from `root`, as `rt.train.Checkpoint` saves it:
    `children(obj)` names the edges leaving an object, `descendants()` lists every object
    reached, breadth first from the root."""

    def __init__(self, root: Any) -> None:
        self._root = root

    @property
    def root(self) -> Any:
        return self._root

    @classmethod
    def children(cls, obj: Any, save_type: Any = "checkpoint", **kwargs: Any) -> dict:
        """{edge name: child} of `obj` (a variable has none)."""
        if kwargs:
            raise TypeError(f"TrackableView.children got unexpected keyword arguments "
                            f"{sorted(kwargs)}.")
        _save_type(save_type)
        return dict(tracking.children(obj))

    def descendants(self) -> list:
        """Every object reached from the root (the root first), breadth first, each once."""
        return list(tracking.ObjectGraph(self._root).nodes)


class CheckpointView:
    """The object graph saved in the checkpoint at `save_path` (a prefix from `save` or
    `write`; a directory means its latest checkpoint). Saved objects are numbered as in the
    checkpoint, the root 0."""

    def __init__(self, save_path: Any) -> None:
        self._prefix = _resolve(save_path)
        self._nodes: list[dict] = _format.read_index(self._prefix)["nodes"]

    def _node(self, node_id: int) -> dict:
        if isinstance(node_id, bool) or not isinstance(node_id, (int, np.integer)):
            raise TypeError(f"CheckpointView: node ids are ints, got {node_id!r}.")
        if not 0 <= node_id < len(self._nodes):
            raise IndexError(f"CheckpointView: no node {node_id} in the checkpoint "
                             f"'{self._prefix}' (it has {len(self._nodes)}).")
        return self._nodes[node_id]

    def children(self, node_id: int) -> dict:
        """{edge name: node id} of the saved node `node_id`."""
        return {name: child for name, child in self._node(node_id).get("children", ())}

    def descendants(self) -> list:
        """The ids of the saved nodes reached from the root by children edges, breadth
        first, each once (the root, 0, first)."""
        order, seen, position = [0], {0}, 0
        while position < len(order):
            for _, child in self._node(order[position]).get("children", ()):
                if child not in seen:
                    seen.add(child)
                    order.append(child)
            position += 1
        return order

    def match(self, obj: Any) -> dict:
        """{saved node id: live object}: the saved root matched to `obj`, then, breadth
        first, each saved child to the live child of the same edge name."""
        matched: dict[int, Any] = {0: obj}
        live_seen = {id(obj)}
        queue = [(0, obj)]
        while queue:
            node_id, live = queue.pop(0)
            live_children = dict(tracking.children(live))
            for name, child in self._node(node_id).get("children", ()):
                if child in matched or name not in live_children:
                    continue
                value = live_children[name]
                if id(value) in live_seen:
                    continue
                matched[child] = value
                live_seen.add(id(value))
                queue.append((child, value))
        return matched

    def diff(self, obj: Any) -> tuple:
        """(match(obj), the saved node ids that matched nothing, the live objects reached
        from `obj` that matched no saved node)."""
        matched = self.match(obj)
        unmatched_saved = [n for n in self.descendants() if n not in matched]
        matched_ids = {id(value) for value in matched.values()}
        unmatched_live = [value for value in TrackableView(obj).descendants()
                          if id(value) not in matched_ids]
        return matched, unmatched_saved, unmatched_live

    def __repr__(self) -> str:
        return f"<CheckpointView '{self._prefix}' ({len(self._nodes)} nodes)>"


class PythonState(abc.ABC):
    """Python state saved in a checkpoint: a subclass defines `serialize()` (returns a str
    or bytes) and `deserialize(string_value)`; an instance attached to a `Checkpoint` (or to a
    module it saves) is serialized at each save and deserialized when a restore matches it.
    The bytes are saved as a string value under the edge `py_state`. An instance attached
    after `restore` was called is not restored (there is no deferred restoration of
    Python state)."""

    @abc.abstractmethod
    def serialize(self) -> Any:
        """The state as a string (str or bytes)."""

    @abc.abstractmethod
    def deserialize(self, string_value: bytes) -> None:
        """Sets the state from the bytes `serialize` returned."""

    def _serialized(self) -> bytes:
        value = self.serialize()
        if isinstance(value, str):
            value = value.encode("utf-8")
        if not isinstance(value, (bytes, np.bytes_)):
            raise TypeError(f"{type(self).__name__}.serialize must return a str or bytes, got "
                            f"{type(value).__name__}.")
        return bytes(value)

    def _trackable_children(self) -> list:
        """The saved state: one string variable, written with `serialize()` now."""
        state = self.__dict__.get("_rt_py_state")
        with context.init_scope():
            if state is None:
                state = Variable(self._serialized(), trainable=False, name="py_state")
                self.__dict__["_rt_py_state"] = state
            else:
                state.assign(self._serialized())
        return [("py_state", state)]

    def _checkpoint_restored(self) -> None:
        state = self.__dict__.get("_rt_py_state")
        if state is not None:
            with context.init_scope():
                value = np.asarray(state.read_value()).item()
            self.deserialize(value.encode("utf-8") if isinstance(value, str) else bytes(value))


# -- sharding -------------------------------------------------------------------------------------

@dataclasses.dataclass
class ShardableTensor:
    """A tensor a sharding callback places in a shard, with what TensorFlow describes it by:
    `tensor`, `dtype`, `device`, `name`, `shape`, `slice_spec`, `checkpoint_key` and the
    `trackable` that holds it."""

    _tensor_save_spec: Any
    tensor: Any
    dtype: Any
    device: Any
    name: str
    shape: Any
    slice_spec: Any
    checkpoint_key: str
    trackable: Any


class ShardingCallback(abc.ABC):
    """A checkpoint sharding policy: `description` (a str) and `__call__(shardable_tensors)`
    returning a list of shards, each {checkpoint key: {slice spec: tensor}}."""

    @property
    @abc.abstractmethod
    def description(self) -> str:
        ...

    @abc.abstractmethod
    def __call__(self, shardable_tensors: list) -> list:
        ...

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.description!r})"


def _shard_entry(shard: dict, tensor: ShardableTensor) -> None:
    shard.setdefault(tensor.checkpoint_key, {})[tensor.slice_spec] = tensor.tensor


def _task_of(device: Any) -> Any:
    if device is None:
        return None
    text = device if isinstance(device, str) else getattr(device, "to_string", lambda: "")()
    for part in str(text).split("/"):
        if part.startswith("task:"):
            return part[len("task:"):]
    return None


class ShardByTaskPolicy(ShardingCallback):
    """TensorFlow's default sharding: one shard per task of the tensors' devices. A
    checkpoint of this runtime is written by one task, so it is one shard."""

    @property
    def description(self) -> str:
        return "Split tensors into shards based on their device spec task."

    def __call__(self, shardable_tensors: list) -> list:
        shards: dict = {}
        for tensor in shardable_tensors:
            _shard_entry(shards.setdefault(_task_of(tensor.device), {}), tensor)
        return list(shards.values())


class MaxShardSizePolicy(ShardingCallback):
    """Shards of at most `max_shard_size` bytes. Called on ShardableTensors it packs whole
    tensors greedily; a tensor larger than the limit (which TensorFlow splits into slices)
    raises NotImplementedError. `Checkpoint.save` writes one file here, so
    `CheckpointOptions(experimental_sharding_callback=MaxShardSizePolicy(...))` raises
    NotImplementedError."""

    def __init__(self, max_shard_size: int) -> None:
        if isinstance(max_shard_size, bool) or not isinstance(max_shard_size, (int, np.integer)) \
                or max_shard_size < 1:
            raise ValueError(f"MaxShardSizePolicy: max_shard_size must be a positive int "
                             f"(bytes), got {max_shard_size!r}.")
        self.max_shard_size = int(max_shard_size)

    @property
    def description(self) -> str:
        return "Split tensors into shards with a max shard size."

    def __call__(self, shardable_tensors: list) -> list:
        shards: list[dict] = []
        size = self.max_shard_size
        for tensor in shardable_tensors:
            value = tensor.tensor
            value = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
            nbytes = int(value.nbytes) if value.dtype.kind not in "OSU" else \
                sum(len(item) for item in value.reshape(-1).tolist())
            if nbytes > self.max_shard_size:
                raise NotImplementedError(
                    f"MaxShardSizePolicy: the tensor {tensor.checkpoint_key!r} has {nbytes} "
                    f"bytes, more than max_shard_size={self.max_shard_size}; splitting a "
                    "tensor into slices is not implemented here.")
            if not shards or size + nbytes > self.max_shard_size:
                shards.append({})
                size = 0
            _shard_entry(shards[-1], tensor)
            size += nbytes
        return shards


def check_sharding_callback(callback: Any) -> None:
    """What `CheckpointOptions(experimental_sharding_callback=...)` accepts: None or a
    `ShardByTaskPolicy` (what this runtime's one-task, one-file checkpoints are)."""
    if callback is None or type(callback) is ShardByTaskPolicy:
        return
    if not isinstance(callback, ShardingCallback):
        raise TypeError(f"CheckpointOptions: experimental_sharding_callback must be an "
                        f"rt.train.experimental.ShardingCallback, got {callback!r:.80}.")
    raise NotImplementedError(
        f"CheckpointOptions(experimental_sharding_callback={type(callback).__name__}(...)) is "
        "not supported here: a checkpoint is written as one file by one task, which only "
        "rt.train.experimental.ShardByTaskPolicy (the default) describes.")
