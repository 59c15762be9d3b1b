"""How a response is read: the config every suite's filter and the analysis share.

It is ``settings.Settings`` (markers, step splitting, switch phrases, the truncation policy,
and the other settings, each declared once), under the name scoring has always given it.
"""

from lm_eval_thinkbench.settings import LOCAL_SPLITS, TRUNCATED_POLICIES, Settings

ScoringConfig = Settings

__all__ = ["LOCAL_SPLITS", "TRUNCATED_POLICIES", "ScoringConfig"]
