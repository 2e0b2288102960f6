"""Auto-tuning: the configuration space of an op, search techniques, evaluation of candidates
(through the compile driver and the runtime) and the tuning loop, which fills the tuning
database (`mdh_ir.database`)."""
