"""`rt.saved_model.SaveOptions` / `LoadOptions`: TensorFlow's option objects, accepted so code
written for TF runs unchanged.

Every TensorFlow field is accepted and kept as an attribute, but none changes what is written
or read: the saved format has no devices, op namespaces, function aliases or sharding to
configure (`namespace_whitelist`, `save_debug_info`, `function_aliases`,
`experimental_io_device`, `experimental_variable_policy`, ... are ignored).
"""

from __future__ import annotations

from typing import Any


class _Options:
    _FIELDS: tuple[str, ...] = ()

    def __init__(self, **kwargs: Any) -> None:
        unknown = sorted(set(kwargs) - set(self._FIELDS))
        if unknown:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword argument(s) "
                            f"{', '.join(map(repr, unknown))}; it accepts "
                            f"{', '.join(self._FIELDS)}.")
        for field in self._FIELDS:
            setattr(self, field, kwargs.get(field))

    def __repr__(self) -> str:
        set_fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS
                               if getattr(self, f) is not None)
        return f"{type(self).__name__}({set_fields})"


class SaveOptions(_Options):
    """Options of `rt.saved_model.save(..., options=...)`; all accepted, none has an effect
    here (see the module doc)."""

    _FIELDS = ("namespace_whitelist", "save_debug_info", "function_aliases",
               "experimental_debug_stripper", "experimental_io_device",
               "experimental_variable_policy", "experimental_custom_gradients",
               "experimental_image_format", "experimental_skip_saver",
               "experimental_sharding_callback", "extra_tags")


class LoadOptions(_Options):
    """Options of `rt.saved_model.load(..., options=...)`; all accepted, none has an effect
    here (see the module doc)."""

    _FIELDS = ("allow_partial_checkpoint", "experimental_io_device",
               "experimental_skip_checkpoint", "experimental_variable_policy",
               "experimental_load_function_aliases")


def check(options, expected: type, what: str) -> None:
    if options is not None and not isinstance(options, expected):
        raise TypeError(f"`options` of {what} must be a {expected.__name__} or None, got "
                        f"{type(options).__name__}.")
