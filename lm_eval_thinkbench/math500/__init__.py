"""The MATH-500 suite (and AIME/AMC, scored the same way): data, per-sample scoring, the
sampling metrics, the lm-eval adapter and the metric table its task YAMLs are generated from.

Only this folder knows MATH-500; it sits on the shared layers (``reading``, ``trace``,
``steps``, ``tokens``, ``math/``, ``locate/``, ``harness/``), none of which imports it.
"""
