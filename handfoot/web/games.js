/* The games: the list (#/) and a game with its rounds (#/game/ID); a new game (#/new) is newgame.js. */
import {api} from "/static/api.js";
import {changedText, onlyUndone, roundsText} from "/static/changes.js";
import {keptCheckOffer} from "/static/drafts.js";
import {renameSheet} from "/static/rename.js";
import {teachPanel} from "/static/teach.js";
import {askConfirm, closeSheet, fmt, focusOn, h, openSheet, pointsNode, problemsLine, setBusy, show, teamTotal, toast, total,
        uncountedBooks} from "/static/ui.js";

/* When a game was made, in the phone's words ("Fri 4 Dec, 20:31"); "" when unknown. */
export function fmtDate(iso) {
  const when = new Date(iso);
  return isNaN(when) ? "" : when.toLocaleString(undefined, {weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});
}

/* -- games ------------------------------------------------------------------------------------------------- */
/* how often the games list asks for games started or changed on another phone, ms */
const GAMES_EVERY = 4000;

export async function homeView() {
  const games = await api("GET", "/v1/games");
  const list = h("ul", {class: "games"});
  for (const g of games) {
    const totals = Object.entries(g.totals).map(([t, v]) => `${t} ${total(v)}`).join(" · ");
    const state = g.winner ? `winner: ${g.winner}` : g.over ? "over" : `${g.rounds} round${g.rounds === 1 ? "" : "s"} played`;
    const when = fmtDate(g.created);  /* two games of the same teams told apart by their start */
    const started = when ? `${when} · ` : "";
    list.append(h("li", {class: "panel"}, h("a", {href: `#/game/${g.id}`},
      h("strong", {}, g.teams.join(" vs ")), h("br"), h("span", {class: "muted"}, `${started}${g.rules} · ${state} · ${totals}`))));
  }
  const heading = h("h1", {}, "Games");
  /* a game started or a round saved on another phone shows here by itself (asked every few seconds while the list
     is on screen and the page visible) */
  const seen = JSON.stringify(games);
  const timer = setInterval(async () => {
    if (!heading.isConnected) { clearInterval(timer); return; }
    if (document.hidden) return;
    try {
      const now = await api("GET", "/v1/games");
      if (heading.isConnected && JSON.stringify(now) !== seen) { clearInterval(timer); homeView(); }
    } catch (e) { /* the server away: the line at the top says so (sync.js); asked again next time */ }
  }, GAMES_EVERY);
  show(
    heading,
    h("div", {class: "row"}, h("a", {class: "button primary", href: "#/new"}, "New game"),
      h("button", {type: "button", id: "invite", onclick: () => inviteSheet(null)}, "Another phone")),
    games.length ? list : h("p", {class: "muted"}, "No games yet: start one, then score each round from a photo of the table."));
}

export function breakdownTable(score, teams) {
  const table = h("table", {class: "breakdown"});
  for (const team of teams || Object.keys(score.teams)) {
    const ts = score.teams[team];
    if (!ts) continue;
    table.append(h("tr", {}, h("th", {colspan: "3"}, `${team}: ${teamTotal(ts)}`)));
    for (const ln of ts.breakdown) {
      if (!ln.count && !ln.points_min && !ln.points_max) continue;
      const pts = ln.points !== null ? (ln.points > 0 ? "+" : "") + fmt(ln.points) : `${fmt(ln.points_min)} to ${fmt(ln.points_max)}`;
      /* a detail of two words ("1,500 each", "33 cards") kept on one line */
      table.append(h("tr", {}, h("td", {}, ln.label), h("td", {class: "muted"}, ln.detail.replace(/^(\S+) (\S+)$/, "$1\u00a0$2")),
                     h("td", {}, pts)));
    }
  }
  return table;
}

/* A team name for a narrow column: it wraps at its spaces and its own hyphens ("Les Petits-Enfants" as "Les Petits-" /
 * "Enfants", no second hyphen added); a part of 10 letters or more between them may also break in its middle, with a
 * hyphen shown. */
