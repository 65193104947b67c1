"""The regression both distribution test modules train: a small Keras model and Adam, with
its weights after one pass of plain single-device steps over the global batches (the oracle a
distributed run must reproduce)."""

import numpy as np

import runtime as rt

GLOBAL_BATCH = 16


def regression_data(n=64):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 5)).astype("float32"), rng.normal(size=(n, 1)).astype("float32")


def model_and_optimizer():
    rt.keras.utils.set_random_seed(1)
    model = rt.keras.Sequential([rt.keras.Input((5,)),
                                 rt.keras.layers.Dense(8, activation="relu"),
                                 rt.keras.layers.Dense(1)])
    return model, rt.keras.optimizers.Adam(0.01)


def single_device_weights(x, y):
    model, optimizer = model_and_optimizer()
    for xb, yb in rt.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(model(xb) - yb))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return model.get_weights()
