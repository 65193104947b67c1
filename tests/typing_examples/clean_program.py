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


if __name__ == "__main__":
    main()
