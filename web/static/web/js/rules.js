// "How to play" (/rules/): the rules of Chicken Foot as this server plays them, with
// pictures drawn by the client's own board (js/board.js): the spinner, its arms, a
// chicken foot, and how a hand is scored.
//
// The text is a document, written whole in each language (RULES below: "en", "et");
// the page's language (<html lang>, js/i18n.js) picks one, English when there is none.
// Its headings and the pictures' captions come with it. The page's own chrome goes
// through gettext like every other page.
//
// Test hooks: #rules (the <article>, data-lang), figures figure[data-figure="spinner" |
// "arms" | "foot" | "scoring"], each holding a board's svg[data-testid=board-svg] or,
// for scoring, tiles svg.cf-domino.

import { drawBoard, drawTile } from "./board.js";
import { gettext, language } from "./i18n.js";
import { layoutFromEvents } from "./layout.js";
import { h, link, replaceChildren, setTitle } from "./ui.js";

// -- the pictures: layouts built from events, as a game's are ---------------------------

const SPINNER = [
  { type: "round_started", data: { round: 1 } },
  { type: "spinner_placed", data: { tile: "6-6", seat: 0, arms: ["e1", "e2", "e3", "e4"] } },
];
const ARMS = [
  ...SPINNER,
  { type: "tile_played", data: { tile: "6-4", end: "e1", outer: 4, seat: 1, new_ends: ["e5"] } },
  { type: "tile_played", data: { tile: "6-2", end: "e2", outer: 2, seat: 2, new_ends: ["e6"] } },
  { type: "tile_played", data: { tile: "6-1", end: "e3", outer: 1, seat: 3, new_ends: ["e7"] } },
  { type: "tile_played", data: { tile: "6-5", end: "e4", outer: 5, seat: 0, new_ends: ["e8"] } },
  { type: "tile_played", data: { tile: "4-3", end: "e5", outer: 3, seat: 1, new_ends: ["e9"] } },
];
const FOOT = [
  ...ARMS,
  { type: "tile_played", data: { tile: "5-5", end: "e8", outer: 5, seat: 2, new_ends: ["e10", "e11", "e12"] } },
  { type: "tile_played", data: { tile: "5-3", end: "e10", outer: 3, seat: 3, new_ends: ["e13"] } },
  { type: "tile_played", data: { tile: "5-0", end: "e11", outer: 0, seat: 0, new_ends: ["e14"] } },
];
const SCORED_HAND = ["4-3", "0-0", "2-1"];

// -- the text, in each language ------------------------------------------------------------

