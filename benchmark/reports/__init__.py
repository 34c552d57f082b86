"""Reports over run records: one run's report, plots, comparisons across runs and models."""
