"""The backup file of `BackupAndRestore`: a model's weights, its optimizer's state and the
epoch reached, in one `.npz` (arrays only: loading runs nothing from the file)."""

from __future__ import annotations

import json
import os

import numpy as np

from . import saving as _saving


def save(model, path: str, epoch: int) -> None:
    """Writes `model`'s weights, its optimizer's step counter and slots, and `epoch` (the
    epochs done) to `path`, replacing it only once the new file is complete."""
    weights = model.get_weights()
    state, slots = _saving._optimizer_state(model)
    meta = json.dumps({"epoch": int(epoch), "weights": len(weights), "optimizer": state})
    arrays = {f"w{i:05d}": np.asarray(w) for i, w in enumerate(weights)}
    arrays.update({f"o{i:05d}": np.asarray(v) for i, v in enumerate(slots)})
    partial = path + ".partial"
    with open(partial, "wb") as f:
        np.savez(f, meta=np.array(meta), **arrays)
    os.replace(partial, path)


def restore(model, path: str) -> int:
    """Assigns the weights and optimizer state `save` wrote to `model`; the epoch reached."""
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        weights = [data[f"w{i:05d}"] for i in range(int(meta["weights"]))]
        state = meta.get("optimizer")
        slots = [data[f"o{i:05d}"] for i in range(len(state["slots"]))] if state else []
    if not model.built or len(model.get_weights()) != len(weights):
        raise ValueError(f"BackupAndRestore: the backup {path!r} holds {len(weights)} weights, "
                         f"the model {len(model.get_weights())}; build the same model (call "
                         f"it on a batch) before fit.")
    model.set_weights(weights)
    if state is not None:
        _saving._restore_optimizer(model, state, _saving._npz(slots), path)
    return int(meta["epoch"])
