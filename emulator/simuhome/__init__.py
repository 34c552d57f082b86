"""SimuHome compatibility: the published value shapes (``shapes``), how they map onto Matter types
(``values``), and example homes built from the shape inventory (``samples``)."""
