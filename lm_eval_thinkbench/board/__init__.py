"""``thinkbench leaderboard``: one row per model over any number of runs, as Markdown, CSV,
JSON, PNGs and a self-contained HTML page with a per-sample trace view."""
