"""Static analysis over gast trees: activity (reads and writes), liveness and reaching
definitions, the latter two as data flow over `pyct.cfg` graphs."""
