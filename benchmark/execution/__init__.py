"""Where units of work run: in this process one after another (``local``) or as Ray tasks (``ray``), their
outputs handed back in unit order so the driver writes the same bytes whatever the executor.

A low room of the benchmark: it imports the standard library (and typer for the shared command-line options),
never another room, and Ray only inside :mod:`benchmark.execution.ray_executor`, which is imported only when
``--executor ray`` is asked for. ``dataset build``, ``episodes generate``, ``bench run`` and ``speech render``
cut their work into :class:`~benchmark.execution.executors.WorkUnit` s and hand them to an executor.
"""
