"""Quick start: Python control flow over tensors, compiled into a graph and run with NumPy."""

import numpy as np

import autograph as ag
import runtime as rt


@rt.function
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@rt.function
def running_max(xs):
    best = xs[0]
    history = []
    for x in xs:
        if x > best:
            best = x
        history.append(best)
    return rt.stack(history)


def main():
    print("Collatz steps for 27:", collatz_steps(rt.constant(27)).numpy())
    print("Collatz steps for 97:", collatz_steps(rt.constant(97)).numpy())
    print("traced", collatz_steps.experimental_get_tracing_count(), "time(s) for both calls")

    values = rt.constant(np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0], np.float32))
    print("running max:", running_max(values).numpy())

    print("\nThe converted source of collatz_steps:\n")
    print(ag.to_code(collatz_steps.python_function))

    concrete = collatz_steps.get_concrete_function(rt.constant(27))
    print("The traced graph:\n")
    print(concrete.graph)
    print("\nThe NumPy code the executor generated:\n")
    print(concrete.generated_source)

    print("A model trained with fit: each epoch is compiled train steps, and the loss falls\n")
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (256, 3)).astype(np.float32)
    y = x @ np.array([[1.5], [-2.0], [0.5]], np.float32)
    model = rt.layers.Sequential([rt.layers.Dense(8, activation="tanh"), rt.layers.Dense(1)])
    model.compile(rt.optimizers.Adam(0.05), "mse")
    model.fit(x, y, epochs=5, batch_size=32)


if __name__ == "__main__":
    main()
