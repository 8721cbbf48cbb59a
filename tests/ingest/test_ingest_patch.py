import random

import pytest

from ingest.patch import DiffError, apply_unified_diff, parse_hunks, snippets, unified_diff


def _mutate(rng, lines):
    out = list(lines)
    for _ in range(rng.randint(1, 5)):
        op = rng.random()
        if op < 0.3 and out:
            del out[rng.randrange(len(out))]
        elif op < 0.6:
            out.insert(rng.randint(0, len(out)), f"new {rng.randint(0, 9)}\n")
        elif out:
            out[rng.randrange(len(out))] = f"changed {rng.randint(0, 9)}\n"
    return out


def test_round_trips_random_edits_including_missing_final_newlines():
    rng = random.Random(7)
    for _ in range(500):
        a = [f"line {rng.randint(0, 4)}\n" for _ in range(rng.randint(0, 25))]
        before, after = "".join(a), "".join(_mutate(rng, a))
        if rng.random() < 0.3:
            before = before.rstrip("\n")
        if rng.random() < 0.3:
            after = after.rstrip("\n")
        diff = unified_diff(before, after, context=rng.randint(0, 3))
        if before == after:
            assert diff == ""
            continue
        assert apply_unified_diff(before, diff) == after


def test_no_newline_marker_is_written_and_read():
    diff = unified_diff("a\nb", "a\nc")
    assert "\\ No newline at end of file" in diff
    assert apply_unified_diff("a\nb", diff) == "a\nc"


def test_hunk_that_does_not_match_is_refused_not_fuzzed():
    diff = unified_diff("x\ny\nz\n", "x\nY\nz\n")
    with pytest.raises(DiffError, match="does not match"):
        apply_unified_diff("x\nq\nz\n", diff)
    # the same hunk one line lower: a fuzzy applier would accept it, the gate must not
    with pytest.raises(DiffError):
        apply_unified_diff("pad\nx\ny\nz\n", diff)


@pytest.mark.parametrize("diff, message", [
    ("not a diff at all\n", "unexpected text"),
    ("@@ -1,3 +1,3 @@\n a\n-b\n", "truncated"),
    ("@@ -1,1 +1,1 @@\n-a\n+b\n+c\n", "unexpected text outside a hunk|more lines"),
    ("", "no hunks"),
])
def test_malformed_diffs_raise(diff, message):
    with pytest.raises(DiffError, match=message):
        apply_unified_diff("a\nb\nc\n", diff)


def test_a_second_file_is_refused():
    one = unified_diff("a\n", "b\n")
    with pytest.raises(DiffError, match="one file"):
        parse_hunks(one + one)


def test_snippets_are_the_changed_hunks_with_context():
    before = "".join(f"{c}\n" for c in "abcdefghij")
    after = before.replace("b\n", "B\n").replace("j\n", "J\n")
    old, new = snippets(unified_diff(before, after, context=1))
    assert old == "a\nb\nc\n...\ni\nj\n"
    assert new == "a\nB\nc\n...\ni\nJ\n"
