"""Command-line tools: mdh-opt, mdh-run, mdh-tune."""
