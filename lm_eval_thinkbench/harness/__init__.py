"""The lm-eval glue every suite uses: run settings from ``--metadata``, the record filter base,
and exact group pooling driven by the group YAMLs' metadata. It knows no suite."""
