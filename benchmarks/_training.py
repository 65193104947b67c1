"""The compiled training step the model benchmarks time: softmax cross-entropy, one update."""

from __future__ import annotations

import runtime as rt


def compiled_step(model, optimizer, jit_compile=None):
    """An `rt.function` that takes one optimizer step of `model` on a batch `(x, y)`."""

    @rt.function(jit_compile=jit_compile)
    def train_step(x, y):
        with rt.GradientTape() as tape:
            logits = model(x)
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss
    return train_step
