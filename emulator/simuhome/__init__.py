"""SimuHome compatibility: its home config format (``config``), the published value shapes (``shapes``), how
they map onto Matter types (``values``, ``spelling``, ``paths``), lossless import and export of its homes
(``import_home``, ``origin``, ``export_home``) and example homes built from the shape inventory (``samples``)."""
