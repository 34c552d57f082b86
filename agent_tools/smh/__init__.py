"""SMH-Bench's agent-facing side of a fabric home: the HomeEnv view (``home_env``, ``products``), SMH rules
(``rules``) and the ``smh`` tool profile (``tools``). Only the emulator's public API is used."""

DEFAULT_BUDGET = 10  # the smh profile's tool calls per episode; here, so a run spec names it without loading the tools
