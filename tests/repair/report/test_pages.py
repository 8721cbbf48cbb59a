"""The campaign report as people see it: one headless Chromium launch lays the page out 1280 px wide; the page body
never runs off the right edge (wide tables scroll in their own box), every chart's SVG is drawn, and a screenshot
is written to the test's temp directory."""
import random
import struct
from pathlib import Path

from repair.report import write_report

from browser import LAYOUT, Browser, needs_chromium
from ledgers import make_ledger

LONG = "a_campaign_directory_name_long_enough_to_push_a_table_off_the_page_unless_it_scrolls_in_its_box"


OPERATORS = ["add_relu", "argmax", "attention_block", "batchnorm", "conv1d", "cross_entropy", "cumsum", "dropout_mask",
             "embedding", "gather_rows", "gelu", "l2_normalize", "layernorm", "leaky_relu", "log_softmax", "matmul",
             "maxpool", "mean_reduce", "rmsnorm", "rope", "scatter_add", "silu_mul", "softmax", "swiglu", "topk",
             "transpose_copy", "var_reduce"]


def campaigns(out: Path, ablation_dir: str = "debug-no-kb") -> list[Path]:
    """Three synthetic campaigns over 27 tasks with one to three near-misses each (their generation cost given): a
    debug campaign, a regeneration with K = 3, and a no-kb ablation in `ablation_dir`. docs/report_screenshot.py
    draws the README's screenshot from them."""
    rng = random.Random(4)
    debug, nokb, regen, gen = {}, {}, {}, {}
    for op in OPERATORS:
        for j in range(1, 1 + rng.choice([1, 1, 2, 3])):
            key, won = f"{op}/nearmiss_{j}", rng.random() < 0.66
            debug[key] = dict(status="repaired" if won else "failed", attempts=rng.randint(1, 5),
                              prompt_tokens=rng.randint(2000, 9000), completion_tokens=rng.randint(300, 1500),
                              cached_tokens=rng.randint(0, 2000), wall_s=rng.uniform(20, 200),
                              workflow_accepted=rng.randint(0, 3), cited=["e1"] if won else [])
            nokb[key] = dict(debug[key], status="repaired" if won and rng.random() < 0.8 else "failed", cited=[],
                             prompt_tokens=rng.randint(3000, 12000))
            gen[key] = (rng.randint(3000, 12000), "gpt-4o")
        for t in range(3):
            regen[f"{op}/trial-{t}"] = dict(status="repaired" if rng.random() < 0.17 else "failed",
                                            prompt_tokens=rng.randint(3000, 6000),
                                            completion_tokens=rng.randint(2000, 5000), wall_s=rng.uniform(30, 120))
    return [make_ledger(out / "debug", "debug", debug, generation=gen),
            make_ledger(out / "regenerate", "regenerate", regen, trials=3),
            make_ledger(out / ablation_dir, "debug", nokb, ablations=["no-kb"], generation=gen)]


@needs_chromium
def test_report_fits_1280_px_and_draws_every_chart(tmp_path):
    page = tmp_path / "report.html"
    report, _ = write_report(campaigns(tmp_path, LONG), html=page)
    assert len(report.comparisons) == 2
    with Browser(tmp_path) as browser:
        browser.open(page.as_uri(), width=1280)
        layout = browser.evaluate(LAYOUT)
        shot = browser.screenshot(tmp_path / "report.png")
    assert layout["viewport"] == 1280
    assert layout["scroll_width"] <= layout["viewport"], layout  # no horizontal overflow of the page
    assert [s["label"] for s in layout["svgs"]] == [
        "pass rate with Wilson 95% intervals", "tokens per success", "cumulative tokens against tasks recovered",
        "outcome per operator and run"]
    for s in layout["svgs"]:
        assert s["width"] > 100 and s["height"] > 100 and s["children"] > 10, s
        assert s["right"] <= layout["viewport"], s
    assert layout["boxes"] and all(b["right"] <= layout["viewport"] and b["scrolls"] == "auto" for b in layout["boxes"])
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24])[0] == 1280


@needs_chromium
def test_report_reads_on_a_phone_and_says_what_makes_it_reproducible(tmp_path):
    """Issue 37: at 390 px the body does not overflow (tables scroll in their boxes); the page opens with the
    reproducibility table (cohort hash, snapshot, backend and emulation, tool version and commit, seeds)."""
    page = tmp_path / "report.html"
    write_report(campaigns(tmp_path, LONG), html=page)
    html = page.read_text()
    assert "<h2>Reproducibility</h2>" in html and "Report made by nearmiss-repair " in html
    assert html.index("Reproducibility") < html.index("<h2>Campaigns</h2>") and "record.json" in html
    with Browser(tmp_path) as browser:
        for width in (1280, 390):
            browser.open(page.as_uri(), width=width)
            layout = browser.evaluate(LAYOUT)
            browser.screenshot(tmp_path / f"report-{width}.png")
            assert layout["viewport"] == width and layout["scroll_width"] <= width, (width, layout)
            assert all(b["right"] <= width for b in layout["boxes"]), (width, layout["boxes"])
