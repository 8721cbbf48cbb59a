"""The AscendC bundle: a candidate's sources as one text, back to the candidate's own format byte for byte, and
diffs against its files. No compiler runs here."""
from __future__ import annotations

import json

import pytest

from ascendc_fixtures import SUITE
from repair.ascendc.bundle import (
    Bundle,
    BundleError,
    BundleFile,
    apply_diff,
    is_bundle,
    parse_bundle,
    to_bundle,
    write_candidate,
)
from repair.ascendc.load import load_candidate
from repair.loop.patch import PatchRejected, apply_unified_diff

ADD = SUITE / "add"
FORMATS = {"mkb-sources": ADD / "nearmiss_tail.py", "mkb-direct": ADD / "correct.json",
           "npukernelbench": ADD / "npukb" / "nearmiss_tail"}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_bundle_round_trips_to_the_same_candidate(fmt, tmp_path):
    cand = load_candidate(FORMATS[fmt])
    text = to_bundle(cand)
    assert is_bundle(text) and text.startswith(f"//@ ascendc-bundle/v1 format={fmt}\n")
    bundle = parse_bundle(text)
    assert bundle.format == fmt and bundle.text == text
    assert [f.role for f in bundle.files] == [s.role for s in cand.sources]
    assert [f.text for f in bundle.files] == [s.text for s in cand.sources]
    assert {f.role for f in bundle.cpp_files()} <= {"kernel", "host_tiling", "host_operator", "launch", "binding"}
    written = write_candidate(bundle, tmp_path, original=FORMATS[fmt])
    assert written.name == FORMATS[fmt].name
    assert load_candidate(written).sha256 == cand.sha256  # same sources: same content id, same cached build


def test_six_source_names_are_msopgen_files_and_a_change_rewrites_only_its_string(tmp_path):
    src = FORMATS["mkb-sources"]
    bundle = parse_bundle(to_bundle(load_candidate(src)))
    assert bundle.names() == ["add_custom.json", "op_host/add_custom_tiling.h", "op_host/add_custom.cpp",
                              "op_kernel/add_custom.cpp", "CppExtension/csrc/op.cpp", "model.py"]
    kernel = bundle.file("op_kernel/add_custom.cpp")
    changed = bundle.replace(kernel.name, kernel.text.replace("BUFFER_NUM = 2", "BUFFER_NUM = 1"))
    assert changed.file(kernel.name).text != kernel.text and changed.file("model.py") == bundle.file("model.py")
    out = write_candidate(changed, tmp_path, original=src, name="final")
    assert out.name == "final.py"
    before, after = src.read_text().splitlines(), out.read_text().splitlines()
    assert len(before) == len(after)
    assert [(a, b) for a, b in zip(before, after) if a != b] == [("constexpr int32_t BUFFER_NUM = 2;",
                                                                  "constexpr int32_t BUFFER_NUM = 1;")]
    assert load_candidate(out).of("kernel")[0].text == changed.file(kernel.name).text


def test_a_string_that_needs_escapes_still_round_trips(tmp_path):
    src = FORMATS["mkb-sources"]
    bundle = parse_bundle(to_bundle(load_candidate(src)))
    kernel = bundle.file("op_kernel/add_custom.cpp")
    tricky = kernel.text + '// printf("a\\n"); """ and a trailing backslash \\\n'
    out = write_candidate(bundle.replace(kernel.name, tricky), tmp_path, original=src)
    assert load_candidate(out).of("kernel")[0].text == tricky


def test_direct_launch_keeps_its_other_entries(tmp_path):
    src = FORMATS["mkb-direct"]
    bundle = parse_bundle(to_bundle(load_candidate(src)))
    kernel = bundle.of("kernel")[0]
    out = write_candidate(bundle.replace(kernel.name, kernel.text + "// changed\n"), tmp_path, original=src)
    before, after = json.loads(src.read_text()), json.loads(out.read_text())
    assert {k: v for k, v in after.items() if k != "sources"} == {k: v for k, v in before.items() if k != "sources"}
    assert [e["path"] for e in after["sources"]] == [e["path"] for e in before["sources"]]
    assert next(e for e in after["sources"] if e["path"] == kernel.name)["content"].endswith("// changed\n")


