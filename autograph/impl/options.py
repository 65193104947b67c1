"""Conversion options, under the import path the runtime's backend uses (see `core/options`)."""

from ..core.options import ConversionOptions, Feature, FeatureSpec

__all__ = ["ConversionOptions", "Feature", "FeatureSpec"]