function hyphenable(name) { return name.replace(/[^\s\-\u2010]{10,}/g, w => w.slice(0, w.length >> 1) + "\u00AD" + w.slice(w.length >> 1)); }

/* What a finished game's page says of its end: [the headline (the winner, a tie, or that the winner waits on wilds
 * still to count), the explanation under it or null]: while a round's squared book has its wilds uncounted (its
 * team's total a range), which team's book in which round, and whether the winner depends on it. */
function overText(g) {
  const open = g.rounds.flatMap(r => Object.entries(r.score.teams).filter(([, ts]) => !ts.exact)
    .flatMap(([t, ts]) => uncountedBooks(ts).map(b => `round ${r.n}, ${t}'s ${b}`)));
  const where = `${open.join("; ")} (tap the round, then Correct round)`;
  if (g.winner) return [`The game is over: ${g.winner} won.`, open.length ? "That holds whatever the wilds still to " +
    `count come to, but the final totals stay a range until they are counted: ${where}.` : null];
  if (!open.length) return ["The game is over: a tie.", null];
  return ["The game is over: who won depends on wilds still to count.",
          `Still to count: ${where}. The winner shows once they are counted.`];
}

/* Another phone at the table: the QR code its camera opens this game's page (gid; null: the games) from, and the
 * address to type (GET /v1/games/{id}/invite, /v1/invite: by this server's network address, with its token). */
async function inviteSheet(gid) {
  let out;
  try { out = await api("GET", gid ? `/v1/games/${gid}/invite` : "/v1/invite"); } catch (e) { toast(e.message, true); return; }
  openSheet("Another phone at the table", out.url
    ? h("div", {class: "invite"},
        h("p", {}, "On the other phone (on the same Wi-Fi), point the camera at this code and open the address it shows:"),
        h("img", {src: out.qr, id: "invite-qr", alt: `QR code of ${out.url}`, width: "240", height: "240"}),
        h("p", {class: "muted"}, "Or type this address:"), h("p", {class: "invite-url"}, h("code", {id: "invite-url"}, out.url)),
        h("p", {class: "muted"}, gid ? "Both phones then keep this game's score; what one saves shows on the other."
                                     : "Both phones then see the same games; what one saves shows on the other."),
        h("div", {class: "row"}, h("button", {type: "button", class: "primary", onclick: closeSheet}, "Done")))
    : h("div", {}, h("p", {id: "invite-reason"}, `No other phone can open handfoot now: ${out.reason}.`),
        h("div", {class: "row"}, h("button", {type: "button", onclick: closeSheet}, "Close"))));
}

export function onGame(gid, hash) { return location.hash === hash || (hash === `#/game/${gid}` && location.hash === `#/game/${gid}/`); }

/* The undo question open now ({gid, n, version}; null when none): a change of its game on another phone ends it
 * (`changed`: the game as it is now), so no round is undone from a game the player no longer sees. */
let undoAsked = null;
/* this phone's own change of the game on its way (an undo): the game's events it causes are not another phone's */
let writing = 0;
/* this phone's undo whose answer never came back ({gid, before: the game it was sent from, r: the round, later: the
 * rounds after it}; null: none): the game showing that round undone, and nothing else changed, is said as its
 * answer would have been, not as another phone's undo */
let lostUndo = null;
/* the game this phone asked to delete (null: none): from the asking (its events may tell before its answer, or its
 * answer be lost) until refused, its deletion is said as this phone's */
let lostDelete = null;
/* The notice of round `r` undone, the rounds `later` (those after it) moved up, the game now `after`; null when no
 * round moved (the grid shows it). */
