"""The plugin's lm-eval models; importing this package registers them all.

``lm_eval.models`` is imported first on purpose: registering a plugin model before it leaves
lm-eval's built-in models unregistered (see the lm-eval 0.4.13 notes), so ``--model hf`` and
friends would vanish once the plugin is loaded.
"""

import lm_eval.models  # noqa: F401  (must precede the registrations below)

from lm_eval_thinkbench.models import chat, replay, sim  # noqa: F401  (register on import)
