/* A game's panel that teaches the card reader the family's deck from the game's corrected photo rounds. */
import {api} from "/static/api.js";
import {askConfirm, errorBox, h, setBusy, toast} from "/static/ui.js";

const DECK_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;  /* a deck's name (vision.decks.NAME) */
/* the fewest photos a deck is learned from (vision.decks.check_photos refuses fewer) */
export const MIN_TEACH = 2;

/* A game's corrected photo rounds teach the card reader the family's deck (POST /v1/decks/{name}/learn), and go on
   teaching it after every round saved (the game's `teach`, its last `lesson`; PUT /v1/games/{id}/deck). */
export function teachPanel(gid, g) {
  /* empty until named: the suggestion is a placeholder, so what is typed is the whole name */
  const name = h("input", {type: "text", id: "deck-name", maxlength: "40", autocomplete: "off", placeholder: "our-deck",
                           value: g.teach || g.deck || "", onfocus: (e) => e.target.select()});
  const deckName = () => name.value.trim() || name.placeholder;
  const status = h("div", {"aria-live": "polite", class: "status", id: "teach-status"},
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
  const why = photos < MIN_TEACH ? h("p", {class: "muted", id: "teach-why"}, `Learning needs at least ${MIN_TEACH} photos of rounds ` +
    `(the deck is checked on photos it did not learn from): this game has ${photos} so far. Score more rounds from photos, ` +
    "then learn it here.") : null;
  const keep = h("input", {type: "checkbox", id: "keep-teaching", checked: g.teach ? "" : null});
  keep.addEventListener("change", async () => {
    try {
      const out = await api("PUT", `/v1/games/${gid}/deck`, {deck: g.deck || (keep.checked ? deckName() : null),
                                                           teach: keep.checked});
      g.teach = out.teach;
      toast(keep.checked ? `Each round saved now teaches deck ${out.teach}` : "Saved rounds no longer teach the deck");
    } catch (e) { keep.checked = !keep.checked; status.replaceChildren(errorBox(e)); }
  });
  /* a deck learned before under the name (GET /v1/decks) is replaced only once the person says so: it may have
     learned from many more photos than this game's (the CLI's deck learn --replace). Resolves true to learn. */
  const replaceOk = async (deck) => {
    let known;
    try { known = (await api("GET", "/v1/decks")).find(d => d.name === deck); }
    catch (e) { status.replaceChildren(errorBox(e)); return false; }
    if (!known) return true;
    const when = (known.created || "").slice(0, 10);
    return askConfirm(`Replace deck ${deck}?`, [
      `Deck ${deck} was learned before from ${known.photos} photo${known.photos === 1 ? "" : "s"}` +
        (when ? ` (${when})` : "") + `. Learning it from this game's ${photos} photo${photos === 1 ? "" : "s"} ` +
        "replaces it once the new one is kept (one that reads worse than handfoot without it is not).",
      "To keep it, cancel and type another deck name."], "Replace it");
  };
  const go = h("button", {type: "button", id: "learn-deck", disabled: photos < MIN_TEACH}, "Learn this deck");
  go.addEventListener("click", async () => {
    const deck = deckName();
    if (!nameOk()) { name.focus(); return; }  /* vision.decks.NAME: a name with "/" is no address at all */
    if (!(await replaceOk(deck))) return;
    setBusy(go, true);
    status.replaceChildren(h("p", {}, h("span", {class: "spinner", "aria-hidden": "true"}), " Learning your deck…"));
    try {
      let job = await api("POST", `/v1/decks/${encodeURIComponent(deck)}/learn`, {games: [gid]});
      while (job.state === "learning") {
        await new Promise(done => setTimeout(done, 1000));
        job = await api("GET", `/v1/decks/jobs/${job.id}`);
        status.replaceChildren(h("p", {}, h("span", {class: "spinner", "aria-hidden": "true"}),
          ` Learning your deck… ${job.stage || ""}`));
      }
      if (job.state === "failed") throw new Error(job.error);
      const c = job.deck.check;
      await api("PUT", `/v1/games/${gid}/deck`, {deck: job.deck.name});  /* the game reads with it from now on */
      status.replaceChildren(h("p", {}, `Deck ${job.deck.name} learned from ${job.deck.photos} photos` +
        (job.deck.negative ? " (light print on dark cards: handfoot reads it as a negative)" : "") + ": on the check photos " +
        (c.profile_right == null ? `${Math.round(100 * c.stock)} % read right before, ${Math.round(100 * c.profile)} % with it. `
          : `${c.stock_right} of ${c.indices} card indices read right (rank and colour) before, ${c.profile_right} with it. `) +
        (c.profile_right != null && c.profile_right <= c.stock_right
          ? "It reads them no better yet: each round saved with photos teaches it more. " : "") +
        "This game's new photos are read with it."));
      toast(`Deck ${job.deck.name} learned`);
    } catch (e) { status.replaceChildren(errorBox(e)); }
    setBusy(go, false);
  });
  return h("section", {class: "panel", id: "teach"}, h("h2", {}, "Teach handfoot your deck"),
    h("p", {class: "muted"}, "The photo rounds of this game, as you corrected them, teach the card reader your deck " +
      "(seconds to a minute). Some photos check it first: it is kept unless it reads those worse than handfoot does without it. Five photo rounds are a start."),
    h("label", {for: "deck-name"}, "Deck name (empty: our-deck)"), name, why, h("div", {class: "row"}, go),
    h("label", {class: "check"}, keep, " Keep learning it from every round saved (a round saved as read teaches only " +
      "the cards read surely)"), status);
}

