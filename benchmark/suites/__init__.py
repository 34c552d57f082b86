"""The benchmark's suites: SimuHome's 12 kinds, SMH-Bench, and spoken (voice) episodes."""