function undoneNotice(r, later, after) {
  const moved = roundsText(later.map(x => x.n));
  return later.length ? gameNotice(`Round ${r.n} undone`,
    `${moved[0].toUpperCase()}${moved.slice(1)} moved up one: ${later.length === 1 ? "it is" : "they are"} ` +
    `${roundsText(later.map(x => x.n - 1))} now, ${later.length === 1 ? "" : "each "}scored under its new opening minimum.` +
    (after.over ? "" : ` Next: round ${after.next_round}.`)) : null;
}
/* Whether the game `now` shows this phone's lost undo done: then said so (toast, and the game view with its notice). */
async function lostUndoDone(gid, now) {
  const u = lostUndo;
  if (!u || u.gid !== gid || !onlyUndone(u.before, now, u.r.n)) return false;
  lostUndo = null;
  toast(`Round ${u.r.n} undone`);
  await gameView(gid, now, undoneNotice(u.r, u.later, now));
  return true;
}

/* A notice at the top of the game view, saying what changed and why (`lines`: sentences). */
function gameNotice(heading, ...lines) {
  const notice = h("section", {class: "panel notice", id: "game-notice", role: "alert", tabindex: "-1"}, h("h2", {}, heading),
                   lines.map(t => h("p", {}, t)),
                   h("button", {type: "button", id: "game-notice-ok", onclick: () => {  /* read: put away, the title focused */
                     const title = document.querySelector("main h1");
                     notice.remove();
                     if (title) { title.tabIndex = -1; title.focus(); }
                   }}, "OK"));
  return notice;
}

/* The game view (#/game/ID; #/game/ID/teach: its panel that teaches the deck shown and in view, even before a photo
 * round): `latest`, the game as the server just answered it (else it is asked for); `notice`, a
 * section saying what just changed, shown at the top. */
