"""A list or struct imported again from the import cache (emulator/simuhome/values.py) is a copy of its own, equal
in value and types to the first import, whatever the next home does to it."""

from __future__ import annotations

import json

from emulator.simuhome import values


def test_a_kept_import_is_read_back_as_a_fresh_equal_copy():
    accuracy = [{"measurementType": 1, "measured": True, "minMeasuredValue": -5, "ranges": [{"percentMax": 0.5}]}]
    first = values.import_list_or_struct("ElectricalPowerMeasurement", "Accuracy", accuracy, set())
    again = values.import_list_or_struct("ElectricalPowerMeasurement", "Accuracy", accuracy, set())
    third = values.import_list_or_struct("ElectricalPowerMeasurement", "Accuracy", accuracy, set())
    assert json.dumps(again) == json.dumps(first) == json.dumps(third)  # the same types: 0.5 stays a float
    assert again is not third and again[0] is not third[0] and again[0]["ranges"] is not third[0]["ranges"]
    again[0]["ranges"].append("changed by one home")
    assert "changed by one home" not in json.dumps(
        values.import_list_or_struct("ElectricalPowerMeasurement", "Accuracy", accuracy, set())
    )
