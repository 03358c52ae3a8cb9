"""The ``handfoot`` command line: argparse (:mod:`handfoot.cli_parser`) and printing, over the application layer.

Every sub-command prints a readable report, or JSON with ``--json``. Bad input (an unknown card code, rule
name or key, an impossible layout) exits with status 1 and a one-line ``handfoot: error: ...`` message on
standard error; a usage mistake exits with status 2. Set ``HANDFOOT_DEBUG=1`` to see tracebacks.
"""

from __future__ import annotations

import argparse
import difflib
import itertools
import json
import re
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from tqdm import tqdm

from scorer import PRESET_NAMES, HandFootError, get_rules, parse_cards
from scorer.cards import Card
from scorer.melds import check_meld
from scorer.odds import simulate_odds
from scorer.opening import best_opening, check_opening
from scorer.rules import Rules
from scorer.wording import counted

from . import core, export, files, games, live, photo_request, picture as shown, reports, startup, watch
from . import watching
from .cli_decks import cmd_deck_learn, cmd_deck_list, cmd_deck_remove, cmd_detect, decks_folder
from .cli_parser import MAX_DEALS, build_parser
from .cli_out import EXIT_BAD_INPUT, print_json as _print_json, say as _say
from .limits import DEFAULT_LIMITS, too_many_cards

#: flags of `score` that only mean something for photos
PHOTO_FLAGS = ("annotate", "split", "teams", "left", "hand", "went_out", "round", "conf", "model", "reader",
               "save_layout", "deck", "negative")



def _house_rules(pairs: Sequence[str] | None) -> dict[str, Any]:
    """``--set key=value`` pairs, values parsed as JSON when possible (``2``, ``true``, ``[60,90]``), numbers with
    commas between as a list (``60,90``), ``none`` as None."""
    out: dict[str, Any] = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise HandFootError(f"--set needs key=value, got {pair!r}")
        key, _, raw = pair.partition("=")
        if re.fullmatch(r"\s*-?\d+(\s*,\s*-?\d+)+\s*", raw):
            out[key.strip()] = [int(x) for x in raw.split(",")]
            continue
        try:
            out[key.strip()] = None if raw.strip().lower() == "none" else json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def _rules_in_use(args: argparse.Namespace) -> Rules:
    """The rules a command runs under with its ``--set`` applied: ``--rules`` (or ``rules NAME``), else the preset
    and house rules of its (first) layout file, else pagat (a layout file that cannot be read, or whose own rules
    are bad, is left to the command to name).

    Raises:
        HandFootError: a ``--set`` field or value these rules do not take (the message names the preset).
    """
    layouts = getattr(args, "layouts", None) or [p for p in getattr(args, "inputs", None) or []
                                                  if p.lower().endswith(".json")]
    if layouts:
        try:
            layout = core.read_layout_file(layouts[0])
            core.layout_rules(layout, getattr(args, "rules", None))
        except HandFootError:
            layout = None
        if layout is not None:
            return core.layout_rules(layout, getattr(args, "rules", None), _house_rules(args.set))
    return get_rules(getattr(args, "rules", None) or getattr(args, "name", None) or "pagat", **_house_rules(args.set))


def _rules(args: argparse.Namespace, default: str = "pagat") -> Rules:
    return get_rules(getattr(args, "rules", None) or default, **_house_rules(getattr(args, "set", None)))


# -- score ----------------------------------------------------------------------------------------------------
def cmd_score(args: argparse.Namespace) -> int:
    if all(p.lower().endswith(".json") for p in args.inputs):
        if len(args.inputs) != 1:
            raise HandFootError("give one layout JSON file (use `handfoot game` for several rounds)")
        given = [f"--{f.replace('_', '-')}" for f in PHOTO_FLAGS if getattr(args, f) is not None]
        if given:
            raise HandFootError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} only to photos; "
                                "a layout file has its own round, went_out and teams")
        layout = core.read_layout_file(args.inputs[0])
        house = _house_rules(args.set)
        result = core.score_layout(layout, args.rules, house, lenient=args.lenient)
        if args.json:
            _print_json(result.score.model_dump(mode="json"))
        else:
            print(reports.layout_report(layout, result.score, core.layout_rules(layout, args.rules, house)))
            print(result.text_report())
        return 0
    if any(p.lower().endswith(".json") for p in args.inputs):
        raise HandFootError("give either one layout JSON file or photos, not both")
    return _score_photos(args)


