"""`LoadedObject`: what `rt.saved_model.load` returns."""

from __future__ import annotations


class LoadedObject:
    """Saved signatures as concrete functions, with their variables as `rt.Variable`s.

    `signatures[name](...)` calls a saved function; `obj.name(...)` does too, and `obj(...)`
    calls the saved `__call__` (a single saved function, or a model's call).
    """

    def __init__(self, kind: str, signatures: dict, variables: list, call: str | None,
                 aliases: dict):
        self.kind = kind
        self.signatures = dict(signatures)
        self.variables = list(variables)
        self._call = call
        self._aliases = dict(aliases)

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.variables if v.trainable]

    def __call__(self, *args, **kwargs):
        if self._call is None:
            raise TypeError(f"This saved {self.kind} has no __call__; call one of its signatures: "
                            f"{sorted(self.signatures)}.")
        return self.signatures[self._call](*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("signatures", "_aliases"):
            raise AttributeError(name)
        target = self._aliases.get(name, name)
        if target in self.signatures:
            return self.signatures[target]
        raise AttributeError(f"The saved {self.kind} has no function {name!r}; it has "
                             f"{sorted(set(self.signatures) | set(self._aliases))}.")

    def __repr__(self) -> str:
        return (f"<rt.saved_model.LoadedObject {self.kind} signatures={sorted(self.signatures)} "
                f"variables={len(self.variables)}>")
