"""FarmHash's 64-bit fingerprint, for the hashing layers: defined with the ops
(`runtime.ops.farmhash`), where `rt.lookup`'s out-of-vocabulary buckets use it too."""

from ...ops.farmhash import fingerprint64

__all__ = ["fingerprint64"]
