"""`keras.datasets`: Keras's small datasets, fetched with `keras.utils.get_file` from the URLs
Keras uses (`sources.ORIGIN_FOLDER`, `sources.CIFAR_ORIGIN_FOLDER`) and cached in
`$KERAS_HOME/datasets` (default `~/.keras/datasets`), returned in Keras's shapes, dtypes and
order."""

from . import (
    boston_housing,
    california_housing,
    cifar10,
    cifar100,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)

__all__ = ["boston_housing", "california_housing", "cifar10", "cifar100", "fashion_mnist",
           "imdb", "mnist", "reuters"]
