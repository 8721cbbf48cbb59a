"""Redraw docs/report_phone.png and docs/audit.png (issue 37): the top of the campaign report of
tests/repair/report/test_pages.py's synthetic campaigns laid out 390 px wide (a phone), and the top of the audit page
of a snapshot of the starter patterns frozen against manifests/examples.yaml, 1280 px wide, both in headless Chromium
(`.venv/bin/python docs/pages_screenshot.py`; the KB uses the hashing embedder, so no model is loaded)."""
import base64
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "repair" / "report")]

from browser import Browser  # noqa: E402
from test_pages import campaigns  # noqa: E402


def _shot(browser: Browser, uri: str, width: int, height: int, out: Path) -> None:
    browser.open(uri, width=width)
    shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                   "clip": {"x": 0, "y": 0, "width": width, "height": height,
                                                            "scale": 1}})
    out.write_bytes(base64.b64decode(shot["data"]))
    print(f"{out}: {out.stat().st_size:,} bytes")


def main() -> None:
    from ingest.api import ingest
    from kbstore.audit import audit
    from kbstore.embed import HashEmbedder
    from kbstore.freeze import freeze
    from repair.report import write_report

    os.environ["KB_EMBEDDER"] = "hash"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        report = tmp / "report.html"
        write_report(campaigns(tmp), html=report)
        kb = tmp / "kb"
        ingest([ROOT / "repair" / "rules" / "starter"], kb, embedder=HashEmbedder())
        snap = freeze(ROOT / "manifests" / "examples.yaml", kb, name="starter-vs-examples")
        page = tmp / "audit.html"
        page.write_text(audit(snap.snapshot_id, kb).html(), encoding="utf-8")
        with Browser(tmp) as browser:
            _shot(browser, report.as_uri(), 390, 1400, ROOT / "docs" / "report_phone.png")
            _shot(browser, page.as_uri(), 1280, 1200, ROOT / "docs" / "audit.png")


if __name__ == "__main__":
    main()