const RULES = {
  en: {
    title: "How to play Chicken Foot",
    intro: "Chicken Foot is a domino game for 2 to 14 players. The aim: the fewest points when the last hand ends.",
    sections: [
      ["The tiles and the deal", [
        "A game uses one double-N set: double-6, 9, 12, 15 or 18 (double-9, 55 tiles, unless the table says otherwise). Each player gets a hand of tiles, face down; the rest is the boneyard (the chicken yard).",
        "A match has one hand per double, from the highest down to the double-blank: a double-9 match has 10 hands (9-9, 8-8 ... 0-0), unless the table plays fewer.",
      ]],
      ["The spinner", [
        "The player holding the hand's starting double places it in the middle: it is the spinner. If nobody holds it, players draw from the boneyard in turn until someone does. Play then goes clockwise from the next player.",
      ], "spinner"],
      ["The arms", [
        "The spinner takes 4 tiles (6 at some tables), one on each arm, before anything else may be played. A tile goes on an open end whose number it shows: a 6-4 goes on a 6 and then shows its 4.",
      ], "arms"],
      ["The chicken foot", [
        "Whenever a double is played, it is laid crosswise and opens a chicken foot: the next three tiles, whoever plays them, must be its toes, each showing the double's number. Only when all three toes are in place is play free again, on any open end.",
        "Playing a double gives no extra turn. Only one foot is open at a time.",
      ], "foot"],
      ["Your turn", [
        "If you can play a tile, you must. If you cannot, draw one tile from the boneyard: if it fits you may play it at once (or pass); if it does not, your turn ends. With an empty boneyard, a player who cannot play passes.",
      ]],
      ["The end of a hand and the score", [
        "A hand ends when a player plays their last tile, or when nobody can play and the boneyard is empty (a blocked hand). Every player scores the pips left in their hand; the double-blank counts 50; a player who went out scores 0.",
      ], "scoring"],
      ["Who wins", [
        "After the last hand, the lowest total wins. On a tie, the most hands with zero points wins; then the smallest non-zero hand score; after that the win is shared.",
        "Everyone sees the board, the number of tiles in each hand, the boneyard's size and every score, never another player's tiles. When a hand ends, all hands are shown.",
      ]],
    ],
    captions: {
      spinner: "The spinner (here the 6-6) with its four empty arms.",
      arms: "Every arm filled: now any open end may be played. The 4-3 went on the 4 end of arm 1.",
      foot: "The 5-5 opened a chicken foot on arm 4: two toes are in place, the third must come before anything else.",
      scoring: "Left in a hand at the end: 4-3, 0-0 and 2-1 score 7 + 50 + 3 = 60 points.",
    },
  },
  et: {
    title: "Kuidas mängida kanajalga",
    intro: "Kanajalg on doominomäng 2 kuni 14 mängijale. Eesmärk: viimase vooru lõpuks kõige vähem punkte.",
    sections: [
      ["Doominod ja jagamine", [
        "Mängitakse ühe topelt-N komplektiga: topelt-6, 9, 12, 15 või 18 (kui laud ei ütle teisiti, topelt-üheksa, 55 plaati). Iga mängija saab käe plaate, pilt allapoole; ülejäänud plaadid on kanaaed.",
        "Mängus on üks voor iga topeltplaadi kohta, suurimast kuni topelt-tühjani: topelt-üheksa mängus on 10 vooru (9-9, 8-8 ... 0-0), kui laud ei mängi vähem.",
      ]],
      ["Stardiplaat", [
        "Vooru stardiplaadi omanik paneb selle keskele. Kui see pole kellelgi käes, võtavad mängijad kordamööda kanaaiast plaate, kuni keegi selle saab. Edasi käiakse päripäeva, alustab järgmine mängija.",
      ], "spinner"],
      ["Harud", [
        "Stardiplaadile tuleb enne kõike muud panna 4 plaati (mõnes lauas 6), üks igale harule. Plaat käib lahtisele otsale, mille numbrit see näitab: 6-4 käib 6 otsa ja näitab siis välja 4.",
      ], "arms"],
      ["Kanajalg", [
        "Kui mängitakse topeltplaat, pannakse see risti ja see avab kanajala: järgmised kolm plaati, ükskõik kes neid käib, peavad olema selle kanavarbad, igaüks topeltplaadi numbriga. Alles kui kõik kolm varvast on paigas, võib jälle käia ükskõik millisele lahtisele otsale.",
        "Topeltplaat ei anna lisakäiku. Korraga saab lahti olla ainult üks kanajalg.",
      ], "foot"],
      ["Sinu käik", [
        "Kui saad plaadi käia, pead käima. Kui ei saa, võta kanaaiast üks plaat: kui see sobib, võid selle kohe käia (või jätta käigu vahele); kui ei sobi, läheb käik edasi. Kui kanaaed on tühi, jätab mängija, kes ei saa käia, käigu vahele.",
      ]],
      ["Vooru lõpp ja punktid", [
        "Voor lõpeb, kui mängija käib oma viimase plaadi või kui keegi ei saa käia ja kanaaed on tühi (voor on blokeeritud). Iga mängija saab punkte käes olevate plaatide silmade eest; topelt-tühi annab 50; välja läinud mängija saab 0.",
      ], "scoring"],
      ["Kes võidab", [
        "Pärast viimast vooru võidab väikseim punktisumma. Viigi korral võidab see, kellel on rohkem nullpunktiga voore; siis see, kelle väikseim nullist suurem vooru tulemus on väiksem; edasi jagatakse võitu.",
        "Kõik näevad lauda, iga mängija plaatide arvu, kanaaia suurust ja kõiki punkte, aga mitte teiste plaate. Vooru lõpus näidatakse kõik käed.",
      ]],
    ],
    captions: {
      spinner: "Stardiplaat (siin 6-6) nelja tühja haruga.",
      arms: "Kõik harud on täis: nüüd võib käia igale lahtisele otsale. 4-3 läks 1. haru 4 otsa.",
      foot: "5-5 avas 4. harul kanajala: kaks varvast on paigas, kolmas peab tulema enne kõike muud.",
      scoring: "Vooru lõpus käes: 4-3, 0-0 ja 2-1 annavad 7 + 50 + 3 = 60 punkti.",
    },
  },
};

/** The rules' text in the page's language (English when it has none). */
export function rulesText(lang = language()) {
  const base = String(lang || "en").toLowerCase().split("-")[0];
  return RULES[base] ? { lang: base, ...RULES[base] } : { lang: "en", ...RULES.en };
}

function boardFigure(name, events, caption) {
  const box = h("div", { class: "rules-board cf-board" });
  const figure = h("figure", { class: "rules-figure", "data-figure": name }, box, h("figcaption", {}, caption));
  const built = layoutFromEvents(events);
  drawBoard(box, built.layout, { lastTile: built.lastTile ? built.lastTile.tile : null, playableEnds: new Set(), minScale: 0, label: caption });
  return figure;
}

function scoringFigure(caption) {
  const tiles = SCORED_HAND.map((tile) => drawTile(tile, { vertical: true, label: tile }));
  return h("figure", { class: "rules-figure", "data-figure": "scoring" }, h("div", { class: "rules-hand" }, ...tiles), h("figcaption", {}, caption));
}

export function renderRules(root) {
  const text = rulesText();
  setTitle(text.title);
  const figures = {
    spinner: () => boardFigure("spinner", SPINNER, text.captions.spinner),
    arms: () => boardFigure("arms", ARMS, text.captions.arms),
    foot: () => boardFigure("foot", FOOT, text.captions.foot),
    scoring: () => scoringFigure(text.captions.scoring),
  };
  const article = h(
    "article",
    { id: "rules", class: "panel rules", lang: text.lang, "data-lang": text.lang },
    h("h1", {}, text.title),
    h("p", { class: "rules-intro" }, text.intro),
    ...text.sections.map(([heading, paragraphs, figure]) =>
      h("section", { class: "rules-section" }, h("h2", {}, heading), ...paragraphs.map((p) => h("p", {}, p)), figure ? figures[figure]() : null),
    ),
    h("p", {}, link("/", gettext("Back to the lobby"))),
  );
  replaceChildren(root, article);
  return undefined;
}
