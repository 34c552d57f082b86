"""SimuHome compatibility: the value shapes of SimuHome's published homes (``shapes``)."""