def _score_photos(args: argparse.Namespace) -> int:
    if args.conf is not None and not 0 < args.conf <= 1:
        raise HandFootError(f"--conf must be in (0, 1], got {args.conf}")
    try:
        left = photo_request.parse_left(args.left or ())
    except HandFootError as exc:
        raise HandFootError(f"--left: {exc}") from None
    req = photo_request.PhotoRequest(rules=args.rules or "pagat", house_rules=tuple(_house_rules(args.set).items()),
                           round=args.round, went_out=args.went_out, split=args.split,
                           teams=photo_request.parse_teams(args.teams),
                           left=tuple((t, tuple(tuple(p) for p in packets)) for t, packets in left.items()),
                           conf=photo_request.DEFAULT_CONF if args.conf is None else args.conf)
    hands = files.hand_photos(args.hand or ())
    req, hand_teams = photo_request.matched_team_names(req, len(args.inputs), [t for t, _ in hands])  # `us` for `Us`
    hands = [(team, photo) for team, (_, photo) in zip(hand_teams, hands)]
    photo_request.check_photo_request(req, len(args.inputs), hand_teams)  # before the slow work
    files.check_hand_photos(hands)  # a mistyped hand photo, before the slow detection of the table photos
    if args.annotate:
        files.check_annotate_target(args.annotate, len(args.inputs) + len(hands))
    if args.save_layout:
        files.check_layout_target(args.save_layout)
    models = core.load_models(args.model, args.reader, args.stacks, args.no_stacks, req.conf, deck=args.deck,
                              negative=bool(args.negative), decks=decks_folder(args))
    if args.deck:
        _say(f"handfoot: reading with the deck profile {args.deck}")
    result = core.read_and_score_photos([Path(p) for p in args.inputs], req, models,
                                        [(t, Path(p)) for t, p in hands], way=core.CLI_WAY)
    written: list[str] = []  # what was written, told after the report (on stderr beside --json's JSON)
    if args.save_layout:
        files.save_layout(args.save_layout, result.layout)
        written.append(f"layout saved: {args.save_layout}")
    if args.annotate:
        files.write_annotations(args.annotate, result, lambda dest: written.append(f"annotated: {dest}"))
    if args.json:
        _print_json(result.model_dump(mode="json"))
        for line in written:
            _say(line)
    else:
        print(reports.photo_report(result, args.save_layout))
        if written:
            print("\n" + "\n".join(written))
    return 0


# -- rules, check-meld, opening, odds, game --------------------------------------------------------------------
def cmd_rules(args: argparse.Namespace) -> int:
    if not args.name:
        presets = [get_rules(n) for n in PRESET_NAMES]
        if args.json:
            _print_json({r.name: r.model_dump(mode="json") for r in presets})
        else:
            for r in presets:
                print(f"{r.name:<14}{r.title}")
            print("\n'handfoot rules NAME' lists a preset's values.")
        return 0
    rules = _rules(argparse.Namespace(rules=args.name, set=args.set))
    if args.json:
        _print_json(rules.model_dump(mode="json"))
    else:
        print(reports.rules_report(rules))
    return 0


def _within_a_round(groups: list[list[Card]], what: str) -> list[list[Card]]:
    """``groups`` of cards given on the command line, refused (``handfoot.limits.too_many_cards``) when they hold more
    cards than a round's layout may (``Limits.layout_cards``): far more than any table holds."""
    n = sum(len(g) for g in groups)
    if n > DEFAULT_LIMITS.layout_cards:
        raise too_many_cards(f"{what}: {n:,} cards")
    return groups