export async function gameView(gid, latest, notice) {
  const g = latest ? hfSync.note(latest) : await api("GET", `/v1/games/${gid}`);
  const here = location.hash;
  const atTeach = here === `#/game/${gid}/teach`;  /* come to teach the deck: its panel shown, in view */
  /* a camera watching this game's table now (GET /v1/live): said, with the way to the live view; the line comes
     and goes as a camera starts and stops watching (the game's events, `live`) */
  const liveLine = h("p", {class: "muted", id: "live-line", hidden: true});
  /* while a camera watches the table, the live view is the way on, not a photo of the round (it would be scored
     twice): the primary button follows the line */
  const emphasis = () => {
    document.getElementById("score-round")?.classList.toggle("primary", liveLine.hidden);
    document.getElementById("watch-live")?.classList.toggle("primary", !liveLine.hidden);
  };
  const sayLive = async () => {
    const live = await api("GET", "/v1/live").catch(() => null);
    liveLine.hidden = !(live && live.game === gid && ["watching", "moving", "reading"].includes(live.status));
    emphasis();
    if (liveLine.hidden) return;
    /* a round just saved and nothing read of the next: the cards still on the table would count in it */
    const fresh = g.rounds.length && live.round === g.next_round && !live.events.length;
    liveLine.replaceChildren(h("span", {class: `dot ${live.status}`, "aria-hidden": "true"}),
      fresh ? ` Round ${live.round - 1} saved. A camera is watching for round ${live.round}: clear the table, or stop it in `
            : " A camera is watching this table now: ", h("a", {href: `#/live/${gid}`}, "the live view"));
  };
  await sayLive();
  hfSync.follow(gid, async () => {
                  if (!onGame(gid, here) || writing) return;
                  const asked = undoAsked;
                  if (asked && asked.gid === gid) {  /* the undo question is about a game that is no longer so */
                    try { asked.changed = await api("GET", `/v1/games/${gid}`); } catch (e) { return; }
                    closeSheet();
                    return;
                  }
                  try {  /* shown again as it is now, with what changed in words when it is more than a round added */
                    const now = await api("GET", `/v1/games/${gid}`);
                    if (onGame(gid, here) && !writing && await lostUndoDone(gid, now)) return;
                    const said = changedText(g, now);
                    if (onGame(gid, here) && !writing) await gameView(gid, now, said ? gameNotice("Changed on another phone", said) : null);
                  } catch (e) { toast(e.message, true); }
                },
                () => {
                  if (!onGame(gid, here)) return;
                  toast(lostDelete === gid ? "Game deleted" : "This game was deleted on another phone", lostDelete !== gid);
                  location.hash = "#/";
                },
                (newer) => { if (onGame(gid, here) && newer !== g.newer_game) gameView(gid).catch(e => toast(e.message, true)); },
                () => { if (onGame(gid, here)) sayLive(); });
  /* the next game of these teams, started after this one ended (on this phone or another): said first, with its
     link; a game of other teams is another table's and not said */
  const newerLine = g.newer_game ? h("section", {class: "panel notice", id: "newer-game", role: "status"},
    h("p", {}, `${g.teams.join(" vs ")} have started a new game since this one ended.`),
    h("div", {class: "row"}, h("a", {class: "button primary", href: `#/game/${g.newer_game}`}, "Open their new game"))) : null;
  const totals = h("div", {class: "totals", id: "totals"});
  for (const t of g.teams) {
    totals.append(h("div", {class: "total" + (g.leader === t ? " lead" : ""), "data-team": t},
      h("div", {class: "name"}, t), h("div", {class: "points", "data-total": t}, pointsNode(g.totals[t])),
      g.names[t] ? h("div", {class: "muted"}, g.names[t].join(", ")) : null));
  }
  const grid = h("table", {class: "grid", "aria-label": "rounds"},
    h("thead", {}, h("tr", {}, h("th", {}, "Round"), h("th", {}, "Min"), g.teams.map(t => h("th", {}, hyphenable(t))))));
  const body = h("tbody", {});
  const running = Object.fromEntries(g.teams.map(t => [t, [0, 0]]));  /* a range while a squared book is uncounted */
  for (const r of g.rounds) {
    const said = [];  /* each team's cells in short words, for the row's name: "Us 40 (total 2,295)" */
    const cells = g.teams.map(t => {
      const ts = r.score.teams[t];
      running[t] = [running[t][0] + (ts ? ts.total_min : 0), running[t][1] + (ts ? ts.total_max : 0)];
      const [lo, hi] = running[t];
      const points = ts ? teamTotal(ts) : "0", sum = lo === hi ? fmt(lo) : `${fmt(lo)} to ${fmt(hi)}`;
      said.push(`${t} ${points} (total ${sum})`);
      return h("td", {"data-team": t}, h("span", {class: "round-points", title: `${t}: points this round`}, points), h("br"),
               h("small", {class: "muted running", title: `${t}: total after round ${r.n}`}, `total ${sum}`));
    });
    const details = h("tr", {class: "details", hidden: true},
      h("td", {colspan: String(2 + g.teams.length)}, breakdownTable(r.score, g.teams),
        /* each problem with the piles it is about, named as the check view names them (its piles' cards: {code}) */
        problemsLine(r.score.problems, r.piles.map(p => ({...p, cards: p.cards.map(code => ({code}))}))),
        h("div", {class: "row"},
          h("a", {class: "button", href: r.photo_reading ? `#/game/${gid}/check/${r.photo_reading}/${r.n}` : `#/game/${gid}/type/${r.n}`},
            `Correct round ${r.n}`),
          r.photos.length ? h("a", {class: "button", href: r.photos[0], target: "_blank"}, "The photo") : null,
          h("button", {type: "button", class: "danger", id: `undo-${r.n}`, onclick: (ev) => undoRound(g, r, ev.target)}, `Undo round ${r.n}`))));
    /* a round saved anyway with rule problems is marked in the grid, so it is found without opening each round */
    const broken = r.score.problems.filter(p => p.severity === "illegal").length;
    const flag = broken ? `${broken} rule problem${broken === 1 ? "" : "s"}` : "";
    const row = h("tr", {class: "round", tabindex: "0", role: "button", "aria-expanded": "false",
                         "aria-label": `round ${r.n}${flag ? ` (${flag})` : ""}: ${said.join(", ")}; show the breakdown`},
      h("td", {}, String(r.n), flag ? h("span", {class: "round-flag", title: flag, "aria-hidden": "true"}, " ⚠") : null),
      h("td", {}, fmt(r.minimum)), cells);
    const toggle = () => { details.hidden = !details.hidden; row.setAttribute("aria-expanded", String(!details.hidden)); };
    row.addEventListener("click", toggle);
    row.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(); } });
    body.append(row, details);
  }
  grid.append(body);
  const next = g.over
    ? h("div", {}, overText(g).map((t, k) => t && h("p", {class: k ? "over-note" : "winner", id: k ? "over-note" : null}, t)),
        h("div", {class: "row"}, h("a", {class: g.newer_game ? "button" : "button primary", id: "play-again", href: `#/new/${g.id}`}, "New game, same teams")))
    : h("p", {}, `Next: round ${g.next_round} of ${g.rounds_in_game}, opening minimum ${fmt(g.next_minimum)}` + (g.leader ? ` · ${g.leader} leads` : ""));
  show(
    h("h1", {}, g.teams.join(" vs ")), notice || null, newerLine,
    h("p", {class: "muted"}, `Rules: ${g.rules}` + (Object.keys(g.house_rules).length ? "; house rules: " +
      Object.entries(g.house_rules).map(([k, v]) => `${k.replace(/_/g, " ")} ${typeof v === "boolean" ? (v ? "on" : "off") : v === null ? "none" : Array.isArray(v) ? (v.join(", ") || "none") : v}`).join(", ") : "")),
    totals, next,
    keptCheckOffer(g),  /* a reading of the next round left unsaved on this phone (Back from its check view) */
    g.over ? null : h("div", {class: "row"}, h("a", {class: "button primary", href: `#/game/${gid}/round`, id: "score-round"},
                                            `Score round ${g.next_round}`),
                      h("a", {class: "button", href: `#/live/${gid}`, id: "watch-live"}, "Watch the table live")),
    h("div", {class: "row"}, h("button", {type: "button", id: "invite", onclick: () => inviteSheet(gid)}, "Another phone"),
      h("button", {type: "button", id: "rename-teams", onclick: () => renameSheet(g, (body) => renameTeams(g, body))}, "Rename teams")),
    g.over ? null : liveLine,
    h("h2", {id: "rounds-heading", tabindex: "-1"}, "Rounds"),
    g.rounds.length ? h("div", {class: "table-wrap"}, grid) : h("p", {class: "muted"}, "No round yet."),
    g.rounds.length ? h("p", {class: "muted", id: "rounds-hint"}, "Tap a round for its breakdown, to correct it or to undo it.",
      /* what the grid's ⚠ means, said on the page (its title shows only under a mouse) */
      g.rounds.some(r => r.score.problems.some(p => p.severity === "illegal")) ? " ⚠: saved with a rule problem." : "") : null,
    /* teaching the deck above the game's own buttons: the last of them deletes the game */
    g.teach || g.rounds.some(r => r.photo_reading) || atTeach ? teachPanel(gid, g) : null,
    h("div", {class: "row"}, h("a", {class: "button", id: "export-csv", href: `/v1/games/${gid}/export.csv`, download: "",
                                    onclick: exportCsv}, "Export CSV"),
      h("a", {class: "button", href: "#/"}, "All games"),
      h("button", {type: "button", class: "danger", id: "delete-game", onclick: async (ev) => {
        const ok = await askConfirm("Delete this game?", [`${g.teams.join(" vs ")}: its ${g.rounds.length} round` +
          `${g.rounds.length === 1 ? "" : "s"} are deleted, on every phone.`, "This cannot be taken back."], "Delete the game", null, true);
        if (!ok) return;
        setBusy(ev.target, true);
        const again = lostDelete === gid;
        lostDelete = gid;
        try { await api("DELETE", `/v1/games/${gid}`, undefined, undefined, g.version); toast("Game deleted"); location.hash = "#/"; }
        catch (e) {
          if (e.status === 404 && again) { toast("Game deleted"); location.hash = "#/"; return; }  /* asked again: done before */
          if (e.status === 412 && e.body.game) {  /* changed on another phone while the question was open: kept */
            lostDelete = null;
            toast("Not deleted: the game changed on another phone", true);
            const added = e.body.game.rounds.filter(r => r.n > g.rounds.length).map(r => r.n);  /* changedText says all else */
            const said = changedText(g, e.body.game) ||
              (added.length ? `${roundsText(added).replace(/^r/, "R")} ${added.length === 1 ? "was" : "were"} saved there.` : "");
            await gameView(gid, e.body.game, gameNotice("Nothing was deleted", "The game changed on another phone while " +
              "you were deciding to delete it." + (said ? ` ${said}` : ""), "Here it is as it is now: delete it again if you still want to."));
            focusGame();
            return;
          }
          if (e.status !== 0) lostDelete = null;  /* refused; status 0: it may be deleted, the game's events will tell */
          toast(e.message, true); setBusy(ev.target, false);
        }
      }}, "Delete the game")));
  emphasis();
  if (notice) notice.scrollIntoView({block: "center"});  /* what changed is read first, wherever the page was scrolled */
  else if (atTeach && !latest) document.getElementById("teach").scrollIntoView({block: "start"});  /* once, not on a redraw */
}

