"""ingest: repair records in, KB entries out.

Public names: ingest.record.RepairRecord (the contract), ingest.load.load_record, ingest.gate.gate,
ingest.entry.pattern_from_record / Pattern, ingest.patch.unified_diff / apply_unified_diff,
ingest.api.ingest / IngestReport, ingest.synthetic.make_record (tests, benchmarks),
ingest.rules (the rule language: rules as data, matcher/applier, distillation).
"""
