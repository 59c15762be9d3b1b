"""Shared test helpers (a scripted OpenAI-compatible server, ...) reused across test modules."""
