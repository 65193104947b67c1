"""The seed's model example: a Keras-style model whose `call` is compiled, trained one step.

Run with `python examples/seed_model.py`.
"""

import runtime as rt


class MyModel(rt.Model):
    def __init__(self, keep_probability=0.2):
        super().__init__()
        self.dense1 = rt.layers.Dense(4, activation=rt.nn.relu)
        self.dense2 = rt.layers.Dense(5, activation=rt.nn.softmax)
        self.keep_probability = keep_probability

    @rt.defun
    def call(self, inputs, training=True):
        x = self.dense2(self.dense1(inputs))
        if training:
            return rt.nn.dropout(x, self.keep_probability)
        else:
            return x


def main() -> None:
    model = MyModel()
    x = rt.ones([1, 10])

    # `training` is a Python bool: each value gets its own graph
    print("training:  ", model(x, training=True))
    print("inference: ", model(x, training=False))
    for concrete in model.call.list_concrete_functions():
        print(concrete.pretty_printed_signature().splitlines()[0],
              [op.type for op in concrete.graph.operations])

    optimizer = rt.train.GradientDescentOptimizer(learning_rate=0.001)
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean(model(x))
    gradients = tape.gradient(loss, model.trainable_variables)
    print("gradient shapes:", [g.shape.as_list() for g in gradients])
    optimizer.apply_gradients((g, v) for g, v in zip(gradients, model.trainable_variables))
    print("loss:", loss.numpy())


if __name__ == "__main__":
    main()
