"""Running agents over episodes: the run spec, the runner, its records, store and progress."""