def cmd_check_meld(args: argparse.Namespace) -> int:
    rules = _rules(args)
    melds = _within_a_round([parse_cards(text) for text in args.melds], "melds")
    pickup = Card.parse(args.pickup) if args.pickup else None
    checks = [check_meld(m, rules) for m in melds]
    opening = check_opening(melds, args.round, rules, pickup=pickup) if args.round is not None else None
    if args.json:
        _print_json(reports.melds_json(rules, checks, opening))
    else:
        print(f"Rules: {rules.name}")
        for ch in checks:
            print(f"  {' '.join(c.code for c in ch.cards)}: {ch.describe()}")
        if opening is not None:
            print(opening.describe())
    legal = all(ch.legal for ch in checks) and (opening is None or opening.meets)
    return 0 if legal else EXIT_BAD_INPUT if args.strict else 0


def cmd_opening(args: argparse.Namespace) -> int:
    rules = _rules(args)
    plan = best_opening(_within_a_round([parse_cards(" ".join(args.hand))], "hand")[0], rules, args.round)
    if args.json:
        _print_json({"rules": rules.name, "round": args.round, "points": plan.points, "minimum": plan.minimum,
                     "meets": plan.meets, "melds": [[c.code for c in m] for m in plan.melds]})
    else:
        print(f"Best opening under '{rules.name}'" + (f", round {args.round}" if args.round else "") + ":")
        print("  " + plan.describe())
    return 0


def cmd_odds(args: argparse.Namespace) -> int:
    if not 1 <= args.deals <= MAX_DEALS:
        raise HandFootError(f"--deals must be 1 to {MAX_DEALS:,} (got {args.deals:,})")
    bar = None
    if args.deals >= 500_000 and sys.stderr.isatty():  # a bar on a terminal when the work is long

        bar = tqdm(total=args.deals, unit=" deals", unit_scale=True, file=sys.stderr, leave=False)
    try:
        report = simulate_odds(_rules(args), deals=args.deals, seed=args.seed,
                               progress=(lambda done, total: bar.update(done - bar.n)) if bar else None)
    except ValueError as exc:
        raise HandFootError(str(exc)) from None
    finally:
        if bar:
            bar.close()
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.format_table())
    return 0


def cmd_game(args: argparse.Namespace) -> int:
    if args.csv == "-" and args.json:
        raise HandFootError("--csv - prints the CSV where --json prints its JSON: give one, or --csv FILE")
    if args.csv and args.csv != "-":
        files.check_file_target("--csv", args.csv, "CSV", "game.csv")
    game = games.score_game(args.layouts, args.rules, _house_rules(args.set), args.lenient)
    if args.csv == "-":  # a spreadsheet's or a script's input: no byte-order mark
        sys.stdout.write(export.game_csv(game).removeprefix(export.BOM))
        return 0
    print(json.dumps(game.to_dict(), indent=2) if args.json else game.format_text())
    if args.csv:
        files.write_text(args.csv, export.game_csv(game), "the CSV")
        if args.json:  # beside the JSON, as score says what it wrote
            _say(f"CSV saved: {args.csv}")
        else:
            print(f"\nCSV saved: {args.csv}")
    return 0