/* Export CSV pressed: the grid fetched from the server and handed to the phone as a download (its file name the
 * server's); when the server cannot be reached, or refuses, it is said in words under the button, not a download
 * that silently fails (the server's line in the header says why; once it answers again, the words say to press
 * Export CSV again). */
async function exportCsv(ev) {
  ev.preventDefault();
  const link = ev.currentTarget;
  document.getElementById("export-said")?.remove();
  const said = (text) => {  /* under the row of buttons, scrolled into sight (the line at the top pushes the page down) */
    const box = h("p", {class: "error-box", role: "alert", id: "export-said"}, text);
    link.parentElement.after(box);
    box.scrollIntoView({block: "nearest"});
  };
  let r;
  try { r = await fetch(link.href, {cache: "no-store"}); }
  catch (e) {
    hfSync.unreachable(true);
    said("Not exported: Export CSV needs the handfoot server, and this phone cannot reach it now (the line at the " +
         "top says why). Press Export CSV again once that line has gone.");
    const back = () => {
      document.removeEventListener("handfoot-reachable", back);
      const box = document.getElementById("export-said");
      if (box) box.textContent = "Not exported yet. The handfoot server answers again: press Export CSV now.";
    };
    document.addEventListener("handfoot-reachable", back);
    return;
  }
  hfSync.back();
  if (!r.ok) { said(`Not exported: ${(await r.json().catch(() => ({}))).error || `the server answered ${r.status}`}.`); return; }
  const name = /filename="([^"]+)"/.exec(r.headers.get("content-disposition") || "");
  const file = h("a", {href: URL.createObjectURL(await r.blob()), download: name ? name[1] : "handfoot.csv", hidden: true});
  document.body.append(file);
  file.click();
  file.remove();
  setTimeout(() => URL.revokeObjectURL(file.href), 60000);
}

