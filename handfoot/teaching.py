"""A game teaches its deck as the family plays: every saved photo round adds its photos to the deck's examples and
the deck profile (``vision.decks``) is learned again in the background.

A game *teaches* a deck when it names one (``GameRecord.teach``: set with the game, or by
``PUT /v1/games/{id}/deck``; ``teach: false`` opts out). After each round saved or corrected from photos, every
game teaching that deck gives its photo rounds as examples (:func:`game_examples`) and the profile is learned again
from all of them (:meth:`Teacher.lesson_after_round`); the profile is kept unless it reads the photos kept aside
for its check worse than the stock reader (``vision.decks.learn``), and from then on a game teaching it that reads
with no profile reads with it. Each deck's last lesson (:class:`Lesson`: what was learned, the measured effect on
the photos kept aside, or why nothing was) is kept in the ledger and shown with the game.

Which cards teach: a round the family corrected (one correction or more, or the ``checked`` one: they looked at
it) teaches every card as saved; a round saved as the camera read it teaches only its cards read at least
:data:`SURE_TO_TEACH` sure in piles with no note (a misread the family did not look at would teach the deck wrong;
on the real photos of ``../shared/realdata/decks_dev``, the stock reader's readings that sure were right 45 times of
45, those from 0.7 127 of 129).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import numpy as np

from scorer import HandFootError
from scorer.wording import counted

from .deck_sync import save_deck
from .errors import BusyError
from .games import corrections_of
from .ledger import Ledger
from .readings import correct_reading, examples_of, load_reading
from .results import Lesson

log = logging.getLogger("handfoot")

#: a card of a round saved without a correction teaches only when read at least this sure (its rank and colour)
SURE_TO_TEACH = 0.8


def game_examples(ledger: Ledger, game_id: str, sure_only: bool = False) -> list[dict[str, Any]]:
    """A game's photo rounds, corrections applied, as deck-learning examples (``readings.examples_of``: one dict a
    photo, the form ``handfoot detect --json`` prints). With ``sure_only``, a round saved without a correction
    gives only its cards read :data:`SURE_TO_TEACH` sure in piles with no note.

    Raises:
        NotFoundError: no such game.
    """
    ledger.game(game_id)
    out = []
    for r in ledger.rounds(game_id):
        if not r.reading:
            continue
        try:
            record = ledger.reading(r.reading)
        except HandFootError:  # its photos were removed
            continue
        result = correct_reading(load_reading(record.result), corrections_of(r.corrections))
        if sure_only and not r.corrections:
            result = _sure_cards(result)
        folder = ledger.reading_dir(r.reading)
        out += examples_of(result, [str((folder / Path(f["file"]).name).resolve()) for f in record.files])
    return out


def _sure_cards(result):
    """``result`` (a ``PhotoScore``) with only the cards read :data:`SURE_TO_TEACH` sure, in piles with no note."""
    images = []
    for image in result.images:
        piles = [p.model_copy(update={"cards": [c for c in p.cards if c.confidence >= SURE_TO_TEACH]})
                 for p in image.piles if not p.notes]
        images.append(image.model_copy(update={"piles": piles}))
    return result.model_copy(update={"images": images})


def deck_examples(ledger: Ledger, deck: str) -> tuple[list, int]:
    """The examples (``vision.decks.Example``) of every game teaching ``deck``, and how many games gave some."""
    from vision.decks import Example  # the optional vision extra (OpenCV, ONNX Runtime)

    examples, games = [], 0
    for game_id in ledger.teaching(deck):
        docs = game_examples(ledger, game_id, sure_only=True)
        games += bool(docs)
        examples += [Example(Path(d["image"]), np.array([b["box"] for b in d["detections"]], np.float32),
                             tuple(b["card"] for b in d["detections"])) for d in docs]
    return examples, games


class Teacher:
    """Learns decks again after rounds, one lesson at a time per deck: a round saved while its deck is being
    learned asks for one more lesson when that one ends (never two at once, never one lost).

    Args:
        decks: the folder of deck profiles (``handfoot.core.decks_dir``).
        jobs: the service's photo jobs (``handfoot.service.PhotoJobs``): a lesson takes a place among the photo
            readings, waiting for one, so that learning never starves a family's reading.
    """

    def __init__(self, decks: Path, jobs) -> None:
        self.decks = decks
        self.jobs = jobs
        self._running: set[str] = set()
        self._again: set[str] = set()

    async def lesson_after_round(self, ledger: Ledger, game_id: str, reader, detector=None) -> None:
        """Learn again the deck the game ``game_id`` teaches, if any (``reader``: the stock index reader;
        ``detector``: the stock detector, whose boxes on the example photos teach the deck's glyph reader)."""
        try:
            deck = ledger.game(game_id).teach
        except HandFootError:
            return
        if not deck or reader is None:
            return
        if deck in self._running:
            self._again.add(deck)
            return
        self._running.add(deck)
        try:
            while True:
                self._again.discard(deck)
                await self._lesson(ledger, deck, reader, detector)
                if deck not in self._again:
                    break
        finally:
            self._running.discard(deck)

    async def _lesson(self, ledger: Ledger, deck: str, reader, detector=None) -> None:
        # the optional vision extra (OpenCV, ONNX Runtime)
        from vision.decks import ExamplesError, ProfileRefusedError, check_folds, learn

        examples, games = deck_examples(ledger, deck)
        base = {"deck": deck, "photos": len(examples), "games": games}
        try:
            check_folds(examples)
        except ExamplesError as exc:
            ledger.set_lesson(deck, Lesson(**base, state="waiting", message=f"Deck {deck}: "
                                           f"{counted(len(examples), 'photo')} so far; {exc}").model_dump())
            return
        ledger.set_lesson(deck, Lesson(**base, state="learning", message=f"Learning deck {deck} from "
                                       f"{counted(len(examples), 'photo')}…").model_dump())
        while True:
            try:
                self.jobs.admit()
                break
            except BusyError as exc:
                await asyncio.sleep(exc.retry_after)

        def work():
            profile = learn(examples, reader.with_heads(None), deck, detector=detector)
            return save_deck(profile, self.decks)[0]  # under the lock every save of a profile takes
        try:
            profile = await self.jobs.run(work)
        except ProfileRefusedError as exc:
            from vision.deck_profiles import saved_profile

            ledger.set_lesson(deck, refused(deck, exc, len(examples), games,
                                            saved_profile(deck, self.decks)).model_dump())
            return
        except Exception as exc:  # noqa: BLE001 - a lesson that fails is told on the game, never raised into a request
            log.warning("learning deck %s failed: %s", deck, exc)
            ledger.set_lesson(deck, Lesson(**base, state="failed", message=f"Deck {deck} could not be learned: "
                                           f"{exc}").model_dump())
            return
        ledger.set_lesson(deck, learned(profile, len(examples), games).model_dump())
        for game_id in ledger.teaching(deck):
            if ledger.game(game_id).deck is None:
                ledger.set_deck(game_id, deck)


def learned(profile, photos: int, games: int) -> Lesson:
    """The lesson of a deck profile just learned (``vision.deck_profiles.DeckProfile``) from ``photos`` example
    photos of ``games`` games: its check's figures and the sentence the page shows."""
    c = profile.check
    stock, read = (float(c.get(k, 0)) for k in ("stock", "profile"))
    tested = _tested(c)
    if "profile_right" in c:
        reads = (f"{tested}: handfoot reads {c['stock_right']} right without it{_as_negatives(c)}, "
                 f"{c['profile_right']} with it "
                 f"(right: the rank and the colour, all the score needs).")
        if c["profile_right"] <= c["stock_right"]:
            reads += " It reads them no better yet: each round saved with photos teaches it more."
    else:
        reads = f"{tested}: handfoot reads {stock:.0%} of them right without it, {read:.0%} with it."
    return Lesson(deck=profile.name, state="learned", photos=photos, games=games, stock=stock, profile=read,
                  stock_right=c.get("stock_right"), profile_right=c.get("profile_right"),
                  message=f"Deck {profile.name} learned from {counted(profile.photos, 'photo')} of "
                          f"{counted(games, 'game')}. {reads}")


def _as_negatives(check: dict) -> str:
    """How handfoot read the check photos without the deck, when it read their negatives (a deck printed light on
    dark, ``check["stock_negative"]``), in a family's words; else nothing."""
    return " (reading their negatives, as the light-print box does)" if check.get("stock_negative") else ""


def _tested(check: dict) -> str:
    """What a deck's check was tested on, in a family's words (``check``: as ``DeckProfile.check``)."""
    kept = float(check.get("indices", 0))
    if check.get("method", "kept aside") == "kept aside":
        return f"Tested on {kept:.0f} card corners in photos it did not learn from"
    return f"Tested on the {kept:.0f} card corners in its photos, each photo left out of the learning that tested it"


def refused(deck: str, exc, photos: int, games: int, before) -> Lesson:
    """The lesson of deck ``deck`` not learned from ``photos`` example photos of ``games`` games (``exc``: the
    ``vision.decks.ProfileRefusedError``, with its check's figures): what the trial read, and what reads on:
    ``before``, the profile of that name kept from an earlier lesson (``DeckProfile``), or None (the stock reader)."""
    c = exc.check
    if "profile_right" in c:
        said = (f"{_tested(c)}: handfoot reads {c['stock_right']} right without it{_as_negatives(c)}, "
                f"{c['profile_right']} with what "
                "it learned now (right: the rank and the colour, all the score needs)")
    else:
        said = str(exc)
    stays = (f"this game reads on with deck {deck} as learned before from {counted(before.photos, 'photo')}"
             if before is not None else "handfoot reads on without it")
    return Lesson(deck=deck, state="refused", photos=photos, games=games, stock=c.get("stock"),
                  profile=c.get("profile"), stock_right=c.get("stock_right"), profile_right=c.get("profile_right"),
                  message=f"Deck {deck} not learned {'again ' if before is not None else ''}from "
                          f"{counted(photos, 'photo')}. {said}. Nothing was kept: {stays}; each round saved with "
                          "photos teaches it more.")