# -- watch, detect, deck, serve ----------------------------------------------------------------------------------
def cmd_watch(args: argparse.Namespace) -> int:
    if args.round < 1:
        raise HandFootError(f"--round {args.round}: rounds are numbered from 1")
    if args.headless and (args.serve or args.window):
        raise HandFootError("--headless shows nothing: leave out --serve and --window")
    if args.record and not Path(args.record).resolve().parent.is_dir():
        raise HandFootError(f"--record {args.record}: no such folder")
    source = args.video if args.video is not None else args.camera
    if args.window:
        shown.check_window()
    req, ledger = watching.watch_request(args.rules, args.round, args.split, args.teams, args.deck, args.game,
                                         args.db, args.serve)  # bad teams or game: said before the camera opens
    stream = watch.frames(source)
    first = next(stream)  # a missing file, an unreadable video or no camera: one line, before the models load
    record = Path(args.record) if args.record else None
    if args.serve:
        stream.close()
        return startup.serve(args, lambda models, decks: live.start(source, models, req, args.game, record, decks,
                                                                    wait_for_viewer=args.video is not None))
    models = core.load_models()
    if req.deck:  # --deck, or the game's deck
        models = core.with_deck(models, req.deck, decks_folder(args))
    _say(f"handfoot: watching {'camera ' + str(args.camera) if args.video is None else args.video}"
         f"{' with the deck profile ' + req.deck if req.deck else ''} (Ctrl-C to stop)")

    def told(event) -> None:
        print(event.to_json() if args.json else f"{event.t:7.1f} s  {event.text}  "
              f"({', '.join(f'{k} {v:,}' for k, v in event.totals.items())})", flush=True)

    fps = watching.fps_of(args.video) if record and args.video else shown.RECORD_FPS
    end = watching.watch_table(itertools.chain([first], stream), models, req, told, record, fps, args.window)
    if end.stopped:  # the camera stopped: say so, keep what was read
        _say(f"handfoot: error: {end.stopped}")
    if args.json:
        print(json.dumps({"end": True, "reads": end.reads, "layout": end.layout, "totals": end.totals}))
    else:
        print(f"end: {counted(end.reads, 'reading')}; round totals: "
              + (", ".join(f"{k} {v:,}" for k, v in end.totals.items()) or "no cards seen"))
    if ledger is not None:
        game = watching.keep_round(ledger, args.game, end.layout)
        if game is not None:
            _say(f"handfoot: round {len(game.rounds)} added to game {game.id} (correct it on the page if a card "
                 "was misread)")
            for team in (t for t in game.teams if t not in end.layout.get("teams", {})):
                _say(f"handfoot: team {team} was not in the camera's view: its round counts 0 until corrected")
    return 1 if end.stopped else 0


COMMANDS = {"score": cmd_score, "rules": cmd_rules, "check_meld": cmd_check_meld, "opening": cmd_opening,
            "odds": cmd_odds, "detect": cmd_detect, "watch": cmd_watch, "deck_learn": cmd_deck_learn,
            "deck_list": cmd_deck_list, "deck_remove": cmd_deck_remove, "serve": startup.serve, "game": cmd_game}


# -- main -----------------------------------------------------------------------------------------------------
def _teams_hint(args: argparse.Namespace, extra: list[str], argv: list[str]) -> str:
    """For ``--teams A B`` (the names as words; argparse takes A and leaves B over): the option's format, else ""."""
    teams = getattr(args, "teams", None)
    given = [k for k, word in enumerate(argv) if word == "--teams"]
    if not teams or not given or argv[given[-1] + 1:given[-1] + 3] != [teams, extra[0]]:
        return ""
    words = list(itertools.takewhile(lambda word: not word.startswith("-"), extra))
    names = ",".join([teams, *words])
    return f" (--teams takes the names separated by commas: --teams {names}; quote a name with spaces)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 bad input, 2 usage, 130 interrupted)."""
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):  # `handfoot` alone: the commands, not a usage error's line
        parser.print_help(sys.stderr)
        return 2
    args, extra = parser.parse_known_args(argv)
    if extra:  # the command's own usage line, and the option meant when it is a near miss
        command = parser.command_parser(args)
        known = command.options
        near = [m for x in extra if x.startswith("-") for m in difflib.get_close_matches(x.split("=")[0], known, 1)]
        command.error(f"unrecognized arguments: {' '.join(extra)}" + (f" (did you mean {near[0]}?)" if near else "")
                      + _teams_hint(args, extra, sys.argv[1:] if argv is None else list(argv)))
    if getattr(args, "set", None):  # a mistyped --set is a usage mistake: exit 2, before any work
        try:
            _rules_in_use(args)
        except HandFootError as exc:
            parser.exit(2, f"handfoot: error: --set: {exc}\n")
    try:
        return COMMANDS[args.func](args)
    except KeyboardInterrupt:
        print("handfoot: interrupted", file=sys.stderr)
        return 130
    except HandFootError as exc:
        hint = ""
        if getattr(exc, "problems", None) and not getattr(args, "lenient", True):
            hint = " — add --lenient to score anyway and list every problem"
        print(f"handfoot: error: {exc}{hint}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # e.g. piped into `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # never a traceback for the user
        if os.environ.get("HANDFOOT_DEBUG"):
            raise
        print(f"handfoot: internal error: {exc.__class__.__name__}: {exc} (set HANDFOOT_DEBUG=1 for details)",
              file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
