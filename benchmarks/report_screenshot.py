"""Render the HTML report of a test on the Palmer penguins in headless Chromium
and check the screenshot: the figure of doc/user_guide/inspection.rst.

The report compares the penguins of Biscoe island with those of the two other
islands (species, measurements, sex and year as they are, missing values
included), with ``explain_columns=True`` so that it shows the columns that moved.

Chromium comes from the system's packages (``apt-get install chromium``); it
runs with ``--headless --screenshot``, every host name mapped to nothing
(``--host-resolver-rules``, so no request can leave the machine) and its log
on standard error, from which the page's console messages and the requests
it made are read. The requests of a blank page in the same browser (its own
services) are the baseline: the report must add none.

    python benchmarks/report_screenshot.py                # doc/_static/...png
    python benchmarks/report_screenshot.py --out shot.png --html report.html
"""

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlparse

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "doc" / "_static" / "report_penguins.png"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
# The two samples' colours in the report's figures (two_sample/_report.py).
COLOURS = {"reference": (0x4C, 0x72, 0xB0), "current": (0xDD, 0x84, 0x52)}


def penguin_report(path):
    """Write the report of Biscoe's penguins against the other islands'."""
    from palmerpenguins import load_penguins

    from skmmd import mmd_test

    # The table is sorted by species and year: in that order its rows look
    # serially dependent to the tests' order check; drawn in random order
    # they are the exchangeable sample the test assumes.
    penguins = load_penguins().sample(frac=1.0, random_state=0)
    biscoe = penguins["island"] == "Biscoe"
    reference = penguins[biscoe].drop(columns="island").reset_index(drop=True)
    current = penguins[~biscoe].drop(columns="island").reset_index(drop=True)
    result = mmd_test(reference, current, explain_columns=True, random_state=0)
    settings = {
        "reference (X)": "palmerpenguins, rows shuffled: island == 'Biscoe'",
        "current (Y)": "palmerpenguins, rows shuffled: island != 'Biscoe'",
        "call": "mmd_test(reference, current, explain_columns=True, random_state=0)",
    }
    return result.save_report(
        path,
        reference,
        current,
        settings=settings,
        title="Penguins of Biscoe island against the other islands",
    )


def _run(browser, page, png, window):
    command = [
        browser,
        "--headless",
        "--no-sandbox",  # containers run as root
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--disable-background-networking",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--enable-logging=stderr",
        "--v=1",
        f"--window-size={window[0]},{window[1]}",
        f"--screenshot={png}",
        Path(page).resolve().as_uri(),
    ]
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run(
            [*command, f"--user-data-dir={profile}"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    if not Path(png).is_file():
        raise RuntimeError(f"{browser} wrote no screenshot:\n{run.stderr[-2000:]}")
    log = run.stderr.splitlines()
    console = [line for line in log if ":INFO:CONSOLE" in line]
    hosts = {
        urlparse(url).hostname or ""
        for url in re.findall(r"NotifyBeforeURLRequest: (\S+)", run.stderr)
        if not url.startswith(("file:", "data:"))
    }
    return console, hosts


def screenshot(page, png, browser=None, window=(1000, 2600)):
    """Screenshot ``page`` into ``png`` and read the browser's log.

    Returns a namespace: ``console`` (the page's console messages), ``requests``
    and ``baseline_requests`` (hosts requested with the page and with a blank
    page), ``image`` (RGB floats in [0, 1]), ``ink_share`` (share of pixels
    that are not white) and ``colour_pixels`` (pixels of each sample's colour).
    """
    import matplotlib.image

    browser = browser or next(filter(None, map(shutil.which, BROWSERS)), None)
    if browser is None:
        raise RuntimeError("no Chromium on PATH: apt-get install chromium")
    with tempfile.TemporaryDirectory() as tmp:
        blank = Path(tmp) / "blank.html"
        blank.write_text("<!DOCTYPE html><html><body></body></html>")
        _, baseline = _run(browser, blank, Path(tmp) / "blank.png", window)
    console, hosts = _run(browser, page, png, window)
    image = matplotlib.image.imread(png)[..., :3].astype(float)
    pixels = np.rint(image * 255).astype(int)
    return SimpleNamespace(
        console=console,
        requests=hosts,
        baseline_requests=baseline,
        image=image,
        ink_share=float((image.min(axis=-1) < 0.95).mean()),
        colour_pixels={
            name: int((np.abs(pixels - rgb).max(axis=-1) <= 8).sum())
            for name, rgb in COLOURS.items()
        },
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"default {OUT}")
    parser.add_argument("--html", type=Path, default=None, help="keep the page here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        page = penguin_report(args.html or Path(tmp) / "report.html")
        shot = screenshot(page, args.out)
    # The docs' copy ends 24 pixels below the page's last content.
    import matplotlib.image

    inked = np.flatnonzero((shot.image < 0.99).any(axis=(1, 2)))
    matplotlib.image.imsave(args.out, shot.image[: inked[-1] + 24])
    print(f"{args.out}: {shot.image.shape[1]} x {shot.image.shape[0]} pixels")
    print(f"console messages: {len(shot.console)}")
    extra = sorted(shot.requests - shot.baseline_requests)
    print(f"requests beyond a blank page's: {extra}")
    print(f"non-white share: {shot.ink_share:.1%}; bar pixels: {shot.colour_pixels}")
    ok = (
        not shot.console
        and shot.requests <= shot.baseline_requests
        and min(shot.colour_pixels.values()) > 500
    )
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
