"""Thin lm-eval adapters (dataset loader, filter, metrics) over the pure core."""
