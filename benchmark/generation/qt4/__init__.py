"""qt4 — scheduling episodes: relative times (qt4-1, ``relative``), relative to a running appliance's end
(qt4-2, ``after_anchor``), appliance ↔ appliance coordination (qt4-3, ``coordination``); infeasible variants
carry a temporal conflict.

Every ``when`` is computed from our cycle programs and the anchor's CountdownTime on the exported home
(``goals``, ``anchors``), and every feasible episode is verified by simulation (``witness``): a witness
schedule (kept as the solution) makes every goal true inside its window, and doing nothing leaves at least
one goal false.
"""
