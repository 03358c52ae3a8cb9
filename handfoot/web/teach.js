/* A game's panel that teaches the card reader the family's deck from the game's corrected photo rounds. */
import {api} from "/static/api.js";
import {roundsText} from "/static/changes.js";
import {askConfirm, errorBox, h, setBusy, toast} from "/static/ui.js";

const DECK_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;  /* a deck's name (vision.decks.NAME) */
/* the fewest photos a deck is learned from (vision.decks.check_photos refuses fewer) */
export const MIN_TEACH = 2;
/* the fewest card corners a deck is learned from (vision.decks.MIN_CHECK: it tests itself on some of them) */
const MIN_CORNERS = 30;

/* A learning this phone started, by game id: {status (its status line), running}, kept until it ends well or its
   notice is answered, so that a panel drawn again (the game changed on another phone) shows how it ended. */
const learnings = new Map();

/* What `ask()` answers (a request that is the same however often it is sent), asked again every RETRY_MS while the
   server cannot be reached (an ApiError of status 0: sync.js's line says so), `waiting()` called each time; any
   other error is thrown. */
const RETRY_MS = 2000;
async function answered(ask, waiting) {
  for (;;) {
    try { return await ask(); }
    catch (e) { if (e.status !== 0) throw e; }
    waiting();
    await new Promise(done => setTimeout(done, RETRY_MS));
  }
}

/* What game `g` reads its photos with and whether its saved rounds teach a deck (its `deck`, `teach`), in a family's
   words; null when it reads with the stock reader and teaches none. */
export function deckState(g) {
  if (g.deck && g.teach === g.deck)
    return `This game reads its photos with deck ${g.deck}, and every round saved teaches it more ` +
      "(Keep learning it is ticked below: untick it to stop).";
  if (g.deck && g.teach) return `This game reads its photos with deck ${g.deck}; its rounds saved teach deck ${g.teach}.`;
  if (g.deck) return `This game reads its photos with deck ${g.deck}. Rounds saved do not teach it: tick Keep learning ` +
    "it below to let them.";
  if (g.teach) return `Every round saved teaches deck ${g.teach}; this game reads its photos with it once it is learned.`;
  return null;
}

/* A game's corrected photo rounds teach the card reader the family's deck (POST /v1/decks/{name}/learn), and go on
   teaching it after every round saved (the game's `teach`, its last `lesson`; PUT /v1/games/{id}/deck). */
