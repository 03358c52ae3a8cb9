"""README's commands a new user copies: the video to watch without a webcam."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _video_commands() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("No webcam at hand?")
    return text[start:text.index("\n\n", text.index("```bash", start))]


def test_the_video_of_a_round_installs_its_extras_and_serves_beside_handfoot_serve():
    said = _video_commands()
    assert "pip install -e '.[vision,datasets]'" in said  # datasets: the card art (resvg); vision: watching
    video = re.search(r"python -m datasets\.round_video (\S+) && handfoot watch --video (\S+) --serve (.*)", said)
    assert video and video[1] == video[2] and Path(video[1]).is_absolute()  # written outside the repository
    assert "--port 8001" in video[3] and "Ctrl-C" in said  # `handfoot serve` holds 8000
    assert "--game ID" in said and "New game" in said  # End of round needs an open game


def test_videos_made_in_the_repository_are_ignored():
    for name in ("round.avi", "out/record.mp4"):
        try:
            ignored = subprocess.run(["git", "check-ignore", "-q", name], cwd=ROOT)
        except FileNotFoundError:
            pytest.skip("no git")
        if ignored.returncode == 128:
            pytest.skip("not a git checkout")
        assert ignored.returncode == 0, name


def test_the_try_on_this_computer_first_says_what_the_bundled_photo_scores():
    """README's first command and its first try of the page name the points the bundled photo's true layout scores
    (the shipped models read it exactly; the screenshot's misread is planted)."""
    import json
    import sys

    text = " ".join((ROOT / "README.md").read_text().split())
    said = text[text.index("**Try it on this computer first**"):text.index("At the table, for the phones")]
    assert "`examples/table.jpg`" in said and "`http://127.0.0.1:8000/`" in said and "Save anyway" in said
    points = re.search(r"it reads ([\d,]+) points", said)
    assert points
    setup = text[text.index("## Set up"):text.index("Run the tests")]
    assert re.search(r"the score \(([\d,]+) points\)", setup)[1] == points[1]
    scored = subprocess.run([sys.executable, "-m", "handfoot", "score", "examples/table_truth.json", "--json"],
                            cwd=ROOT, capture_output=True, text=True, check=True)
    totals = [team["total"] for team in json.loads(scored.stdout)["teams"].values()]
    assert int(points[1].replace(",", "")) == max(totals)
