"""How docs/phoenix-spans.png was made (from the repository root):

    python docs/_tools/demo_screenshots.py OUT_DIR

``vcg-otel demo --keep`` (the README's demo command, Phoenix left running), then headless
Chromium (Debian's ``chromium``) on its project's root spans, one ``Pipeline.run`` per request,
with the ``citation_fabrication`` annotation's mean score.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

PROJECT = "vcg-otel-demo"


def shoot(url: str, path: Path, size: str = "1600,1000") -> None:
    """A screenshot of ``url`` once the page has had 30 s of virtual time to render."""
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", f"--window-size={size}",
                    "--virtual-time-budget=30000", f"--screenshot={path}", url],
                   check=True, capture_output=True, timeout=180)


def graphql(url: str, query: str) -> dict[str, object]:
    request = urllib.request.Request(f"{url}/graphql", json.dumps({"query": query}).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        data: dict[str, object] = json.load(reply)["data"]
        return data


def run(out: Path) -> None:
    demo = subprocess.Popen([sys.executable, "-m", "vcg_otel.cli", "demo", "--keep"],
                            stdout=subprocess.PIPE, text=True)
    assert demo.stdout is not None
    try:
        url = None
        for line in demo.stdout:
            print(line, end="")
            found = re.search(r"Phoenix keeps running at (\S+)", line)
            if found:
                url = found.group(1)
                break
        assert url, "the demo ended before Phoenix was left running"
        projects = graphql(url, "{ projects { edges { node { id name } } } }")
        pid = next(e["node"]["id"] for e in projects["projects"]["edges"]  # type: ignore[index]
                   if e["node"]["name"] == PROJECT)
        shoot(f"{url}/projects/{pid}/spans", out / "phoenix-spans.png")
        print(url, pid)
    finally:
        demo.send_signal(signal.SIGINT)
        demo.wait(60)


if __name__ == "__main__":
    run(Path(sys.argv[1]))