/* The teams of game g named as `body` says ({teams, names}: the rename sheet's), sent with the version this phone
 * shows: done, the game is drawn with the new names; another phone's change meanwhile (412) closes the sheet and
 * shows the game as it is now, nothing renamed; any other refusal is thrown for the sheet to say. */
async function renameTeams(g, body) {
  writing++;
  try {
    const after = await api("PUT", `/v1/games/${g.id}/teams`, body, hfSync.newKey(), g.version);
    closeSheet();
    toast("Teams renamed");
    await gameView(g.id, after);
  } catch (e) {
    if (e.status !== 412 || !e.body.game) throw e;
    closeSheet();
    const said = changedText(g, e.body.game);
    await gameView(g.id, e.body.game, gameNotice("Not renamed", "The game changed on another phone while you were " +
      "renaming its teams." + (said ? ` ${said}` : ""), "Here it is as it is now: rename again if you still want to."));
  } finally { writing--; }
}

/* Undo round r of game g, asked first. A round in the middle: the question names each later round that moves up and
 * its opening minimum before and after, and offers correcting the round instead. The DELETE carries the version the
 * question was about: a change made meanwhile on another phone ends the question (or is refused 412), and the game
 * view says so and shows the game as it is now; no other round is undone. */
async function undoRound(g, r, button) {
  const gid = g.id;
  const later = g.rounds.filter(x => x.n > r.n);
  const scores = g.teams.map(t => `${t} ${r.score.teams[t] ? teamTotal(r.score.teams[t]) : "0"}`).join(" · ");
  const lines = [`Its score (${scores}) is taken off the totals.`];
  const correct = h("a", {class: "button primary", id: "undo-correct-instead",
                          href: r.photo_reading ? `#/game/${gid}/check/${r.photo_reading}/${r.n}` : `#/game/${gid}/type/${r.n}`},
                    `Correct round ${r.n} instead`);
  if (later.length) {
    const last = g.rounds.length;
    lines.push(later.length === 1 ? "Then the round after it moves up one, scored from then on under its new round's opening minimum:"
                                 : "Then the rounds after it move up one, each scored from then on under its new round's opening minimum:",
      h("ul", {id: "undo-moves"}, later.map(x => h("li", {}, `round ${x.n} becomes round ${x.n - 1}: opening minimum ` +
        `${fmt(x.minimum)} → ${fmt(g.rounds[x.n - 2].minimum)}`))),
      `The next round is then round ${last} (opening minimum ${fmt(g.rounds[last - 1].minimum)})` +
        (g.over ? ": the game is no longer over." : `, not round ${g.next_round}.`),
      `Undo it only if round ${r.n} was never played here (the same round saved twice, another table's photo). ` +
        "If it was played but read or typed wrong, correct it instead: the rounds after it stay as they are.");
  }
  lines.push("This cannot be taken back.");
  const question = {gid, n: r.n, version: g.version, changed: null};
  undoAsked = question;
  const ok = await askConfirm(`Undo round ${r.n}?`, lines,
    later.length ? `Undo round ${r.n}, move ${roundsText(later.map(x => x.n))} up` : `Undo round ${r.n}`, later.length ? correct : null, true);
  if (undoAsked === question) undoAsked = null;
  if (question.changed && await lostUndoDone(gid, question.changed)) { focusGame(); return; }  /* asked again: done before */
  if (question.changed) {  /* another phone changed the game while the question was open: nothing undone */
    const said = changedText(g, question.changed);
    await gameView(gid, question.changed, gameNotice("Nothing was undone", `The game changed on another phone while you ` +
      `were deciding about round ${r.n}.` + (said ? ` ${said}` : ""), "Here it is as it is now: undo again if you still want to."));
    focusGame();
    return;
  }
  if (!ok) return;
  setBusy(button, true);
  writing++;
  try {
    const after = await api("DELETE", `/v1/games/${gid}/rounds/${r.n}`, undefined, undefined, g.version);
    lostUndo = null;
    toast(`Round ${r.n} undone`);
    await gameView(gid, after, undoneNotice(r, later, after));
    focusGame();
  } catch (e) {
    if (e.status === 412 && e.body.game && await lostUndoDone(gid, e.body.game)) focusGame();  /* this phone's lost undo */
    else if (e.status === 412 && e.body.game) {  /* another phone changed the game: show it as it is now */
      toast("Not undone: the game changed on another phone", true);
      const said = changedText(g, e.body.game);
      await gameView(gid, e.body.game, gameNotice("Nothing was undone", "The game changed on another phone while you were " +
        `deciding about round ${r.n}.` + (said ? ` ${said}` : ""), "Here it is as it is now: undo again if you still want to."));
      focusGame();
    } else {
      if (e.status === 0) lostUndo = {gid, before: g, r, later};  /* it may have arrived: the game will tell */
      toast(e.message, true); setBusy(button, false);
    }
  } finally { writing--; }
}
/* The game page drawn anew (a round undone, or not): the focus on its notice, else on its Rounds heading. */
function focusGame() { focusOn(document.getElementById("game-notice") || document.getElementById("rounds-heading")); }
