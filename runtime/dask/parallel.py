"""Data-parallel gradients: a batch split across Dask workers, gradients averaged here."""

from __future__ import annotations

import weakref

import numpy as np

from ..function import function
from ..gradients import GradientTape
from ..saved_model.save import dumps_pure
from ..shapes import TensorSpec
from ..tensor import EagerTensor
from .worker import digest_of, shard_gradients

_steps: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class _Step:
    """A model's loss-and-gradients function in its saved (pure) form."""

    def __init__(self, model, loss_fn, variables, x, y):
        specs = [TensorSpec([None, *np.shape(a)[1:]], np.asarray(a).dtype) for a in (x, y)]

        @function(input_signature=specs)
        def loss_and_gradients(xb, yb):
            with GradientTape() as tape:
                loss = loss_fn(yb, model(xb))
            return loss, tape.gradient(loss, variables, unconnected_gradients="zero")

        self.payload, self.reads = dumps_pure(loss_and_gradients.get_concrete_function())
        self.digest = digest_of(self.payload)
        self.key = (loss_fn, tuple(id(v) for v in variables), *(str(s) for s in specs))
        self.shipped: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

    def payload_on(self, client):
        found = self.shipped.get(client)
        if found is None:
            found = self.shipped[client] = client.scatter(self.payload, broadcast=True, hash=False)
        return found


def data_parallel_gradients(model, loss_fn, x, y, client, variables=None, n_shards=None):
    """(loss, gradients) of `loss_fn(y, model(x))` over the batch, computed on Dask workers.

    `model` is a Model/Layer, or any callable of `x` together with `variables`.
    The batch is split by rows into `n_shards` shards (default: one per worker). Each worker
    runs the saved loss-and-gradients function of `model` on its shard, with the current
    values of `variables` (default `model.trainable_variables`) passed in; the shard results
    are averaged here weighted by shard size, so for a `loss_fn` that is a mean over examples
    they equal the full-batch loss and gradients. Apply them as usual:

        loss, grads = rt.dask.data_parallel_gradients(model, loss_fn, x, y, client)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    """
    if variables is None:
        if not hasattr(model, "trainable_variables"):
            raise ValueError("data_parallel_gradients: pass variables= (the variables to "
                             "differentiate) when the model is a plain function.")
        variables = model.trainable_variables
    variables = list(variables)
    x, y = np.asarray(x), np.asarray(y)
    if len(x) != len(y) or not len(x):
        raise ValueError(f"data_parallel_gradients: x has {len(x)} rows and y {len(y)}.")
    step = _step_for(model, loss_fn, variables, x, y)
    n = n_shards or max(1, len(client.scheduler_info()["workers"]))
    bounds = np.linspace(0, len(x), min(n, len(x)) + 1).astype(int)
    weights = client.scatter([np.asarray(v.numpy()) for v in step.reads], broadcast=True)
    payload = step.payload_on(client)
    futures = [client.submit(shard_gradients, payload, step.digest, x[a:b], y[a:b], weights,
                             pure=False) for a, b in zip(bounds[:-1], bounds[1:])]
    results = client.gather(futures)
    total = sum(rows for _, _, rows in results)
    loss = sum(np.float64(value) * rows for value, _, rows in results) / total
    grads = [sum(np.asarray(g[i], np.float64) * rows for _, g, rows in results) / total
             for i in range(len(variables))]
    return (EagerTensor(np.asarray(loss, np.asarray(results[0][0]).dtype)),
            [EagerTensor(g.astype(v.dtype.as_numpy_dtype)) for g, v in zip(grads, variables)])


def _step_for(model, loss_fn, variables, x, y) -> _Step:
    per_model = _steps.setdefault(model, {})
    key = (loss_fn, tuple(id(v) for v in variables), x.shape[1:], x.dtype.str, y.shape[1:],
           y.dtype.str)
    found = per_model.get(key)
    if found is None:
        found = per_model[key] = _Step(model, loss_fn, variables, x, y)
    return found
