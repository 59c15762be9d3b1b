"""Thin lm-eval adapters for the logic suite (dataset loader, filter, metrics)."""
