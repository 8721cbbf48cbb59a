"""The overlap detector's operating point: the values bench/bench_overlap_heldout.py's rules choose.

Kept apart from provenance.overlap_rules (pydantic, tree-sitter) so that `kb freeze --help` can show them at once.
The rules (bench/bench_overlap_heldout.py, stated in code): OPS_NULL = choose_ops_null, the highest op alignment
across languages that a clean entry of the tune halves reaches; THRESHOLD = choose_threshold, the lowest threshold
at which at most 3% of the tune halves' clean entries are flagged. The tune halves are those of heldout/README.md's
overlap sets. tests/provenance/test_overlap_operating_point.py re-runs both rules on the committed tune halves and
fails when these are not what they choose; the bench prints both.
"""

THRESHOLD = 0.734
OPS_NULL = 0.88
