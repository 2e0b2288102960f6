"""Auto-tuning: the configuration space of an op, search techniques, the tuning database."""
