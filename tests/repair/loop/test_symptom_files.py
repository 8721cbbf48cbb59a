"""`kb query --symptom` reads two paths someone else chose (#30): the result file and the candidate it names.
Both go through the bounded regular-file reader: /dev/zero is refused or skipped, never read for ever."""
from __future__ import annotations

import pytest

from repair.errors import BadInput
from repair.loop.symptom import load_eval, make_eval_result, symptom_query


def test_a_special_file_as_the_result_is_bad_input():
    with pytest.raises(BadInput, match="/dev/zero: cannot read: not a regular file"):
        load_eval("/dev/zero")


def test_a_result_naming_dev_zero_as_its_candidate_queries_without_its_code(tmp_path):
    result = make_eval_result("mask-off-by-one", candidate_path="/dev/zero")
    path = tmp_path / "eval.json"
    path.write_text(result.model_dump_json(by_alias=True))
    q = symptom_query(load_eval(path), base_dir=tmp_path)
    assert "\0" not in q.code and len(q.code) < 2000
