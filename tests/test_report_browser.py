"""The rendered HTML in a real browser: headless Chromium loads it from disk with no console messages,
every image is an embedded data: URI, and the page screenshots to a non-blank PNG.

Skipped, with the reason, where Chromium is not installed (CI installs the Debian package `chromium`).
The screenshot is copied to /tmp/report-screenshot.png so a person can look at it.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.report import render
from tests.test_report import cpu_results_file

SCREENSHOT_COPY = Path("/tmp/report-screenshot.png")
WINDOW = (1400, 3000)


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


@pytest.fixture(scope="module")
def browser() -> str:
    exe = _chromium()
    if exe is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium); CI installs it")
    return exe


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    results = cpu_results_file(tmp_path_factory.mktemp("rosetta-cpu-browser"))
    html, _ = render(results, tmp_path_factory.mktemp("report-browser"))
    return html


def _run(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    # Every flag that keeps Chromium off the network and out of first-run UI; the host resolver rule
    # makes any attempt to fetch something from outside fail rather than quietly succeed.
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, timeout=120, check=False)


def test_page_loads_with_no_console_messages_and_every_image_embedded(browser: str, page: Path,
                                                                      tmp_path: Path) -> None:
    proc = _run(browser, tmp_path / "profile", "--enable-logging=stderr", "--v=0", "--dump-dom",
                page.as_uri())
    dom = proc.stdout.decode("utf-8", "replace")
    log = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, log[-3000:]
    # The page has no JavaScript: any console line is an error (a blocked or failed load included).
    console = [ln for ln in log.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]
    assert console == [], "\n".join(console)
    assert "<main>" in dom and "tile-rosetta report" in dom
    sources = re.findall(r"<img\b[^>]*\bsrc=\"([^\"]*)\"", dom)
    expected = len(re.findall(r"<img\b", page.read_text(encoding="utf-8")))
    assert len(sources) == expected
    assert all(src.startswith("data:image/png;base64,") for src in sources)


def test_page_screenshots_to_a_non_blank_png(browser: str, page: Path, tmp_path: Path) -> None:
    from PIL import Image

    shot = tmp_path / "report.png"
    proc = _run(browser, tmp_path / "profile", "--hide-scrollbars", f"--screenshot={shot}",
                f"--window-size={WINDOW[0]},{WINDOW[1]}", page.as_uri())
    assert proc.returncode == 0 and shot.exists(), proc.stderr.decode("utf-8", "replace")[-3000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(data)) as im:
        assert im.size == WINDOW
        low, high = im.convert("L").getextrema()
        assert low < 80 and high > 240, "the screenshot is blank: no dark text on a light page"
    try:
        shutil.copyfile(shot, SCREENSHOT_COPY)
    except OSError as e:  # a read-only /tmp must not fail the check of the page itself
        pytest.skip(f"screenshot checked but not copied to {SCREENSHOT_COPY}: {e}")