export function teachPanel(gid, g) {
  /* empty until named: the suggestion is a placeholder, so what is typed is the whole name */
  const name = h("input", {type: "text", id: "deck-name", maxlength: "40", autocomplete: "off", placeholder: "our-deck",
                           value: g.teach || g.deck || "", onfocus: (e) => e.target.select()});
  const deckName = () => name.value.trim() || name.placeholder;
  /* a learning this phone started for the game, or its notice: its status line stays when the panel is drawn again */
  const was = learnings.get(gid);
  const status = was ? was.status : h("div", {"aria-live": "polite", class: "status", id: "teach-status"},
    g.lesson ? h("p", {id: "lesson"}, g.lesson.message) : null);
  /* a name that is no deck's name is said as it is typed (vision.decks.NAME), before anything is asked */
  const nameOk = () => {
    const deck = deckName();
    document.getElementById("deck-name-problem")?.remove();
    if (DECK_NAME.test(deck)) { name.removeAttribute("aria-invalid"); return true; }
    name.setAttribute("aria-invalid", "true");
    name.after(h("p", {class: "error-box", role: "alert", id: "deck-name-problem"}, `Deck name "${deck}": use letters a-z without accents, digits, - and _ ` +
      "(at most 40, starting with a letter or digit), e.g. grandmas-blue"));
    return false;
  };
  name.addEventListener("input", nameOk);
  /* learning needs at least MIN_TEACH photos (vision.decks.check_photos: it is checked on photos it did not learn
     from): fewer, and the button waits, saying why */
  const photos = g.rounds.reduce((n, r) => n + r.photos.length, 0);
  const why = photos >= MIN_TEACH ? null : h("p", {class: "muted", id: "teach-why"}, g.deck
    ? `Nothing to do here: deck ${g.deck} is learned. Learning a deck again from this game's photos alone needs at ` +
      `least ${MIN_TEACH} photo rounds (this game has ${photos} so far).`
    : `Learning needs at least ${MIN_TEACH} photos of rounds (the deck is checked on photos it did not learn from): ` +
      `this game has ${photos} so far. Score more rounds from photos, then learn it here.`);
  /* and at least MIN_CORNERS card corners in those photos, counted from the game's examples (what Learn this deck
     learns from): said before the tap, the button enabled only when there are enough */
  const corners = h("p", {class: "muted", id: "teach-corners"});
  corners.hidden = true;
  const counted = photos >= MIN_TEACH ? cornersOf(gid) : Promise.resolve(null);
  counted.then((held) => {
    if (!held) return;
    const enough = held.photos >= MIN_TEACH && held.corners >= MIN_CORNERS;
    corners.textContent = cornersSaid(held, enough, g);
    corners.hidden = false;
    if (!enough) go.disabled = true;
  });
  const typed = typedSaid(g);
  const state = h("p", {id: "deck-state"}, deckState(g) || "");
  state.hidden = !deckState(g);
  /* the game's deck and teaching as the server answered them (a game), said on the state line and the box */
  const answeredGame = (out) => {
    g.deck = out.deck; g.teach = out.teach; keep.checked = !!out.teach;
    state.textContent = deckState(g) || ""; state.hidden = !deckState(g);
  };
  const keep = h("input", {type: "checkbox", id: "keep-teaching", checked: g.teach ? "" : null});
  keep.addEventListener("change", async () => {
    try {
      const out = await api("PUT", `/v1/games/${gid}/deck`, {deck: g.deck || (keep.checked ? deckName() : null),
                                                           teach: keep.checked});
      answeredGame(out);
      toast(keep.checked ? `Each round saved now teaches deck ${out.teach}` : "Saved rounds no longer teach the deck");
    } catch (e) { keep.checked = !keep.checked; status.replaceChildren(errorBox(e)); }
  });
  /* a deck learned before under the name (GET /v1/decks) is replaced only once the person says so: it may have
     learned from many more photos than this game's (the CLI's deck learn --replace). Resolves the headers that say
     what the learning may replace: If-Match with the version asked about (a deck taught again meanwhile on another
     phone is then kept, and said), If-None-Match: * for a name no deck has; null: nothing to learn. */
  const asked = async (deck) => {
    let known;
    try { known = (await api("GET", "/v1/decks")).find(d => d.name === deck); }
    catch (e) { status.replaceChildren(errorBox(e)); return null; }
    if (!known) return {"If-None-Match": "*"};
    const when = (known.created || "").slice(0, 10);
    const yes = await askConfirm(`Replace deck ${deck}?`, [
      `Deck ${deck} was learned before from ${known.photos} photo${known.photos === 1 ? "" : "s"}` +
        (when ? ` (${when})` : "") + `. Learning it from this game's ${photos} photo${photos === 1 ? "" : "s"} ` +
        "replaces it once the new one is kept (one that reads worse than handfoot without it is not).",
      "To keep it, cancel and type another deck name."], "Replace it");
    return yes ? {"If-Match": `"${known.version}"`} : null;
  };
  /* learn deck `deck` from this game's photo rounds, sending `headers` (what it may replace); the page's button
     and status line are looked up again as it ends: the panel may have been drawn again meanwhile */
  const learn = async (deck, headers) => {
    const state = {status, running: true};
    learnings.set(gid, state);
    setBusy(document.getElementById("learn-deck"), true);
    status.replaceChildren(h("p", {}, h("span", {class: "spinner", "aria-hidden": "true"}), " Learning your deck…"));
    try {
      let job = await api("POST", `/v1/decks/${encodeURIComponent(deck)}/learn`, {games: [gid]}, null, null, headers);
      const learning = (stage) => status.replaceChildren(h("p", {}, h("span", {class: "spinner", "aria-hidden": "true"}),
        ` Learning your deck… ${stage}`));
      while (job.state === "learning") {
        await new Promise(done => setTimeout(done, 1000));
        const id = job.id;
        job = await answered(() => api("GET", `/v1/decks/jobs/${id}`),
                             () => learning("waiting for the server (it goes on learning meanwhile)"));
        learning(job.stage || "");
      }
      const waiting = () => learning("waiting for the server");
      if (job.changed) {  /* taught on another phone while this one learned: theirs kept, nothing saved */
        const now = (await answered(() => api("GET", "/v1/decks"), waiting)).find(d => d.name === deck) || null;
        raced(deck, now, true);
        return;
      }
      if (job.state === "failed") throw new Error(job.error);
      learnings.delete(gid);
      const c = job.deck.check;
      /* the game reads with it from now on, and its rounds saved teach it (the server's default: teach) */
      answeredGame(await answered(() => api("PUT", `/v1/games/${gid}/deck`, {deck: job.deck.name}), waiting));
      status.replaceChildren(h("p", {}, `Deck ${job.deck.name} learned from ${job.deck.photos} photos` +
        (job.deck.negative ? " (light print on dark cards: handfoot reads it as a negative)" : "") + ". Tested on photos it did not learn from: " +
        (c.profile_right == null ? `${Math.round(100 * c.stock)} % of their card corners read right without it, ${Math.round(100 * c.profile)} % with it. `
          : `of ${c.indices} card corners, ${c.stock_right} read right without it` +
            (c.stock_negative ? " (reading their negatives, as the light-print box does)" : "") +
            `, ${c.profile_right} with it (right: the rank ` +
            "and the colour, all the score needs). ") +
        (c.profile_right != null && c.profile_right <= c.stock_right
          ? "It reads them no better yet: each round saved with photos teaches it more. " : "") +
        "This game's new photos are read with it" + (g.teach === job.deck.name
          ? ", and every round saved teaches it more: Keep learning it is now ticked." : ".")));
      toast(`Deck ${job.deck.name} learned`);
    } catch (e) {
      if (e.status === 409) busy(deck);
      else if (e.status === 412) raced(deck, e.body.deck || null, false, "If-Match" in headers);
      else {
        learnings.delete(gid);
        /* 422: too few photos or card corners yet; the rounds still to come can teach it by themselves */
        status.replaceChildren(errorBox(e), e.status === 422 && !keep.checked ? h("p", {id: "teach-later"},
          "Tick Keep learning it above: each round saved then adds its cards, and the deck is learned by itself " +
          "once there are enough.") : null);
      }
    } finally {
      state.running = false;
      setBusy(document.getElementById("learn-deck"), false);
    }
  };
  /* a notice in the status line (kept there when the panel is drawn again, until one of its buttons is pressed):
     `heading`, `lines`, and its buttons, each [label, id, action, primary] */
  const notice = (heading, lines, buttons) => {
    const done = () => { learnings.delete(gid); status.replaceChildren(); };
    status.replaceChildren(h("div", {class: "notice-box", role: "alert", id: "deck-notice"}, h("h3", {}, heading),
      lines.map(t => h("p", {}, t)), h("div", {class: "row"}, buttons.map(([label, id, action, primary]) =>
        h("button", {type: "button", id, class: primary ? "primary" : null, onclick: () => { done(); action(); }}, label)))));
    status.scrollIntoView({block: "center"});
  };
  const otherName = ["Choose another name", "deck-other-name", () => {
    const input = document.getElementById("deck-name");
    if (input) { input.scrollIntoView({block: "center"}); input.focus(); input.select(); }
  }];
  /* another phone is teaching `deck` now (409): one phone at a time */
  const busy = (deck) => notice(`Another phone is teaching deck ${deck} right now`, [
    "Only one phone can teach a deck at a time, so nothing was started here.",
    "Wait until it is done (a minute or so), then try again: you will be asked before its deck is replaced."],
    [["Try again", "deck-try-again", () => start(deck), true], otherName]);
  /* deck `deck` is not the one this phone asked about or saw missing (412; `during`: found as its learning ended):
     `now` as it is now (null: deleted), `replacing`: the person had said to replace the one shown */
  const raced = (deck, now, during, replacing) => {
    if (!now) {
      notice(`Deck ${deck} was deleted on another phone`, [
        during ? `While this phone was learning it, deck ${deck} was deleted on another phone, so nothing was saved.`
               : `Deck ${deck} was deleted on another phone meanwhile, so nothing was replaced.`,
        "You can teach it again as a new deck from this game's photos, or choose another name."],
        [["Teach it as a new deck", "deck-learn-new", () => learn(deck, {"If-None-Match": "*"}), true], otherName]);
      return;
    }
    const from = `from ${now.photos} photo${now.photos === 1 ? "" : "s"}`;
    notice(`Another phone taught deck ${deck} meanwhile`, [
      during ? `While this phone was learning, another phone finished teaching deck ${deck} (${from}). Theirs is kept: ` +
               "what this phone learned was not saved."
             : replacing ? `While you were deciding, another phone taught deck ${deck} again (now ${from}). Nothing was replaced.`
             : `Just now, another phone taught deck ${deck} (${from}). Nothing was replaced.`,
      "You can keep theirs (this game then reads with it), replace it with one learned from this game's photos, or " +
        "choose another name."],
      [["Keep theirs", "deck-keep-theirs", () => keepTheirs(deck), true],
       ["Replace theirs", "deck-learn-over", () => learn(deck, {"If-Match": `"${now.version}"`})], otherName]);
  };
  const keepTheirs = async (deck) => {
    try {
      await api("PUT", `/v1/games/${gid}/deck`, {deck});
      toast(`This game's photos are read with deck ${deck}`);
    } catch (e) { status.replaceChildren(errorBox(e)); }
  };
  const start = async (deck) => {
    if (!nameOk()) { name.focus(); return; }  /* vision.decks.NAME: a name with "/" is no address at all */
    const headers = await asked(deck);
    if (headers) await learn(deck, headers);
  };
  const go = h("button", {type: "button", id: "learn-deck", disabled: photos < MIN_TEACH || !!(was && was.running)},
               "Learn this deck");
  go.addEventListener("click", () => start(deckName()));
  return h("section", {class: "panel", id: "teach"}, h("h2", {}, "Teach handfoot your deck"),
    h("p", {class: "muted"}, "The photo rounds of this game, as you corrected them, teach the card reader your deck " +
      "(seconds to a minute). Some photos check it first: it is kept unless it reads those worse than handfoot does " +
      `without it. It needs at least ${MIN_CORNERS} card corners (a card's rank and suit) in the photos: a photo or two of ` +
      "a round's table, or 15 or more close-ups of a card or two. A card added by hand teaches nothing: it has no " +
      "place on the photo."),
    state, h("label", {for: "deck-name"}, "Deck name (empty: our-deck)"), name, why, corners, typed,
    h("div", {class: "row"}, go),
    h("label", {class: "check"}, keep, " Keep learning it from every round saved (a round saved as read teaches only " +
      "the cards read surely; once the game reads with the deck, the check view shows a box above Save, " +
      "Every card is right as shown: ticked, the round teaches every card)"), status);
}


