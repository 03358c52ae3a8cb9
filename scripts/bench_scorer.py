#!/usr/bin/env python3
"""Benchmark the rules engine: rounds scored per second and odds deals simulated per second.

Usage: python scripts/bench_scorer.py [--seconds 3] [--deals 100000]

Prints figures only; targets (100,000 odds deals in <= 10 s on a 2-core machine) are checked by reading them,
not by a timed unit test.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorer import get_rules  # noqa: E402
from scorer.layout import TableLayout  # noqa: E402
from scorer.odds import simulate_odds  # noqa: E402
from scorer.scoring import score_round  # noqa: E402


def bench_rounds(seconds: float) -> tuple[int, float]:
    """Score the bundled seed-002 round (two teams, 52 cards, parsing excluded) repeatedly."""
    text = (ROOT / "examples" / "score_sheet_round.json").read_text()
    layout = TableLayout.from_json(text)
    rules = layout.resolve_rules()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        score_round(layout, rules)
        n += 1
    return n, time.perf_counter() - start


def bench_parse_and_score(seconds: float) -> tuple[int, float]:
    """JSON text -> validated layout -> score, as the command line and the API do it."""
    text = (ROOT / "examples" / "score_sheet_round.json").read_text()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        score_round(TableLayout.from_json(text))
        n += 1
    return n, time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per round-scoring benchmark")
    ap.add_argument("--deals", type=int, default=100_000, help="odds deals to simulate")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    n, t = bench_rounds(args.seconds)
    m, u = bench_parse_and_score(args.seconds)
    start = time.perf_counter()
    report = simulate_odds(get_rules("pagat"), deals=args.deals, seed=1)
    odds_s = time.perf_counter() - start
    result = {
        "python": platform.python_version(), "machine": platform.machine(),
        "rounds_per_s": round(n / t, 1), "parse_and_score_per_s": round(m / u, 1),
        "odds_deals": args.deals, "odds_seconds": round(odds_s, 2), "odds_deals_per_s": round(args.deals / odds_s),
        "odds_round1_dealt_pct": report.opening[0].dealt,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"rounds scored per second (layout already parsed): {result['rounds_per_s']:,}")
        print(f"layouts parsed and scored per second:             {result['parse_and_score_per_s']:,}")
        print(f"odds: {args.deals:,} deals in {odds_s:.2f} s = {result['odds_deals_per_s']:,} deals/s "
              f"(target: 100,000 in <= 10 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
