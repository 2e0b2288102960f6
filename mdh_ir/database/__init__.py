"""What is known about configurations: the tuning database (`store`: every evaluation,
in SQLite) and the configurations shipped with the package (`shipped`). The tuner writes
the database; the compile driver reads both."""
