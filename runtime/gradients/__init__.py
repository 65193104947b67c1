"""Reverse-mode automatic differentiation."""
