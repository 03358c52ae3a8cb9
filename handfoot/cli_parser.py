"""The command line's arguments (argparse): :func:`build_parser`. Each command's ``func`` names its handler in
:data:`handfoot.cli.COMMANDS`."""

from __future__ import annotations

import argparse
from pathlib import Path

from scorer import PRESET_NAMES
from vision.config import DEFAULT, SPLITS

from .photo_request import DEFAULT_CONF
from .access import add_token_option  # the access token of serve and watch --serve
from .https import add_https_option  # the HTTPS of serve and watch --serve

#: most deals `odds` simulates (about half a minute on two cores)
MAX_DEALS = 1_000_000
#: the help of ``--negative`` (score, detect)
NEGATIVE_HELP = ("my deck is printed light on dark (e.g. gold on black): read each photo's negative, as handfoot does "
                 f"by itself only for a photo that shows almost no index as it is and {DEFAULT.reading.negative_shows} "
                 "or more in its negative (a table of such cards, not a close-up)")


def port_number(text: str) -> int:
    """An argparse type: a TCP port number, 1-65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1-65535, not {port}")
    return port


def at_least(low: float, kind: type = int):
    """An argparse type: a number of ``kind`` (int: a whole number; float: seconds) of ``low`` or more."""
    def number(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a {'whole ' if kind is int else ''}number: {text!r}") from None
        if not value >= low:  # nan too
            raise argparse.ArgumentTypeError(f"{text} is under {low:g}" if value < low else f"not a number: {text!r}")
        return value
    number.__name__ = "whole number" if kind is int else "number"
    return number


def ledger_file(text: str) -> str:
    """An argparse type: the game ledger's SQLite file; a folder (one that exists, a name ending in ``/``, or a new
    name with no suffix such as ``.db``: made when the ledger is) keeps it as ``handfoot.db`` inside."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path")
    path = Path(text).expanduser()
    folder = path.is_dir() or text.endswith(("/", "\\")) or (not path.exists() and not path.suffix)
    return str(path / "handfoot.db") if folder else str(path)


def add_decks_db(sp: argparse.ArgumentParser, lead: str = "") -> None:
    """The option ``--db PATH`` of a command that reads or keeps deck profiles: those of the game ledger at PATH."""
    sp.add_argument("--db", metavar="PATH", type=ledger_file,
                    help=f"{lead}the decks of the game ledger at PATH, as `serve --db PATH` and `watch --db PATH` use "
                         "them (default: ~/.local/share/handfoot)")


