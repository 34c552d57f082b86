"""SMH-Bench on the fabric: the HomeEnv view, the smh tool profile, instances, generator, verifier, settings."""
