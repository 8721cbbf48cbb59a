"""Redraw docs/report.png: the cost curve and first paired comparison of the report of tests/repair/report/test_pages.py's
synthetic campaigns, laid out 1280 px wide in headless Chromium (`.venv/bin/python docs/report_screenshot.py`)."""
import base64
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "repair" / "report")]

from browser import Browser  # noqa: E402
from test_pages import campaigns  # noqa: E402

from repair.report import write_report  # noqa: E402

# From the cost curve's heading to the second comparison's: the curve, then the first paired comparison.
CLIP = """(() => {
  const h = [...document.querySelectorAll('h2')];
  const top = h.find(e => e.textContent.startsWith('Cost against')).getBoundingClientRect().top + scrollY - 12;
  const end = h.filter(e => e.textContent.includes(' vs '))[1].getBoundingClientRect().top + scrollY - 16;
  return [Math.round(top), Math.round(end - top)];
})()"""


def main(out: Path = ROOT / "docs" / "report.png") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        write_report(campaigns(Path(tmp)), html=page)
        with Browser(Path(tmp)) as browser:
            browser.open(page.as_uri(), width=1280)
            y, height = browser.evaluate(CLIP)
            shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                           "clip": {"x": 0, "y": y, "width": 1280, "height": height, "scale": 1}})
        out.write_bytes(base64.b64decode(shot["data"]))
    print(f"{out}: {out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
