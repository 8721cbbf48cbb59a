"""provenance: where each KB entry came from, and whether it overlaps a held-out evaluation cohort.

Public names (import them from their modules; this package imports nothing):
  provenance.canonical.canonical_json, sha256_text, content_hash   canonical JSON and content ids
  provenance.version.tool_version                                   the version stamped on records
  provenance.offline.OFFLINE_ENV, apply_offline_env                 offline settings for entry points
  provenance.errors.ProvenanceError, BadInput, OutsideManifestTree, StaleFingerprint   typed errors with exit codes
  provenance.ledger.Graph, chain, to_prov_json, ...                 the W3C PROV ledger of runs, records, batches
  provenance.cohort.load_manifest, manifest_record, manifest_hash, manifest_tree, CohortManifest, GenerationCost
                                                                    held-out cohorts (and what generating a file cost)
  provenance.parsing.parse, normalize_language, code_language, language_key   tree-sitter parsing (python, cpp, ascendc)
  provenance.ascendc.blank, is_ascendc, six_source_view, ComputeView, PLUMBING_CALLS   AscendC source and template
  provenance.fingerprint.fingerprint, fingerprints, Fingerprint, SCHEME, CARRIED_OVER, PARAMS, kernel_units
  provenance.fingerprint_store.pack_fingerprints, unpack_fingerprints, load_fingerprints, refreshed
  provenance.opstream.op_stream, ops_of                             language-neutral kernel op streams
  provenance.align.align, Alignment                                 local alignment of op streams (the overlap score)
  provenance.overlap.OverlapIndex                                   cohort index; .scan(KB entries) -> OverlapScan
  provenance.overlap_rules.OverlapConfig, OverlapMatch, OverlapScan, score, decide, rule_terms
                                                                    thresholds, evidence, the score and the rule
  provenance.operating_point.THRESHOLD, OPS_NULL                    the operating point the bench's rules choose
  provenance.boilerplate.boilerplate_hashes                         seed idioms ignored as boilerplate
  provenance.fragments.fragment, Fragment                           a match's entry and cohort lines side by side
  provenance.explain.explain, Explanation, read_subject             `kb overlap`: a file's verdict against a cohort
  provenance.disguise.disguise, TRANSFORMS                          planted copies for testing overlap detection
"""
