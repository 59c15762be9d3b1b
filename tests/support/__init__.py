"""Shared test helpers: the shared data, lm-eval runs, lm-eval's task loader over our YAMLs."""
