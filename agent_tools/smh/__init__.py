"""SMH-Bench's agent-facing side of a fabric home: the HomeEnv view (``home_env``, ``products``), SMH rules
(``rules``) and the ``smh`` tool profile (``tools``). Only the emulator's public API is used."""