def test_a_task_directory_is_copied_with_its_validation(tmp_path):
    src = FORMATS["npukernelbench"]  # its validation/ lies two directories up, in the task
    bundle = parse_bundle(to_bundle(load_candidate(src)))
    out = write_candidate(bundle, tmp_path / "attempt_001", original=src)
    assert out == tmp_path / "attempt_001" / "nearmiss_tail" and (out / "validation" / "module.py").is_file()
    assert (out / "validation" / "pybind.cpp").read_text() == (ADD / "validation" / "pybind.cpp").read_text()
    final = write_candidate(bundle, tmp_path, original=src, name="final")
    assert final.name == "final" and load_candidate(final).sha256 == load_candidate(src).sha256


def test_text_without_a_final_newline_survives():
    b = Bundle("mkb-direct", (BundleFile("kernel/k.cpp", "kernel", "int x;"),))
    assert "role=kernel noeol" in b.text and parse_bundle(b.text) == b


def test_a_multi_file_diff_applies_per_file_and_bad_ones_say_why():
    bundle = parse_bundle(to_bundle(load_candidate(FORMATS["npukernelbench"])))
    kernel = bundle.file("op_kernel/add_custom.cpp").text.splitlines()
    host = bundle.file("op_host/add_custom.cpp").text.splitlines()
    k = next(i for i, line in enumerate(kernel) if "BUFFER_NUM = 2" in line)
    h = next(i for i, line in enumerate(host) if "SetBlockDim" in line)
    diff = (f"--- a/op_kernel/add_custom.cpp\n+++ b/op_kernel/add_custom.cpp\n@@ -{k + 1},1 +{k + 1},1 @@\n"
            f"-{kernel[k]}\n+{kernel[k].replace('2', '1')}\n"
            f"--- a/op_host/add_custom.cpp\n+++ b/op_host/add_custom.cpp\n@@ -{h + 1},1 +{h + 1},2 @@\n"
            f" {host[h]}\n+    // one more line\n")
    changed = apply_diff(bundle, diff, apply_unified_diff)
    assert "BUFFER_NUM = 1" in changed.file("op_kernel/add_custom.cpp").text
    assert "// one more line" in changed.file("op_host/add_custom.cpp").text
    assert changed.file("op_host/add_custom_tiling.h") == bundle.file("op_host/add_custom_tiling.h")
    with pytest.raises(BundleError) as e:
        apply_diff(bundle, diff.replace("op_host/add_custom.cpp", "op_host/other.cpp"), apply_unified_diff)
    assert e.value.reason == "unknown-file" and "op_host/other.cpp" in str(e.value)
    with pytest.raises(PatchRejected) as e:  # the file applier's own error
        apply_diff(bundle, diff.replace(f"-{kernel[k]}", "-this line is not there"), apply_unified_diff)
    assert e.value.reason == "diff"


@pytest.mark.parametrize("text, says", [
    ("int x;\n", "line 1"),
    ("//@ ascendc-bundle/v1 format=cuda\n//@ file k.cpp role=kernel\n", "unknown format"),
    ("//@ ascendc-bundle/v1 format=mkb-direct\n//@ file ../k.cpp role=kernel\n", "leaves"),
    ("//@ ascendc-bundle/v1 format=mkb-direct\n//@ file k.cpp role=shader\n", "unknown role"),
    ("//@ ascendc-bundle/v1 format=mkb-direct\n//@ file k.cpp role=kernel\n//@ file k.cpp role=kernel\n", "twice"),
    ("//@ ascendc-bundle/v1 format=mkb-direct\n", "no '//@ file'"),
])
def test_malformed_bundles_are_refused_with_a_line(text, says):
    assert not is_bundle(text) or text.startswith("//@")
    with pytest.raises(BundleError) as e:
        parse_bundle(text)
    assert says in str(e.value) and e.value.exit_code == 2
