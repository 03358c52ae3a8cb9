/* A typed round's text (typed.js): the card codes in a box, the boxes of a saved layout as text, the boxes changed,
 * and the server's message about a typed layout in a family's words. Pure functions of text and layouts. */

/* The card codes in a line of text ("KH, ks 10d" -> ["KH", "KS", "10D"]); the server names a wrong one. */
export function codesIn(text) { return String(text).toUpperCase().split(/[\s,;]+/).filter(Boolean); }

/* The server's message about a typed layout (scorer.layout: up to three wrong places, "; " between, then "(and N
 * more problems)": "teams.Us.melds[1][2]: unknown card code 'QX': expected …; teams.Us.left[0][3]: …") in a
 * family's words: each place named by its team, box and line ("Us, melds and fanned books, line 2: unknown card code
 * 'QX'"), an explanation the next place of the same box repeats said once, after the last of them. `lineOf(team, k)`: the line of
 * the melds box that the layout's meld k was typed on (default k + 1). Returns {text: the whole message so said,
 * places: [{team, field, text}] (each part of it: team and field, a key of FIELDS, only where it is a box's)}. */
export const FIELDS = {melds: "Melds and fanned books", squared_books: "Squared books", red_threes: "Red threes", left: "Cards still held"};
export function placesOf(message, teams, lineOf = (team, k) => k + 1) {
  const more = / \(and (\d+) more problems?\)$/.exec(message);
  const parts = (more ? message.slice(0, more.index) : message).split(/; (?=teams\.)/).map(part => {
    const t = teams.find(t => part.startsWith(`teams.${t}.`));
    const m = t && /^(\w+)(?:\[(\d+)\])?[^:]*: (.*)$/s.exec(part.slice(`teams.${t}.`.length));
    if (!m || !FIELDS[m[1]]) return {text: part};
    const line = m[1] === "melds" && m[2] !== undefined ? `, line ${lineOf(t, +m[2])}` : "";
    const where = `${t}, ${FIELDS[m[1]].toLowerCase()}${line}`;
    return {team: t, field: m[1], where, text: `${where}: ${m[3]}`};
  });
  const why = (p) => (/: expected .*$/s.exec(p.text) || [""])[0];
  parts.forEach((p, k) => {
    const next = parts[k + 1];
    if (next && p.field && next.team === p.team && next.field === p.field && why(p) && why(p) === why(next)) p.text = p.text.slice(0, -why(p).length);
  });
  /* wrong codes on one line said together ("line 4: unknown card codes 'QX' and '1H': expected …") */
  const wrong = (p) => /^.*?: unknown card codes? ('[^']*'(?:(?:, | and )'[^']*')*)(.*)$/s.exec(p.text);
  const listed = (codes) => codes.length > 1 ? `codes ${codes.slice(0, -1).join(", ")} and ${codes[codes.length - 1]}` : `code ${codes[0]}`;
  for (let k = parts.length - 1; k > 0; k--) {
    const [p, next] = [parts[k - 1], parts[k]];
    const a = p.where && p.where === next.where && wrong(p), b = a && !a[2] && wrong(next);
    if (!b) continue;
    p.text = `${p.where}: unknown card ${listed([a[1], b[1]].flatMap(s => s.match(/'[^']*'/g)))}${b[2]}`;
    parts.splice(k, 1);
  }
  if (more) parts[parts.length - 1].text += ` (and ${more[1]} more problem${more[1] === "1" ? "" : "s"}, named once these are put right)`;
  return {text: parts.map(p => p.text).join("; "), places: parts};
}

/* The text of each box of the form for the saved layout `layout` ({teams: {team: {melds, squared_books,
 * red_threes, left}}}) of a game of `teams`: {team: {melds: one line a meld, squared_books: the top cards, …}}. */
export function fieldsOf(layout, teams) {
  const out = {};
  for (const t of teams) {
    const side = (layout && layout.teams && layout.teams[t]) || {};
    out[t] = {melds: (side.melds || []).map(m => m.join(" ")).join("\n"),
              squared_books: (side.squared_books || []).map(b => b.top).join(" "),
              red_threes: (side.red_threes || []).join(" "), left: (side.left || []).flat().join(" ")};
  }
  return out;
}
/* A box's text as the cards it names, so that the same cards typed otherwise (case, commas, spaces) are the same. */
export function cardsOf(name, text) {
  return name === "melds" ? String(text).split("\n").map(codesIn).filter(l => l.length).map(l => l.join(" ")).join("\n")
                          : codesIn(text).join(" ");
}
/* The boxes of `fields` (fieldsOf's shape) whose cards differ from `base`'s: [{team, name}]. */
export function boxesChanged(fields, base) {
  return Object.keys(fields).flatMap(t => Object.keys(FIELDS).filter(name =>
    cardsOf(name, fields[t][name] || "") !== cardsOf(name, (base[t] || {})[name] || "")).map(name => ({team: t, name})));
}