/* What the panel says of game `g`'s rounds typed in (no photo): they teach nothing, nor does a photo in which no card
   was found (often why a round was typed: the server keeps no such photo, and a deck is learned from the corners found
   on a photo, as corrected); while its photos are read as photographed, the box that reads a dark deck. null when no
   round was typed. */
function typedSaid(g) {
  const ns = g.rounds.filter(r => !r.photo_reading).map(r => r.n);
  if (!ns.length) return null;
  const which = roundsText(ns);
  return h("p", {class: "muted", id: "teach-typed"}, `${which[0].toUpperCase()}${which.slice(1)} ` +
    `${ns.length === 1 ? "was" : "were"} typed, so ${ns.length === 1 ? "it teaches" : "they teach"} the deck nothing, ` +
    "nor does a photo in which no card was found (it is not kept: handfoot learns from each card corner it found on " +
    "a photo, as you corrected it)." + (g.over || g.negative ? "" : " Cards printed light on dark? Tick Our cards are " +
      "light print on dark on the round page before reading the next photos: it reads them."));
}

/* The card corners game `gid`'s saved photo rounds teach (GET /v1/games/{id}/examples.jsonl: one line a photo with a
   corner, as corrected; a card typed or added by hand has none): {photos, corners}, or null when it cannot be asked. */