class Parser(argparse.ArgumentParser):
    """argparse's parser that keeps, in public attributes, what the command line's near-miss hint needs:
    ``options`` (its option strings) and ``commands`` (its subcommands' action: ``dest`` and ``choices``, the
    subcommand parsers by name; None without subcommands)."""

    def __init__(self, *args, **kwargs) -> None:
        self.options: list[str] = []  # before argparse adds -h
        self.commands: argparse.Action | None = None
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.options += action.option_strings
        return action

    def add_mutually_exclusive_group(self, **kwargs):
        group = super().add_mutually_exclusive_group(**kwargs)
        add = group.add_argument

        def add_argument(*args, **kw) -> argparse.Action:
            action = add(*args, **kw)
            self.options += action.option_strings
            return action

        group.add_argument = add_argument
        return group

    def add_subparsers(self, **kwargs):
        self.commands = super().add_subparsers(**kwargs)
        return self.commands

    def error(self, message: str):
        """A usage mistake: one line on standard error naming it and where the usage is, exit status 2 (argparse
        prints the whole usage block first; a person reads the last line)."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def command_parser(self, args: argparse.Namespace) -> Parser:
        """The parser of the (sub)command ``args`` holds (``deck learn``'s for ``handfoot deck learn``)."""
        parser = self
        while parser.commands is not None:
            name = getattr(args, parser.commands.dest, None)
            if name is None or name not in parser.commands.choices:
                break
            parser = parser.commands.choices[name]
        return parser


def build_parser() -> Parser:
    p = Parser(prog="handfoot", description="Score Hand and Foot rounds.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add_rules(sp: argparse.ArgumentParser, default_hint: str = "pagat") -> None:
        sp.add_argument("--rules", metavar="NAME", help=f"rule preset ({', '.join(PRESET_NAMES)}); "
                                                        f"default: {default_hint}")
        sp.add_argument("--set", action="append", metavar="FIELD=VALUE",
                        help="override one rule field (house rule), e.g. --set go_out_clean_books=2")

    sp = sub.add_parser("score", help="score a round from photos of the table, or from a layout JSON file")
    sp.add_argument("inputs", nargs="+", metavar="PHOTO_OR_LAYOUT",
                    help="photos (one per team: A, B, ...) or one layout JSON file (see docs/layout.md)")
    add_rules(sp, "the layout's own 'rules', else pagat")
    sp.add_argument("--round", type=int, help="round number (photos only; default 1)")
    sp.add_argument("--went-out", metavar="TEAM", help="the team that went out (photos only)")
    sp.add_argument("--teams", metavar="A,B", help='team of each photo, in order: names separated by commas, e.g. '
                                                   '--teams Us,Them (quote a name with spaces: --teams "Our side,'
                                                   'Them"); a name given twice makes both photos that team\'s '
                                                   "(--teams Us,Us,Them: two photos of Us's side); a name past the "
                                                   "photos is a team with no table photo, scored from its cards "
                                                   "left (default A, B, ...)")
    sp.add_argument("--split", choices=SPLITS,
                    help="one whole-table photo: horizontal = bottom half team A, top half B; "
                         "vertical = left half A, right half B")
    sp.add_argument("--left", action="append", metavar='TEAM:"CARDS"',
                    help='cards still held by a team, e.g. --left A:"KH 7C 4S" (repeat per hand or foot)')
    sp.add_argument("--hand", action="append", metavar="TEAM:PHOTO",
                    help="a photo of one player's hand or foot fanned face up: its cards count only as cards left "
                         "for TEAM, never as melds or books, e.g. --hand B:foot.jpg (repeat per hand or foot; adds "
                         "to --left)")
    sp.add_argument("--annotate", metavar="OUT", help="write the photo with what was read drawn on it "
                                                      "(a .jpg file for one photo, or a folder for several, hand "
                                                      "photos included)")
    sp.add_argument("--conf", type=float, help="minimum confidence of a card's reading: P(rank) x P(colour) x "
                                                f"sqrt(detector confidence) (photos; default {DEFAULT_CONF})")
    sp.add_argument("--save-layout", metavar="LAYOUT.json",
                    help="write the layout read from the photos, to correct by hand and score again")
    sp.add_argument("--model", help="detector ONNX model (default: models/cards.onnx)")
    sp.add_argument("--reader", help="index reader ONNX model (default: models/reader.onnx when present)")
    sp.add_argument("--deck", help="read with this deck's profile (handfoot deck learn; handfoot deck list)")
    add_decks_db(sp, "with --deck: ")
    sp.add_argument("--negative", action="store_true", default=None, help=NEGATIVE_HELP)
    sp.add_argument("--stacks", help="stack checker ONNX model: squared book or loose card "
                                     "(default: models/stacks.onnx when present)")
    sp.add_argument("--no-stacks", action="store_true",
                    help="read every single card seen whole as a squared book's marker (no stack check)")
    sp.add_argument("--json", action="store_true", help="print JSON")
    sp.add_argument("--lenient", action="store_true",
                    help="score a layout that breaks the rules, listing problems (photos always are)")
    sp.set_defaults(func="score")

    sp = sub.add_parser("rules", help="list rule presets, or one preset's values")
    sp.add_argument("name", nargs="?", help="preset name")
    sp.add_argument("--set", action="append", metavar="FIELD=VALUE", help="override one rule field")
    sp.add_argument("--json", action="store_true", help="print the preset's values as JSON")
    sp.set_defaults(func="rules")

    sp = sub.add_parser("check-meld", help="explain whether melds are legal, and whether they open a round")
    sp.add_argument("melds", nargs="+", help='one quoted meld per argument, e.g. "QH QS QD JK" "8S 8H 8D"')
    sp.add_argument("--round", type=int, help="check the melds together as this round's opening")
    sp.add_argument("--pickup", metavar="CARD", help="the top discard, when opening by taking the pile")
    sp.add_argument("--strict", action="store_true", help="exit 1 when a meld or the opening is not legal")
    add_rules(sp)
    sp.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    sp.set_defaults(func="check_meld")

    sp = sub.add_parser("opening", help="find the best opening meld a hand can make")
    sp.add_argument("hand", nargs="+", help='the hand, e.g. "KH KS JK 9H 9S 9D 2C"')
    sp.add_argument("--round", type=int, help="round number (checks its minimum)")
    add_rules(sp)
    sp.add_argument("--json", action="store_true", help="print the opening found as JSON")
    sp.set_defaults(func="opening")

    sp = sub.add_parser("odds", help="simulate deals: opening chances, wilds, red threes, bad up-cards")
    sp.add_argument("--deals", type=int, default=100_000,
                    help=f"how many deals to simulate (default 100,000; at most {MAX_DEALS:,})")
    sp.add_argument("--seed", type=int, default=0, help="random seed: the same seed deals the same cards (default 0)")
    add_rules(sp)
    sp.add_argument("--json", action="store_true", help="print the figures as JSON")
    sp.set_defaults(func="odds")

    sp = sub.add_parser("detect", help="find card corner indices in photos with the shipped model")
    sp.add_argument("images", nargs="+", help="photos, or folders of photos")
    sp.add_argument("--json", action="store_true", help="one JSON object per image, one per line")
    sp.add_argument("--imgsz", type=int, default=2560,
                    help="the largest size the photo is searched at, its long side in pixels (at least 320; "
                         "default 2560): it is searched first at 1280 (its own size when smaller), then enlarged up "
                         "to this where its cards' corner indices look small, and at smaller sizes when they look "
                         "large; lower, a far-away table is read faster but its small indices may be missed")
    sp.add_argument("--conf", type=float, default=DEFAULT_CONF, help="minimum confidence")
    sp.add_argument("--model", help="detector ONNX model (default: models/cards.onnx)")
    sp.add_argument("--reader", help="index reader ONNX model (default: models/reader.onnx when present)")
    sp.add_argument("--deck", help="read with this deck's profile (handfoot deck learn; handfoot deck list)")
    add_decks_db(sp, "with --deck: ")
    sp.add_argument("--negative", action="store_true", help=NEGATIVE_HELP + "; to teach such a deck, detect its "
                                                                           "photos so")
    sp.add_argument("--annotate", metavar="OUT", help="draw each index box found with its card code on the photo as "
                                                      "read (the boxes' pixels): a .jpg file for one photo, or a "
                                                      "folder for several")
    sp.set_defaults(func="detect")

    sp = sub.add_parser("watch", help="score a round live from a camera above the table, or from a video of it",
                        description="Read the table each time it changed and settled (nothing is read while a "
                                    "hand moves over it) and print what changed: melds new and grown, books "
                                    "complete and squared, red threes laid, with the round's totals.")
    source = sp.add_mutually_exclusive_group(required=True)
    source.add_argument("--video", help="a video file of the table")
    source.add_argument("--camera", type=int, help="a camera index (0: the first camera)")
    sp.add_argument("--rules", default="pagat", help="rule preset (default pagat)")
    sp.add_argument("--round", type=int, default=1, help="round number (default 1)")
    sp.add_argument("--split", choices=SPLITS, help="the camera sees both teams' sides")
    sp.add_argument("--teams", metavar="A,B", help='team names separated by commas, e.g. --teams Us,Them (quote a '
                                                   'name with spaces: --teams "Our side,Them")')
    sp.add_argument("--deck", help="read with this deck's profile (handfoot deck list)")
    sp.add_argument("--json", action="store_true", help="one JSON object per event, one per line")
    sp.add_argument("--headless", action="store_true",
                    help="print the events only (the default without --serve or --window)")
    sp.add_argument("--record", metavar="OUT.mp4", help="write the annotated picture to this video")
    sp.add_argument("--window", action="store_true",
                    help="show the annotated picture in a window (an OpenCV with a GUI; q closes it)")
    sp.add_argument("--game", help="the game whose next round this is (its rules, round and teams); without "
                                   "--serve the round is added to it at the end")
    sp.add_argument("--serve", action="store_true",
                    help="show the live view in the browser (handfoot serve with this table watched: open /live)")
    sp.add_argument("--host", default="127.0.0.1", help="with --serve: address to listen on (default 127.0.0.1)")
    sp.add_argument("--port", type=port_number, default=8000, help="with --serve: port (default 8000)")
    sp.add_argument("--db", metavar="PATH", type=ledger_file,
                    help="the game ledger, a SQLite file or a folder to keep it in (default ~/.local/share/handfoot)")
    sp.add_argument("--max-jobs", type=at_least(1), default=1, help=argparse.SUPPRESS)
    add_https_option(sp)
    add_token_option(sp)
    sp.set_defaults(func="watch")

    sp = sub.add_parser("deck", help="teach handfoot your own deck from photos whose cards you checked")
    deck = sp.add_subparsers(dest="deck_command", required=True, metavar="{learn,list,remove}")
    dp = deck.add_parser("learn", help="learn a deck profile from examples: JSON lines as `handfoot detect --json` "
                                       "prints them, each card code checked (and missed boxes added)",
                         description="Learn a deck profile from examples: one JSON object a line, "
                                     '{"image": PATH, "detections": [{"card": "KH", "box": [x1, y1, x2, y2]}, ...]}, '
                                     "as `handfoot detect --json` prints them, each code checked by hand. The "
                                     "index reader's last layers are fitted to the examples (ONNX Runtime and "
                                     "NumPy, no PyTorch); a deck printed light on dark paper is read as its "
                                     "negative; every fourth photo (every 2nd or 3rd for close-ups; each photo in "
                                     "turn for a few photos) is set aside to test a trial profile learned from the "
                                     "others, and a profile that reads those worse than the stock reader is not "
                                     "kept; the profile kept learns from every photo. A box reaching a little "
                                     "past its photo's edge (a quarter of its size at most) is clipped to it, and "
                                     "said so; one further out is refused. A name already in use is refused before "
                                     "any work, naming the profile kept under it; with --replace the new profile "
                                     "replaces it once kept, and says what the one before read.")
    dp.add_argument("examples", nargs="+", help="examples files (.jsonl: JSON lines, one JSON object per line)")
    dp.add_argument("--name", required=True, help="the deck's name (letters a-z without accents, digits, - and _)")
    dp.add_argument("--replace", action="store_true",
                    help="replace the profile already learned under --name (without it, a name in use is refused "
                         "before any learning; a new profile refused for reading worse leaves the old one as it was)")
    dp.set_defaults(func="deck_learn")
    dp = deck.add_parser("list", help="the deck profiles learned on this computer")
    dp.set_defaults(func="deck_list")
    dp = deck.add_parser("remove", help="delete a deck profile")
    dp.add_argument("name", help="the deck's name, as `handfoot deck list` shows it")
    dp.set_defaults(func="deck_remove")
    for dp in deck.choices.values():
        add_decks_db(dp)

    sp = sub.add_parser("serve", help="run the web service (the API under /v1, docs at /docs)")
    sp.add_argument("--host", default="127.0.0.1",
                    help="address to listen on (default 127.0.0.1: this computer only; 0.0.0.0 lets phones on "
                         "your network in, with an access token printed in the address to open)")
    sp.add_argument("--port", type=port_number, default=8000, help="port (default 8000)")
    sp.add_argument("--db", metavar="PATH", type=ledger_file,
                    help="the game ledger, a SQLite file or a folder to keep it in (default: "
                         "~/.local/share/handfoot/handfoot.db; photos and the HTTPS certificate are kept beside it)")
    sp.add_argument("--max-jobs", type=at_least(1), default=1, help="photo readings worked on at once (default 1)")
    sp.add_argument("--idle-timeout", type=at_least(0.1, float), default=20.0, metavar="SECONDS",
                    help="close a connection that starts no request for this long (default 20)")
    sp.add_argument("--max-connections", type=at_least(1), metavar="N",
                    help="connections at once; past that the answer is 503 (default: from the open-file limit, "
                         "at most 1000)")
    sp.add_argument("--allow-host", action="append", metavar="NAME",
                    help="a name the server may be opened by besides its addresses, localhost and this computer's "
                         "name (e.g. a name your router gives it); other names are refused")
    add_https_option(sp)
    add_token_option(sp)
    sp.set_defaults(func="serve")

    sp = sub.add_parser("game", help="score a game's rounds in order: each round's points and the running "
                                      "totals")
    sp.add_argument("layouts", nargs="+", help="one layout JSON file per round, in order")
    add_rules(sp, "the first layout's 'rules'")
    sp.add_argument("--lenient", action="store_true",
                    help="score rounds whose layouts break the rules, listing the problems, "
                         "instead of stopping at the first")
    sp.add_argument("--json", action="store_true", help="print the rounds and totals as JSON")
    sp.add_argument("--csv", metavar="FILE", help="also write the round grid as CSV, as the page's Export CSV gives "
                                                  "it (each team's points and total a round, the winner once over); "
                                                  "- prints it instead of the table")
    sp.set_defaults(func="game")
    return p
