"""Small statistics shared by the scorers and the group aggregation."""

from __future__ import annotations

import math


def harmonic(a: float, b: float) -> float:
    """2ab / (a + b), 0 when both are 0; NaN propagates (a side with no samples)."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return 2 * a * b / (a + b) if a + b else 0.0
