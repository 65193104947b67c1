"""Keras's preprocessing layers: lookups and text (`lookup`), images and augmentation
(`image`)."""

from .hashing import Hashing
from .image import (
    AutoContrast,
    CenterCrop,
    RandomBrightness,
    RandomContrast,
    RandomCrop,
    RandomFlip,
    RandomGrayscale,
    RandomInvert,
    RandomRotation,
    RandomTranslation,
    RandomZoom,
    Resizing,
)
from .lookup import (
    CategoryEncoding,
    Discretization,
    IntegerLookup,
    StringLookup,
    TextVectorization,
)

__all__ = ["AutoContrast", "RandomGrayscale", "RandomInvert",
           "CategoryEncoding", "CenterCrop", "Discretization", "Hashing", "IntegerLookup",
           "RandomBrightness", "RandomContrast", "RandomCrop", "RandomFlip", "RandomRotation",
           "RandomTranslation", "RandomZoom", "Resizing", "StringLookup", "TextVectorization"]
