"""The report renders in headless Chromium without console errors.

Runs where a Chromium/Chrome binary is installed (or named by ``KERNELKIT_CHROMIUM``);
skipped, saying so, everywhere else (it is not installed on CI).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess

import pytest

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome",
         "headless_shell")


def _chromium() -> str | None:
    env = os.environ.get("KERNELKIT_CHROMIUM")
    if env:
        return env
    return next((p for p in map(shutil.which, NAMES) if p), None)


CHROMIUM = _chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason=f"headless Chromium is not installed (looked for {', '.join(NAMES)} on PATH and "
           "$KERNELKIT_CHROMIUM); the rendering check runs where it is installed",
)

PROBE = """<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var bad = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); });
  document.body.setAttribute("data-probe", "images=" + imgs.length + " broken=" + bad.length);
});
</script></body>"""


def _headless(url: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
         "--virtual-time-budget=5000", "--dump-dom", url],
        capture_output=True, text=True, timeout=120,
    )


def test_report_renders_without_console_errors(tmp_path):
    pytest.importorskip("matplotlib")
    from kernelkit.report.runner import run_demo

    res = run_demo(tmp_path / "rep", quick=True, only=["kernels"], stream=io.StringIO())
    assert res.ok
    proc = _headless(res.html_path.resolve().as_uri(), tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines()
               if re.search(r"CONSOLE|Uncaught|Failed to load resource", line)]
    assert not console, "\n".join(console)
    assert "kernelkit demo report" in proc.stdout

    # every embedded figure decodes (checked by a probe in a copy of the report)
    probed = tmp_path / "probed.html"
    probed.write_text(res.html_path.read_text(encoding="utf-8").replace("</body>", PROBE),
                      encoding="utf-8")
    proc = _headless(probed.resolve().as_uri(), tmp_path)
    m = re.search(r'data-probe="images=(\d+) broken=(\d+)"', proc.stdout)
    assert m, proc.stdout[-2000:]
    assert int(m.group(1)) == len(res.sections[0].figures_png) and m.group(2) == "0"
