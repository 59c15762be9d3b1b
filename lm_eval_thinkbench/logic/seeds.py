"""Per-item randomness that is the same on every machine and in every process.

An item is a pure function of ``(family, subclass, level, index, seed)``. Python's ``hash`` is
salted per process (``PYTHONHASHSEED``) and set iteration order follows it, so neither may
touch generation; the random stream is seeded from SHA-256 of the key instead, and Mersenne
Twister seeded with an integer is platform-independent.
"""

from __future__ import annotations

import hashlib
import random


def derive_rng(*parts: object) -> random.Random:
    """A ``random.Random`` seeded from SHA-256 of ``parts`` (joined unambiguously)."""
    key = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
