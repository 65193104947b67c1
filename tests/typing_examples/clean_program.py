"""A user program that `mypy --strict` accepts as it is (tests/test_user_typing.py checks it,
and runs it)."""

import numpy as np

import runtime as rt


@rt.function
def affine(x: rt.Tensor, w: rt.Tensor, b: float = 0.5) -> rt.Tensor:
    return rt.matmul(x, w) * 2.0 + b


@rt.function(jit_compile=True, reduce_retracing=True)
def softplus_sum(x: rt.Tensor) -> rt.Tensor:
    return rt.reduce_sum(rt.math.log1p(rt.math.exp(-abs(x))) + rt.nn.relu(x))


class Scaler(rt.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = rt.Variable(3.0)

    @rt.function
    def __call__(self, x: rt.Tensor) -> rt.Tensor:
        return x * self.scale


def train_step(x: rt.Tensor, w: rt.Variable) -> tuple[rt.Tensor, rt.Tensor]:
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean((affine(x, w) - 1.0) ** 2)
    grad = tape.gradient(loss, w)
    return loss, grad


# every op that returns a tensor says so: each of these returns it as rt.Tensor
def activations(x: rt.Tensor) -> rt.Tensor:
    return rt.nn.softmax(rt.nn.relu(x) + rt.nn.sigmoid(x) - rt.math.tanh(x))


def normalised(x: rt.Tensor) -> rt.Tensor:
    return rt.math.l2_normalize(x, axis=-1)


def log_norm(x: rt.Tensor) -> rt.Tensor:
    return rt.math.log1p(rt.linalg.norm(x))


def gram_trace(x: rt.Tensor) -> rt.Tensor:
    return rt.linalg.trace(rt.linalg.matmul(x, x, transpose_b=True))


def total(x: rt.Tensor) -> rt.Tensor:
    return rt.reduce_sum(x, axis=0)


def largest(x: rt.Tensor) -> rt.Tensor:
    return rt.reduce_max(x)


def joined(x: rt.Tensor) -> rt.Tensor:
    return rt.concat([x, rt.zeros_like(x)], axis=0)


def frozen(x: rt.Tensor) -> rt.Tensor:
    return rt.stop_gradient(rt.reshape(rt.transpose(x), [-1]))


def clipped(x: rt.Tensor) -> rt.Tensor:
    return rt.clip_by_norm(rt.clip_by_value(x, 0.0, 4.0), 1.0)


def first_half(x: rt.Tensor) -> rt.Tensor:
    a, b = rt.split(x, 2, axis=1)
    return a


def rows(x: rt.Tensor) -> list[rt.Tensor]:
    return rt.unstack(x)


def globally_clipped(xs: list[rt.Tensor]) -> tuple[list[rt.Tensor], rt.Tensor]:
    return rt.clip_by_global_norm(xs, 1.0)


def decomposed(x: rt.Tensor) -> rt.Tensor:
    s, u, v = rt.linalg.svd(x)
    q, r = rt.linalg.qr(x)
    mean, variance = rt.nn.moments(x, axes=[0])
    return s + rt.reduce_sum(u) + rt.reduce_sum(q) + rt.reduce_sum(variance - mean)


def singular_values(x: rt.Tensor) -> rt.Tensor:
    return rt.linalg.svd(x, compute_uv=False)


def checked(x: rt.Tensor) -> rt.Tensor:
    rt.debugging.assert_non_negative(x)
    with rt.control_dependencies([x]), rt.name_scope("checked") as scope:
        assert scope.endswith("/")
        return rt.identity(x)


def main() -> None:
    x = rt.constant(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=rt.float32)
    w = rt.Variable(rt.ones([3, 1]))
    y: rt.Tensor = affine(x, w, b=1.0)
    z = softplus_sum(y[:, 0] / 4 - 1 + 2 * y[0, 0])
    mask = (y > 3.0) | (y <= -1)
    loss, grad = train_step(x, w)
    scaled = Scaler()(x)
    model = rt.keras.Sequential([rt.keras.layers.Dense(2, activation="relu"),
                                 rt.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    out = model(x)
    concrete = affine.get_concrete_function(rt.TensorSpec([None, 3], rt.float32),
                                            rt.TensorSpec([3, 1], rt.float32))
    print(y.shape, y.dtype, float(z.numpy()), mask.numpy().tolist(), loss.numpy(),
          grad.shape, scaled.numpy().sum(), out.shape, concrete)
    tensors = [activations(x), normalised(x), log_norm(x), gram_trace(x), total(x), largest(x),
               joined(x), frozen(x), clipped(x), first_half(rt.ones([2, 4])), decomposed(x),
               singular_values(x), checked(x), *rows(x), *globally_clipped([x, x])[0]]
    print([t.shape for t in tensors])
    print(keras_parts(x))


def keras_parts(x: rt.Tensor) -> list[rt.Tensor]:
    """Keras's layers, losses and callbacks are their classes to a checker, and a tape's
    gradients have the structure of the sources."""
    dense: rt.keras.layers.Dense = rt.keras.layers.Dense(4)
    loss: rt.keras.losses.Loss = rt.keras.losses.MeanSquaredError()
    stop: rt.keras.callbacks.Callback = rt.keras.callbacks.EarlyStopping(patience=2)
    print(dense.units, loss.name, stop)
    w = rt.Variable(rt.ones([3, 1]))
    with rt.GradientTape(persistent=True) as tape:
        y = rt.reduce_sum(x @ w)
    one: rt.Tensor = tape.gradient(y, w)
    listed: list[rt.Tensor] = tape.gradient(y, [w])
    return [one, *listed]


if __name__ == "__main__":
    main()
