"""Mistakes `mypy --strict` must report: each line marked `# error: <code>` is expected to get
exactly that error (tests/test_user_typing.py compares), and no other line any error."""

import runtime as rt


@rt.function
def f(x: rt.Tensor, y: rt.Tensor) -> rt.Tensor:
    return x + y


@rt.function(jit_compile=True)
def g(x: rt.Tensor, *, scale: float = 1.0) -> rt.Tensor:
    return x * scale


def halves(x: rt.Tensor) -> rt.Tensor:
    return rt.split(x, 2)  # error: return-value


def main() -> None:
    t = rt.constant([1.0, 2.0])
    reveal_type(f)  # noqa: F821 - mypy's: Function[[x: Tensor, y: Tensor], Tensor]
    f("a", "b")  # error: arg-type
    f(t)  # error: call-arg
    g(t, scal=2.0)  # error: call-arg
    g(t, scale="2")  # error: arg-type
    n: int = f(t, t)  # error: assignment
    print(n)
    t + "text"  # error: operator
    rt.reduce_summ(t)  # error: attr-defined
    rt.math.expp(t)  # error: attr-defined
    rows: rt.Tensor = rt.unstack(t)  # error: assignment
    print(halves(t), rows)
    dense: rt.keras.layers.Dense = rt.keras.layers.LSTM(3)  # error: assignment
    rt.keras.layers.Dens(2)  # error: attr-defined
    rt.keras.callbacks.EarlyStopping().monitor + 1  # error: operator
    v = rt.Variable(1.0)
    with rt.GradientTape() as tape:
        y = v * v
    many: list[rt.Tensor] = tape.gradient(y, v)  # error: assignment
    one: rt.Tensor = tape.gradient(y, [v])  # error: assignment
    print(dense, many, one)
