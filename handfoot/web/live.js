/* The live view (#/live[/GAME]): a camera above the table, the phone's own or the computer's. */
import {api} from "/static/api.js";
import {route} from "/static/app.js";
import {askConfirm, closeSheet, deckChoice, errorBox, fmt, h, openSheet, radioChoice, setBusy, sheet, show, toast, total, view} from "/static/ui.js";

/* -- live: a camera above the table ------------------------------------------------------------------------ */
export let liveToken = 0;  /* each live view's refresh loop runs while it is the newest */
/* the status under the picture once this phone stopped its camera (the server's words for it, camera.py) */
const STOPPED = "the phone's camera was stopped: the table is not watched until a phone's camera is used again";
/* the status under the picture while this phone cannot reach the server (the line at the top says it too) */
const UNREACHED = "this phone cannot reach the handfoot server: the picture and scores shown are from before; trying again";
export async function liveView(gid) {
  const token = ++liveToken;
  const state = await api("GET", "/v1/live");
  if (state.status === "off" || state.status === "stopped") return liveStartView(gid, state);
  const here = location.hash;
  const picture = h("img", {id: "live-picture", alt: "The table as the camera sees it, each card read marked"});
  const status = h("p", {id: "live-status", class: "status", "aria-live": "polite"});
  const totals = h("div", {class: "totals compact", id: "live-totals"});
  const events = h("ol", {id: "live-events", class: "events", reversed: true});
  const end = h("button", {type: "button", class: "primary", id: "end-round", onclick: endRound}, "End of round");
  /* why End of round cannot be pressed yet: nothing was read, since the table has not been still */
  const endHint = h("p", {id: "end-round-hint", class: "muted", hidden: true},
    "End of round is ready once the table has been read: it is read when the picture has been still for a moment " +
    "(no hand over the table, the camera held steady).");
  const again = h("button", {type: "button", id: "replay-live", hidden: true, onclick: async () => {
    try { await api("POST", "/v1/live/replay"); route(); } catch (e) { toast(e.message, true); }
  }}, "Play the video again");
  /* Stop watching: the live view is left at once (its refresh ends, this phone's camera stops), the start view
     shown while the server stops */
  const stop = h("button", {type: "button", id: "stop-live", onclick: async () => {
    const ok = await askConfirm("Stop watching?", ["The camera stops watching the table, for every phone; what it read is not " +
                                                  "kept unless you end the round first."], "Stop watching");
    if (!ok || location.hash !== here) return;
    liveToken++;
    picture.removeAttribute("src");
    /* the live view goes first, before anything is awaited: the user sees it stop at once */
    show(h("h1", {}, "Watch the table"), h("p", {id: "live-stopping"}, h("span", {class: "spinner", "aria-hidden": "true"}), " Stopping the camera…"));
    const stopping = api("DELETE", "/v1/live").catch(e => { if (e.status !== 404) toast(e.message, true); });
    if (state.source === "browser") (await import("/static/camera.js")).stopPhoneCamera("the live view stopped");
    await stopping;
    if (location.hash === here) route();
  }}, "Stop watching");
  const game = state.game ? await api("GET", `/v1/games/${state.game}`).catch(() => null) : null;
  /* the game this view belongs to: the one watched, else (a table watched without a game) the open game End of
     round offers first (openGameFor); null: none */
  let own = game || await openGameFor(gid);
  /* a team as the view names it: the camera's team k is the game's team k, as End of round scores it (a game
     watched names the camera's teams after its own already); the camera's own name without a game */
  const named = (t) => own ? own.teams[state.teams.indexOf(t)] || t : t;
  const camera = (t) => own ? state.teams[own.teams.indexOf(t)] : t;  /* the camera's team a game's team is */
  /* the heading names the round watched, and says when the game is over (End of round is off then) */
  const title = h("h1", {id: "live-title"}, own ? `Live: ${own.teams.join(" vs ")}` : "Live table");
  const overNote = h("p", {id: "live-over", class: "panel notice", hidden: true},
    "The game is over: no round can be added to it. Stop watching, or start a new game and watch that. ",
    own ? h("a", {href: `#/game/${own.id}`}, "The game's page") : null);
  /* the round before the one watched was saved (here or on another phone) and nothing of this one is read yet: said,
     with the game's totals, and that the cards still on the table would count in the next round */
  const savedNote = h("section", {id: "live-saved", class: "panel notice", role: "status", hidden: true});
  /* End of round was pressed (here or on another phone) and the round is not saved yet: said, with its check */
  const endedNote = h("p", {id: "live-ended", class: "panel notice", role: "status", hidden: true});
  const aboutNote = h("p", {class: "muted", id: "live-about"});  /* a table watched without a game: what End of round does */
  function about() {
    const said = state.teams.map(t => `the camera's team ${t} is shown as ${named(t)}`).join(", ");
    aboutNote.textContent = game ? "" : own && said
      ? `${said[0].toUpperCase()}${said.slice(1)}, as End of round scores ${state.teams.length > 1 ? "them" : "it"}.`
      : gid ? "This table is watched without a game: End of round asks which game the round is for." : "";
    aboutNote.hidden = !aboutNote.textContent;
  }
  about();
  let shownKey, over = false;
  /* the game changed (a round saved or undone here or on another phone, its last round saved: over): asked again */
  if (own) hfSync.follow(own.id, () => { if (location.hash === here && token === liveToken) { shownKey = undefined; render(last); } });
  /* the heading follows the game: its round, or that it is over; asked again for each round watched (`key`: the
     round, or the readings of a table watched without a game, fewer once its round is saved) */
  async function retitle(key) {
    if (!own || key === shownKey) return;
    shownKey = key;
    const now = await api("GET", `/v1/games/${own.id}`).catch(() => null);
    if (!now) return;
    saved = now;
    if (!game && now.over) {  /* the game a table watched without one belonged to is over: the camera's names again */
      own = null;
      title.textContent = "Live table";
      about();
    } else {
      over = Boolean(game && now.over);
      title.textContent = `Live: ${now.teams.join(" vs ")}, ` + (over ? "the game is over" : `round ${now.next_round}`);
      overNote.hidden = !over;
    }
    render(last);  /* End of round follows `over`; the totals and events the names */
  }
  const phone = state.source === "browser" ? (await import("/static/camera.js")).cameraNote(state) : null;
  const labels = (await import("/static/livepicture.js")).labelLayer(picture);  /* card codes over the picture */
  show(title, overNote, savedNote, endedNote, phone,
       aboutNote,
       h("div", {class: "live-layout"},
         /* the round's scores above the picture, in a compact row: a phone shows them without scrolling, in large
            type too, and a wide screen keeps them in view with the picture */
         h("div", {class: "live-picture"}, totals,
           h("a", {href: "/v1/live/frame.jpg", target: "_blank", title: "Open the picture larger"}, labels.node), labels.legend,
           status),
         h("div", {},
           h("div", {class: "row live-actions"}, end, again, stop,
             own ? h("a", {class: "button", href: `#/game/${own.id}`}, "The game") : h("a", {class: "button", href: "#/"}, "All games")),
           endHint,
           h("h2", {}, "What happened"), events,
           h("p", {class: "muted"}, "Cards are read when the table has been still for a moment; nothing is read while a hand is over it. " +
             "Tap the picture to open it larger. At the end of the round press End of round: you check the reading, correct any card in a tap, and save it to the game."))));
  picture.src = `/v1/live/stream.mjpg?view=${token}.${Date.now()}`;  /* a new address: never the last stream's picture */
  let shown = -1, names = own, last = state, saved = null;
  /* the savedNote: shown while the game (`saved`, as retitle last asked it) has the rounds before the one watched
     and nothing of that one was read */
  function sayRound(st) {
    const fresh = Boolean(game && saved && !over && st.round > 1 && st.round === saved.next_round && !st.events.length);
    if (fresh && savedNote.dataset.round !== String(st.round)) {
      savedNote.dataset.round = String(st.round);
      savedNote.replaceChildren(
        h("p", {}, `Round ${st.round - 1} saved: ` + saved.teams.map(t => `${t} ${fmt(saved.totals[t] || 0)}`).join(", ") + " in all. ",
          h("a", {href: `#/game/${saved.id}`}, "The game")),
        h("p", {}, `Watching for round ${st.round} now: clear the table (cards left on it count in round ${st.round}), or ` +
          (phone && phone.sending() ? "Stop this camera." : "Stop watching.")));
    }
    savedNote.hidden = !fresh;
  }
  function sayEnded(ended) {
    const check = ended ? ended.check.replace(/^\//, "") : "";
    if (endedNote.dataset.check !== check) {
      endedNote.dataset.check = check;
      endedNote.replaceChildren(...(ended ? [`End of round was pressed: ${last.round ? `round ${last.round}` : "the round"} waits to be checked and saved, ` +
        "on the phone that pressed it or here. ", h("a", {href: check, id: "live-ended-check"}, "Check it on this phone")] : []));
    }
    endedNote.hidden = !ended;
  }
  function render(st) {
    last = st;
    /* this phone stopped its camera: the status says so at once, as the line above the picture does */
    const [dot, said] = phone && phone.stopped() ? ["reconnecting", STOPPED] : [st.status, st.message];
    status.replaceChildren(h("span", {class: `dot ${dot}`, "aria-hidden": "true"}), ` ${said}`);
    status.title = `${st.fps} pictures a second · ${st.reads} reading${st.reads === 1 ? "" : "s"}`;
    totals.replaceChildren(...(own ? own.teams : st.teams).map(t => st.teams.includes(camera(t))
      ? h("div", {class: "total", "data-team": t}, h("div", {class: "name"}, t),
          h("div", {class: "points", "data-total": t}, camera(t) in st.totals ? fmt(st.totals[camera(t)]) : "0"))
      : h("div", {class: "total off", "data-team": t}, h("div", {class: "name"}, t),
          h("div", {class: "muted"}, "not in the camera's view"))));
    if (st.events.length !== shown || names !== own) {
      shown = st.events.length; names = own;
      events.replaceChildren(...st.events.slice().reverse().map(e => h("li", {class: `event ${e.kind}`},
        h("span", {class: "muted"}, `${fmtTime(e.t)} `),
        e.event.startsWith(`team ${e.team}:`) ? `team ${named(e.team)}:${e.event.slice(`team ${e.team}:`.length)}` : e.event)));
      if (!shown) events.replaceChildren(h("li", {class: "muted"}, "Nothing yet."));
    }
    labels.update(st.cards);
    if (phone) phone.follow(st);
    end.disabled = over || !Object.keys((st.layout || {}).teams || {}).length;
    end.hidden = over;  /* a game over takes no round: the button goes, the notice says why */
    endHint.hidden = over || !end.disabled;
    retitle(game ? st.round : st.reads);
    sayRound(st);
    sayEnded(st.ended);
    again.hidden = !(st.video && st.status === "ended");
  }
  render(state);
  if (phone) phone.changed = () => { if (location.hash === here && token === liveToken) render(last); };
  while (location.hash === here && token === liveToken) {
    await new Promise(r => setTimeout(r, 700));
    if (location.hash !== here || token !== liveToken) break;
    let st;
    try { st = await api("GET", "/v1/live"); }
    catch (e) { status.replaceChildren(...(e.status === 0 ? [h("span", {class: "dot reconnecting", "aria-hidden": "true"}), ` ${UNREACHED}`] : [errorBox(e)])); continue; }
    if (st.status === "off") {  /* stopped on another phone (Stop watching there): this view's camera stops too */
      picture.removeAttribute("src");
      if (phone && phone.sending()) (await import("/static/camera.js")).stopPhoneCamera("the live view stopped");
      if (location.hash === here && token === liveToken) {
        await liveStartView(gid || state.game, st, "Watching was stopped on another phone (Stop watching).");
      }
      return;
    }
    render(st);
  }
  picture.removeAttribute("src");  // closes the picture's stream

  async function endRound() {
    const st = await api("GET", "/v1/live");
    /* the game watched, else the open game this table belongs to (openGameFor, asked now: a game may have been
       started or ended since the view opened); asked only when there is none (no game open, or several and none
       named) */
    let target = st.game || ((await openGameFor(gid)) || {}).id;
    if (!target) {
      const open = (await api("GET", "/v1/games")).filter(g => !g.over);
      if (!open.length) { toast("Start a game first (All games, New game): the round goes to a game.", true); return; }
      target = await pickGame(open, st.teams, own && own.id);
      if (!target) return;
    }
    setBusy(end, true);
    try {
      const done = await api("POST", "/v1/live/end-round", {game: target});
      location.hash = done.check.replace(/^\//, "");
    } catch (e) { toast(e.message, true); setBusy(end, false); }
  }
}

/* Which game a round watched without one goes to: a sheet with the open games, `first` (a game's id) chosen to
   begin with. Resolves to its id, or null. */
export function pickGame(open, seen, first) {
  return new Promise(resolve => {
    const choice = radioChoice(open.map(g => [g.id, `${g.teams.join(" vs ")} (round ${g.rounds + 1})`]),
                               open.some(g => g.id === first) ? first : open[0].id, "end-game", "The game");
    const done = (value) => { closeSheet(); resolve(value); };
    const mapping = h("p", {id: "end-game-teams"});
    const explain = () => {
      const g = open.find(x => x.id === choice.value) || open[0];
      mapping.textContent = seen.map((t, k) => `the camera's team ${t} is scored as ${g.teams[k] || t}`).join("; ") + ".";
    };
    choice.addEventListener("change", explain);
    explain();
    openSheet("Which game is this round for?", h("div", {},
      choice, mapping,
      h("div", {class: "row"}, h("button", {type: "button", class: "primary", id: "end-game-ok", onclick: () => done(choice.value)}, "Check the round"),
        h("button", {type: "button", onclick: () => done(null)}, "Cancel"))));
  });
}

/* The open game a table watched without one belongs to: the game `gid` (the view's address) while it is open,
   else the only open game; null when neither is (no game open, or several and none named). */
async function openGameFor(gid) {
  if (gid) {
    const g = await api("GET", `/v1/games/${gid}`).catch(() => null);
    if (g && !g.over) return g;
  }
  const open = (await api("GET", "/v1/games").catch(() => [])).filter(g => !g.over);
  return open.length === 1 ? await api("GET", `/v1/games/${open[0].id}`).catch(() => null) : null;
}

export function fmtTime(t) { const m = Math.floor(t / 60); return `${m}:${String(Math.floor(t % 60)).padStart(2, "0")}`; }

/* The view that starts watching: `gid` the game chosen first; `why`, a line saying why the live view ended (another
   phone stopped it), or none. A game over is not offered; the game in the address, over, is said to be, with its
   page; the game chosen is followed, and the view drawn again when it ends on another phone. */
export async function liveStartView(gid, state, why) {
  const all = await api("GET", "/v1/games");
  const games = all.filter(g => !g.over);
  const ended = all.find(g => g.id === gid && g.over);
  const heading = [h("h1", {}, "Watch the table"), why ? h("p", {class: "panel notice", id: "live-why"}, why) : null,
    ended ? h("p", {class: "panel notice", id: "live-game-over"}, `${ended.teams.join(" vs ")}: the game is over, no round can be watched for it. `,
      h("a", {href: `#/game/${ended.id}`}, "The game's page")) : null];
  if (!games.length) {
    show(...heading, h("p", {}, "The live view scores a round from a camera above the table. Start a game first."),
         h("div", {class: "row"}, h("a", {class: "button primary", href: "#/new"}, "New game"), h("a", {class: "button", href: "#/"}, "All games")));
    return;
  }
  /* the games and the sides as radio lists: a select cuts "Nana's Team vs Les Petits-Enfants (round 2)" off at 390 px */
  const game = radioChoice(games.map(g => [g.id, `${g.teams.join(" vs ")} (round ${g.rounds + 1})`]),
                           games.some(g => g.id === gid) ? gid : games[0].id, "live-game", "The game");
  /* the game chosen ends on another phone (its last round saved): this view is drawn again, saying so */
  const here = location.hash;
  const followChosen = () => hfSync.follow(game.value, async () => {
    const now = await api("GET", `/v1/games/${game.value}`).catch(() => null);
    if (now && now.over && location.hash === here && document.body.contains(game)) await liveStartView(now.id, state);
  });
  followChosen();
  game.addEventListener("change", followChosen);
  const camera = h("input", {type: "number", id: "live-camera", min: "0", max: "63", value: "0", inputmode: "numeric"});
  const phone = await import("/static/camera.js");  /* this phone's camera (camera.js) or the computer's */
  const source = radioChoice([["browser", "This phone's camera (the back one)"], ["camera", "A camera plugged into the computer"]],
                              phone.cameraPossible() ? "browser" : "camera", "live-source", "The camera");
  source.addEventListener("change", () => { cameraBox.hidden = source.value !== "camera"; });
  const cameraBox = h("div", {hidden: source.value !== "camera"}, h("label", {for: "live-camera"}, "Camera (0 is the first)"), camera);
  /* what the camera sees, in the chosen game's team names: drawn again when another game is chosen */
  function sides(chosen) {
    const t = (games.find(g => g.id === game.value) || games[0]).teams;
    const [a, b] = [t[0], t[1] || "the other team"];
    return radioChoice([["horizontal", `${a} at the bottom, ${b} at the top`], ["vertical", `${a} on the left, ${b} on the right`],
                        ["", `only the side of ${a}`, "one-side"]], chosen, "live-split", "What the camera sees");
  }
  let split = sides("horizontal");
  game.addEventListener("change", () => { const now = sides(split.value); split.replaceWith(now); split = now; });
  const decks = await api("GET", "/v1/decks").catch(() => []);
  const gameDeck = () => (games.find(g => g.id === game.value) || {}).deck || "";
  const deck = decks.length ? deckChoice(decks, gameDeck(), "live-deck", "Read with") : null;
  if (deck) game.addEventListener("change", () => { deck.value = gameDeck(); });
  const status = h("div", {"aria-live": "polite", class: "status"});
  const go = h("button", {type: "submit", class: "primary", id: "start-live"}, "Start watching");
  show(...heading,
    h("p", {class: "muted"}, "A phone (or a camera plugged into the computer running handfoot) looks down on the table through a round; " +
      "the score keeps itself, and other phones follow it."),
    state.status === "stopped" ? h("p", {}, "The last camera stopped.") : null,
    h("form", {onsubmit: async (ev) => {
      ev.preventDefault();
      setBusy(go, true);
      status.replaceChildren(h("span", {class: "spinner", "aria-hidden": "true"}), " Opening the camera…");
      try {
        const chosen = await api("GET", `/v1/games/${game.value}`);  /* ended on another phone meanwhile: said */
        if (chosen.over) { await liveStartView(chosen.id, state); return; }
        if (deck && deck.value !== gameDeck()) await api("PUT", `/v1/games/${game.value}/deck`, {deck: deck.value || null});
        if (source.value === "browser") await phone.startPhoneCamera({game: game.value, split: split.value, deck: deck && deck.value});
        else await api("POST", "/v1/live", {game: game.value, camera: Number(camera.value || 0), split: split.value || null,
                                            deck: deck && deck.value ? deck.value : null});
        route();
      } catch (e) { status.replaceChildren(errorBox(e)); setBusy(go, false); }
    }},
      game,
      source, phone.cameraProblem() ? h("p", {class: "muted"}, phone.cameraProblem()) : null, cameraBox,
      split,
      deck,
      h("div", {class: "sticky-actions"}, status, go, h("a", {class: "button", href: "#/"}, "Cancel"))));
}

