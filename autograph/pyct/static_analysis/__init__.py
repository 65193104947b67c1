"""Static analysis over gast trees: activity (reads and writes) and liveness, the latter
as data flow over `pyct.cfg` graphs."""