async function cornersOf(gid) {
  try {
    const r = await fetch(`/v1/games/${gid}/examples.jsonl`);
    if (!r.ok) return null;
    const lines = (await r.text()).split("\n").filter(line => line.trim());
    return {photos: lines.length, corners: lines.reduce((n, line) => n + JSON.parse(line).detections.length, 0)};
  } catch (e) { return null; }
}

/* What the panel says of the card corners `held` ({photos, corners}) of game `g`'s saved photo rounds: whether they
   are `enough` to learn its deck, and what to do when not. */
function cornersSaid(held, enough, g) {
  const have = `This game's saved photo rounds hold ${held.corners} card corner${held.corners === 1 ? "" : "s"} in ` +
    `${held.photos} photo${held.photos === 1 ? "" : "s"}`;
  if (enough) return `${have}: enough to learn it (at least ${MIN_CORNERS} are needed).`;
  if (held.photos < MIN_TEACH) return `${have}; learning needs at least ${MIN_TEACH} photos with card corners ` +
    `and ${MIN_CORNERS} card corners in all.`;
  return `${have}; learning needs at least ${MIN_CORNERS} (${MIN_CORNERS - held.corners} more): score more rounds from ` +
    "photos" + (g.teach ? " (Keep learning it is ticked: the deck is learned by itself once there are enough)."
                        : ", or tick Keep learning it below so the rounds to come teach it once there are enough.");
}
