"""Standard-harness graders beside ours on the same responses (``thinkbench compare``)."""
